// SPDX-License-Identifier: GPL-2.0
/*
 * Packet bytes -> summary. Every read goes through have(), which checks the
 * bytes are inside the capture: a MARK carries at most PP_HDR_BYTES, so
 * headers are often cut short, and the bytes are whatever was on the wire.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/if_ether.h>
#include "base/compat.h"
#include "base/fmt.h"
#include "paths/pkt_decode.h"
#include "filter/tunnel.h"

#define PP_VLAN_HLEN 4 /* an 802.1Q tag: TPID and TCI */

#define IPV4_HLEN    20
#define IPV6_HLEN    40
#define IPV6_MAX_EXT 8 /* extension headers followed before giving up */

enum {
	PROTO_ICMP = 1,
	PROTO_TCP = 6,
	PROTO_UDP = 17,
	PROTO_V6_HOP = 0,
	PROTO_V6_ROUTE = 43,
	PROTO_V6_FRAG = 44,
	PROTO_AH = 51,
	PROTO_ICMP6 = 58,
	PROTO_V6_DEST = 60,
};

/*
 * The unread part of the capture: bytes off .. len - 1 of d. end: where the
 * IP header says the datagram ends, which the capture may not reach; 0 if
 * unknown.
 */
struct cur {
	const __u8 *d;
	__u32 len, off, end;
};

static bool have(const struct cur *c, __u32 n)
{
	return c->off <= c->len && c->len - c->off >= n;
}

static const __u8 *at(const struct cur *c, __u32 i)
{
	return c->d + c->off + i;
}

static __u16 rd16(const struct cur *c, __u32 i)
{
	const __u8 *p = at(c, i);

	return (__u16)(p[0] << 8 | p[1]);
}

static __u32 rd32(const struct cur *c, __u32 i)
{
	return (__u32)rd16(c, i) << 16 | rd16(c, i + 2);
}

/* Shrinks the capture to a header's own length, so link padding is not read as data. */
static void clamp(struct cur *c, __u32 len)
{
	if (len <= c->len - c->off)
		c->len = c->off + len;
}

static void set_proto(struct pp_pkt_summary *s, const char *name)
{
	struct pp_sbuf f = {.buf = s->proto, .len = sizeof(s->proto)};

	pp_sb_str(&f, name);
}

/*
 * The payload's length: what the IP header declares past the TCP header.
 * A first fragment's header declares the fragment, not the segment.
 */
static void tcp_payload(const struct cur *c, struct pp_pkt_summary *s)
{
	__u32 doff = (*at(c, 12) >> 4) * 4;

	if (c->end && !s->is_frag && doff >= 20 && c->end >= c->off + doff) {
		s->has_tcp_len = true;
		s->tcp_len = c->end - c->off - doff;
	}
}

static void decode_tcp(struct cur *c, struct pp_pkt_summary *s)
{
	if (have(c, 4)) {
		s->has_ports = true;
		s->sport = rd16(c, 0);
		s->dport = rd16(c, 2);
	}
	if (have(c, 14)) {
		s->has_tcp = true;
		s->tcp_seq = rd32(c, 4);
		s->tcp_ack = rd32(c, 8);
		s->tcp_flags = *at(c, 13);
		tcp_payload(c, s);
	}
	if (!have(c, 20))
		s->trunc = "tcp";
}

static void decode_udp(struct cur *c, struct pp_pkt_summary *s)
{
	if (have(c, 4)) {
		s->has_ports = true;
		s->sport = rd16(c, 0);
		s->dport = rd16(c, 2);
	}
	if (!have(c, 8))
		s->trunc = "udp";
}

