/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UDP overlays that carry Ethernet frames: VXLAN (RFC 7348; Linux's own
 * default port 8472, which flannel keeps, and IANA's 4789) and Geneve
 * (RFC 8926, port 6081). The classifier's inner view (PP_XLATE_INNER)
 * finds the inner frame by these rules; this is the same parse in C, for
 * the header line and as the tests' reference.
 */
#ifndef PP_TUNNEL_H
#define PP_TUNNEL_H

#include <stdbool.h>
#include <linux/types.h>

#define PP_VXLAN_PORT	    4789
#define PP_VXLAN_LINUX_PORT 8472
#define PP_GENEVE_PORT	    6081
#define PP_VXLAN_HLEN	    8
#define PP_GENEVE_HLEN	    8	   /* without its options */
#define PP_ETH_P_TEB	    0x6558 /* Transparent Ethernet Bridging: Geneve's inner frame */

enum pp_tunnel_kind {
	PP_TUNNEL_NONE,
	PP_TUNNEL_VXLAN,
	PP_TUNNEL_GENEVE,
};

struct pp_tunnel {
	enum pp_tunnel_kind kind;
	__u32 vni;	 /* 24 bits */
	__u32 inner_off; /* the inner Ethernet header's offset in the frame */
};

/*
 * Whether the Ethernet frame DATA[0..LEN) is VXLAN or Geneve: IPv4 (not a
 * later fragment) or IPv6 (no extension header), UDP to one of the ports
 * above, and for Geneve version 0 carrying Ethernet. Fills T then.
 * Reads only the bytes up to the tunnel header's end, all of them.
 */
bool pp_tunnel_parse(const __u8 *data, __u32 len, struct pp_tunnel *t);

/* "vxlan", "geneve" */
const char *pp_tunnel_name(enum pp_tunnel_kind kind);

#endif
