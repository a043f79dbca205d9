/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hop records: what a tracked packet's record on the ring says (the
 * probe, time, CPU, device, the queue it left, the stack, the send call
 * that made it), how it is submitted, and the ring's losses counted.
 */
#ifndef PP_HOP_BPF_H
#define PP_HOP_BPF_H

#include "gate.bpf.h"

/*
 * The classifier does not record the current process, as TC programs may not
 * call the task helpers before Linux 6.10 or so (and in TC the task is
 * mostly whoever the softirq interrupted).
 */
static __always_inline void pp_fill_hop(struct pp_hop *h, __u32 type, __u32 probe, __u64 id,
					struct sk_buff *skb, const enum pp_via via)
{
	struct net_device *dev = pp_skb_dev(skb, via);
	const bool task = via != PP_VIA_TC;

	h->type = type;
	h->probe = probe;
	h->id = id;
	h->ts = bpf_ktime_get_ns();
	h->skb = (__u64)skb;
	h->location = 0;
	h->cpu = bpf_get_smp_processor_id();
	h->netns = pp_netns(skb, dev, via);
	h->ifindex = dev ? PP_READ(via, dev, ifindex) : 0;
	h->pid = task ? bpf_get_current_pid_tgid() >> 32 : 0;
	h->fate = PP_FATE_NONE;
	h->reason = 0;
	h->len = PP_READ(via, skb, len);
	h->lost = 0;
	h->flags = 0;
	h->stack = 0;
	h->caller = 0;
	h->out_ifindex = 0;
	h->out_mtu = 0;
	h->sock_ino = 0;
	pp_ifname(h->ifname, dev, via);
	if (task)
		bpf_get_current_comm(h->comm, sizeof(h->comm));
	else
		h->comm[0] = 0;
}

/* A full ring buffer loses the record, never silently. */
static __always_inline void pp_count_lost(struct pp_state *st, struct pp_skb_val *v, __u32 probe)
{
	__u64 *n = bpf_map_lookup_elem(&lost_map, &probe);

	if (n)
		__sync_fetch_and_add(n, 1);
	__sync_fetch_and_add(&st->ring_lost, 1);
	if (v)
		__sync_fetch_and_add(&v->lost, 1);
}

/* The ring's fill at which a mark wakes the loader: 1/8 of its size. */
#define PP_WAKE_SHARE 8

/*
 * Wakeups on demand. A submit that wakes the loader queues an irq_work,
 * some microseconds in a VM, paid by the traced packet; by default every
 * submit that finds the loader caught up does that, which is most of them.
 * The loader polls with a short timeout while anything is in flight
 * (loader/cmd/trace.c), so a record needs to wake it only
 *   - when it sleeps with nothing in flight: the record is then a new
 *     packet's mark, and pp_track() raised inflight before this read, so
 *     either the loader saw that or this sees its flag;
 *   - when the ring is filling. Marks alone look: each query is a helper
 *     call, some 35 ns, more where the loader is writing the consumer
 *     position, and a packet's own records fill little of the 7/8 left
 *     (8 MiB by default: the 1 MiB mark is some 9000 hops).
 * The ring's own size, not a setting: --ring-size applies as it is.
 */