/* ICMP and ICMPv6 share the layout: type, code, checksum, id, seq. */
static void decode_icmp(struct cur *c, struct pp_pkt_summary *s, bool v6)
{
	__u8 req = v6 ? 128 : 8, rep = v6 ? 129 : 0;

	if (!have(c, 8))
		s->trunc = v6 ? "icmp6" : "icmp";
	if (!have(c, 2))
		return;
	s->has_icmp = true;
	s->icmp_type = *at(c, 0);
	s->icmp_code = *at(c, 1);
	if ((s->icmp_type == req || s->icmp_type == rep) && have(c, 8)) {
		s->has_echo = true;
		s->icmp_id = rd16(c, 4);
		s->icmp_seq = rd16(c, 6);
	}
}

static const char *l4_name(__u8 proto, __u8 ip_ver)
{
	if (proto == PROTO_TCP)
		return "tcp";
	if (proto == PROTO_UDP)
		return "udp";
	if (proto == PROTO_ICMP && ip_ver == 4)
		return "icmp";
	if (proto == PROTO_ICMP6 && ip_ver == 6)
		return "icmp6";
	return NULL;
}

/* The upper layer; a fragment past the first has no header to read. */
static void decode_l4(struct cur *c, struct pp_pkt_summary *s, __u8 proto, bool first)
{
	const char *name = l4_name(proto, s->ip_ver);

	s->ip_proto = proto;
	if (!name)
		return;
	set_proto(s, name);
	if (!first)
		return;
	if (proto == PROTO_TCP)
		decode_tcp(c, s);
	else if (proto == PROTO_UDP)
		decode_udp(c, s);
	else
		decode_icmp(c, s, proto == PROTO_ICMP6);
}

static void decode_ipv4(struct cur *c, struct pp_pkt_summary *s)
{
	__u32 ihl;
	__u16 frag;

	set_proto(s, "ipv4");
	if (!have(c, IPV4_HLEN) || *at(c, 0) >> 4 != 4) {
		s->trunc = "ip";
		return;
	}
	ihl = (*at(c, 0) & 0xf) * 4;
	s->ip_ver = 4;
	pp_fmt_ipv4(s->src, at(c, 12));
	pp_fmt_ipv4(s->dst, at(c, 16));
	s->ip_proto = *at(c, 9);
	frag = rd16(c, 6);
	s->frag_off = (frag & 0x1fff) * 8;
	s->more_frags = frag & 0x2000;
	s->is_frag = s->frag_off || s->more_frags;
	s->frag_id = rd16(c, 4);
	if (ihl < IPV4_HLEN || !have(c, ihl)) {
		s->trunc = "ip";
		return;
	}
	/* A zero total length is a BIG TCP packet's: its length is not here. */
	if (rd16(c, 2) >= ihl) {
		clamp(c, rd16(c, 2));
		c->end = c->off + rd16(c, 2);
	}
	c->off += ihl;
	decode_l4(c, s, s->ip_proto, s->frag_off == 0);
}

static bool is_ext_hdr(__u8 nh)
{
	return nh == PROTO_V6_HOP || nh == PROTO_V6_ROUTE || nh == PROTO_V6_DEST ||
	       nh == PROTO_V6_FRAG || nh == PROTO_AH;
}

/*
 * Follows the extension headers (each at least 8 bytes); returns false if
 * the capture ran out. Stops after the fragment header of a fragment past
 * the first: what follows it is payload.
 */
static bool ipv6_ext(struct cur *c, struct pp_pkt_summary *s, __u8 *nh)
{
	__u32 len;
	int i;

	for (i = 0; i < IPV6_MAX_EXT && is_ext_hdr(*nh); i++) {
		if (!have(c, 8))
			return false;
		if (*nh == PROTO_V6_FRAG) {
			s->is_frag = true;
			s->frag_off = rd16(c, 2) & 0xfff8;
			s->more_frags = rd16(c, 2) & 1;
			s->frag_id = rd32(c, 4);
			len = 8;
		} else if (*nh == PROTO_AH) {
			len = (*at(c, 1) + 2) * 4; /* RFC 4302: in 4-byte units */
		} else {
			len = (*at(c, 1) + 1) * 8;
		}
		*nh = *at(c, 0);
		c->off += len;
		if (s->frag_off)
			break;
	}
	return true;
}

