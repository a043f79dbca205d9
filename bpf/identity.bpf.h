/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which packet an skb is: its data buffer (head_map) and clones, an
 * address the slab gave to a new skb while the old entry stayed (reuse),
 * a socket's take of another packet's skb, and a new packet's id,
 * sampling and the table full.
 */
#ifndef PP_IDENTITY_BPF_H
#define PP_IDENTITY_BPF_H

#include "queues.bpf.h"

/*
 * The references to SKB's data buffer (skb_shinfo(skb)->dataref, low 16
 * bits: every skb holding it), 0 if unreadable. The shared info sits at
 * head + end (an offset on 64-bit kernels).
 */
static __always_inline __u32 pp_dataref(struct sk_buff *skb, __u64 head, const enum pp_via via)
{
	__u64 end = PP_READ(via, skb, end);
	__u32 ref = 0;

	if (!head ||
	    bpf_probe_read_kernel(
		    &ref, sizeof(ref),
		    (void *)(head + end + bpf_core_field_offset(struct skb_shared_info, dataref))))
		return 0;
	return ref & 0xffff;
}

/*
 * What the data buffer holds, in fields that forwarding and NAT leave alone
 * (a clone may be seen before or after the router rewrote TTL, checksums
 * or addresses): the IPv4 ID (IPv6: the payload length), the protocol, and
 * 4 bytes from the transport header's 5th (TCP: the sequence number; ICMP
 * echo: id and sequence; UDP: the length only, as NAT rewrites its
 * checksum), of the network header at NH bytes into the buffer at HEAD. A
 * copy shares the buffer, so it reads the same there, wherever its own
 * headers begin (a tunnel's encapsulation pushes new ones in front, its
 * decapsulation pulls them: the bytes stay); a buffer freed and reused
 * holds another packet. 0: not readable.
 */
static __always_inline __u64 pp_fingerprint(__u64 head, __u16 nh)
{
	__u16 id = 0;
	__u8 ip[10] = {};
	__u32 th, l4 = 0;
	__u8 proto;

	if (!head || nh == (__u16)~0U || bpf_probe_read_kernel(ip, sizeof(ip), (void *)(head + nh)))
		return 0;
	id = (__u16)(ip[4] << 8 | ip[5]);
	proto = (ip[0] >> 4) == 4 ? ip[9] : ip[6];
	th = nh + ((ip[0] >> 4) == 4 ? (ip[0] & 0xf) * 4 : 40);
	bpf_probe_read_kernel(&l4, sizeof(l4), (void *)(head + th + 4));
	if (proto == 17)
		l4 &= 0xffff; /* the length, in memory order */
	return ((__u64)proto << 48 | (__u64)id << 32 | l4) | 1ULL << 63;
}

/* head_map now says that SKB (of packet ID) holds HEAD, alone. */
static __always_inline void pp_head_note(__u64 head, __u64 id, struct sk_buff *skb,
					 const enum pp_via via)
{
	struct pp_head_val hv = {.id = id, .skb = (__u64)skb, .ts = bpf_ktime_get_ns()};

	if (!head)
		return;
	hv.nh = PP_READ(via, skb, network_header);
	hv.tail = PP_READ(via, skb, tail);
	hv.fp = pp_fingerprint(head, hv.nh);
	hv.holders = 1;
	bpf_map_update_elem(&head_map, &head, &hv, BPF_ANY);
}

/*
 * A tracked skb of packet ID lets go of HEAD (its free, or
 * pskb_expand_head()). The last tracked holder leaves the entry orphaned if
 * SHARED (an skb not seen yet still holds the data: a raw socket's or a
 * tap's clone), else deletes it. An entry of another packet is not ID's to
 * touch: the buffer was freed and reused meanwhile (see pp_forget()).
 */
static __always_inline void pp_head_drop(struct pp_state *st, __u64 head, bool shared, __u64 id)
{
	struct pp_head_val *hv = bpf_map_lookup_elem(&head_map, &head);

	if (!hv || hv->id != id)
		return;
	/* A plain read: the fetching atomics need a newer BPF ISA than v2. */
	if (hv->holders > 1) {
		__sync_fetch_and_add(&hv->holders, -1);
		return;
	}
	if (!shared) {
		bpf_map_delete_elem(&head_map, &head);
		return;
	}
	if (!hv->orphan)
		__sync_fetch_and_add(&st->orphans, 1);
	hv->orphan = 1;
	hv->fp = pp_fingerprint(head, hv->nh);
	hv->ts = bpf_ktime_get_ns();
}

