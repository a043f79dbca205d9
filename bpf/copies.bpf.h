/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copies: a new skb that carries a tracked packet's data (a clone, a
 * copy, a segment) joins that packet, as a copy of the skb it came from.
 */
#ifndef PP_COPIES_BPF_H
#define PP_COPIES_BPF_H

#include "reads.bpf.h"

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

#endif
