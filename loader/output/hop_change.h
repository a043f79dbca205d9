/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What changed in a packet's headers at a TC hop, from the bytes the
 * classifier sent there (PP_REC_HOP_BYTES, sent when the addresses or ports
 * differ from the mark's): NAT's new addresses, or an overlay's
 * encapsulation and decapsulation.
 */
#ifndef PP_HOP_CHANGE_H
#define PP_HOP_CHANGE_H

#include <stdbool.h>
#include "paths/path.h"
#include "paths/pkt_decode.h"

enum pp_hop_change_kind {
	PP_CHANGE_NONE,
	PP_CHANGE_NOW,	 /* other addresses or ports than the mark's (NAT) */
	PP_CHANGE_ENCAP, /* the packet as marked, now inside a VXLAN or Geneve header */
	PP_CHANGE_DECAP, /* out of the tunnel header it had here before or at its mark */
};

struct pp_hop_change {
	enum pp_hop_change_kind kind;
	bool has_now;		   /* the hop carried its bytes: NOW holds its headers */
	struct pp_pkt_summary now; /* outer ones for a tunnel's frame */
	__u8 tunnel;		   /* ENCAP, DECAP: enum pp_tunnel_kind */
	bool key;		   /* GRE with a key (in vni) */
	__u32 vni;
};

/*
 * The change at hop H of P. ENCAP: its bytes are a tunnel's frame whose inner
 * flow is the mark's or that of the skb's TC hop before, which was not that
 * frame already. DECAP: the skb's TC hop before carried a tunnel's frame
 * and this one its inner flow (without bytes when that is the mark's), or
 * the mark was a tunnel's frame and this hop carries its inner flow, which
 * the TC hop before did not. NOW: other addresses or ports than the mark's
 * (NAT where it was seen).
 */
void pp_out_hop_change(const struct pp_packet *p, const struct pp_hop *h, struct pp_hop_change *c);

#endif
