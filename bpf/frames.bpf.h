// SPDX-License-Identifier: GPL-2.0
/*
 * Frames before any skb (--verdicts): an XDP program in native mode (a
 * NIC's driver, a veth) judges a frame before the kernel makes an skb of
 * it, and one it drops, sends back or redirects never meets pktpath's
 * classifier. Where such a frame matches the filter it is a packet of its
 * own: a MARK (the frame's bytes; as its hop, the program's verdict) and an
 * END at once, both flagged PP_HOP_FRAME; a redirected frame's END waits
 * for the xdp redirect tracepoint that follows, which says where it went
 * (PP_HOP_REDIRECT). A frame the program passes
 * becomes an skb, marked at TC like any other. XDP's generic mode runs on
 * an skb, whose verdict pp_xdp_generic* records if tracked; one not
 * tracked (not marked yet: TC comes after XDP) is a frame of its own too,
 * told by that fexit once this one noted the match. A frame that veth
 * copied from a tracked skb (which ended there, PP_FATE_XDP) joins that
 * packet as a copy, with the verdict and its end.
 * Included by probes.bpf.c after record.bpf.h.
 */
#ifndef PP_FRAMES_BPF_H
#define PP_FRAMES_BPF_H

#include "record.bpf.h"

/*
 * How long after a tracked skb's copy for XDP ended its frame may follow
 * (pp_on_frame()): the program runs next, but the first run on a CPU
 * (a page pool made, caches cold) took milliseconds under QEMU's TCG.
 */
#define PP_FRAME_COPY_NS 100000000ULL

/*
 * The filter on the frame from its Ethernet header. The loader splices
 * the filter, translated for probes, over this body; the asm keeps the
 * arguments alive, so that the caller passes them.
 */
static __noinline int pp_filter_l2(const void *data, __u64 len, __u64 headlen)
{
	__u64 v;

	asm volatile("%0 = %1" : "=r"(v) : "i"(PP_FILTER_MAGIC), "r"(data), "r"(len), "r"(headlen));
	return (int)v;
}

/*
 * Tracked skb SKB of packet ID, copied for XDP, ended here: its frame comes
 * next on this CPU, on the same device.
 */
static __always_inline void pp_frame_copy_next(struct sk_buff *skb, __u64 id)
{
	__u32 zero = 0;
	struct pp_frame_note *n = bpf_map_lookup_elem(&frame_copy_map, &zero);

	if (n) {
		n->id = id;
		n->parent = (__u64)skb;
		n->ifindex = BPF_CORE_READ(skb, dev, ifindex);
		n->ts = bpf_ktime_get_ns();
	}
}

/*
 * A note left for this frame, taken into N: it may be the copy of a tracked
 * skb that ended "past XDP" at the copy (veth's native XDP on an skb), if
 * on the note's device (pp_on_frame()).
 */
static __always_inline bool pp_frame_noted(struct pp_frame_note *n)
{
	__u32 zero = 0;
	struct pp_frame_note *note = bpf_map_lookup_elem(&frame_copy_map, &zero);

	if (!note || !note->ts)
		return false;
	*n = *note;
	note->ts = 0;
	return bpf_ktime_get_ns() - n->ts < PP_FRAME_COPY_NS;
}

/*
 * XDP's generic mode gives the program the device's own receive queue's
 * info (dev->_rx[i].xdp_rxq); a driver in native mode, one of its own.
 */
static __always_inline bool pp_xdp_generic_rxq(struct xdp_rxq_info *rxq, struct net_device *dev)
{
	/* Read as a number: a BTF pointer's arithmetic is refused (5.10). */
	__u64 rx = (__u64)BPF_CORE_READ(dev, _rx);
	__u64 q = rxq->queue_index;

	return (__u64)rxq == rx + q * bpf_core_type_size(struct netdev_rx_queue) +
				     bpf_core_field_offset(struct netdev_rx_queue, xdp_rxq);
}

/*
 * The frames' programs are fexits whose arguments are BTF pointers: an
 * xdp_buff and what it leads to are read by direct loads (PP_VIA_BTF),
 * which cost a frame the program drops a fraction of a helper call each.
 * XDP of a BTF pointer argument, untrusted (see pp_untrusted()).
 */
#define pp_xdp_arg(xdp) ((struct xdp_buff *)pp_untrusted(xdp, struct xdp_buff))

