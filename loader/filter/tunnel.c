// SPDX-License-Identifier: GPL-2.0
/*
 * The overlay parse. Kept in step with emit_inner_entry() in cbpf_xlate.c,
 * which does the same in eBPF: the differential tests run both.
 */
#include <stddef.h>
#include <string.h>
#include "filter/tunnel.h"

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

/* UDP, IP-in-IP (IPv4 or IPv6 inside) or GRE. */
static bool l4_ours(__u8 proto)
{
	return proto == PROTO_UDP || proto == PP_IPPROTO_IPIP || proto == PP_IPPROTO_IPV6 ||
	       proto == PP_IPPROTO_GRE;
}

/*
 * The transport header's offset, its protocol in *PROTO (UDP, IP-in-IP or
 * GRE, over IPv4 or IPv6), or 0 when the frame is no such packet's head. Each test needs only the
 * bytes it reads, as the eBPF does.
 */
static __u32 l4_off(const __u8 *d, __u32 len, __u8 *proto)
{
	if (len < ETH_HLEN)
		return 0;
	if (rd16(d + 12) == 0x86dd) {
		if (len <= ETH_HLEN + IP6_NH)
			return 0;
		*proto = d[ETH_HLEN + IP6_NH];
		return l4_ours(*proto) ? ETH_HLEN + IP6_HLEN : 0;
	}
	/* A later fragment's payload is no header. */
	if (rd16(d + 12) != 0x0800 || len < ETH_HLEN + IP4_PROTO + 1 ||
	    rd16(d + ETH_HLEN + 6) & 0x1fff)
		return 0;
	*proto = d[ETH_HLEN + IP4_PROTO];
	if (!l4_ours(*proto))
		return 0;
	return ETH_HLEN + (d[ETH_HLEN] & 0xf) * 4u;
}

/*
 * G: a GRE header with ROOM bytes of the frame from it on. Its length (4,
 * and 4 for each of checksum, key and sequence number present) is added
 * to T's inner_off; the bounds are checked by the caller.
 */
static bool parse_gre(const __u8 *g, __u32 room, struct pp_tunnel *t)
{
	__u32 flags, type;

	if (room < 4)
		return false;
	flags = rd16(g);
	type = rd16(g + 2);
	if (flags & PP_GRE_BAD || (type != PP_ETH_P_TEB && type != 0x0800 && type != 0x86dd))
		return false;
	t->kind = PP_TUNNEL_GRE;
	t->has_key = flags & PP_GRE_KEY;
	t->inner_off = 4 + 4u * (!!(flags & PP_GRE_CSUM) + !!(flags & PP_GRE_KEY) +
				 !!(flags & PP_GRE_SEQ));
	t->inner_type = type == PP_ETH_P_TEB ? 0 : (__u16)type;
	return true;
}

/* IP-in-IP or GRE at L4 of DATA[0..LEN) (IP protocol PROTO). */
static bool parse_ip_tunnel(const __u8 *data, __u32 len, __u32 l4, __u8 proto, struct pp_tunnel *t)
{
	if (proto == PP_IPPROTO_IPIP || proto == PP_IPPROTO_IPV6) {
		t->kind = PP_TUNNEL_IPIP;
		t->inner_type = proto == PP_IPPROTO_IPIP ? 0x0800 : 0x86dd;
		t->inner_off = 0;
	} else if (!parse_gre(data + l4, len - l4, t)) {
		return false;
	}
	t->inner_off += l4;
	/* The inner frame starts inside the packet (it may be empty). */
	if (t->inner_off > len) {
		t->kind = PP_TUNNEL_NONE;
		return false;
	}
	/* The key follows the checksum word, if any (RFC 2890). */
	if (t->has_key) {
		const __u8 *k = data + l4 + 4 + (rd16(data + l4) & PP_GRE_CSUM ? 4 : 0);

		t->vni = (__u32)rd16(k) << 16 | rd16(k + 2);
	}
	if (t->inner_type)
		t->inner_off -= PP_INNER_ETH_HLEN;
	return true;
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
	__u8 proto = 0;
	__u32 u = l4_off(data, len, &proto), port;
	const __u8 *h;

	memset(t, 0, sizeof(*t));
	if (u && proto != PROTO_UDP)
		return u <= len && parse_ip_tunnel(data, len, u, proto, t);
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

__u32 pp_tunnel_inner(const __u8 *data, __u32 len, const struct pp_tunnel *t, __u8 *buf,
		      const __u8 **frame)
{
	__u32 n = len - t->inner_off;

	*frame = data + t->inner_off;
	if (!t->inner_type)
		return n;
	memset(buf, 0, PP_INNER_ETH_HLEN);
	buf[12] = (__u8)(t->inner_type >> 8);
	buf[13] = (__u8)t->inner_type;
	memcpy(buf + PP_INNER_ETH_HLEN, data + t->inner_off + PP_INNER_ETH_HLEN,
	       n - PP_INNER_ETH_HLEN);
	*frame = buf;
	return n;
}

const char *pp_tunnel_id_name(enum pp_tunnel_kind kind, bool has_key)
{
	if (kind == PP_TUNNEL_VXLAN || kind == PP_TUNNEL_GENEVE)
		return "vni";
	return kind == PP_TUNNEL_GRE && has_key ? "key" : "";
}

const char *pp_tunnel_name(enum pp_tunnel_kind kind)
{
	static const char *const names[] = {
		[PP_TUNNEL_VXLAN] = "vxlan",
		[PP_TUNNEL_GENEVE] = "geneve",
		[PP_TUNNEL_IPIP] = "ipip",
		[PP_TUNNEL_GRE] = "gre",
	};

	return kind < sizeof(names) / sizeof(names[0]) && names[kind] ? names[kind] : "";
}