static void decode_ipv6(struct cur *c, struct pp_pkt_summary *s)
{
	__u8 nh;

	set_proto(s, "ipv6");
	if (!have(c, IPV6_HLEN) || *at(c, 0) >> 4 != 6) {
		s->trunc = "ip6";
		return;
	}
	s->ip_ver = 6;
	inet_ntop(AF_INET6, at(c, 8), s->src, sizeof(s->src));
	inet_ntop(AF_INET6, at(c, 24), s->dst, sizeof(s->dst));
	nh = *at(c, 6);
	/* A zero payload length is a jumbogram's: keep the capture as it is. */
	if (rd16(c, 4)) {
		clamp(c, IPV6_HLEN + rd16(c, 4));
		c->end = c->off + IPV6_HLEN + rd16(c, 4);
	}
	c->off += IPV6_HLEN;
	if (!ipv6_ext(c, s, &nh)) {
		s->ip_proto = nh;
		s->trunc = "ip6";
		return;
	}
	decode_l4(c, s, nh, s->frag_off == 0);
}

static void decode_arp(struct cur *c, struct pp_pkt_summary *s)
{
	set_proto(s, "arp");
	if (!have(c, 8)) {
		s->trunc = "arp";
		return;
	}
	s->has_arp = true;
	s->arp_op = rd16(c, 6);
	/* Only Ethernet/IPv4 ARP has addresses we can name. */
	if (rd16(c, 0) != 1 || rd16(c, 2) != ETH_P_IP || *at(c, 4) != 6 || *at(c, 5) != 4)
		return;
	if (!have(c, 28)) {
		s->trunc = "arp";
		return;
	}
	memcpy(s->arp_sha, at(c, 8), sizeof(s->arp_sha));
	pp_fmt_ipv4(s->src, at(c, 14));
	pp_fmt_ipv4(s->dst, at(c, 24));
}

/* Up to two tags, 802.1Q or 802.1ad; returns false if the capture ran out. */
static bool decode_vlan(struct cur *c, struct pp_pkt_summary *s)
{
	__u16 *id;

	while ((s->ethertype == ETH_P_8021Q || s->ethertype == ETH_P_8021AD) && s->nvlan < 2) {
		if (!have(c, 4))
			return false;
		id = s->nvlan ? &s->vlan_inner : &s->vlan;
		*id = rd16(c, 0) & 0x0fff;
		s->nvlan++;
		s->ethertype = rd16(c, 2);
		c->off += 4;
	}
	return true;
}

/*
 * The overlay's header, as the classifier's inner view finds it; only for
 * a frame without tags in its bytes (the parse reads the ethertype at 12).
 */
static void decode_tunnel(const __u8 *data, __u32 cap_len, struct pp_pkt_summary *s)
{
	struct pp_tunnel t;

	if (s->nvlan || !s->ip_ver || !pp_tunnel_parse(data, cap_len, &t))
		return;
	s->tunnel = (__u8)t.kind;
	s->tunnel_key = t.has_key;
	s->inner_type = t.inner_type;
	s->vni = t.vni;
	s->inner_off = t.inner_off;
}

void pp_mark_put_tag(struct pp_mark *m)
{
	__u32 n = m->cap_len;

	if (!m->vlan || n < 2 * ETH_ALEN || n > PP_HDR_BYTES)
		return;
	if (n > PP_HDR_BYTES - PP_VLAN_HLEN)
		n = PP_HDR_BYTES - PP_VLAN_HLEN;
	memmove(m->data + 2 * ETH_ALEN + PP_VLAN_HLEN, m->data + 2 * ETH_ALEN, n - 2 * ETH_ALEN);
	m->data[12] = (__u8)(m->vlan >> 24);
	m->data[13] = (__u8)(m->vlan >> 16);
	m->data[14] = (__u8)(m->vlan >> 8);
	m->data[15] = (__u8)m->vlan;
	m->cap_len = n + PP_VLAN_HLEN;
}

