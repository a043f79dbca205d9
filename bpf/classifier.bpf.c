// SPDX-License-Identifier: GPL-2.0
/*
 * The TC classifier. The loader splices the translated filter in front of
 * each program (see splice.h): the C code below runs only for packets the
 * filter matched, with r1 = ctx. It never changes a packet's fate: every path
 * returns TC_ACT_UNSPEC, which tcx reads as TCX_NEXT.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "record.bpf.h"

#define TC_ACT_UNSPEC (-1)

char LICENSE[] SEC("license") = "GPL";

static __always_inline void pp_emit_mark(struct pp_state *st, struct __sk_buff *ctx, __u64 id,
					 __u32 probe)
{
	struct pp_mark *m = bpf_ringbuf_reserve(&path_map, sizeof(*m), 0);
	__u64 n = ctx->len; /* 64-bit: no zero-extended copy for clang to check instead */

	if (!m) {
		pp_count_lost(st, NULL, probe);
		return;
	}
	pp_fill_hop(&m->hop, PP_REC_MARK, probe, id, (struct sk_buff *)ctx, PP_VIA_TC);
	if (n > PP_HDR_BYTES)
		n = PP_HDR_BYTES;
	if (n) {
		/*
		 * 1..PP_HDR_BYTES in a form that older verifiers (6.1) can follow:
		 * they learn nothing from "n != 0". The barrier keeps clang from
		 * folding it back to n.
		 */
		barrier_var(n);
		n = ((n - 1) & (PP_HDR_BYTES - 1)) + 1;
		/* bpf_skb_load_bytes() also reaches bytes outside the linear part. */
		if (bpf_skb_load_bytes(ctx, 0, m->data, n) < 0)
			n = 0;
	}
	m->cap_len = n;
	m->pad = 0;
	pp_submit_mark(st, m);
}

/*
 * A tracked packet reaches a TC hook: a new one for it, noted; one it has
 * crossed already means the sk_buff now carries another packet.
 */
static __always_inline bool pp_cross_hook(struct pp_skb_val *v, __u32 hook)
{
	for (int i = 0; i < PP_TC_HOOKS; i++) {
		if (v->tc_hook[i] == hook)
			return false;
		if (!v->tc_hook[i]) {
			v->tc_hook[i] = hook;
			return true;
		}
	}
	return true; /* more hooks than slots: trust the other checks */
}

/*
 * A matching packet: new ones get a packet id and enter skb_map; one already
 * tracked (crossing a second interface) gets a hop instead of a new mark, and
 * a clone of a tracked one (a bridge's flood copies) joins its packet. A
 * tracked sk_buff that crossed this hook already, or that a socket took,
 * was freed unseen and carries another packet.
 */
static __always_inline int pp_classify(struct __sk_buff *ctx, __u32 probe)
{
	__u64 skb = (__u64)ctx, id; /* the kernel's struct sk_buff address */
	__u32 hook = ctx->ifindex << 1 | (probe == PP_PROBE_TC_EGRESS);
	struct pp_state *st = pp_state();
	struct pp_skb_val *v;

	if (!st)
		return TC_ACT_UNSPEC;
	v = bpf_map_lookup_elem(&skb_map, &skb);
	if (v && !(v->flags & PP_SKB_TAKEN) && pp_cross_hook(v, hook)) {
		pp_head_follow(st, v, skb, PP_VIA_TC);
		pp_emit_hop(st, v, PP_REC_HOP, probe, (struct sk_buff *)ctx, 0, 0, PP_VIA_TC);
		return TC_ACT_UNSPEC;
	}
	if (v)
		pp_forget_reused(st, v, skb, PP_VIA_TC);
	else if (pp_join_copy(st, skb, probe, hook, PP_VIA_TC))
		return TC_ACT_UNSPEC;
	if (pp_track(st, skb, hook, &id, PP_VIA_TC) == 0)
		pp_emit_mark(st, ctx, id, probe);
	return TC_ACT_UNSPEC;
}

SEC("pktpath_cls")
int pp_cls_ingress(struct __sk_buff *ctx)
{
	return pp_classify(ctx, PP_PROBE_TC_INGRESS);
}

SEC("pktpath_cls")
int pp_cls_egress(struct __sk_buff *ctx)
{
	return pp_classify(ctx, PP_PROBE_TC_EGRESS);
}