/* A frame's record: on DEV, LEN bytes long, KEY standing for the skb it has not. */
static __always_inline void pp_fill_frame(struct pp_hop *h, __u32 type, __u32 probe, __u64 id,
					  __u64 key, struct net_device *dev, __u32 len, __u64 ts)
{
	__builtin_memset(h, 0, sizeof(*h));
	h->type = type;
	h->probe = probe;
	h->id = id;
	h->ts = ts;
	h->skb = key;
	h->cpu = bpf_get_smp_processor_id();
	h->netns = dev->nd_net.net->ns.inum;
	h->ifindex = dev->ifindex;
	h->len = len;
	pp_ifname(h->ifname, dev, PP_VIA_BTF);
}

/* The frame's MARK: its bytes, and the verdict RET as its hop. */
static __always_inline bool pp_frame_mark(struct pp_state *st, __u32 probe, __u64 id, __u64 key,
					  struct net_device *dev, const void *data, __u32 len,
					  __u32 ret, __u64 ts)
{
	struct pp_mark *m = bpf_ringbuf_reserve(&path_map, sizeof(*m), 0);
	__u64 n = len;

	if (!m) {
		pp_count_lost(st, NULL, probe);
		return false;
	}
	pp_fill_frame(&m->hop, PP_REC_MARK, probe, id, key, dev, len, ts);
	m->hop.flags = PP_HOP_VERDICT | PP_HOP_XDP | PP_HOP_FRAME;
	m->hop.reason = ret;
	/* The clamp on the register the call takes: clang would test a copy. */
	asm volatile("if %0 <= %1 goto +1; %0 = %1" : "+r"(n) : "i"(PP_HDR_BYTES));
	if (bpf_probe_read_kernel(m->data, n, data))
		n = 0;
	m->cap_len = (__u32)n;
	m->vlan = 0;
	m->maker_pid = 0;
	m->maker_comm[0] = 0;
	m->pad = 0;
	pp_submit_mark(st, m);
	return true;
}

/*
 * One more record of a frame's (PP_HOP_FRAME, and FLAGS): REASON is a
 * verdict (PP_HOP_VERDICT), an END's drop reason or a COPY's parent age.
 */
static __always_inline void pp_frame_rec(struct pp_state *st, __u32 type, __u32 probe, __u64 id,
					 __u64 key, struct net_device *dev, __u32 len, __u64 ts,
					 __u32 flags, __u32 fate, __u32 reason, __u64 location)
{
	struct pp_hop *h = bpf_ringbuf_reserve(&path_map, sizeof(*h), 0);

	if (!h) {
		pp_count_lost(st, NULL, probe);
		return;
	}
	pp_fill_frame(h, type, probe, id, key, dev, len, ts);
	h->flags = PP_HOP_FRAME | flags;
	h->fate = fate;
	h->reason = reason;
	h->location = location;
	pp_submit(st, h);
}

/* A held END (frame_redirect_map's) into the ring, and the slot freed. */
static __always_inline void pp_frame_flush(struct pp_state *st, struct pp_hop *held)
{
	struct pp_hop *h = bpf_ringbuf_reserve(&path_map, sizeof(*h), 0);

	if (h) {
		__builtin_memcpy(h, held, sizeof(*h));
		pp_submit(st, h);
	} else {
		pp_count_lost(st, NULL, held->probe);
	}
	held->ts = 0;
}

/*
 * A redirected frame's END, held for the redirect tracepoint
 * (pp_frame_redirected()). One the tracepoint never took (there is one
 * after every XDP_REDIRECT) goes out as it is first.
 */
static __always_inline bool pp_frame_hold(struct pp_state *st, __u32 probe, __u64 id, __u64 key,
					  struct net_device *dev, __u32 len, __u64 ts)
{
	__u32 zero = 0;
	struct pp_hop *h = bpf_map_lookup_elem(&frame_redirect_map, &zero);

	if (!h)
		return false;
	if (h->ts)
		pp_frame_flush(st, h);
	pp_fill_frame(h, PP_REC_END, probe, id, key, dev, len, ts);
	h->flags = PP_HOP_FRAME;
	h->fate = PP_FATE_XDP;
	return true;
}

/* The frame's END: dropped (XDP_DROP, XDP_ABORTED), else gone on past XDP. */
static __always_inline void pp_frame_end(struct pp_state *st, __u32 probe, __u64 id, __u64 key,
					 struct net_device *dev, __u32 len, __u32 ret, __u64 ts)
{
	bool drop = ret == XDP_DROP || ret == XDP_ABORTED;

	if (ret == XDP_REDIRECT && pp_cfg.frame_redirect &&
	    pp_frame_hold(st, probe, id, key, dev, len, ts))
		return;
	pp_frame_rec(st, PP_REC_END, probe, id, key, dev, len, ts, 0,
		     drop ? PP_FATE_DROPPED : PP_FATE_XDP, drop ? pp_cfg.frame_drop_reason : 0, 0);
}

