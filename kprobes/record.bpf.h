/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one "record a hop" core that every program shares: the classifier,
 * kprobe, kprobe.multi, fentry and tracepoint entry points are thin wrappers,
 * each telling the core how it may read the skb (enum pp_via).
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

/*
 * What a caller may read and record. Every function below takes it as a
 * compile-time constant, so clang keeps one way of reading per program.
 */
enum pp_via {
	/* The classifier: probed reads; no task helpers (see pp_fill_hop()). */
	PP_VIA_TC,
	/* kprobe, kprobe.multi: the skb is a plain integer, so probed reads. */
	PP_VIA_KPROBE,
	/*
	 * tp_btf, fentry: the skb is a BTF pointer, so direct loads, which the
	 * verifier turns into PROBE_MEM loads (a fault, NULL included, reads
	 * 0) and the JIT inlines: a hop's fields cost some 80 ns this way
	 * against 250 with a helper call each (bench/hop_floor.bpf.c).
	 */
	PP_VIA_BTF,
};

/*
 * SRC->FIELD, one pointer step (FIELD may name a member of a member). Both
 * are CO-RE relocated: vmlinux.h marks its structs preserve_access_index.
 */
#define PP_READ(via, src, field) ((via) == PP_VIA_BTF ? (src)->field : BPF_CORE_READ(src, field))

/*
 * skb->dev, or NULL. Once UDP queues an skb to a socket, the same word holds
 * its dev_scratch (a length and flags: udp_set_dev_scratch()), which a
 * direct load would follow into a fault, about a microsecond each, where a
 * probed read fails at once. A kernel address has its top bit set (x86-64,
 * arm64); dev_scratch never has.
 */
static __always_inline struct net_device *pp_skb_dev(struct sk_buff *skb, const enum pp_via via)
{
	struct net_device *dev = PP_READ(via, skb, dev);

	if ((long)dev >= 0) {
		dev = NULL;
		/* A branch: clang's branch-free select would mask the pointer (s>>=, &=). */
		barrier_var(dev);
	}
	return dev;
}

static __always_inline __u32 pp_netns(struct sk_buff *skb, struct net_device *dev,
				      const enum pp_via via)
{
	struct sock *sk;
	struct net *net;

	if (dev) {
		net = PP_READ(via, dev, nd_net.net);
	} else {
		/* On the way down from a socket the skb has no device yet. */
		sk = PP_READ(via, skb, sk);
		if (!sk)
			return 0;
		net = PP_READ(via, sk, __sk_common.skc_net.net);
	}
	return PP_READ(via, net, ns.inum);
}

/*
 * The device's name. On a BTF pointer, two 8-byte loads (the verifier allows
 * any load within a member; memcpy() would make sixteen 1-byte ones): what
 * follows the NUL is copied too, and the loader stops at the NUL.
 */
static __always_inline void pp_ifname(char *dst, struct net_device *dev, const enum pp_via via)
{
	const __u64 *name;

	if (!dev) {
		dst[0] = 0;
	} else if (via == PP_VIA_BTF) {
		name = (const __u64 *)dev->name;
		((__u64 *)dst)[0] = name[0];
		((__u64 *)dst)[1] = name[1];
	} else if (bpf_probe_read_kernel_str(dst, PP_IFNAMSIZ, dev->name) < 0) {
		dst[0] = 0;
	}
}

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
 * (loader/trace.c), so a record needs to wake it only
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

static __always_inline void pp_emit_hop(struct pp_state *st, struct pp_skb_val *v, __u32 probe,
					struct sk_buff *skb, const enum pp_via via)
{
	struct pp_hop *h = bpf_ringbuf_reserve(&path_map, sizeof(*h), 0);

	if (!h) {
		pp_count_lost(st, v, probe);
		return;
	}
	pp_fill_hop(h, PP_REC_HOP, probe, v->id, skb, via);
	pp_submit(st, h);
}

#define PP_ETH_P_IP 0x0800

/* 0x10000 | the IPv4 ID of the packet in SKB, or 0 if it is not IPv4. */
static __always_inline __u32 pp_ip_id(struct sk_buff *skb, const enum pp_via via)
{
	__u16 nh = PP_READ(via, skb, network_header), id;
	unsigned char *head = PP_READ(via, skb, head);

	/* Packet bytes need a helper either way: skb->head is no BTF pointer. */
	if (PP_READ(via, skb, protocol) != bpf_htons(PP_ETH_P_IP) || nh == (__u16)~0U ||
	    bpf_probe_read_kernel(&id, sizeof(id), head + nh + 4))
		return 0;
	return 0x10000 | id;
}

