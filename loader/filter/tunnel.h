/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Overlays: UDP ones that carry Ethernet frames, VXLAN (RFC 7348; Linux's
 * own default port 8472, which flannel keeps, and IANA's 4789) and Geneve
 * (RFC 8926, port 6081); and IP-in-IP (protocol 4 with IPv4 inside,
 * Calico's IPIP mode; 41 with IPv6 inside: sit, ip6tnl) and GRE (protocol
 * 47, RFC 2784/2890) carrying IPv4, IPv6 or Ethernet (gretap, ip6gretap:
 * 0x6558), over IPv4 or IPv6 (ip6tnl, ip6gre). The classifier's inner view
 * (PP_XLATE_INNER) finds the inner frame by these rules; this is the same
 * parse in C, for the header line and as the tests' reference.
 *
 * An IP packet inside (IP-in-IP, GRE with IPv4 or IPv6) has no Ethernet
 * header of its own: the inner frame is the one a filter sees, the IP
 * packet behind a made-up Ethernet header, both addresses zero and the
 * type IPv4 or IPv6, so that the user's filter, compiled for Ethernet as
 * every other, applies unchanged (libpcap's own view of such a frame).
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
#define PP_IPPROTO_IPIP	    4
#define PP_IPPROTO_IPV6	    41 /* IPv6 inside: sit, ip6tnl's ip6ip6 */
#define PP_IPPROTO_GRE	    47
#define PP_GRE_CSUM	    0x8000 /* GRE flags: checksum, key, sequence number present */
#define PP_GRE_KEY	    0x2000
#define PP_GRE_SEQ	    0x1000
#define PP_GRE_BAD	    0x4007 /* routing, version: Linux's gre_parse_header() refuses them */
#define PP_INNER_ETH_HLEN   14	   /* the made-up Ethernet header of an IP packet inside */

enum pp_tunnel_kind {
	PP_TUNNEL_NONE,
	PP_TUNNEL_VXLAN,
	PP_TUNNEL_GENEVE,
	PP_TUNNEL_IPIP,
	PP_TUNNEL_GRE,
};

struct pp_tunnel {
	enum pp_tunnel_kind kind;
	__u32 vni;	  /* 24 bits; GRE: its key, if has_key */
	bool has_key;	  /* GRE with a key */
	__u16 inner_type; /* an IP packet inside: its made-up Ethernet type; 0: a frame */
	/* The inner frame's offset in the frame; an IP packet's less 14 bytes. */
	__u32 inner_off;
};

/*
 * Whether the Ethernet frame DATA[0..LEN) is a tunnel's: IPv4 (not a later
 * fragment) or IPv6 (no extension header), UDP to one of the ports above,
 * and for Geneve version 0 carrying Ethernet; or, over the same, IP-in-IP
 * (protocol 4 or 41), or GRE version 0 without routing carrying one of the
 * types above. The inner frame starts inside the packet (it may be empty).
 * Fills T then. Reads only the bytes up to the tunnel header's end, all
 * of them.
 */
bool pp_tunnel_parse(const __u8 *data, __u32 len, struct pp_tunnel *t);

/*
 * The inner frame of T (DATA[0..LEN), as parsed): its length, and in
 * *FRAME where it starts: in DATA, or for an IP packet inside in BUF (room
 * for LEN bytes), after its made-up Ethernet header.
 */
__u32 pp_tunnel_inner(const __u8 *data, __u32 len, const struct pp_tunnel *t, __u8 *buf,
		      const __u8 **frame);

/*
 * The name of the tunnel's number as printed: "vni" (VXLAN, Geneve), "key"
 * (GRE with a key), or "" where it has none (IP-in-IP, GRE without a key).
 */
const char *pp_tunnel_id_name(enum pp_tunnel_kind kind, bool has_key);

/* "vxlan", "geneve", "ipip", "gre" */
const char *pp_tunnel_name(enum pp_tunnel_kind kind);

#endif