/*
 * The frame is the copy of tracked skb N->parent made for XDP: a COPY of
 * its packet, the verdict, its END, whatever the verdict (a passed copy
 * goes on unfollowed, as "went on past XDP" says).
 */
static __always_inline void pp_frame_join(struct pp_state *st, const struct pp_frame_note *n,
					  __u32 probe, __u64 key, struct net_device *dev, __u32 len,
					  __u32 ret)
{
	__u64 ts = bpf_ktime_get_ns();

	pp_frame_rec(st, PP_REC_COPY, probe, n->id, key, dev, len, ts, 0, PP_FATE_NONE,
		     (__u32)(ts - n->ts), n->parent);
	pp_frame_rec(st, PP_REC_HOP, probe, n->id, key, dev, len, ts, PP_HOP_VERDICT | PP_HOP_XDP,
		     PP_FATE_NONE, ret, 0);
	pp_frame_end(st, probe, n->id, key, dev, len, ret, ts);
}

/*
 * A frame of generic mode that the filter matched: the fexit on
 * bpf_prog_run_generic_xdp() tells it if its skb is not tracked.
 */
static __always_inline void pp_frame_generic_note(__u32 probe)
{
	__u32 zero = 0;
	struct pp_generic_note *n = bpf_map_lookup_elem(&frame_generic_map, &zero);

	if (n) {
		n->probe = probe;
		n->ts = bpf_ktime_get_ns();
	}
}

/* The note of the frame just judged in generic mode, taken: its probe index, or -1. */
static __always_inline __s64 pp_frame_generic_noted(void)
{
	__u32 zero = 0;
	struct pp_generic_note *n = bpf_map_lookup_elem(&frame_generic_map, &zero);
	__u64 then;

	if (!n || !n->ts)
		return -1;
	then = n->ts;
	n->ts = 0;
	return bpf_ktime_get_ns() - then < PP_FRAME_COPY_NS ? n->probe : -1;
}

/* A frame of its own: a new packet, its MARK and END (the filter matched it). */
static __always_inline void pp_frame_new(struct pp_state *st, __u32 probe, struct xdp_buff *xdp,
					 struct net_device *dev, const void *data, __u32 len,
					 __u32 ret, const bool fetch)
{
	__u64 id, ts;

	if (pp_sampled_out(st, (__u64)data))
		return;
	id = pp_next_id(st, fetch);
	if (!id)
		return;
	__sync_fetch_and_add(&st->marked, 1);
	ts = bpf_ktime_get_ns();
	if (pp_frame_mark(st, probe, id, (__u64)xdp, dev, data, len, ret, ts))
		pp_frame_end(st, probe, id, (__u64)xdp, dev, len, ret, ts);
}

/*
 * XDP's verdict RET on the frame of XDP (an xdp_buff) with probe index
 * PROBE. FETCH: see pp_next_id(). No other subprogram is called: the
 * loader's splice wants pp_filter_l2() the program's last.
 */
static __always_inline int pp_on_frame(struct xdp_buff *xdp, __u32 probe, __u32 ret,
				       const bool fetch)
{
	struct pp_state *st = pp_state();
	struct pp_frame_note n = {};
	struct xdp_rxq_info *rxq;
	struct net_device *dev;
	void *data, *end;
	__u32 len, netns;
	bool noted;

	/* A frame passed, none noted: the trampoline's and two lookups' cost alone. */
	noted = st && pp_frame_noted(&n);
	if (!st || (!noted && ret == XDP_PASS))
		return 0;
	xdp = pp_xdp_arg(xdp);
	rxq = xdp->rxq;
	dev = rxq->dev;
	data = xdp->data;
	end = xdp->data_end;
	len = (__u32)(end - data);
	if (noted && n.ifindex == (__u32)dev->ifindex) {
		pp_frame_join(st, &n, probe, (__u64)xdp, dev, len, ret);
		return 0;
	}
	if (ret == XDP_PASS)
		return 0;
	netns = dev->nd_net.net->ns.inum;
	if (pp_cfg.scope_n ? !pp_in_scope(netns) : pp_cfg.mark_netns && netns != pp_cfg.mark_netns)
		return 0;
	if (!pp_filter_l2(data, len, len))
		return 0;
	if (pp_xdp_generic_rxq(rxq, dev))
		pp_frame_generic_note(probe);
	else
		pp_frame_new(st, probe, xdp, dev, data, len, ret, fetch);
	return 0;
}