int pp_pkt_decode(const __u8 *data, __u32 cap_len, struct pp_pkt_summary *s)
{
	struct cur c = {.d = data, .len = cap_len, .off = 0};

	if (!data || !s)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	if (!have(&c, ETH_HLEN)) {
		set_proto(s, "eth");
		s->trunc = "eth";
		return 0;
	}
	s->ethertype = rd16(&c, 12);
	c.off = ETH_HLEN;
	if (!decode_vlan(&c, s)) {
		snprintf(s->proto, sizeof(s->proto), "0x%04x", s->ethertype);
		s->trunc = "vlan";
		return 0;
	}
	if (s->ethertype == ETH_P_IP)
		decode_ipv4(&c, s);
	else if (s->ethertype == ETH_P_IPV6)
		decode_ipv6(&c, s);
	else if (s->ethertype == ETH_P_ARP)
		decode_arp(&c, s);
	else
		snprintf(s->proto, sizeof(s->proto), "0x%04x", s->ethertype);
	decode_tunnel(data, cap_len, s);
	return 0;
}

bool pp_pkt_decode_inner(const __u8 *data, __u32 cap_len, const struct pp_pkt_summary *outer,
			 struct pp_pkt_summary *inner)
{
	struct pp_tunnel t = {.kind = outer->tunnel,
			      .inner_type = outer->inner_type,
			      .inner_off = outer->inner_off};
	__u8 buf[PP_HDR_BYTES + PP_VLAN_HLEN];
	const __u8 *frame;
	__u32 n;

	/* The headers are in the first bytes: no more than a mark's. */
	if (cap_len > sizeof(buf))
		cap_len = sizeof(buf);
	if (!outer->tunnel ||
	    outer->inner_off + (outer->inner_type ? PP_INNER_ETH_HLEN : 0) > cap_len)
		return false;
	n = pp_tunnel_inner(data, cap_len, &t, buf, &frame);
	pp_pkt_decode(frame, n, inner);
	return true;
}

const char *pp_tcp_flags_str(__u8 flags, char buf[9])
{
	static const char letters[] = "FSRP.UEW"; /* bit 0 .. bit 7 */
	int i, n = 0;

	for (i = 0; i < 8; i++)
		if (flags & (1 << i))
			buf[n++] = letters[i];
	buf[n] = '\0';
	return n ? buf : "none";
}

static const char *icmp_name(__u8 type, bool v6)
{
	static const char *const v4[] = {
		[0] = "echo reply",   [3] = "unreachable",    [5] = "redirect",
		[8] = "echo request", [11] = "time exceeded", [12] = "parameter problem",
	};
	static const char *const v6n[] = {
		[1] = "unreachable",
		[2] = "packet too big",
		[3] = "time exceeded",
		[4] = "parameter problem",
		[128] = "echo request",
		[129] = "echo reply",
		[133] = "router solicitation",
		[134] = "router advertisement",
		[135] = "neighbor solicitation",
		[136] = "neighbor advertisement",
	};

	if (!v6)
		return type < ARRAY_SIZE(v4) ? v4[type] : NULL;
	return type < ARRAY_SIZE(v6n) ? v6n[type] : NULL;
}

/*
 * The one-liner, appended piece by piece with snprintf()'s truncation
 * (pp_sb_*()): it heads every packet of the text output, and vsnprintf()
 * per piece was most of its cost.
 */
