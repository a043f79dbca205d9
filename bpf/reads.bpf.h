/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reads and queues: a reader's copy of a tracked skb is its delivery
 * (read_map), confirmed at the end of the receive call; a datagram or
 * segment queued to a socket (the cgroup ingress program) is read when the
 * socket's copied_seq passes it.
 */
#ifndef PP_READS_BPF_H
#define PP_READS_BPF_H

#include "identity.bpf.h"

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
	__u64 head;

	if (!v || v->id != s->id)
		return;
	head = v->head;
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
	pp_let_go(st, s->skb, s->id, head, false);
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
		pp_forget(st, (__u64)skb, v->id);
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
	__u64 head;
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
	head = own ? v->head : 0;
	pp_queue_end(st, s, own ? v->lost : 0, own && (v->flags & PP_SKB_GAP) ? PP_HOP_GAP : 0, sk);
	if (own)
		pp_let_go(st, s->skb, s->id, head, false);
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

#endif
