/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ends and fates: when an skb's life as a packet's is over, and how (the
 * fate: consumed, dropped with its reason, sent, merged, segmented, a
 * tap's copy), and when that ends the packet.
 */
#ifndef PP_END_BPF_H
#define PP_END_BPF_H

#include "copies.bpf.h"

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
	__u64 id, head;
	bool shared;

	/* A copy first seen at its own free (a tap's clone consumed at once). */
	if (!v && data)
		v = pp_join_copy(st, skb, probe, 0, via);
	if (!v)
		return 0;
	id = v->id;
	head = v->head;
	/* Another sk_buff at a taken skb's address: its end is not this packet's. */
	if (pp_taken_other(v, (struct sk_buff *)skb, via)) {
		pp_forget_reused(st, v, skb, via);
		return 0;
	}
	/* A queued TCP segment freed unread, no drop said why: its data goes on. */
	if (probe == PP_PROBE_KMEM_FREE && pp_queue_merged(st, v)) {
		pp_let_go(st, skb, id, head, false);
		return 0;
	}
	if (fate != PP_FATE_CONSUMED)
		pp_queue_clear(v, skb);
	shared = pp_head_shared(skb, head, data, via);
	/* GSO's caller frees the skb it cut up: its data lives on in the segments. */
	if (fate == PP_FATE_CONSUMED && (v->flags & PP_SKB_SEGMENTED))
		fate = PP_FATE_SEGMENTED;
	h = bpf_ringbuf_reserve(&path_map, sizeof(*h), 0);
	if (h) {
		pp_fill_hop(h, PP_REC_END, probe, id, (struct sk_buff *)skb, via);
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
		bpf_map_update_elem(&end_lost_map, &id, &lost, BPF_ANY);
	}
	pp_let_go(st, skb, id, head, shared);
	return 0;
}

#endif