/*
 * Forget SKB of packet ID, and its data buffer HEAD (SHARED: see
 * pp_head_drop()) if this call's delete took the entry: of two enders of
 * one skb on two CPUs, only one lets go of the buffer.
 */
static __always_inline void pp_let_go(struct pp_state *st, __u64 skb, __u64 id, __u64 head,
				      bool shared)
{
	if (pp_forget(st, skb, id))
		pp_head_drop(st, head, shared, id);
}

/*
 * A tracked skb's data may move (pskb_expand_head()): follow it, so that
 * clones made later are still known by their head.
 */
static __always_inline void pp_head_follow(struct pp_state *st, struct pp_skb_val *v, __u64 skb,
					   const enum pp_via via)
{
	__u64 head = (__u64)PP_READ(via, (struct sk_buff *)skb, head), old = v->head;

	if (head == old)
		return;
	v->head = head;
	pp_head_drop(st, old, false, v->id);
	pp_head_note(head, v->id, (struct sk_buff *)skb, via);
}

/*
 * SKB, holding HEAD, is being freed. DATA: it still holds its data here, so
 * whether another skb shares it can be read.
 */
static __always_inline bool pp_head_shared(__u64 skb, __u64 head, bool data, const enum pp_via via)
{
	return data && pp_dataref((struct sk_buff *)skb, head, via) > 1;
}

/*
 * skb->cloned: skb_clone() sets it on both skbs and nothing clears it on
 * the clone. An skb whose data buffer merely sits where a freed one was has
 * it clear.
 */
static __always_inline bool pp_cloned(struct sk_buff *skb, const enum pp_via via)
{
	if (via == PP_VIA_BTF)
		return BPF_CORE_READ_BITFIELD(skb, cloned);
	return BPF_CORE_READ_BITFIELD_PROBED(skb, cloned);
}

/* SKB's place in an fclone pair: SKB_FCLONE_UNAVAILABLE (none), _ORIG, _CLONE. */
static __always_inline __u8 pp_fclone(struct sk_buff *skb, const enum pp_via via)
{
	if (via == PP_VIA_BTF)
		return BPF_CORE_READ_BITFIELD(skb, fclone);
	return BPF_CORE_READ_BITFIELD_PROBED(skb, fclone);
}

/*
 * SKB, tracked as V, was freed unseen and carries another packet now: let
 * go of it and of its data. The packet it was ends "not seen" (the loader
 * times it out), which is what was seen; unless a TCP socket had it queued
 * and unread: TCP frees a segment it coalesced into the skb before it with
 * no skb tracepoint (docs/packet-life.md saw its sk_buff carry the next
 * segment 84 us later), and its data stays queued, so the reader's
 * copied_seq passing it ends it (pp_queue_merged()).
 */
static __always_inline void pp_forget_reused(struct pp_state *st, struct pp_skb_val *v, __u64 skb,
					     const enum pp_via via)
{
	__u64 id = v->id, head = v->head;

	pp_queue_merged(st, v);
	pp_let_go(st, skb, id, head, false);
}

/*
 * SKB, which a socket took as V's packet (PP_SKB_TAKEN), is another sk_buff
 * now: a socket's skb keeps its data buffer (nothing reallocates a queued
 * skb: TCP's coalescing appends to it, tcp_collapse() copies into new ones),
 * stays in the socket's namespace, and is not shortened once read (TCP's
 * partial reads move copied_seq, not the skb). Its free may go unseen
 * (skb_attempt_defer_free(), the NAPI cache) and the address be handed out
 * again: a kworker's skb in another namespace, with other data.
 */
static __always_inline bool pp_taken_other(struct pp_skb_val *v, struct sk_buff *skb,
					   const enum pp_via via)
{
	__u32 netns;

	if (!(v->flags & PP_SKB_TAKEN))
		return false;
	if ((__u64)PP_READ(via, skb, head) != v->head)
		return true;
	if (v->read_len && PP_READ(via, skb, len) < v->read_len)
		return true;
	netns = pp_netns(skb, pp_skb_dev(skb, via), via);
	return netns && v->taken_netns && netns != v->taken_netns;
}