static void fmt_icmp(struct pp_sbuf *f, const struct pp_pkt_summary *s)
{
	const char *name = icmp_name(s->icmp_type, s->ip_ver == 6);

	if (!name) {
		pp_sb_lit(f, " type ");
		pp_sb_u64(f, s->icmp_type);
	} else {
		pp_sb_lit(f, " ");
		pp_sb_str(f, name);
	}
	if (!name || s->icmp_code) {
		pp_sb_lit(f, " code ");
		pp_sb_u64(f, s->icmp_code);
	}
	if (s->has_echo) {
		pp_sb_lit(f, " id ");
		pp_sb_u64(f, s->icmp_id);
		pp_sb_lit(f, " seq ");
		pp_sb_u64(f, s->icmp_seq);
	}
}

/* An address with its port: "198.18.0.1.80", "[fd00::1].53". */
static void fmt_host(struct pp_sbuf *f, const struct pp_pkt_summary *s, const char *addr,
		     __u16 port)
{
	bool brackets = s->has_ports && s->ip_ver == 6;

	if (brackets)
		pp_sb_lit(f, "[");
	pp_sb_str(f, addr);
	if (brackets)
		pp_sb_lit(f, "]");
	if (!s->has_ports)
		return;
	pp_sb_lit(f, ".");
	pp_sb_u64(f, port);
}

static void fmt_frag(struct pp_sbuf *f, const struct pp_pkt_summary *s)
{
	pp_sb_lit(f, " frag id ");
	pp_sb_u64(f, s->frag_id);
	pp_sb_lit(f, " off ");
	pp_sb_u64(f, s->frag_off);
	if (s->more_frags)
		pp_sb_lit(f, "+");
}

/* " [P.] seq 1000 ack 2000 len 1448": ack with the ACK flag only, len if the IP header said. */
static void fmt_tcp(struct pp_sbuf *f, const struct pp_pkt_summary *s)
{
	char flags[9];

	pp_sb_lit(f, " [");
	pp_sb_str(f, pp_tcp_flags_str(s->tcp_flags, flags));
	pp_sb_lit(f, "] seq ");
	pp_sb_u64(f, s->tcp_seq);
	if (s->tcp_flags & PP_TCP_ACK) {
		pp_sb_lit(f, " ack ");
		pp_sb_u64(f, s->tcp_ack);
	}
	if (s->has_tcp_len) {
		pp_sb_lit(f, " len ");
		pp_sb_u64(f, s->tcp_len);
	}
}

static void fmt_ip(struct pp_sbuf *f, const struct pp_pkt_summary *s)
{
	pp_sb_lit(f, " ");
	fmt_host(f, s, s->src, s->sport);
	pp_sb_lit(f, " > ");
	fmt_host(f, s, s->dst, s->dport);
	if (s->has_tcp)
		fmt_tcp(f, s);
	if (s->has_icmp)
		fmt_icmp(f, s);
	if (!l4_name(s->ip_proto, s->ip_ver)) {
		pp_sb_lit(f, " proto ");
		pp_sb_u64(f, s->ip_proto);
	}
	if (s->is_frag)
		fmt_frag(f, s);
}

/* "02:00:00:00:00:01" */
static void fmt_mac(struct pp_sbuf *f, const __u8 m[6])
{
	static const char hex[] = "0123456789abcdef";
	char mac[17];
	int i;

	for (i = 0; i < 6; i++) {
		mac[i * 3] = hex[m[i] >> 4];
		mac[i * 3 + 1] = hex[m[i] & 0xf];
		if (i < 5)
			mac[i * 3 + 2] = ':';
	}
	pp_sb_put(f, mac, sizeof(mac));
}

/* Three strings in a row. */
static void fmt_str3(struct pp_sbuf *f, const char *a, const char *sep, const char *b)
{
	pp_sb_str(f, a);
	pp_sb_str(f, sep);
	pp_sb_str(f, b);
}

