// SPDX-License-Identifier: GPL-2.0
/*
 * Encapsulation is seen as NAT is, at TC: the vxlan or geneve device's
 * egress sees the packet as marked, the underlay's egress the same skb
 * with the outer headers pushed in front (vxlan_xmit_one() and
 * udp_tunnel_xmit_skb() keep the skb); on the way in, the underlay's
 * ingress sees the outer headers and the tunnel device's ingress the inner
 * frame (vxlan_rcv() pulls the headers and hands on the same skb).
 */
#include <string.h>
#include "output/hop_change.h"
#include "output/output.h"
#include "filter/tunnel.h"

static bool is_tc(const struct pp_hop *h)
{
	return h->probe == PP_PROBE_TC_INGRESS || h->probe == PP_PROBE_TC_EGRESS;
}

/* The TC hop of the same skb before H, NULL if none. */
static const struct pp_hop *tc_before(const struct pp_packet *p, const struct pp_hop *h)
{
	for (size_t i = (size_t)(h - p->hops); i-- > 0;)
		if (p->hops[i].skb == h->skb && p->hops[i].type == PP_REC_HOP && is_tc(&p->hops[i]))
			return &p->hops[i];
	return NULL;
}

/* Whether frame S (of DATA) is a tunnel's whose inner flow is FLOW's. */
static bool wraps(const __u8 *data, __u32 cap_len, const struct pp_pkt_summary *s,
		  const struct pp_pkt_summary *flow)
{
	struct pp_pkt_summary in;

	return pp_pkt_decode_inner(data, cap_len, s, &in) && in.ip_ver &&
	       pp_pkt_same_flow(&in, flow);
}

/* Hop Q's headers, from its bytes, into S; false if it carried none. */
static bool hop_headers(const struct pp_packet *p, const struct pp_hop *q,
			const struct pp_hop_bytes **b, struct pp_pkt_summary *s)
{
	*b = q && p->nbytes ? pp_packet_bytes(p, q) : NULL;
	return *b && !pp_pkt_decode((*b)->data, (*b)->cap_len, s);
}

static void set_tunnel(struct pp_hop_change *c, enum pp_hop_change_kind kind,
		       const struct pp_pkt_summary *s)
{
	c->kind = kind;
	c->tunnel = s->tunnel;
	c->key = s->tunnel_key;
	c->vni = s->vni;
}

/*
 * H carried bytes B (C->now), other than the mark's M. The skb's TC hop
 * before it (BEFORE, if it carried bytes) tells a tunnel's header pushed
 * onto a flow that NAT changed since the mark (a Kubernetes service's
 * DNAT, then the overlay) or pulled off one.
 */
static void changed(const struct pp_packet *p, const struct pp_hop *h, const struct pp_hop_bytes *b,
		    const struct pp_pkt_summary *m, struct pp_hop_change *c)
{
	const struct pp_hop_bytes *qb;
	struct pp_pkt_summary before, in;
	bool had = hop_headers(p, tc_before(p, h), &qb, &before);

	c->kind = PP_CHANGE_NOW;
	if (wraps(b->data, b->cap_len, &c->now, m) ||
	    (had && wraps(b->data, b->cap_len, &c->now, &before))) {
		if (!had || !pp_pkt_same_flow(&before, &c->now))
			set_tunnel(c, PP_CHANGE_ENCAP, &c->now);
		return;
	}
	if (had && wraps(qb->data, qb->cap_len, &before, &c->now)) {
		set_tunnel(c, PP_CHANGE_DECAP, &before);
		return;
	}
	if (pp_pkt_decode_inner(p->mark->data, p->mark->cap_len, m, &in) &&
	    pp_pkt_same_flow(&c->now, &in) && (!had || !pp_pkt_same_flow(&before, &in)))
		set_tunnel(c, PP_CHANGE_DECAP, m);
}

void pp_out_hop_change(const struct pp_packet *p, const struct pp_hop *h, struct pp_hop_change *c)
{
	const struct pp_hop_bytes *b, *qb;
	struct pp_pkt_summary m, before;

	memset(c, 0, sizeof(*c));
	if (!p->mark || pp_pkt_decode(p->mark->data, p->mark->cap_len, &m))
		return;
	if (hop_headers(p, h, &b, &c->now)) {
		c->has_now = true;
		if (!pp_pkt_same_flow(&c->now, &m))
			changed(p, h, b, &m, c);
		return;
	}
	/* Back to the mark's flow, no bytes sent: after an outer header? */
	if (is_tc(h) && hop_headers(p, tc_before(p, h), &qb, &before) &&
	    wraps(qb->data, qb->cap_len, &before, &m))
		set_tunnel(c, PP_CHANGE_DECAP, &before);
}
