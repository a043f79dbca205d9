/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one "record a hop" core that every program shares: the classifier,
 * kprobe, kprobe.multi, fentry and tracepoint entry points are thin wrappers.
 */
#ifndef PP_RECORD_BPF_H
#define PP_RECORD_BPF_H

#include <bpf/bpf_endian.h>
#include "maps.bpf.h"

#ifndef READ_ONCE
#define READ_ONCE(x) (*(volatile typeof(x) *)&(x))
#endif

static __always_inline struct pp_state *pp_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&state_map, &zero);
}

static __always_inline __u32 pp_netns(struct sk_buff *skb, struct net_device *dev)
{
	struct sock *sk;

	if (dev)
		return BPF_CORE_READ(dev, nd_net.net, ns.inum);
	/* On the way down from a socket the skb has no device yet. */
	sk = BPF_CORE_READ(skb, sk);
	return sk ? BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum) : 0;
}

/*
 * TASK: record the current process. Probes do; the classifier does not, as
 * TC programs may not call the task helpers before Linux 6.10 or so (and
 * in TC the task is mostly whoever the softirq interrupted).
 */
static __always_inline void pp_fill_hop(struct pp_hop *h, __u32 type, __u32 probe, __u64 id,
					struct sk_buff *skb, const bool task)
{
	struct net_device *dev = BPF_CORE_READ(skb, dev);

	h->type = type;
	h->probe = probe;
	h->id = id;
	h->ts = bpf_ktime_get_ns();
	h->skb = (__u64)skb;
	h->location = 0;
	h->cpu = bpf_get_smp_processor_id();
	h->netns = pp_netns(skb, dev);
	h->ifindex = dev ? BPF_CORE_READ(dev, ifindex) : 0;
	h->pid = task ? bpf_get_current_pid_tgid() >> 32 : 0;
	h->fate = PP_FATE_NONE;
	h->reason = 0;
	h->len = BPF_CORE_READ(skb, len);
	h->lost = 0;
	if (!dev || bpf_probe_read_kernel_str(h->ifname, sizeof(h->ifname), dev->name) < 0)
		h->ifname[0] = 0;
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

static __always_inline void pp_emit_hop(struct pp_state *st, struct pp_skb_val *v, __u32 probe,
					struct sk_buff *skb, const bool task)
{
	struct pp_hop *h = bpf_ringbuf_reserve(&path_map, sizeof(*h), 0);

	if (!h) {
		pp_count_lost(st, v, probe);
		return;
	}
	pp_fill_hop(h, PP_REC_HOP, probe, v->id, skb, task);
	bpf_ringbuf_submit(h, 0);
}

#define PP_ETH_P_IP 0x0800

/* 0x10000 | the IPv4 ID of the packet in SKB, or 0 if it is not IPv4. */
static __always_inline __u32 pp_ip_id(struct sk_buff *skb)
{
	__u16 nh = BPF_CORE_READ(skb, network_header), id;
	unsigned char *head = BPF_CORE_READ(skb, head);

	if (BPF_CORE_READ(skb, protocol) != bpf_htons(PP_ETH_P_IP) || nh == (__u16)~0U ||
	    bpf_probe_read_kernel(&id, sizeof(id), head + nh + 4))
		return 0;
	return 0x10000 | id;
}

/* Is the skb at this address still the packet V was marked for? */
static __always_inline bool pp_same_packet(const struct pp_skb_val *v, struct sk_buff *skb)
{
	if (v->head != (__u64)BPF_CORE_READ(skb, head))
		return false;
	return !v->ip_id || v->ip_id == pp_ip_id(skb);
}

/*
 * The tracked packet at this address, if the skb there is still the one
 * marked. A hop refused for looking like another packet counts as lost to
 * the marked one: its path then says it is not complete.
 */
static __always_inline struct pp_skb_val *pp_lookup(__u64 skb)
{
	struct pp_skb_val *v = bpf_map_lookup_elem(&skb_map, &skb);

	if (!v || pp_same_packet(v, (struct sk_buff *)skb))
		return v;
	__sync_fetch_and_add(&v->lost, 1);
	return NULL;
}

/* Forget an skb_map entry; whoever deletes it (here or the loader) drops the count. */
static __always_inline void pp_forget(struct pp_state *st, __u64 skb)
{
	if (bpf_map_delete_elem(&skb_map, &skb) == 0)
		__sync_fetch_and_sub(&st->inflight, 1);
}

/* Start tracking SKB as a new packet, first seen at TC HOOK (0: in a probe). */
static __always_inline int pp_track(struct pp_state *st, __u64 skb, __u32 hook, __u64 *id)
{
	struct pp_skb_val val = {};

	val.id = __sync_fetch_and_add(&st->next_id, 1) + 1;
	val.first_ts = bpf_ktime_get_ns();
	val.head = (__u64)BPF_CORE_READ((struct sk_buff *)skb, head);
	val.ip_id = pp_ip_id((struct sk_buff *)skb);
	val.tc_hook[0] = hook;
	if (bpf_map_update_elem(&skb_map, &skb, &val, BPF_NOEXIST) != 0) {
		__sync_fetch_and_add(&st->map_full, 1);
		return -1;
	}
	__sync_fetch_and_add(&st->inflight, 1);
	__sync_fetch_and_add(&st->marked, 1);
	*id = val.id;
	return 0;
}

/*
 * Every probe starts here. The in-flight gate comes first, so that traffic
 * while nothing is tracked costs one inlined array lookup.
 */
static __always_inline int pp_on_hop(__u64 skb, __u32 probe)
{
	struct pp_state *st;
	struct pp_skb_val *v;

	/* tp_btf and fentry pass a maybe-NULL pointer: the verifier wants it checked. */
	if (!skb)
		return 0;
	st = pp_state();
	if (!st || !READ_ONCE(st->inflight))
		return 0;
	v = pp_lookup(skb);
	if (v)
		pp_emit_hop(st, v, probe, (struct sk_buff *)skb, true);
	return 0;
}

/* The skb is being freed: the packet's last hop, then forget the skb. */
static __always_inline int pp_on_free(__u64 skb, __u32 probe, __u32 fate, __u32 reason,
				      __u64 location)
{
	struct pp_state *st;
	struct pp_skb_val *v;
	struct pp_hop *h;

	if (!skb)
		return 0;
	st = pp_state();
	if (!st || !READ_ONCE(st->inflight))
		return 0;
	v = bpf_map_lookup_elem(&skb_map, &skb);
	if (!v)
		return 0;
	/* A stale entry: its packet's free went unseen; this is another skb. */
	if (!pp_same_packet(v, (struct sk_buff *)skb)) {
		__u32 lost = v->lost + 1;

		/* The marked packet's own end went unseen: tell the loader. */
		bpf_map_update_elem(&end_lost_map, &v->id, &lost, BPF_ANY);
		pp_forget(st, skb);
		return 0;
	}
	h = bpf_ringbuf_reserve(&path_map, sizeof(*h), 0);
	if (h) {
		pp_fill_hop(h, PP_REC_END, probe, v->id, (struct sk_buff *)skb, true);
		h->fate = fate;
		h->reason = reason;
		h->location = location;
		h->lost = v->lost;
		bpf_ringbuf_submit(h, 0);
	} else {
		__u32 lost = v->lost + 1;

		/* The loader will time this packet out: tell it why it has no end. */
		pp_count_lost(st, NULL, probe);
		bpf_map_update_elem(&end_lost_map, &v->id, &lost, BPF_ANY);
	}
	pp_forget(st, skb);
	return 0;
}

#endif