/*
 * SKB's entry in skb_map. The key is a copy: once a helper has read a stack
 * slot holding a spilled BTF pointer, older verifiers (6.12 still) take the
 * slot for a scalar, and clang would load SKB back from it for the direct
 * loads that follow.
 */
static __always_inline struct pp_skb_val *pp_skb_entry(__u64 skb)
{
	__u64 key = skb;

	return bpf_map_lookup_elem(&skb_map, &key);
}

/* Is the skb at this address still the packet V was marked for? */
static __always_inline bool pp_same_packet(const struct pp_skb_val *v, struct sk_buff *skb,
					   const enum pp_via via)
{
	if (v->head != (__u64)PP_READ(via, skb, head))
		return false;
	return !v->ip_id || v->ip_id == pp_ip_id(skb, via);
}

/*
 * The tracked packet at this address, if the skb there is still the one
 * marked. A hop refused for looking like another packet counts as lost to
 * the marked one: its path then says it is not complete.
 */
static __always_inline struct pp_skb_val *pp_lookup(__u64 skb, const enum pp_via via)
{
	struct pp_skb_val *v = pp_skb_entry(skb);

	if (!v || pp_same_packet(v, (struct sk_buff *)skb, via))
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
static __always_inline int pp_track(struct pp_state *st, __u64 skb, __u32 hook, __u64 *id,
				    const enum pp_via via)
{
	struct pp_skb_val val = {};

	val.id = __sync_fetch_and_add(&st->next_id, 1) + 1;
	val.first_ts = bpf_ktime_get_ns();
	val.head = (__u64)PP_READ(via, (struct sk_buff *)skb, head);
	val.ip_id = pp_ip_id((struct sk_buff *)skb, via);
	val.tc_hook[0] = hook;
	if (bpf_map_update_elem(&skb_map, &skb, &val, BPF_NOEXIST) != 0) {
		__sync_fetch_and_add(&st->map_full, 1);
		return -1;
	}
	/* Before the mark's pp_wake_flags(): see there. */
	__sync_fetch_and_add(&st->inflight, 1);
	__sync_fetch_and_add(&st->marked, 1);
	*id = val.id;
	return 0;
}

/*
 * Every probe starts here. The in-flight gate comes first, so that traffic
 * while nothing is tracked costs one inlined array lookup.
 */
static __always_inline int pp_record_hop(__u64 skb, __u32 probe, const enum pp_via via)
{
	struct pp_state *st;
	struct pp_skb_val *v;

	/* tp_btf and fentry pass a maybe-NULL pointer: the verifier wants it checked. */
	if (!skb)
		return 0;
	st = pp_state();
	if (!st || !READ_ONCE(st->inflight))
		return 0;
	v = pp_lookup(skb, via);
	if (v)
		pp_emit_hop(st, v, probe, (struct sk_buff *)skb, via);
	return 0;
}

/* kprobe and kprobe.multi programs (and bench/hop_floor.bpf.c's gate). */
static __always_inline int pp_on_hop(__u64 skb, __u32 probe)
{
	return pp_record_hop(skb, probe, PP_VIA_KPROBE);
}

/* tp_btf and fentry programs: SKB is a BTF pointer. */
static __always_inline int pp_on_btf_hop(__u64 skb, __u32 probe)
{
	return pp_record_hop(skb, probe, PP_VIA_BTF);
}

/* The skb is being freed: the packet's last hop, then forget the skb. */
static __always_inline int pp_on_free(__u64 skb, __u32 probe, __u32 fate, __u32 reason,
				      __u64 location, const enum pp_via via)
{
	struct pp_state *st;
	struct pp_skb_val *v;
	struct pp_hop *h;

	if (!skb)
		return 0;
	st = pp_state();
	if (!st || !READ_ONCE(st->inflight))
		return 0;
	v = pp_skb_entry(skb);
	if (!v)
		return 0;
	/* A stale entry: its packet's free went unseen; this is another skb. */
	if (!pp_same_packet(v, (struct sk_buff *)skb, via)) {
		__u32 lost = v->lost + 1;

		/* The marked packet's own end went unseen: tell the loader. */
		bpf_map_update_elem(&end_lost_map, &v->id, &lost, BPF_ANY);
		pp_forget(st, skb);
		return 0;
	}
	h = bpf_ringbuf_reserve(&path_map, sizeof(*h), 0);
	if (h) {
		pp_fill_hop(h, PP_REC_END, probe, v->id, (struct sk_buff *)skb, via);
		h->fate = fate;
		h->reason = reason;
		h->location = location;
		h->lost = v->lost;
		pp_submit(st, h);
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
