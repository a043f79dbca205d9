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
#include "skb_read.bpf.h"

#ifndef READ_ONCE
#define READ_ONCE(x) (*(volatile typeof(x) *)&(x))
#endif

static __always_inline struct pp_state *pp_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&state_map, &zero);
}

/* Anything to follow: a tracked skb, or an orphaned data buffer a copy may hold. */
static __always_inline bool pp_busy(struct pp_state *st)
{
	return st && (READ_ONCE(st->inflight) || READ_ONCE(st->orphans));
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
 * A tracked skb lets go of HEAD (its free, or pskb_expand_head()). The last
 * tracked holder leaves the entry orphaned if SHARED (an skb not seen yet
 * still holds the data: a raw socket's or a tap's clone), else deletes it.
 */
static __always_inline void pp_head_drop(struct pp_state *st, __u64 head, bool shared)
{
	struct pp_head_val *hv = bpf_map_lookup_elem(&head_map, &head);

	if (!hv)
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
	pp_head_drop(st, old, false);
	pp_head_note(head, v->id, (struct sk_buff *)skb, via);
}

/*
 * SKB is being freed. DATA: it still holds its data here, so whether another
 * skb shares it can be read. Returns whether one does.
 */
static __always_inline bool pp_head_release(struct pp_state *st, struct pp_skb_val *v, __u64 skb,
					    bool data, const enum pp_via via)
{
	bool shared = data && pp_dataref((struct sk_buff *)skb, v->head, via) > 1;

	pp_head_drop(st, v->head, shared);
	return shared;
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

/* Forget an skb_map entry; whoever deletes it (here or the loader) drops the count. */
static __always_inline void pp_forget(struct pp_state *st, __u64 skb)
{
	if (bpf_map_delete_elem(&skb_map, &skb) == 0)
		__sync_fetch_and_sub(&st->inflight, 1);
}

/*
 * N of st->waiting's slots were read or reset. The loader clears a count
 * that no open packet explains (clear_waiting(), loader/cmd/trace.c): never
 * below 0 (two CPUs may both pass the test; the loader's next clear mends
 * that).
 */
static __always_inline void pp_waiting_sub(struct pp_state *st, __u64 n)
{
	if (n && READ_ONCE(st->waiting) >= n)
		__sync_fetch_and_sub(&st->waiting, n);
}

/*
 * A TCP segment queued to its socket (V) is freed unread, and no drop said
 * why: its data went on in another skb of the queue (TCP coalesces a
 * segment into the skb queued before it: tcp_try_coalesce(), and the
 * backlog's skb_try_coalesce() in tcp_add_backlog(), then frees it with
 * kfree_skb_partial(); tcp_collapse() copies and frees). Its ring slot ends
 * it when the reader's copied_seq passes it, on that socket only (the
 * ring's cookie); returns whether it is there. Counted in st->waiting.
 */
static __always_inline bool pp_queue_merged(struct pp_state *st, struct pp_skb_val *v)
{
	struct pp_queue_val *q;
	struct pp_queue_slot *s;

	if (!(v->flags & PP_SKB_QUEUED) || v->read_len)
		return false;
	q = bpf_map_lookup_elem(&queue_map, &v->sock);
	if (!q)
		return false;
	s = &q->slot[v->qslot % PP_QUEUE_SLOTS];
	if (s->id != v->id || q->tail - v->qslot > PP_QUEUE_SLOTS)
		return false;
	if (!s->merged) {
		s->merged = 1;
		__sync_fetch_and_add(&q->merged_n, 1);
		__sync_fetch_and_add(&st->waiting, 1);
	}
	return true;
}

/*
 * SKB, tracked as V, got an END that leaves its socket's ring nothing to
 * say: freed other than consumed (dropped at a full receive buffer after the
 * cgroup program queued its slot, purged at a close: no read took it), or
 * read, its END sent from the reader's copy (pp_read_end()). Its slot in the
 * ring is emptied (id 0), so the walk that no longer finds the skb tracked
 * passes it (pp_queue_read()) and sends no END of its own: it would be the
 * skb's second (an skb read twice, or a dropped skb read).
 */
static __always_inline void pp_queue_clear(struct pp_skb_val *v, __u64 skb)
{
	struct pp_queue_val *q;
	struct pp_queue_slot *s;

	if (!(v->flags & PP_SKB_RING))
		return;
	q = bpf_map_lookup_elem(&queue_map, &v->sock);
	if (!q || q->tail - v->qslot > PP_QUEUE_SLOTS)
		return;
	s = &q->slot[v->qslot % PP_QUEUE_SLOTS];
	if (s->id == v->id && s->skb == skb && !s->merged)
		s->id = 0;
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
	pp_queue_merged(st, v);
	pp_head_drop(st, v->head, false);
	pp_forget(st, skb);
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
		pp_forget(st, skb);
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

/*
 * Copy V of tracked PARENT takes its mark's tuple, length and source
 * (pp_skb_val.tuple, mark_len, mark_src), and whether it is a reply
 * (PP_SKB_REPLY).
 */
static __always_inline void pp_inherit_mark(struct pp_skb_val *v, __u64 parent)
{
	struct pp_skb_val *pv = pp_skb_entry(parent);

	if (!pv)
		return;
	v->tuple = pv->tuple;
	v->mark_len = pv->mark_len;
	v->mark_src = pv->mark_src;
	v->flags |= pv->flags & PP_SKB_REPLY;
}

/*
 * HV's data gains a tracked holder, a copy that joined. An orphaned entry
 * has none: its last holder's count went when it was freed (pp_head_drop()).
 */
static __always_inline void pp_head_hold(struct pp_state *st, struct pp_head_val *hv)
{
	if (!hv->orphan) {
		__sync_fetch_and_add(&hv->holders, 1);
		return;
	}
	hv->orphan = 0;
	hv->holders = 1;
	__sync_fetch_and_sub(&st->orphans, 1);
}

/* HEAD's entry HV gives no more copies: an orphaned one goes (a live one stays its holders'). */
static __always_inline void pp_head_over(struct pp_state *st, __u64 head, struct pp_head_val *hv)
{
	if (hv->orphan && bpf_map_delete_elem(&head_map, &head) == 0)
		__sync_fetch_and_sub(&st->orphans, 1);
}

/*
 * An skb not tracked: if it shares a tracked packet's data, it is a copy of
 * that packet (skb_clone(): TCP's transmit clones, taps, raw sockets,
 * multicast, bridge floods). It joins the packet, and this probe's record
 * says where it was first seen and which skb it came from. A head_map entry
 * counts only while fresh, and only if the data really is shared now (or was
 * when its last holder was freed): a buffer freed unseen and reused must not
 * join a new packet to an old one.
 */
static __always_inline struct pp_skb_val *pp_join_copy(struct pp_state *st, __u64 skb, __u32 probe,
						       __u32 hook, const enum pp_via via)
{
	__u64 head = (__u64)PP_READ(via, (struct sk_buff *)skb, head), parent, fp;
	struct pp_head_val *hv = head ? bpf_map_lookup_elem(&head_map, &head) : NULL;
	struct pp_skb_val *v;

	if (!hv)
		return NULL;
	if (bpf_ktime_get_ns() - hv->ts > READ_ONCE(st->orphan_ns)) {
		pp_head_over(st, head, hv);
		return NULL;
	}
	if (!pp_cloned((struct sk_buff *)skb, via) ||
	    (!hv->orphan && pp_dataref((struct sk_buff *)skb, head, via) < 2))
		return NULL;
	/*
	 * An fclone pair's first skb is TCP's own segment, kept until it is
	 * acknowledged; what TCP sends is a clone of it. Met again, it is sent
	 * again (a retransmission: a packet of its own, which the classifier
	 * marks) or freed once acknowledged: never a copy, and the earlier
	 * packet's data has no copy left to give (an orphaned entry goes).
	 */
	if (pp_fclone((struct sk_buff *)skb, via) == SKB_FCLONE_ORIG) {
		pp_head_over(st, head, hv);
		return NULL;
	}
	/*
	 * The same bytes at the same place are no proof on their own: a buffer
	 * freed unseen and taken by a packet whose headers start further in
	 * (TCP reserves more headroom than an ICMP reply) still holds the old
	 * packet's headers in its headroom. A copy also ends where it does.
	 */
	fp = pp_fingerprint(head, hv->nh);
	if ((hv->fp && fp && hv->fp != fp) || hv->tail != PP_READ(via, (struct sk_buff *)skb, tail))
		return NULL;
	parent = hv->skb;
	if (pp_track_as(st, skb, hv->id, head, hook))
		return NULL;
	v = pp_skb_entry(skb);
	/* A copy: the packet's send call is the original's, so is its mark. */
	if (v) {
		v->flags |= PP_SKB_SEND_LOOKED | PP_SKB_COPY;
		pp_inherit_mark(v, parent);
	}
	pp_head_hold(st, hv);
	hv->ts = bpf_ktime_get_ns();
	v = pp_skb_entry(skb);
	if (v)
		pp_emit_hop(st, v, PP_REC_COPY, probe, (struct sk_buff *)skb, parent, 0, via);
	return v;
}

#define PP_AF_PACKET	   17 /* include/linux/socket.h */
#define PP_PACKET_OUTGOING 4  /* include/uapi/linux/if_packet.h */

/*
 * Whether SKB, being freed, is a packet socket's copy (PP_HOP_TAP): owned by
 * an AF_PACKET socket for reading (packet_rcv() and tpacket_rcv()'s
 * copy_thresh queue their clone with skb_set_owner_r(), destructor
 * sock_rfree(); the reader frees it in skb_free_datagram(), a close purges
 * it); or a copy owned by no socket that dev_queue_xmit_nit() made for the
 * taps of the device the packet leaves by: it sets PACKET_OUTGOING on that
 * clone, never on the skb it sends (a socket's error queue marks its skbs
 * so too, skb_set_err_queue(), but those are owned by the socket: ping's
 * clone of an ICMP error). A frame a packet socket sends (arping, dhclient,
 * scapy: packet_snd() and tpacket_snd() allocate it with
 * skb_set_owner_w(), destructor sock_wfree() or tpacket_destruct_skb()) is
 * the packet itself, owned by the sender until something orphans it (veth
 * does not; ip_rcv_core() does, after its OTHERHOST drop): its end is the
 * packet's. Where sock_rfree() is unknown, only a copy (PP_SKB_COPY) can be
 * a tap's: a sender's skb never is one. This holds where the free's
 * location is unknown (Linux before 6.3, the kprobe ends, af_packet a
 * module loaded after the start); with one, the probe also tells a free in
 * af_packet itself (pp_tap_at()). skb->sk shares its word with the
 * reassembly's offset: only a kernel address is followed (see
 * pp_skb_dev()). Read at a tracked skb's end only.
 */
static __always_inline bool pp_is_tap(struct pp_skb_val *v, struct sk_buff *skb,
				      const enum pp_via via)
{
	struct sock *sk = PP_READ(via, skb, sk);
	__u8 type;

	if ((long)sk >= 0) {
		sk = NULL;
		barrier_var(sk); /* as in pp_skb_dev() */
	}
	if (sk) {
		if (PP_READ(via, sk, __sk_common.skc_family) != PP_AF_PACKET)
			return false;
		if (pp_cfg.sock_rfree)
			return (__u64)PP_READ(via, skb, destructor) == pp_cfg.sock_rfree;
		return v->flags & PP_SKB_COPY;
	}
	if (!(v->flags & PP_SKB_COPY))
		return false;
	if (via == PP_VIA_BTF)
		type = BPF_CORE_READ_BITFIELD(skb, pkt_type);
	else
		type = BPF_CORE_READ_BITFIELD_PROBED(skb, pkt_type);
	return type == PP_PACKET_OUTGOING;
}

/*
 * A drop for PKT_TOO_BIG (ip_forward(), ip6_forward(), the fragmenters):
 * the skb still holds its route (kfree_skb's tracepoint runs before
 * skb_dst_drop()); its device is the way out that the packet was too big
 * for, and the MTU is the route's mtu metric if set, else that device's,
 * as ip_dst_mtu_maybe_forward() takes it. Read with probes: the route is a
 * tagged word (SKB_DST_NOREF), no pointer the verifier knows.
 */
static __always_inline void pp_too_big(struct pp_hop *h, struct sk_buff *skb, __u32 reason,
				       const enum pp_via via)
{
	struct dst_entry *dst;
	unsigned long metrics;
	__u32 mtu = 0;

	if (!bpf_core_enum_value_exists(enum skb_drop_reason, SKB_DROP_REASON_PKT_TOO_BIG) ||
	    reason != bpf_core_enum_value(enum skb_drop_reason, SKB_DROP_REASON_PKT_TOO_BIG))
		return;
	dst = (struct dst_entry *)(PP_READ(via, skb, _skb_refdst) & ~1UL); /* SKB_DST_PTRMASK */
	if (!dst)
		return;
	h->out_ifindex = BPF_CORE_READ(dst, dev, ifindex);
	/* dst->_metrics: a u32 array behind 2 flag bits (DST_METRICS_FLAGS), RTAX_MTU at [1]. */
	metrics = BPF_CORE_READ(dst, _metrics) & ~3UL;
	if (metrics)
		bpf_probe_read_kernel(&mtu, sizeof(mtu), (void *)(metrics + 4 * (RTAX_MTU - 1)));
	h->out_mtu = mtu ? mtu : BPF_CORE_READ(dst, dev, mtu);
}

#define PP_ETH_P_IP 0x0800
#define PP_IP_MORE  0x2000 /* IP_MF */

/*
 * PP_HOP_FRAGS if SKB, ending with FATE, is an IPv4 fragment with more after
 * it. DATA: its data is still there to read (not after kfree_skbmem(), the
 * slab's free); an skb leaving the scope is whole.
 */
static __always_inline __u32 pp_frag_more(struct sk_buff *skb, __u32 fate, bool data,
					  const enum pp_via via)
{
	unsigned char *head;
	__u16 nh, frag_off = 0;

	if (!(data || fate == PP_FATE_LEFT) || fate == PP_FATE_MERGED ||
	    PP_READ(via, skb, protocol) != bpf_htons(PP_ETH_P_IP))
		return 0;
	head = PP_READ(via, skb, head);
	nh = PP_READ(via, skb, network_header);
	if (bpf_probe_read_kernel(&frag_off, sizeof(frag_off), head + nh + 6))
		return 0;
	return frag_off & bpf_htons(PP_IP_MORE) ? PP_HOP_FRAGS : 0;
}

/*
 * The skb is being released: its END record, then forget it. DATA: the skb
 * still holds its data here, so a clone sharing it can be told.
 */
static __always_inline int pp_end(struct pp_state *st, __u64 skb, __u32 probe, __u32 fate,
				  __u32 reason, __u64 location, __s32 caller, __u32 flags,
				  bool data, const enum pp_via via)
{
	struct pp_skb_val *v = pp_skb_entry(skb);
	struct pp_hop *h;
	bool shared;

	/* A copy first seen at its own free (a tap's clone consumed at once). */
	if (!v && data)
		v = pp_join_copy(st, skb, probe, 0, via);
	if (!v)
		return 0;
	/* Another sk_buff at a taken skb's address: its end is not this packet's. */
	if (pp_taken_other(v, (struct sk_buff *)skb, via)) {
		pp_forget_reused(st, v, skb, via);
		return 0;
	}
	/* A queued TCP segment freed unread, no drop said why: its data goes on. */
	if (probe == PP_PROBE_KMEM_FREE && pp_queue_merged(st, v)) {
		pp_head_drop(st, v->head, false);
		pp_forget(st, skb);
		return 0;
	}
	if (fate != PP_FATE_CONSUMED)
		pp_queue_clear(v, skb);
	shared = pp_head_release(st, v, skb, data, via);
	/* GSO's caller frees the skb it cut up: its data lives on in the segments. */
	if (fate == PP_FATE_CONSUMED && (v->flags & PP_SKB_SEGMENTED))
		fate = PP_FATE_SEGMENTED;
	h = bpf_ringbuf_reserve(&path_map, sizeof(*h), 0);
	if (h) {
		pp_fill_hop(h, PP_REC_END, probe, v->id, (struct sk_buff *)skb, via);
		h->fate = fate;
		h->reason = reason;
		h->location = location;
		h->caller = caller;
		h->lost = v->lost;
		h->flags = flags | (shared ? PP_HOP_SHARED : 0) |
			   pp_queue_left(v, (struct sk_buff *)skb, false, via) |
			   pp_frag_more((struct sk_buff *)skb, fate, data, via);
		if (pp_is_tap(v, (struct sk_buff *)skb, via))
			h->flags |= PP_HOP_TAP;
		if (fate == PP_FATE_DROPPED)
			pp_too_big(h, (struct sk_buff *)skb, reason, via);
		pp_submit(st, h);
	} else {
		__u32 lost = v->lost + 1;

		/* The loader will time this skb out: tell it why it has no end. */
		pp_count_lost(st, NULL, probe);
		bpf_map_update_elem(&end_lost_map, &v->id, &lost, BPF_ANY);
	}
	pp_forget(st, skb);
	return 0;
}

/*
 * --netns/--container: NETNS is one of the scope's namespaces. Without a
 * scope pp_cfg.scope_n is 0, a constant to the verifier, which prunes every
 * test of it as dead code.
 */
static __always_inline bool pp_in_scope(__u32 netns)
{
#pragma unroll
	for (__u32 i = 0; i < PP_SCOPE_MAX; i++) {
		if (i >= pp_cfg.scope_n)
			break;
		if (pp_cfg.scope_netns[i] == netns)
			return true;
	}
	return false;
}

/*
 * SKB is in a namespace outside the scope: its device's, else its
 * socket's (pp_netns()). Where neither is known, it counts as inside: a
 * hop that cannot be placed is recorded.
 */
static __always_inline bool pp_out_of_scope(struct sk_buff *skb, const enum pp_via via)
{
	__u32 netns;

	if (!pp_cfg.scope_n)
		return false;
	netns = pp_netns(skb, pp_skb_dev(skb, via), via);
	return netns && !pp_in_scope(netns);
}

/*
 * A tracked SKB first met outside the scope (a veth's peer, a bridge of
 * the host): its END there, fate LEFT, and tracking stops, as on a host of
 * its own the packet would be gone. Should it come back into the scope
 * (through a router namespace outside), the classifier marks it anew. An
 * skb not tracked is not joined as a copy out there.
 */
static __always_inline int pp_leave_scope(struct pp_state *st, __u64 skb, __u32 probe,
					  const enum pp_via via)
{
	if (pp_skb_entry(skb))
		pp_end(st, skb, probe, PP_FATE_LEFT, 0, 0, 0, 0, false, via);
	return 0;
}

/*
 * Reads. A reader's copy of a tracked skb (PP_COOKIE_READS: the
 * skb_copy_datagram_iovec tracepoint, skb_copy_datagram_iter()) that leaves
 * nothing of it unread is its delivery. Where a socket frees a read skb no
 * tracepoint fires (skb_consume_udp() and tcp_eat_recv_skb() hand it to
 * skb_attempt_defer_free(), the NAPI cache), so without kprobes the read
 * itself is the packet's end. Whether a copy delivered the data is known
 * only once the receive call has gone on: udp_recvmsg() drops a datagram
 * whose copy failed (kfree_skb(), an END of its own), and TCP moves the
 * socket's copied_seq past the data that the call consumed, which a
 * MSG_PEEK or a failed copy does not. So a copy fills its END in the
 * thread's read_map entry, and the call's end (sock:sock_recv_length), or
 * the thread's next copy, sends it if the skb is still that packet's and,
 * for TCP, copied_seq is past it. Where a function probe sees the free
 * first (kprobe backends), the skb is no longer tracked and nothing is sent.
 */

/* The END of slot S, if its read is confirmed; the skb is forgotten then. */
static __always_inline void pp_read_end(struct pp_state *st, struct pp_read_slot *s)
{
	struct pp_skb_val *v = pp_skb_entry(s->skb);
	struct tcp_sock *tp = (struct tcp_sock *)s->sk;
	__u32 seq, lost;

	if (!v || v->id != s->id)
		return;
	if (tp) {
		seq = BPF_CORE_READ(tp, copied_seq);
		if ((__s32)(seq - s->end_seq) < 0)
			return;
	}
	s->end.lost = v->lost;
	if (v->flags & PP_SKB_GAP)
		s->end.flags |= PP_HOP_GAP;
	if (bpf_ringbuf_output(&path_map, &s->end, sizeof(s->end), pp_wake_flags(st, false))) {
		/* The loader will time this skb out: tell it why it has no end. */
		lost = v->lost + 1;
		pp_count_lost(st, NULL, PP_PROBE_READ);
		bpf_map_update_elem(&end_lost_map, &s->id, &lost, BPF_ANY);
	}
	/* Its ring slot, walked after this, must not end it again. */
	pp_queue_clear(v, s->skb);
	/* Read: its data is the reader's; nothing still to come shares it. */
	pp_head_drop(st, v->head, false);
	pp_forget(st, s->skb);
}

/* The thread's copies so far are confirmed or let go (R: its read_map entry). */
static __always_inline void pp_read_confirm(struct pp_state *st, struct pp_read_val *r)
{
	for (__u32 i = 0; i < PP_READ_SLOTS; i++) {
		if (i >= r->n)
			break;
		pp_read_end(st, &r->slot[i]);
	}
	r->n = 0;
}

/* The current thread's read_map entry, made if new. */
static __always_inline struct pp_read_val *pp_read_entry(__u64 tid)
{
	struct pp_read_val *r = bpf_map_lookup_elem(&read_map, &tid);
	__u32 zero = 0;
	void *z;

	if (r)
		return r;
	z = bpf_map_lookup_elem(&read_zero, &zero);
	if (!z || bpf_map_update_elem(&read_map, &tid, z, BPF_NOEXIST))
		return NULL;
	return bpf_map_lookup_elem(&read_map, &tid);
}

/*
 * A reader copies SKB (V) out. A datagram is read whole by one copy unless
 * peeked: __skb_try_recv_from_queue() takes a reference for MSG_PEEK and
 * unlinks the skb otherwise, so a shared skb is a peek. A TCP segment is
 * read when copied_seq reaches its end (TCP_SKB_CB(skb)->seq + len): its
 * socket is skb->sk (skb_set_owner_r() in tcp_queue_rcv()).
 */
static __always_inline void pp_read_note(struct pp_state *st, struct pp_skb_val *v,
					 struct sk_buff *skb, const enum pp_via via)
{
	struct pp_read_val *r = pp_read_entry(bpf_get_current_pid_tgid());
	struct sock *sk = PP_READ(via, skb, sk);
	struct pp_read_slot *s;
	__u32 n, seq = 0;
	bool tcp;

	if (!r)
		return;
	tcp = sk && PP_READ(via, sk, sk_protocol) == IPPROTO_TCP;
	if (!tcp && PP_READ(via, skb, users.refs.counter) != 1)
		return;
	if (r->n >= PP_READ_SLOTS)
		pp_read_confirm(st, r); /* copied before this one: decided by now */
	n = r->n;
	if (n >= PP_READ_SLOTS)
		return;
	s = &r->slot[n];
	s->skb = (__u64)skb;
	s->id = v->id;
	s->sk = tcp ? (__u64)sk : 0;
	if (tcp)
		bpf_core_read(&seq, sizeof(seq), &skb->cb);
	s->end_seq = seq + PP_READ(via, skb, len);
	s->pad = 0;
	pp_fill_hop(&s->end, PP_REC_END, PP_PROBE_READ, v->id, skb, via);
	s->end.fate = PP_FATE_CONSUMED;
	r->n = n + 1;
}

/*
 * SK's queue_map ring, made if new. A ring of another socket at SK's
 * address (COOKIE differs: that one was freed unseen) is emptied: its
 * packets were never read on this socket, and end unseen.
 */
static __always_inline struct pp_queue_val *pp_queue_of(struct pp_state *st, __u64 sk, __u64 cookie)
{
	struct pp_queue_val *q = bpf_map_lookup_elem(&queue_map, &sk);
	__u32 zero = 0;
	void *z;

	if (!q) {
		z = bpf_map_lookup_elem(&queue_zero, &zero);
		if (!z || bpf_map_update_elem(&queue_map, &sk, z, BPF_NOEXIST))
			return NULL;
		q = bpf_map_lookup_elem(&queue_map, &sk);
	}
	if (q && q->cookie != cookie) {
		pp_waiting_sub(st, q->merged_n);
		q->merged_n = 0;
		q->head = q->tail = 0;
		q->cookie = cookie;
	}
	return q;
}

/* TCP's FIN flag: it takes one sequence number, as a byte of data does. */
#define PP_TCP_FIN 0x01

/*
 * A TCP segment's data length, from its headers (TCP_SKB_CB() is filled
 * only after the socket's filter); *FIN: it carries a FIN, which the
 * receive call that reaches it takes (the call returns 0, the end of the
 * stream, and copied_seq steps past it); *END: the sequence number after
 * both. A segment with neither (an ACK) is TCP's own: no reader reads it.
 */
static __always_inline __u32 pp_tcp_data(struct sk_buff *skb, __u32 *end, bool *fin)
{
	__u64 head = (__u64)skb->head;
	__u16 nh = skb->network_header, th = skb->transport_header;
	__u8 ip[6] = {}, tcp[14] = {};
	__u32 total, hdrs, seq;

	if (bpf_probe_read_kernel(ip, sizeof(ip), (void *)(head + nh)) ||
	    bpf_probe_read_kernel(tcp, sizeof(tcp), (void *)(head + th)) || th <= nh)
		return 0;
	if (ip[0] >> 4 == 4)
		total = (__u32)ip[2] << 8 | ip[3];
	else
		total = 40 + ((__u32)ip[4] << 8 | ip[5]);
	hdrs = (__u32)(th - nh) + (tcp[12] >> 4) * 4;
	if (total < hdrs)
		return 0;
	*fin = tcp[13] & PP_TCP_FIN;
	seq = (__u32)tcp[4] << 24 | (__u32)tcp[5] << 16 | (__u32)tcp[6] << 8 | tcp[7];
	*end = seq + total - hdrs + *fin;
	return total - hdrs;
}

/*
 * A tracked SKB is being queued to socket SK (the cgroup_skb ingress hook,
 * in sk_filter_trim_cap(), which udp_queue_rcv_one_skb() and tcp_filter()
 * call before the socket queues it): the socket took it, and a receive
 * call on SK will find it (pp_queue_reads()), TCP data and FINs alike
 * (pp_tcp_data()). CTX: the hook's, for the
 * socket's cookie (made on the first ask, as SO_COOKIE or `ss -e` would).
 */
static __always_inline void pp_queue_note(struct pp_state *st, struct __sk_buff *ctx,
					  struct sk_buff *skb, struct sock *sk)
{
	struct pp_skb_val *v = pp_skb_entry((__u64)skb);
	bool tcp = sk && sk->sk_protocol == IPPROTO_TCP;
	struct pp_queue_slot *s;
	struct pp_queue_val *q;
	__u32 end = 0, data = 0;
	bool fin = false;

	if (!v || !sk)
		return;
	if (pp_taken_other(v, skb, PP_VIA_BTF)) {
		pp_forget_reused(st, v, (__u64)skb, PP_VIA_BTF);
		return;
	}
	/* Another packet's clone: its read joins that packet (pp_join_copy()). */
	if (pp_takes_other(v, skb, PP_VIA_BTF)) {
		pp_forget(st, (__u64)skb);
		return;
	}
	pp_note_take(v, skb, 0, PP_VIA_BTF);
	/* At a socket: it left any qdisc's device; the end it gets says how. */
	if (pp_queue_left(v, skb, false, PP_VIA_BTF))
		v->flags |= PP_SKB_GAP;
	/*
	 * Its data may be another skb's now (reassembly's skb_morph()): the
	 * read lets go of that, so its free later is not taken for a copy's.
	 */
	pp_head_follow(st, v, (__u64)skb, PP_VIA_BTF);
	if (tcp) {
		data = pp_tcp_data(skb, &end, &fin);
		if (!data && !fin)
			return;
	}
	q = pp_queue_of(st, (__u64)sk, bpf_get_socket_cookie(ctx));
	/* Full: this one's end is left to what sees its free. */
	if (!q || q->tail - q->head >= PP_QUEUE_SLOTS)
		return;
	v->qslot = q->tail;
	v->sock = (__u64)sk;
	v->flags |= PP_SKB_RING;
	s = &q->slot[q->tail % PP_QUEUE_SLOTS];
	s->skb = (__u64)skb;
	s->id = v->id;
	s->len = skb->len & 0x7fffffff;
	s->end_seq = end;
	s->merged = 0;
	q->tail++;
	/*
	 * Freed unread, a segment's data goes on in the queue (pp_queue_merged());
	 * a lone FIN's free is its end: TCP took it (the socket closes unread).
	 */
	if (data)
		v->flags |= PP_SKB_QUEUED;
}

/*
 * SKB still sits in a socket's queue: an sk_buff_head is a ring whose
 * members' neighbours point back at them; __skb_unlink() clears both links
 * (a deferred free then reuses next for its list, never prev).
 */
static __always_inline bool pp_still_queued(__u64 skb)
{
	struct sk_buff *prev = NULL, *next = NULL;

	if (bpf_probe_read_kernel(&prev, sizeof(prev), &((struct sk_buff *)skb)->prev) || !prev)
		return false;
	if (bpf_probe_read_kernel(&next, sizeof(next), &prev->next))
		return false;
	return (__u64)next == skb;
}

/*
 * The END of a packet that the current task's receive call on SK read: the
 * skb is gone (freed unseen), so the record says what the call shows: the
 * socket's namespace, the reader, the length as queued.
 */
static __always_inline void pp_queue_end(struct pp_state *st, struct pp_queue_slot *s, __u32 lost,
					 __u32 flags, struct sock *sk)
{
	struct pp_hop *h = bpf_ringbuf_reserve(&path_map, sizeof(*h), 0);

	if (!h) {
		lost++;
		pp_count_lost(st, NULL, PP_PROBE_READ);
		bpf_map_update_elem(&end_lost_map, &s->id, &lost, BPF_ANY);
		return;
	}
	__builtin_memset(h, 0, sizeof(*h));
	h->type = PP_REC_END;
	h->probe = PP_PROBE_READ;
	h->id = s->id;
	h->ts = bpf_ktime_get_ns();
	h->skb = s->skb;
	h->cpu = bpf_get_smp_processor_id();
	h->netns = sk->__sk_common.skc_net.net->ns.inum;
	h->pid = bpf_get_current_pid_tgid() >> 32;
	h->fate = PP_FATE_CONSUMED;
	h->len = s->len;
	h->lost = lost;
	h->flags = flags;
	bpf_get_current_comm(h->comm, sizeof(h->comm));
	pp_submit(st, h);
}

/*
 * Slot S of SK's ring, after a receive call on SK ended: 1 if read (its
 * END sent), 0 if not yet (the walk stops: those after it are not either),
 * -1 if it ended otherwise.
 *
 * An skb no longer tracked (v NULL) was freed, its END sent by the free:
 * the read handed it to skb_attempt_defer_free(), and the CPU that
 * allocated it, kicked or receiving anyway, freed it (skb:consume_skb, in
 * skb_defer_free_flush()) before this call's end. It left the queue, so it
 * was read: its END is sent too, and the loader joins it to the free's as
 * that skb's read (loader/paths/path.c, end_again()). A free other than a
 * consume (a full buffer's drop, a purge) emptied the slot, and so did a
 * read whose END the reader's copy sent (pp_queue_clear()): such a slot is
 * passed with no END. Its memory may be another skb's now: a datagram's
 * queue is not looked at, a segment's copied_seq is.
 */
static __always_inline int pp_queue_read(struct pp_state *st, struct pp_queue_slot *s,
					 struct sock *sk, bool tcp)
{
	struct pp_skb_val *v = pp_skb_entry(s->skb);
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	bool own;

	if (!s->merged && (!s->id || (tcp && v && v->id != s->id)))
		return -1;
	/*
	 * A datagram's skb that carries another packet now was freed, and not
	 * dropped (a drop empties the slot): consumed, read. Under a flood the
	 * deferred free and the sender's next skb at that address can both come
	 * before this call ends (e2e reads_flood: 1 in 20000).
	 */
	if (!s->merged && v && v->id != s->id)
		v = NULL;
	if (tcp ? (__s32)(BPF_CORE_READ(tp, copied_seq) - s->end_seq) < 0
		: v && pp_still_queued(s->skb))
		return 0;
	own = v && !s->merged;
	pp_queue_end(st, s, own ? v->lost : 0, own && (v->flags & PP_SKB_GAP) ? PP_HOP_GAP : 0, sk);
	if (v && !s->merged) {
		pp_head_drop(st, v->head, false);
		pp_forget(st, s->skb);
	}
	return 1;
}

struct pp_queue_walk {
	struct pp_state *st;
	struct pp_queue_val *q;
	struct sock *sk;
	bool tcp;
};

static long pp_queue_step(__u64 i, void *arg)
{
	struct pp_queue_walk *w = arg;
	struct pp_queue_val *q = w->q;
	struct pp_queue_slot *s;
	int read;

	(void)i;
	if (q->head == q->tail)
		return 1;
	s = &q->slot[q->head % PP_QUEUE_SLOTS];
	read = pp_queue_read(w->st, s, w->sk, w->tcp);
	if (!read)
		return 1;
	if (read > 0 && s->merged && q->merged_n) {
		__sync_fetch_and_add(&q->merged_n, -1);
		pp_waiting_sub(w->st, 1);
	}
	q->head++;
	return 0;
}

/*
 * A receive call on SK ended, neither failed nor a peek: the queued skbs
 * it or the calls before it read, oldest first. A datagram is read once
 * it left the queue (each call takes one; the ones before were read by
 * calls that ended before this one), a TCP segment once copied_seq passed
 * it. One not read yet stops the walk.
 */
static __always_inline void pp_queue_reads(struct pp_state *st, struct sock *sk)
{
	__u64 key = (__u64)sk;
	struct pp_queue_walk w = {.st = st, .sk = sk, .tcp = sk->sk_protocol == IPPROTO_TCP};

	w.q = bpf_map_lookup_elem(&queue_map, &key);
	/* Another socket's ring, at this one's address before: not this one's reads. */
	if (w.q && w.q->cookie == (__u64)sk->__sk_common.skc_cookie.counter)
		bpf_loop(PP_QUEUE_SLOTS, pp_queue_step, &w, 0);
}

#define PP_MSG_PEEK 2 /* include/linux/socket.h */

/*
 * The end of a receive call on SK (sock:sock_recv_length): RET, the
 * call's result, FLAGS its flags. Its copies are confirmed, and its
 * datagram found.
 */
static __always_inline int pp_on_recv_done(struct sock *sk, int ret, int flags)
{
	struct pp_state *st = pp_state();
	__u64 tid;
	struct pp_read_val *r;

	/* A merged segment has no skb in flight: its slot waits for this call. */
	if (!sk || !st || !(pp_busy(st) || READ_ONCE(st->waiting)))
		return 0;
	sk = (struct sock *)pp_untrusted(sk, struct sock);
	tid = bpf_get_current_pid_tgid();
	r = bpf_map_lookup_elem(&read_map, &tid);
	if (r && r->n)
		pp_read_confirm(st, r);
	if (ret >= 0 && !(flags & PP_MSG_PEEK))
		pp_queue_reads(st, sk);
	return 0;
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
 * A copying function's entry with a tracked SKB: remember it for the
 * function's return (pp_on_copy_ret()), which sees only the new skbs.
 */
static __always_inline void pp_copy_enter(__u64 skb, __u32 probe)
{
	struct pp_copy_key key = {.tid = bpf_get_current_pid_tgid(), .probe = probe};

	bpf_map_update_elem(&copy_map, &key, &skb, BPF_ANY);
}

static __always_inline void pp_note_fclone(struct pp_skb_val *v, struct sk_buff *skb,
					   const enum pp_via via)
{
	if (pp_fclone(skb, via) == SKB_FCLONE_CLONE)
		v->flags |= PP_SKB_FCLONE2;
	else
		v->flags &= ~PP_SKB_FCLONE2;
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

/*
 * Every probe starts here. The in-flight gate comes first, so that traffic
 * while nothing is tracked costs one inlined array lookup. COOKIE is the
 * probe index, and a fate for the points that release an skb; CTX the
 * program's, for a stack (PP_COOKIE_STACK).
 */
static __always_inline int pp_record_hop(void *ctx, __u64 skb, __u64 cookie, const enum pp_via via)
{
	__u32 probe = cookie & PP_COOKIE_PROBE, fate = (__u8)(cookie >> PP_COOKIE_FATE_SHIFT);
	struct pp_state *st;
	struct pp_skb_val *v;
	__u32 gap;

	/* tp_btf and fentry pass a maybe-NULL pointer: the verifier wants it checked. */
	if (!skb)
		return 0;
	st = pp_state();
	if (!pp_busy(st))
		return 0;
	if (pp_out_of_scope((struct sk_buff *)skb, via))
		return pp_leave_scope(st, skb, probe, via);
	if (fate)
		return pp_end(st, skb, probe, fate, 0, 0, 0, 0, cookie & PP_END_DATA, via);
	v = pp_skb_entry(skb);
	if (v && pp_reused_at(st, v, skb, cookie, via))
		v = NULL;
	if (!v) {
		v = pp_join_copy(st, skb, probe, 0, via);
	} else {
		pp_head_follow(st, v, skb, via);
		if (pp_cfg.fclone_note)
			pp_note_fclone(v, (struct sk_buff *)skb, via);
		if (cookie & PP_COOKIE_QUEUES)
			v->flags |= PP_SKB_QDISC;
		else
			v->flags &= ~PP_SKB_QDISC;
		gap = pp_queue_left(v, (struct sk_buff *)skb, cookie & PP_COOKIE_QUEUES, via);
		if (!(v->flags & PP_SKB_SEND_LOOKED))
			pp_send_start(st, v, (struct sk_buff *)skb, via);
		pp_emit_hop_flags(st, v, PP_REC_HOP, probe, (struct sk_buff *)skb, 0,
				  cookie & PP_COOKIE_STACK ? pp_stack(ctx, via) : 0, gap, via);
		if (cookie & PP_COOKIE_READS)
			pp_read_note(st, v, (struct sk_buff *)skb, via);
	}
	if (v && (cookie & PP_COOKIE_COPIES))
		pp_copy_enter(skb, probe);
	return 0;
}

/*
 * The hop programs test the gate themselves and call these only when it is
 * open. As subprograms of their own, not inlined, they keep an untracked
 * hit from paying their prologue: a program this size saves every
 * callee-saved register and sets up a large stack frame on entry, which
 * was most of what an untracked hit cost above an empty program
 * (docs/PERFORMANCE.md, "Per-hit cost in the kernel"). The kprobe.multi
 * cookie's helper call is also made only past the gate. (Unused in the
 * objects that include this header for other parts.)
 */
static __always_inline bool pp_hop_gate(__u64 skb)
{
	return skb && pp_busy(pp_state());
}

/* kprobe and kprobe.multi programs (and bench/hop_floor.bpf.c's gate). */
static __noinline __attribute__((unused)) int pp_on_hop(void *ctx, __u64 skb, __u64 cookie)
{
	return pp_record_hop(ctx, skb, cookie, PP_VIA_KPROBE);
}

/* tp_btf and fentry programs: SKB is a BTF pointer. */
static __noinline __attribute__((unused)) int pp_on_btf_hop(void *ctx, __u64 skb, __u64 cookie)
{
	return pp_record_hop(ctx, pp_untrusted(skb, struct sk_buff), cookie, PP_VIA_BTF);
}

/*
 * Another BPF program judged SKB: a hop with its verdict RET (FLAGS:
 * PP_HOP_VERDICT, and PP_HOP_XDP for an XDP action), for a packet already
 * tracked (pktpath's classifier runs first at a TC hook). No copy joins here.
 */
static __noinline __attribute__((unused)) int pp_on_verdict(__u64 skb, __u32 probe, __u32 ret,
							    __u32 flags)
{
	struct pp_state *st = pp_state();
	struct pp_skb_val *v;
	struct pp_hop *h;

	skb = pp_untrusted(skb, struct sk_buff);
	v = pp_skb_entry(skb);
	if (!v || !st)
		return 0;
	h = bpf_ringbuf_reserve(&path_map, sizeof(*h), 0);
	if (!h) {
		pp_count_lost(st, v, probe);
		return 0;
	}
	pp_fill_hop(h, PP_REC_HOP, probe, v->id, (struct sk_buff *)skb, PP_VIA_BTF);
	h->flags = flags;
	h->reason = ret;
	pp_submit(st, h);
	return 0;
}

/* What a copying function's return joins to the packet of the skb it was given. */
struct pp_copy_ctx {
	__u64 id;     /* the packet */
	__u64 tuple;  /* its mark's (pp_skb_val.tuple) */
	__u64 parent; /* the skb it was given */
	__u64 next;   /* the next new skb to join, 0: none left */
	__u32 probe;
	__u32 joined;
};

/*
 * MADE (a copy, or a segment: the new skbs are linked by ->next, and a single
 * copy's is NULL) joins the packet: its COPY record, and its data buffer in
 * head_map, so that its own clones (taps on the way out) join too. A
 * segment may be a clone sharing a buffer with the packet already.
 */
static __always_inline void pp_copy_join(struct pp_state *st, struct pp_copy_ctx *c,
					 struct sk_buff *made)
{
	__u64 key = (__u64)made, head = (__u64)BPF_CORE_READ(made, head);
	struct pp_head_val *hv;
	struct pp_skb_val *v;

	if (pp_track_as(st, key, c->id, head, 0))
		return;
	v = pp_skb_entry(key);
	if (!v)
		return;
	v->flags |= PP_SKB_SEND_LOOKED | PP_SKB_COPY;
	v->tuple = c->tuple;
	hv = head ? bpf_map_lookup_elem(&head_map, &head) : NULL;
	if (hv && hv->id == c->id)
		pp_head_hold(st, hv);
	else
		pp_head_note(head, c->id, made, PP_VIA_KPROBE);
	pp_emit_hop(st, v, PP_REC_COPY, c->probe, made, c->parent, 0, PP_VIA_KPROBE);
	c->joined++;
}

static long pp_copy_step(__u64 i, void *arg)
{
	struct pp_copy_ctx *c = arg;
	struct sk_buff *made = (struct sk_buff *)c->next;
	struct pp_state *st = pp_state();

	(void)i;
	if (!made || !st)
		return 1;
	c->next = (__u64)BPF_CORE_READ(made, next);
	pp_copy_join(st, c, made);
	return 0;
}

/*
 * A copying function returns RET: NULL, an error pointer, or the first of
 * the made skbs. They join the packet of the skb its entry remembered.
 */
static __always_inline int pp_on_copy_ret(__u64 ret, __u64 cookie)
{
	struct pp_copy_key key = {.tid = bpf_get_current_pid_tgid(),
				  .probe = cookie & PP_COOKIE_PROBE};
	struct pp_copy_ctx c = {.probe = key.probe, .next = ret};
	struct pp_skb_val *v;
	__u64 *given;

	if (!pp_busy(pp_state()))
		return 0;
	given = bpf_map_lookup_elem(&copy_map, &key);
	if (!given)
		return 0;
	c.parent = *given;
	bpf_map_delete_elem(&copy_map, &key);
	if (!ret || ret >= (__u64)-4095) /* NULL, or IS_ERR() */
		return 0;
	v = pp_skb_entry(c.parent);
	if (!v)
		return 0;
	c.id = v->id;
	c.tuple = v->tuple;
	bpf_loop(PP_MAX_COPIES, pp_copy_step, &c, 0);
	if (c.joined && (cookie & PP_COOKIE_SEGMENTS))
		v->flags |= PP_SKB_SEGMENTED;
	return 0;
}

/* The free tracepoints: an END with the kernel's own verdict. */
static __always_inline int pp_on_free(__u64 skb, __u32 probe, __u32 fate, __u32 reason,
				      __u64 location, __s32 caller, __u32 flags,
				      const enum pp_via via)
{
	struct pp_state *st;

	if (!skb)
		return 0;
	st = pp_state();
	if (!pp_busy(st))
		return 0;
	if (via == PP_VIA_BTF)
		skb = pp_untrusted(skb, struct sk_buff);
	if (pp_out_of_scope((struct sk_buff *)skb, via))
		return pp_leave_scope(st, skb, probe, via);
	return pp_end(st, skb, probe, fate, reason, location, caller, flags, true, via);
}

#endif