static __always_inline __u64 pp_wake_flags(struct pp_state *st, const bool mark)
{
	__u64 size;

	if (READ_ONCE(st->loader_asleep)) {
		st->loader_asleep = 0; /* one wakeup is enough */
		return BPF_RB_FORCE_WAKEUP;
	}
	if (!mark)
		return BPF_RB_NO_WAKEUP;
	size = bpf_ringbuf_query(&path_map, BPF_RB_RING_SIZE);
	if (bpf_ringbuf_query(&path_map, BPF_RB_AVAIL_DATA) >= size / PP_WAKE_SHARE)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

/* A HOP or END record. */
static __always_inline void pp_submit(struct pp_state *st, void *rec)
{
	bpf_ringbuf_submit(rec, pp_wake_flags(st, false));
}

/* A MARK record: a new packet's first. */
static __always_inline void pp_submit_mark(struct pp_state *st, void *rec)
{
	bpf_ringbuf_submit(rec, pp_wake_flags(st, true));
}

/*
 * A HOP (or COPY: the skb it came from in PARENT, last seen alive AGE ns
 * before: pp_hop.parent_age) record of V (SKB); STACK: pp_hop.stack.
 */
static __always_inline void pp_emit_rec(struct pp_state *st, struct pp_skb_val *v, __u32 type,
					__u32 probe, struct sk_buff *skb, __u64 parent, __u64 age,
					__u32 stack, __u32 flags, const enum pp_via via)
{
	struct pp_hop *h = bpf_ringbuf_reserve(&path_map, sizeof(*h), 0);

	if (!h) {
		pp_count_lost(st, v, probe);
		return;
	}
	pp_fill_hop(h, type, probe, v->id, skb, via);
	h->location = parent;
	h->parent_age = age;
	h->stack = stack;
	h->flags = flags;
	pp_submit(st, h);
}

static __always_inline void pp_emit_hop_flags(struct pp_state *st, struct pp_skb_val *v, __u32 type,
					      __u32 probe, struct sk_buff *skb, __u64 parent,
					      __u32 stack, __u32 flags, const enum pp_via via)
{
	pp_emit_rec(st, v, type, probe, skb, parent, 0, stack, flags, via);
}

static __always_inline void pp_emit_hop(struct pp_state *st, struct pp_skb_val *v, __u32 type,
					__u32 probe, struct sk_buff *skb, __u64 parent, __u32 stack,
					const enum pp_via via)
{
	pp_emit_hop_flags(st, v, type, probe, skb, parent, stack, 0, via);
}

/* SKB's device as pp_skb_val.qdev keeps it: never 0 for a device. */
static __always_inline __u32 pp_qdev_of(struct sk_buff *skb, const enum pp_via via)
{
	struct net_device *dev = pp_skb_dev(skb, via);

	if (!dev)
		return 0;
	return (PP_READ(via, dev, ifindex) ^ pp_netns(skb, dev, via) << 16) | 1U << 31;
}

/*
 * A hop of V (SKB) after a qdisc took it: the enqueue (QUEUES) notes the
 * device; any hop on that device (the dequeue, the transmit, a kprobe on
 * the way out) shows that the packet left the queue there. A hop elsewhere
 * first (another device's enqueue included), or its end, means the
 * packet left the device unseen: the hops between were not recorded
 * (PP_HOP_GAP), and that record says so. Only packets that a qdisc took
 * pay the device read.
 */
static __always_inline __u32 pp_queue_left(struct pp_skb_val *v, struct sk_buff *skb, bool queues,
					   const enum pp_via via)
{
	__u32 here, was = v->qdev, gap = 0;

	/* Seen where no record is sent (pp_queue_note()): this one says it. */
	if (v->flags & PP_SKB_GAP) {
		v->flags &= ~PP_SKB_GAP;
		gap = PP_HOP_GAP;
	}
	if (!queues && !was)
		return gap;
	here = pp_qdev_of(skb, via);
	v->qdev = queues ? here : 0;
	return was && here != was ? PP_HOP_GAP : gap;
}

/* The sock behind file descriptor FD of the current task, or 0. */
static __always_inline __u64 pp_fd_sock(__u64 fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct file **fds = BPF_CORE_READ(task, files, fdt, fd), *file = NULL;
	struct socket *sock;

	if (fd > 65535 || bpf_probe_read_kernel(&file, sizeof(file), fds + fd) || !file)
		return 0;
	sock = BPF_CORE_READ(file, private_data);
	return sock ? (__u64)BPF_CORE_READ(sock, sk) : 0;
}

/*
 * A packet this host sends starts in the thread's send call: the first probe
 * that sees it in process context (on its way down from the socket, marked
 * at TC egress or ip_output) looks for that call in send_map, once, and
 * records it as the packet's first hop, at the time the call began, if the
 * call sends on the packet's own socket (skb->sk): a packet sent from
 * softirq while another thread is in a send call (TCP's ACK-clocked
 * segments, a forwarded packet) is not that call's.
 */
static __always_inline void pp_send_start(struct pp_state *st, struct pp_skb_val *v,
					  struct sk_buff *skb, const enum pp_via via)
{
	__u64 tid = bpf_get_current_pid_tgid(), sk;
	struct pp_send_val *t;
	struct pp_hop *h;

	v->flags |= PP_SKB_SEND_LOOKED;
	/* Marked at a TC ingress hook: received, not sent. */
	if (v->tc_hook[0] && !(v->tc_hook[0] & 1))
		return;
	t = bpf_map_lookup_elem(&send_map, &tid);
	if (!t || t->ts > v->first_ts || v->first_ts - t->ts > READ_ONCE(st->orphan_ns))
		return;
	sk = (__u64)PP_READ(via, skb, sk);
	if (!sk || pp_fd_sock(t->fd) != sk)
		return;
	h = bpf_ringbuf_reserve(&path_map, sizeof(*h), 0);
	if (!h) {
		pp_count_lost(st, v, PP_PROBE_SEND);
		return;
	}
	pp_fill_hop(h, PP_REC_HOP, PP_PROBE_SEND, v->id, skb, via);
	/* Not yet on a device: the call was in the socket's namespace. */
	h->ts = t->ts;
	h->ifindex = 0;
	h->ifname[0] = 0;
	pp_submit(st, h);
}

/*
 * --stack: the current kernel stack's id in stack_map, plus 1; 0 if not
 * kept. A kprobe's stack starts at the probed function (its registers); a
 * tp_btf or fentry program's at itself: the frames of pp_on_btf_hop(), of
 * the program that called it and of the program's caller (bpf_trace_run,
 * the trampoline) are skipped.
 */
static __always_inline __u32 pp_stack(void *ctx, const enum pp_via via)
{
	long id = bpf_get_stackid(ctx, &stack_map, via == PP_VIA_BTF ? 3 : 0);

	return id < 0 ? 0 : (__u32)id + 1;
}

#endif
