// SPDX-License-Identifier: GPL-2.0
/*
 * Reference programs for the per-hit cost, attached next to pktpath's on the
 * same tracepoint so that they see the same hits in the same run:
 *
 *   pb_empty   returns at once: what kernel.bpf_stats_enabled itself adds
 *              to run_time_ns (two sched_clock() reads, the indirect call
 *              into the program and its return) with no work at all
 *   pb_gate    pktpath's own gate (pp_hop_gate() in bpf/record.bpf.h, as
 *              bpf/probes.bpf.c's hop programs run it), on maps of this
 *              object where nothing is ever in flight: what every untracked
 *              hit in pktpath runs
 *   pb_inline  the same gate with the recording inlined into the program
 *              (pp_record_hop()), as the hop programs were before they
 *              called it as a subprogram: an untracked hit then also paid
 *              the large program's prologue
 *   pb_lookup  the skb_map lookup without the gate (a miss on an empty hash
 *              map): what each hit costs while the gate is open, and what
 *              a tracer without a gate pays on every hit
 *
 * the gate twins of bench/host_cost.sh (hop_floor -g), one per hook pktpath
 * holds, all on one set of maps as pktpath's programs are:
 *
 *   pb_gate1..5  the gate on the skb at argument N (ctx[N - 1]), as
 *                pktpath's pp_tpN reads it, and past it (never taken) the
 *                recording as a subprogram: on consume_skb, kfree_skb and
 *                sock_recv_length, the least any program with an
 *                in-flight gate runs where pktpath runs more
 *   pb_gate_raw  the same on the slab's raw tracepoints: the object
 *                (args[1]) tested, then the gate; the cache (args[2]) is
 *                read past it, where pktpath's kmem_cache_alloc and
 *                kmem_cache_free programs test it
 *
 * and the parts of a tracked hit, which records a hop:
 *
 *   pb_ring    a ring-buffer reserve and discard without a wakeup: the
 *              ring's own cost per record
 *   pb_reads   the fields of a hop read as pp_fill_hop() reads them on the
 *              kprobe backends: one BPF_CORE_READ (a bpf_probe_read_kernel()
 *              call) per field, and helpers for the time, CPU, pid, device
 *              name and comm
 *   pb_direct  the same fields by direct loads, as pp_fill_hop() reads them
 *              on tp_btf and fentry: the skb is BTF-typed there, so the
 *              verifier lets the program dereference it and the JIT inlines
 *              each load, with no helper call
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "record.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Every program here reads the skb from the first argument. */
SEC("tp_btf")
int pb_empty(__u64 *ctx)
{
	return 0;
}

SEC("tp_btf")
int pb_gate(__u64 *ctx)
{
	return pp_hop_gate(ctx[0]) ? pp_on_btf_hop(ctx, ctx[0], 0) : 0;
}

/*
 * Probed reads past the gate (pp_on_hop()): the argument may be a socket
 * (sock_recv_length), which the BTF-typed loads of pp_on_btf_hop() would
 * read as an skb. Nothing is in flight here, so that call is never made.
 */
#define PB_GATE_AT(N)                                                                              \
	SEC("tp_btf")                                                                              \
	int pb_gate##N(__u64 *ctx)                                                                 \
	{                                                                                          \
		return pp_hop_gate(ctx[N - 1]) ? pp_on_hop(ctx, ctx[N - 1], 0) : 0;                \
	}

PB_GATE_AT(1)
PB_GATE_AT(2)
PB_GATE_AT(3)
PB_GATE_AT(4)
PB_GATE_AT(5)

SEC("raw_tp")
int pb_gate_raw(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 obj = ctx->args[1];

	return pp_hop_gate(obj) ? pp_on_hop(ctx, obj, ctx->args[2]) : 0;
}

SEC("tp_btf")
int pb_inline(__u64 *ctx)
{
	return pp_record_hop(ctx, ctx[0], 0, PP_VIA_BTF);
}

SEC("tp_btf")
int pb_lookup(__u64 *ctx)
{
	__u64 skb = ctx[0];
	struct pp_skb_val *v;

	if (!skb)
		return 0;
	v = bpf_map_lookup_elem(&skb_map, &skb);
	/* Never taken (the map stays empty); keeps the lookup from being dropped. */
	if (v)
		__sync_fetch_and_add(&v->lost, 1);
	return 0;
}

/* Where pb_reads and pb_direct put what they read: one hop per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pp_hop);
} pb_scratch SEC(".maps");

static __always_inline struct pp_hop *pb_hop(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&pb_scratch, &zero);
}

SEC("tp_btf")
int pb_ring(__u64 *ctx)
{
	struct pp_hop *h = bpf_ringbuf_reserve(&path_map, sizeof(*h), 0);

	if (h)
		bpf_ringbuf_discard(h, BPF_RB_NO_WAKEUP);
	return 0;
}

SEC("tp_btf")
int pb_reads(__u64 *ctx)
{
	struct sk_buff *skb = (struct sk_buff *)ctx[0];
	struct pp_hop *h = pb_hop();
	struct net_device *dev;

	if (!skb || !h)
		return 0;
	dev = BPF_CORE_READ(skb, dev);
	h->ts = bpf_ktime_get_ns();
	h->cpu = bpf_get_smp_processor_id();
	h->netns = dev ? BPF_CORE_READ(dev, nd_net.net, ns.inum) : 0;
	h->ifindex = dev ? BPF_CORE_READ(dev, ifindex) : 0;
	h->pid = bpf_get_current_pid_tgid() >> 32;
	h->len = BPF_CORE_READ(skb, len);
	if (!dev || bpf_probe_read_kernel_str(h->ifname, sizeof(h->ifname), dev->name) < 0)
		h->ifname[0] = 0;
	bpf_get_current_comm(h->comm, sizeof(h->comm));
	return 0;
}

SEC("tp_btf")
int pb_direct(__u64 *ctx)
{
	struct sk_buff *skb = (struct sk_buff *)ctx[0];
	struct pp_hop *h = pb_hop();
	struct net_device *dev;

	if (!skb || !h)
		return 0;
	dev = skb->dev;
	h->ts = bpf_ktime_get_ns();
	h->cpu = bpf_get_smp_processor_id();
	h->netns = dev ? dev->nd_net.net->ns.inum : 0;
	h->ifindex = dev ? dev->ifindex : 0;
	h->pid = bpf_get_current_pid_tgid() >> 32;
	h->len = skb->len;
	if (dev)
		__builtin_memcpy(h->ifname, dev->name, sizeof(h->ifname));
	else
		h->ifname[0] = 0;
	bpf_get_current_comm(h->comm, sizeof(h->comm));
	return 0;
}