/*
 * After bpf_prog_run_generic_xdp(SKB, XDP, ...) returned RET: a frame the
 * program's fexit noted (pp_on_frame()) whose skb is not tracked is a
 * packet of its own; a tracked one has its verdict as a hop.
 */
static __always_inline void pp_frame_generic(__u64 skb, struct xdp_buff *xdp, __u32 ret)
{
	struct pp_state *st = pp_state();
	__s64 probe = pp_frame_generic_noted();
	struct net_device *dev;
	void *data, *end;

	if (probe < 0 || !st || pp_skb_entry(skb))
		return;
	xdp = pp_xdp_arg(xdp);
	dev = xdp->rxq->dev;
	data = xdp->data;
	end = xdp->data_end;
	pp_frame_new(st, (__u32)probe, xdp, dev, data, (__u32)(end - data), ret, true);
}

/* bpf_redirect() by ifindex: no map, whose id the kernel gives as INT_MAX (6.x). */
#define PP_NO_MAP_ID 0x7fffffffU

/* The held END, if any (pp_frame_hold()): an untracked redirect's whole cost is this lookup. */
static __always_inline struct pp_hop *pp_frame_held(void)
{
	__u32 zero = 0;
	struct pp_hop *h = bpf_map_lookup_elem(&frame_redirect_map, &zero);

	return h && h->ts ? h : NULL;
}

/*
 * The device a redirect through a map of TYPE went to: a device map's
 * entry TGT (struct bpf_dtab_netdev) holds it first; 0 for other maps.
 */
static __always_inline __u32 pp_devmap_ifindex(__u32 type, __u64 tgt)
{
	struct net_device *dev = NULL;

	if (type != BPF_MAP_TYPE_DEVMAP && type != BPF_MAP_TYPE_DEVMAP_HASH)
		return 0;
	bpf_probe_read_kernel(&dev, sizeof(dev), (void *)tgt);
	return dev ? BPF_CORE_READ(dev, ifindex) : 0;
}

/*
 * After XDP_REDIRECT the driver calls xdp_do_redirect() (generic mode
 * xdp_do_generic_redirect()) on the same CPU, which fires one of the xdp
 * redirect tracepoints: held END H, if its frame's (on device DEV), gets
 * where the frame went (TO, a device's index; MAP, the map's id) or the
 * error ERR it failed with: then the driver dropped it.
 */
static __always_inline int pp_frame_redirected(struct pp_hop *h, __u64 dev, __u32 to, __u32 map,
					       __s32 err)
{
	struct pp_state *st = pp_state();

	if (!st)
		return 0;
	if (h->ifindex == (__u32)BPF_CORE_READ((struct net_device *)dev, ifindex)) {
		h->flags |= PP_HOP_REDIRECT;
		h->out_ifindex = to;
		h->redirect_map = map == PP_NO_MAP_ID ? 0 : map;
		h->redirect_err = err;
		if (err) {
			h->fate = PP_FATE_DROPPED;
			h->reason = pp_cfg.frame_drop_reason;
		}
	}
	pp_frame_flush(st, h);
	return 0;
}

/*
 * The raw tracepoints' arguments (include/trace/events/xdp.h): dev, the
 * program, the target, the error, then the map's type and id and the
 * index (an ifindex, or the map's key); on older kernels (5.10) the map
 * and the index. The target is a device map's entry, or (6.x) the device
 * of a redirect by ifindex. The loader picks the function by the count.
 */
static __always_inline int pp_xdp_redirect_id(const __u64 *a)
{
	struct pp_hop *h = pp_frame_held();
	__u32 type = (__u32)a[4], map = (__u32)a[5], to;

	if (!h)
		return 0;
	if (type == BPF_MAP_TYPE_UNSPEC && map == PP_NO_MAP_ID)
		to = (__u32)a[6];
	else
		to = pp_devmap_ifindex(type, a[2]);
	return pp_frame_redirected(h, a[0], to, map, (__s32)a[3]);
}

static __always_inline int pp_xdp_redirect_map(const __u64 *a)
{
	struct pp_hop *h = pp_frame_held();
	struct bpf_map *m = (struct bpf_map *)a[4];
	__u32 map = 0, to = (__u32)a[5];

	if (!h)
		return 0;
	if (m) {
		map = BPF_CORE_READ(m, id);
		to = pp_devmap_ifindex(BPF_CORE_READ(m, map_type), a[2]);
	}
	return pp_frame_redirected(h, a[0], to, map, (__s32)a[3]);
}

#endif