/*
 * A socket takes SKB (V) while its data buffer is another tracked packet's
 * (head_map): SKB is that packet's, at an address V left with its free
 * unseen (ping_rcv()'s clone of an echo reply, where the request's skb and
 * buffer were: tests/e2e/test_shaped_echo.sh). A clone of V shares V's own
 * buffer.
 */
static __always_inline bool pp_takes_other(struct pp_skb_val *v, struct sk_buff *skb,
					   const enum pp_via via)
{
	__u64 head = (__u64)PP_READ(via, skb, head);
	struct pp_head_val *hv;

	if (v->flags & PP_SKB_TAKEN)
		return false;
	hv = bpf_map_lookup_elem(&head_map, &head);
	return hv && hv->id != v->id && hv->holders;
}

/* A socket takes SKB (V): what later records must find (pp_taken_other()). */
static __always_inline void pp_note_take(struct pp_skb_val *v, struct sk_buff *skb, __u64 cookie,
					 const enum pp_via via)
{
	v->flags |= PP_SKB_TAKEN;
	if (!v->taken_netns)
		v->taken_netns = pp_netns(skb, pp_skb_dev(skb, via), via);
	if ((cookie & PP_COOKIE_READS) && !v->read_len)
		v->read_len = PP_READ(via, skb, len);
}

/*
 * A socket took SKB (V), and it is met where a packet's way starts (no
 * packet goes on from a socket), or it is not the skb the socket took
 * (pp_taken_other()): another packet in the same sk_buff (see
 * loader/probes/life_points.c). Otherwise notes a take.
 */
static __always_inline bool pp_reused_at(struct pp_state *st, struct pp_skb_val *v, __u64 skb,
					 __u64 cookie, const enum pp_via via)
{
	if (((cookie & PP_COOKIE_STARTS) && (v->flags & PP_SKB_TAKEN)) ||
	    pp_taken_other(v, (struct sk_buff *)skb, via)) {
		pp_forget_reused(st, v, skb, via);
		return true;
	}
	/* The buffer's entry is the other packet's: kept, for SKB to join it. */
	if ((cookie & PP_COOKIE_TAKES) && pp_takes_other(v, (struct sk_buff *)skb, via)) {
		pp_forget(st, skb, v->id);
		return true;
	}
	if (cookie & PP_COOKIE_TAKES)
		pp_note_take(v, (struct sk_buff *)skb, cookie, via);
	return false;
}

/* Put SKB into skb_map for packet ID; 0 on success. */
static __always_inline int pp_track_as(struct pp_state *st, __u64 skb, __u64 id, __u64 head,
				       __u32 hook)
{
	struct pp_skb_val val = {};

	val.id = id;
	val.first_ts = bpf_ktime_get_ns();
	val.head = head;
	val.tc_hook[0] = hook;
	if (bpf_map_update_elem(&skb_map, &skb, &val, BPF_NOEXIST) != 0)
		return -1;
	/* Before the mark's pp_wake_flags(): see there. */
	__sync_fetch_and_add(&st->inflight, 1);
	return 0;
}

/*
 * SKB, matching at HOOK, was counted in map_full already at another hook
 * (HOOK is noted): it is that untracked packet, to count once and not to
 * track from the middle of its path should room appear. A routed packet
 * meets two TC hooks, a sent one ip_output and TC egress. As for tracked
 * skbs (pp_cross_hook()), a hook crossed again means the address holds
 * another packet now; so does an entry older than the packet timeout.
 * Until skb_map was first full, no lookup.
 */
static __always_inline bool pp_full_again(struct pp_state *st, __u64 skb, __u32 hook)
{
	struct pp_full_val *f;

	if (!READ_ONCE(st->map_full))
		return false;
	f = bpf_map_lookup_elem(&full_map, &skb);
	if (!f)
		return false;
	if (bpf_ktime_get_ns() - f->ts <= READ_ONCE(st->orphan_ns)) {
		for (int i = 0; i < PP_TC_HOOKS; i++) {
			if (f->tc_hook[i] == hook)
				break;
			if (!f->tc_hook[i]) {
				f->tc_hook[i] = hook;
				return true;
			}
		}
	}
	bpf_map_delete_elem(&full_map, &skb);
	return false;
}

