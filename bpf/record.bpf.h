/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cores that every program's entry point calls, each deciding what one
 * kind of event means for a tracked packet: a hop (the classifier, kprobe,
 * kprobe.multi, fentry and tracepoint entry points are thin wrappers, each
 * telling the core how it may read the skb: enum pp_via), another BPF
 * program's verdict, a copying function's return, a free. The parts they
 * share are rooms of their own, each including the one before:
 *
 *   gate.bpf.h      is anything in flight, is this skb tracked
 *   hop.bpf.h       hop records and the ring
 *   queues.bpf.h    a socket's receive ring of tracked skbs
 *   identity.bpf.h  which packet an skb is: buffers, clones, reuse, new ids
 *   reads.bpf.h     reads and queued datagrams: deliveries
 *   copies.bpf.h    new skbs joined to their packet
 *   end.bpf.h       ends and fates
 *   scope.bpf.h     --netns/--container
 *
 * Fragments are frag.bpf.h's; XDP's frames frames.bpf.h's (over this
 * file); the settings settings.bpf.h's.
 */
#ifndef PP_RECORD_BPF_H
#define PP_RECORD_BPF_H

#include "scope.bpf.h"

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
 * Put MADE, which a copying function just returned, into skb_map for
 * packet ID; 0 on success. A new skb is no tracked packet's yet: an entry at
 * its address is an earlier skb's, freed where no probe ran (a probe the
 * kernel skipped: a BPF program was already running on that CPU), and
 * joining it would give MADE's hops to that packet. That life is over: its
 * entry goes. The packet's own entry stays (skb_segment_list() returns the
 * skb it was given as the first segment): no join.
 */
static __always_inline int pp_track_made(struct pp_state *st, __u64 made, __u64 id, __u64 head)
{
	struct pp_skb_val *old;

	if (!pp_track_as(st, made, id, head, 0))
		return 0;
	old = pp_skb_entry(made);
	if (!old || old->id == id)
		return -1;
	pp_forget_reused(st, old, made, PP_VIA_KPROBE);
	return pp_track_as(st, made, id, head, 0);
}

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

	if (pp_track_made(st, key, c->id, head))
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
