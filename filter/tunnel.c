// SPDX-License-Identifier: GPL-2.0
/*
 * The overlay parse. Kept in step with emit_inner_entry() in cbpf_xlate.c,
 * which does the same in eBPF: the differential tests run both.
 */
#include <stddef.h>
#include "tunnel.h"

#define ETH_HLEN  14
#define IP4_PROTO 9 /* offset of the protocol in the IPv4 header */
#define IP6_NH	  6 /* offset of the next header in the IPv6 header */
#define IP6_HLEN  40
#define UDP_HLEN  8
#define PROTO_UDP 17

static __u32 rd16(const __u8 *p)
{
	return (__u32)p[0] << 8 | p[1];
}

/*
 * The UDP header's offset, or 0 when the frame is no UDP datagram's head.
 * Each test needs only the bytes it reads, as the eBPF does.
 */
static __u32 udp_off(const __u8 *d, __u32 len)
{
	if (len < ETH_HLEN)
		return 0;
	if (rd16(d + 12) == 0x86dd)
		return len > ETH_HLEN + IP6_NH && d[ETH_HLEN + IP6_NH] == PROTO_UDP
			       ? ETH_HLEN + IP6_HLEN
			       : 0;
	/* A later fragment's payload is no header. */
	if (rd16(d + 12) != 0x0800 || len < ETH_HLEN + IP4_PROTO + 1 ||
	    rd16(d + ETH_HLEN + 6) & 0x1fff || d[ETH_HLEN + IP4_PROTO] != PROTO_UDP)
		return 0;
	return ETH_HLEN + (d[ETH_HLEN] & 0xf) * 4u;
}

/* G: the Geneve header, with ROOM bytes of the frame from it on. */
static bool parse_geneve(const __u8 *g, __u32 room, struct pp_tunnel *t)
{
	if (room < 4 || g[0] >> 6 || rd16(g + 2) != PP_ETH_P_TEB)
		return false;
	t->kind = PP_TUNNEL_GENEVE;
	t->inner_off = PP_GENEVE_HLEN + (g[0] & 0x3f) * 4u;
	return true;
}

bool pp_tunnel_parse(const __u8 *data, __u32 len, struct pp_tunnel *t)
{
	__u32 u = udp_off(data, len), port;
	const __u8 *h;

	t->kind = PP_TUNNEL_NONE;
	if (!u || len < u + 4)
		return false;
	port = rd16(data + u + 2);
	h = data + u + UDP_HLEN;
	if (port == PP_GENEVE_PORT) {
		if (len < u + UDP_HLEN || !parse_geneve(h, len - u - UDP_HLEN, t))
			return false;
	} else if (port == PP_VXLAN_PORT || port == PP_VXLAN_LINUX_PORT) {
		t->kind = PP_TUNNEL_VXLAN;
		t->inner_off = PP_VXLAN_HLEN;
	} else {
		return false;
	}
	t->inner_off += u + UDP_HLEN;
	/* The inner frame starts inside the packet (it may be empty). */
	if (t->inner_off > len) {
		t->kind = PP_TUNNEL_NONE;
		return false;
	}
	t->vni = (__u32)h[4] << 16 | (__u32)h[5] << 8 | h[6];
	return true;
}

const char *pp_tunnel_name(enum pp_tunnel_kind kind)
{
	return kind == PP_TUNNEL_GENEVE ? "geneve" : kind == PP_TUNNEL_VXLAN ? "vxlan" : "";
}