/* A new packet that matched at HOOK and found skb_map full: counted, and noted. */
static __always_inline void pp_count_full(struct pp_state *st, __u64 skb, __u32 hook)
{
	struct pp_full_val f = {.ts = bpf_ktime_get_ns(), .tc_hook = {hook}};

	bpf_map_update_elem(&full_map, &skb, &f, BPF_ANY);
	__sync_fetch_and_add(&st->map_full, 1);
}

#define PP_ID_CPU_BITS 13 /* CONFIG_NR_CPUS is 8192 at most on Debian's kernels */
#define PP_ID_TRIES    4

/*
 * A packet id without BPF_FETCH: this CPU's count, then the CPU. A plain add
 * (BPF_XADD, no fetch) and reads before and after: only a mark that
 * interrupted this one on the same CPU (TC in a softirq over ip_output's
 * kprobe) moves the count further, and it ran to its end meanwhile, so an
 * increase of exactly one is this call's alone. 0: interrupted every time.
 */
static __always_inline __u64 pp_cpu_id(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&id_map, &zero), before;

	if (!n)
		return 0;
	for (int i = 0; i < PP_ID_TRIES; i++) {
		before = READ_ONCE(*n);
		__sync_fetch_and_add(n, 1);
		if (READ_ONCE(*n) == before + 1)
			return (before + 1) << PP_ID_CPU_BITS |
			       (bpf_get_smp_processor_id() & ((1U << PP_ID_CPU_BITS) - 1));
	}
	return 0;
}

/*
 * FETCH: the kernel has atomics that return the old value (BPF_FETCH, Linux
 * 5.12). Older verifiers refuse a program that holds one at all, dead code
 * or not (5.10: "BPF_STX uses reserved fields", before it looks at a path),
 * so the programs that mark come in two builds (the *_nofetch ones), and
 * the loader loads the one the kernel takes.
 */
static __always_inline __u64 pp_next_id(struct pp_state *st, const bool fetch)
{
	if (!fetch)
		return pp_cpu_id();
	return __sync_fetch_and_add(&st->next_id, 1) + 1;
}

/*
 * --max-rate: 1 matched packet in st->sample_period starts a path. The draw
 * hashes the packet's data address and the millisecond, not a counter: the
 * two places that may mark a sent packet (pp_kmark, then TC egress,
 * microseconds apart) draw the same for it, so it is not drawn twice. (Not
 * the skb's address: in TC it is the context pointer, which the verifier
 * allows no arithmetic on.) Those drawn take one of the paths left until the
 * loader's next tick (st->sample_left). sample_period 0: no --max-rate.
 */
static __always_inline bool pp_sampled_out(struct pp_state *st, __u64 head)
{
	__u64 p = READ_ONCE(st->sample_period), h;

	if (!p)
		return false;
	if (p > 1) {
		h = (head ^ (bpf_ktime_get_ns() >> 20)) * 0x9e3779b97f4a7c15ULL;
		if ((h >> 32) % p)
			return true;
	}
	if (READ_ONCE(st->sample_left) <= 0)
		return true;
	__sync_fetch_and_add(&st->sample_left, -1);
	return false;
}

/*
 * Start tracking SKB as a new packet, first seen at TC HOOK (0: in a probe).
 * FETCH: see pp_next_id().
 */
static __always_inline int pp_track(struct pp_state *st, __u64 skb, __u32 hook, __u64 *id,
				    const enum pp_via via, const bool fetch)
{
	__u64 head = (__u64)PP_READ(via, (struct sk_buff *)skb, head);
	__u32 at = hook ? hook : PP_HOOK_LOCAL;

	if (pp_sampled_out(st, head))
		return -1;
	if (pp_full_again(st, skb, at))
		return -1;
	*id = pp_next_id(st, fetch);
	if (!fetch && !*id) /* pp_cpu_id() interrupted every time */
		return -1;
	if (pp_track_as(st, skb, *id, head, hook)) {
		pp_count_full(st, skb, at);
		return -1;
	}
	__sync_fetch_and_add(&st->marked, 1);
	pp_head_note(head, *id, (struct sk_buff *)skb, via);
	return 0;
}

#endif
