/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A socket's receive ring (queue_map): the slots of tracked skbs queued
 * to a socket, so that a read, a purge or a merge into the skb before
 * ends each one; and the count of packets waiting there.
 */
#ifndef PP_QUEUES_BPF_H
#define PP_QUEUES_BPF_H

#include "hop.bpf.h"

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

#endif
