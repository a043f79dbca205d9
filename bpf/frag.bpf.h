/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IPv4 fragments at the TC hooks. A sender cuts a datagram larger than the
 * route's MTU (ip_do_fragment(): the skbs of its frag_list become the later
 * fragments), and a router cuts a packet without DF larger than its way out
 * (ip_do_fragment()'s slow path: new skbs, new data; the original is then
 * consumed). Either way the fragments are new skbs that share no data with
 * the packet: the head_map does not find them, and a later fragment has no
 * transport header for a filter with ports to match. So a tracked IPv4
 * packet that may be cut, or is a fragment, notes its datagram in frag_map
 * at each TC hop, and an untracked fragment of a datagram noted there joins
 * that packet as a copy, whatever the filter says.
 */
#ifndef PP_FRAG_BPF_H
#define PP_FRAG_BPF_H

#include "frag_pick.h"
#include "record.bpf.h"

#define PP_FRAG_ETH_P_IP 0x0800
#define PP_IP_DF	 0x4000
#define PP_IP_MF	 0x2000
#define PP_IP_OFFSET	 0x1fff
/* CTX's IPv4 header (at the network header, set at both hooks); false if none. */
static __always_inline bool pp_ip4_header(struct __sk_buff *ctx, struct iphdr *ip)
{
	if (ctx->protocol != bpf_htons(PP_FRAG_ETH_P_IP))
		return false;
	return !bpf_skb_load_bytes_relative(ctx, 0, ip, sizeof(*ip), BPF_HDR_START_NET);
}

static __always_inline bool pp_ip4_fragment(const struct iphdr *ip)
{
	return ip->frag_off & bpf_htons(PP_IP_MF | PP_IP_OFFSET);
}

static __always_inline struct pp_frag_key pp_frag_key_of(const struct iphdr *ip)
{
	struct pp_frag_key k = {.saddr = ip->saddr, .daddr = ip->daddr, .ip_id = ip->id};

	k.proto = ip->protocol;
	return k;
}

/* IP's payload bytes of the datagram in this packet: [*first, *end). */
static __always_inline void pp_frag_range(const struct iphdr *ip, __u32 *first, __u32 *end)
{
	*first = (bpf_ntohs(ip->frag_off) & PP_IP_OFFSET) * 8;
	*end = *first + bpf_ntohs(ip->tot_len) - ip->ihl * 4;
}

/*
 * Tracked SKB (packet ID) crossed a TC hook with IPv4 header IP: if it may
 * be cut further on (no DF) or is a fragment, its range is noted, in the
 * slot pp_frag_pick_slot() gives.
 */
static __always_inline void pp_frag_note(struct pp_state *st, const struct iphdr *ip, __u64 skb,
					 __u64 id)
{
	struct pp_frag_key k = pp_frag_key_of(ip);
	struct pp_frag_val *f, nf = {};
	__u64 now = bpf_ktime_get_ns();
	__u32 first, end;

	if ((ip->frag_off & bpf_htons(PP_IP_DF)) && !pp_ip4_fragment(ip))
		return;
	pp_frag_range(ip, &first, &end);
	*(volatile __u64 *)&st->frag_ts = now;
	f = bpf_map_lookup_elem(&frag_map, &k);
	if (!f || f->id != id) {
		nf.id = id;
		nf.ts = now;
		pp_frag_put(&nf, skb, first, end, now);
		bpf_map_update_elem(&frag_map, &k, &nf, BPF_ANY);
		return;
	}
	f->ts = now;
	pp_frag_put(f, skb, first, end, now);
}

/*
 * NOW is at most PP_FRAG_NS after TS. Signed: another CPU may write TS
 * after NOW was read, and a newer TS is fresh, not 584 years old.
 */
static __always_inline bool pp_frag_fresh(__u64 now, __u64 ts)
{
	return (__s64)(now - ts) <= (__s64)PP_FRAG_NS;
}

/*
 * Untracked SKB at TC hook HOOK: if it is an IPv4 fragment of a datagram
 * that frag_map knows fresh, it joins that packet as a copy (its COPY
 * record) and is noted in turn; its entry, NULL otherwise. A router's
 * original then ends segmented, not consumed. Untracked traffic pays one
 * read of frag_ts while no fragmentable packet was tracked in the last
 * PP_FRAG_NS (the loader clears a stale one), and a read of the clock and
 * of the IPv4 header otherwise.
 */
static __always_inline struct pp_skb_val *pp_frag_join(struct pp_state *st, struct __sk_buff *ctx,
						       __u64 skb, __u32 hook, __u32 probe)
{
	__u64 seen = READ_ONCE(st->frag_ts), now, parent, head, alive;
	struct pp_frag_key k;
	struct pp_skb_val *v, *pv;
	struct pp_frag_val *f;
	struct iphdr ip;
	__u32 first, end;
	bool cut;

	if (!seen)
		return NULL;
	now = bpf_ktime_get_ns();
	if (!pp_frag_fresh(now, seen) || !pp_ip4_header(ctx, &ip) || !pp_ip4_fragment(&ip))
		return NULL;
	k = pp_frag_key_of(&ip);
	f = bpf_map_lookup_elem(&frag_map, &k);
	if (!f || !pp_frag_fresh(now, READ_ONCE(f->ts)))
		return NULL;
	pp_frag_range(&ip, &first, &end);
	parent = pp_frag_pick_parent(f, first, &cut, &alive);
	head = (__u64)BPF_CORE_READ((struct sk_buff *)skb, head);
	if (!parent || parent == skb || pp_track_as(st, skb, f->id, head, hook))
		return NULL;
	v = pp_skb_entry(skb);
	if (!v)
		return NULL;
	v->flags |= PP_SKB_SEND_LOOKED | PP_SKB_COPY;
	/* Its own data: its clones (a tap's) join through head_map. */
	pp_head_note(head, f->id, (struct sk_buff *)skb, PP_VIA_TC);
	pv = cut ? pp_skb_entry(parent) : NULL;
	if (pv && pv->id == f->id)
		pv->flags |= PP_SKB_SEGMENTED;
	pp_emit_rec(st, v, PP_REC_COPY, probe, (struct sk_buff *)skb, parent, (__u32)(now - alive),
		    0, 0, PP_VIA_TC);
	pp_frag_note(st, &ip, skb, f->id);
	return v;
}

/*
 * A tracked packet that may be cut was noted within PP_FRAG_NS: while none
 * is in flight, its later fragments may still come (the first left the
 * scope, or was sent and freed, before the next crossed a hook). The clock
 * is read only while frag_ts is set: the loader clears it once stale.
 */
static __always_inline bool pp_frag_recent(struct pp_state *st)
{
	__u64 seen = READ_ONCE(st->frag_ts);

	return seen && pp_frag_fresh(bpf_ktime_get_ns(), seen);
}

/* Tracked SKB (packet ID) at a TC hook: pp_frag_note() if it is IPv4. */
static __always_inline void pp_frag_seen(struct pp_state *st, struct __sk_buff *ctx, __u64 skb,
					 __u64 id)
{
	struct iphdr ip;

	if (pp_ip4_header(ctx, &ip))
		pp_frag_note(st, &ip, skb, id);
}

#endif