static void fmt_arp(struct pp_sbuf *f, const struct pp_pkt_summary *s)
{
	if (!s->src[0] || (s->arp_op != 1 && s->arp_op != 2)) {
		pp_sb_lit(f, " op ");
		pp_sb_u64(f, s->arp_op);
	}
	if (!s->src[0])
		return;
	if (s->arp_op == 1) {
		fmt_str3(f, " who-has ", s->dst, " tell ");
		pp_sb_str(f, s->src);
	} else if (s->arp_op == 2) {
		fmt_str3(f, " reply ", s->src, " is-at ");
		fmt_mac(f, s->arp_sha);
	} else {
		pp_sb_lit(f, " ");
		fmt_str3(f, s->src, " > ", s->dst);
	}
}

size_t pp_pkt_format(const struct pp_pkt_summary *s, char *buf, size_t len)
{
	struct pp_sbuf f = {.buf = buf, .len = buf ? len : 0};

	if (f.len)
		buf[0] = '\0';
	pp_sb_str(&f, s->proto);
	if (s->has_arp)
		fmt_arp(&f, s);
	else if (s->ip_ver)
		fmt_ip(&f, s);
	if (s->nvlan) {
		pp_sb_lit(&f, " vlan ");
		pp_sb_u64(&f, s->vlan);
	}
	if (s->nvlan > 1) {
		pp_sb_lit(&f, ",");
		pp_sb_u64(&f, s->vlan_inner);
	}
	if (s->trunc) {
		pp_sb_lit(&f, " [|");
		pp_sb_str(&f, s->trunc);
		pp_sb_lit(&f, "]");
	}
	return f.pos;
}

/* " 42" (a VNI), " key 42" (a GRE key), or nothing. */
static void pp_sb_tunnel_id(struct pp_sbuf *f, const struct pp_pkt_summary *s)
{
	const char *id = pp_tunnel_id_name(s->tunnel, s->tunnel_key);

	if (!*id)
		return;
	if (s->tunnel == PP_TUNNEL_GRE)
		pp_sb_lit(f, " key");
	pp_sb_lit(f, " ");
	pp_sb_u64(f, s->vni);
}

size_t pp_pkt_format_frame(const __u8 *data, __u32 cap_len, char *buf, size_t len)
{
	struct pp_pkt_summary s, in;
	struct pp_sbuf f = {.buf = buf, .len = buf ? len : 0};

	pp_pkt_decode(data, cap_len, &s);
	f.pos = pp_pkt_format(&s, buf, len);
	if (!pp_pkt_decode_inner(data, cap_len, &s, &in))
		return f.pos;
	pp_sb_lit(&f, " ");
	pp_sb_str(&f, pp_tunnel_name(s.tunnel));
	pp_sb_tunnel_id(&f, &s);
	pp_sb_lit(&f, ": ");
	return f.pos + pp_pkt_format(&in, f.pos < f.len ? buf + f.pos : NULL,
				     f.pos < f.len ? f.len - f.pos : 0);
}

bool pp_pkt_same_flow(const struct pp_pkt_summary *a, const struct pp_pkt_summary *b)
{
	if (a->ip_ver != b->ip_ver || a->ip_proto != b->ip_proto || strcmp(a->src, b->src) ||
	    strcmp(a->dst, b->dst) || a->has_ports != b->has_ports || a->has_echo != b->has_echo)
		return false;
	if (a->has_ports && (a->sport != b->sport || a->dport != b->dport))
		return false;
	return !a->has_echo || a->icmp_id == b->icmp_id;
}

size_t pp_pkt_format_flow(const struct pp_pkt_summary *s, char *buf, size_t len)
{
	struct pp_sbuf f = {.buf = buf, .len = buf ? len : 0};

	if (f.len)
		buf[0] = '\0';
	fmt_host(&f, s, s->src, s->sport);
	pp_sb_lit(&f, " > ");
	fmt_host(&f, s, s->dst, s->dport);
	if (s->has_echo) {
		pp_sb_lit(&f, " id ");
		pp_sb_u64(&f, s->icmp_id);
	}
	return f.pos;
}
