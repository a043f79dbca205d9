// SPDX-License-Identifier: GPL-2.0
/*
 * The differential test's frames. Each generator covers one corner of what
 * libpcap's filters look at (header lengths, fragments, extension headers,
 * tags, truncation, odd ethertypes) by filling a struct spec and emitting it.
 * One builder turns every spec into bytes, so lengths and checksums are set in
 * one place, and only then pads or cuts the frame: a truncated frame keeps the
 * lengths of the packet it was cut from, as a short snaplen would.
 *
 * Everything random comes from one xorshift32 stream with a fixed seed, so the
 * corpus is the same on every run and every machine.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_ether.h>
#include <pcap/pcap.h>
#include "base/compat.h"
#include "corpus.h"

#define PKT_MAX	      1600 /* a QinQ-tagged 1514-byte frame fits */
#define DESC_MAX      200
#define CORPUS_SEED   0x5eed2024u
#define RANDOM_FRAMES 90
#define PCAP_TS_SEC   1700000000 /* fixed, so the pcap file is reproducible */

#define IP4(a, b, c, d) ((__u32)(a) << 24 | (__u32)(b) << 16 | (__u32)(c) << 8 | (__u32)(d))

#define FIN 0x01
#define SYN 0x02
#define RST 0x04
#define PSH 0x08
#define ACK 0x10
#define URG 0x20
#define ECE 0x40
#define CWR 0x80

#define IP_DF 0x4000
#define IP_MF 0x2000

enum l3 {
	L3_NONE, /* nothing after the ethertype */
	L3_IP4,
	L3_IP6,
	L3_ARP, /* ARP, or RARP with etype 0x8035 */
	L3_LLC, /* 802.3: the ethertype field is the length */
	L3_RAW, /* etype, then head and payload */
};

enum encap {
	ENC_NONE,
	ENC_MPLS,  /* two labels between Ethernet and IP */
	ENC_MPLS1, /* one label */
	ENC_PPPOE, /* a PPPoE session header and a PPP protocol field */
};

/* Base frames that several generators dress up. */
enum kind {
	K4TCP,
	K4UDP,
	K4ICMP,
	K6TCP,
	K6UDP,
	K6ICMP,
	KARP,
	K_NKINDS,
};

struct spec {
	const char *tag; /* the generator's name: first word of desc */
	const __u8 *dmac, *smac;
	__u16 tpid[2], tci[2]; /* VLAN tags, outer first; tpid 0 ends the list */
	__u16 etype;	       /* L3_NONE, L3_RAW: the ethertype; L3_ARP: 0 is ARP */
	__u8 l3, encap;
	__u32 s4, d4; /* IPv4 addresses; ARP sender and target */
	const __u8 *s6, *d6;
	__u8 ttl, tos;	    /* IPv6: hop limit, traffic class */
	__u8 optw;	    /* IPv4 option words: IHL is 5 + optw */
	__u16 frag;	    /* IPv4 flags and offset; IPv6 fragment header offset and M */
	__u8 n_ext, ext[3]; /* IPv6 extension headers, in order */
	__u8 proto;	    /* transport protocol */
	__u16 sport, dport; /* TCP, UDP, SCTP */
	__u8 type, code;    /* ICMP, ICMPv6, IGMP; ARP: type is the opcode */
	__u8 flags, tcpw;   /* TCP flags, option words: data offset is 5 + tcpw */
	const void *head;   /* first payload bytes */
	__u32 headlen;
	__u32 pay;   /* random payload bytes after head */
	__u32 total; /* if set: random payload up to this frame length instead */
	__u32 pad;   /* zero-pad to this length once lengths are set */
	__u32 cut;   /* then cut to this length: a truncated packet */
	bool snap;   /* the cut is a capture's snap length: the wire length stays */
};

/* A frame being built. */
struct pkt {
	__u8 b[PKT_MAX];
	__u32 len;
	__u32 wire_len; /* len before the cut; the frame's wire length if snap */
	__u32 l3, l4;	/* header offsets; 0 when there is none */
	__u32 type_at;	/* the ethertype, or 802.3 length, field */
	__u32 pppoe_at; /* the PPPoE length field */
	__u32 rnd;	/* this frame's own stream: sequence numbers, payload */
	__u16 id;	/* IPv4 id, IPv6 fragment id and flow label */
	bool overflow;
};

struct ctx {
	struct pp_corpus *c;
	size_t cap;
	__u32 rnd;
	int err; /* the first error; emit does nothing once it is set */
};

static const __u8 m_a[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
static const __u8 m_b[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
static const __u8 m_c[6] = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
static const __u8 m_d[6] = {0x00, 0x1b, 0x21, 0xaa, 0xbb, 0xcc};
static const __u8 m_bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
static const __u8 m_mdns4[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb};
static const __u8 m_hosts4[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01};
static const __u8 m_nodes6[6] = {0x33, 0x33, 0x00, 0x00, 0x00, 0x01};
static const __u8 m_routers6[6] = {0x33, 0x33, 0x00, 0x00, 0x00, 0x02};
static const __u8 m_sol6[6] = {0x33, 0x33, 0xff, 0x00, 0x00, 0x02};
static const __u8 m_mdns6[6] = {0x33, 0x33, 0x00, 0x00, 0x00, 0xfb};
static const __u8 m_mld6[6] = {0x33, 0x33, 0x00, 0x00, 0x00, 0x16};
static const __u8 m_lldp[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e};
static const __u8 m_stp[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x00};
static const __u8 m_cdp[6] = {0x01, 0x00, 0x0c, 0xcc, 0xcc, 0xcc};

static const __u8 *const mac_pool[] = {m_a, m_b, m_c, m_d};

/* Mostly the benchmarking range, and a few outside it so that net filters split. */
static const __u32 ip4_pool[] = {
	IP4(198, 18, 0, 1),	IP4(198, 18, 0, 2), IP4(198, 18, 1, 2), IP4(198, 19, 0, 1),
	IP4(198, 19, 255, 254), IP4(10, 1, 2, 3),   IP4(192, 0, 2, 1),
};

static const __u8 a6_fd1[16] = {0xfd, [15] = 1};	   /* fd00::1 */
static const __u8 a6_fd2[16] = {0xfd, [15] = 2};	   /* fd00::2 */
static const __u8 a6_fd15[16] = {0xfd, 0, 0, 1, [15] = 5}; /* fd00:1::5 */
static const __u8 a6_fd12[16] = {0xfd, 0x12, 0x34, 0x56, 0x78, 0x9a, [15] = 1};
static const __u8 a6_ll1[16] = {0xfe, 0x80, [15] = 1}; /* fe80::1 */
static const __u8 a6_ll2[16] = {0xfe, 0x80, [8] = 0xa8, 0xbb, 0xcc, 0xff, 0xfe, 0xdd, 0xee, 0xff};
static const __u8 a6_doc[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1}; /* 2001:db8::1 */
static const __u8 a6_any[16]; /* ::, the source of duplicate address detection */
static const __u8 a6_nodes[16] = {0xff, 0x02, [15] = 1};	      /* ff02::1 */
static const __u8 a6_routers[16] = {0xff, 0x02, [15] = 2};	      /* ff02::2 */
static const __u8 a6_sol[16] = {0xff, 0x02, [11] = 1, 0xff, 0, 0, 2}; /* ff02::1:ff00:2 */
static const __u8 a6_mdns[16] = {0xff, 0x02, [15] = 0xfb};	      /* ff02::fb */
static const __u8 a6_mld[16] = {0xff, 0x02, [15] = 0x16};	      /* ff02::16 */

static const __u8 *const ip6_pool[] = {a6_fd1, a6_fd2, a6_fd15, a6_fd12, a6_ll1, a6_ll2, a6_doc};

/* 1, 63 and 64 on both sides of ip[8] < 64; 255 as on link-local traffic. */
static const __u8 ttl_pool[] = {1, 63, 64, 64, 128, 255};
/* Mostly zero: filters that divide by ip[1] must see both. */
static const __u8 tos_pool[] = {0, 0, 0, 0, 0x02, 0x03, 0x10, 0xb8};

/* Ports on both sides of port 80, dst port 53, portrange 1000-2000. */
static const __u16 port_pool[] = {0,	22,   53,   67,	  68,	80,   123,  443,   999,
				  1000, 1500, 1999, 2000, 2001, 5353, 8080, 33434, 65535};

static const __u8 flag_pool[] = {SYN,
				 SYN | ACK,
				 ACK,
				 PSH | ACK,
				 FIN | ACK,
				 FIN,
				 RST,
				 RST | ACK,
				 URG | ACK,
				 URG | PSH | ACK,
				 SYN | ECE | CWR,
				 SYN | ACK | ECE,
				 ECE | ACK,
				 CWR | PSH | ACK,
				 0,
				 FIN | PSH | URG,
				 0xff};

/* DNS, id 0x1234 so that udp[8:2] = 0x1234 picks the queries out: A? example.com */
static const char dns_query[] = "\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00"
				"\007example\003com\000\000\001\000\001";
/* and an answer: example.com A 198.18.0.1, TTL 60 */
static const char dns_reply[] = "\x56\x78\x81\x80\x00\x01\x00\x01\x00\x00\x00\x00"
				"\007example\003com\000\000\001\000\001"
				"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04\xc6\x12\x00\x01";

/* A later fragment starts with what would read as ports 80 > 53 and flags SYN-ACK. */
static const __u8 trap[20] = {0, 80, 0, 53, [12] = 0x50, [13] = SYN | ACK};

static __u32 xorshift(__u32 *s)
{
	__u32 x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

static __u32 rnd(struct ctx *x, __u32 n)
{
	return xorshift(&x->rnd) % n;
}

static void put(struct pkt *p, const void *src, __u32 n)
{
	if (n > sizeof(p->b) - p->len) {
		p->overflow = true;
		return;
	}
	if (src)
		memcpy(p->b + p->len, src, n);
	else
		memset(p->b + p->len, 0, n);
	p->len += n;
}

static void put8(struct pkt *p, __u8 v)
{
	put(p, &v, 1);
}

static void put16(struct pkt *p, __u16 v)
{
	__u8 b[2] = {v >> 8, v & 0xff};

	put(p, b, sizeof(b));
}

static void put32(struct pkt *p, __u32 v)
{
	put16(p, v >> 16);
	put16(p, v & 0xffff);
}

static void put_rand(struct pkt *p, __u32 n)
{
	while (n--)
		put8(p, xorshift(&p->rnd) & 0xff);
}

static void set16(struct pkt *p, __u32 at, __u16 v)
{
	p->b[at] = v >> 8;
	p->b[at + 1] = v & 0xff;
}

static __u32 sum16(const __u8 *b, __u32 n, __u32 sum)
{
	__u32 i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (__u32)b[i] << 8 | b[i + 1];
	if (n & 1)
		sum += (__u32)b[n - 1] << 8;
	return sum;
}

static __u16 fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/* The header checksum of the IPv4 header at AT, whose checksum field is zero. */
static void ip4_csum(struct pkt *p, __u32 at)
{
	__u32 ihl = (p->b[at] & 0xf) * 4;

	set16(p, at + 10, fold(sum16(p->b + at, ihl, 0)));
}

static bool has_ext(const struct spec *s, __u8 type)
{
	return memchr(s->ext, type, s->n_ext) != NULL;
}

/* A fragment other than the first: it has no transport header. */
static bool later_fragment(const struct spec *s)
{
	if (s->l3 == L3_IP4)
		return s->frag & 0x1fff;
	return s->l3 == L3_IP6 && has_ext(s, IPPROTO_FRAGMENT) && (s->frag & 0xfff8);
}

/* Any fragment: its transport checksum would cover bytes it does not have. */
static bool fragment(const struct spec *s)
{
	if (s->l3 == L3_IP4)
		return s->frag & 0x3fff;
	return s->l3 == L3_IP6 && has_ext(s, IPPROTO_FRAGMENT) && (s->frag & 0xfff9);
}

static __u16 ethertype(const struct spec *s)
{
	if (s->encap == ENC_MPLS || s->encap == ENC_MPLS1)
		return 0x8847;
	if (s->encap == ENC_PPPOE)
		return 0x8864;
	switch (s->l3) {
	case L3_IP4:
		return 0x0800;
	case L3_IP6:
		return 0x86dd;
	case L3_ARP:
		return s->etype ? s->etype : 0x0806;
	default:
		return s->etype; /* L3_LLC: finish writes the length */
	}
}

static void put_eth(struct pkt *p, const struct spec *s)
{
	int i;

	put(p, s->dmac, 6);
	put(p, s->smac, 6);
	for (i = 0; i < 2 && s->tpid[i]; i++) {
		put16(p, s->tpid[i]);
		put16(p, s->tci[i]);
	}
	p->type_at = p->len;
	put16(p, ethertype(s));
}

/* MPLS labels [1000,] 2000 (bottom of stack), or a PPPoE session, before IP. */
static void put_encap(struct pkt *p, const struct spec *s)
{
	if (s->encap == ENC_MPLS)
		put32(p, 1000 << 12 | 64);
	if (s->encap == ENC_MPLS || s->encap == ENC_MPLS1) {
		put32(p, 2000 << 12 | 1 << 8 | 64);
	} else if (s->encap == ENC_PPPOE) {
		put8(p, 0x11);	  /* version 1, type 1 */
		put8(p, 0);	  /* session data */
		put16(p, 0x0001); /* session id */
		p->pppoe_at = p->len;
		put16(p, 0);
		put16(p, s->l3 == L3_IP6 ? 0x0057 : 0x0021);
	}
}

/* One word is a router alert; more are a NOP and an empty record route. */
static void put_ip4_opts(struct pkt *p, __u8 words)
{
	__u8 rr_len = 3 + 4 * (words - 1);

	if (!words)
		return;
	if (words == 1) {
		put32(p, 0x94040000);
		return;
	}
	put8(p, 1);
	put8(p, 7);
	put8(p, rr_len);
	put8(p, 4);
	put(p, NULL, rr_len - 3);
}

static void put_ip4(struct pkt *p, const struct spec *s)
{
	p->l3 = p->len;
	put8(p, 0x45 + s->optw);
	put8(p, s->tos);
	put16(p, 0); /* total length: finish */
	put16(p, p->id);
	put16(p, s->frag);
	put8(p, s->ttl);
	put8(p, s->proto);
	put16(p, 0); /* checksum: finish */
	put32(p, s->s4);
	put32(p, s->d4);
	put_ip4_opts(p, s->optw);
}

/* What an ICMP error quotes: the IPv4 header and 8 bytes of a traceroute probe. */
static void put_quote4(struct pkt *p, const struct spec *s)
{
	__u32 at = p->len;

	put32(p, 0x4500001c); /* IHL 5, total length 28 */
	put32(p, 0x42420000);
	put32(p, 0x01110000); /* TTL 1, UDP */
	put32(p, s->d4);
	put32(p, IP4(192, 0, 2, 1));
	ip4_csum(p, at);
	put32(p, 40000u << 16 | 33434);
	put32(p, 8 << 16);
}

/* The same for ICMPv6: an IPv6 header and 8 bytes of UDP. */
static void put_quote6(struct pkt *p, const struct spec *s)
{
	put32(p, 0x60000000);
	put32(p, 8 << 16 | IPPROTO_UDP << 8 | 1);
	put(p, s->d6, 16);
	put(p, a6_doc, 16);
	put32(p, 40000u << 16 | 33434);
	put32(p, 8 << 16);
}

/* One extension header after its next-header byte, 8 or 24 bytes in all. */
static void put_ext6_body(struct pkt *p, const struct spec *s, __u8 type)
{
	static const __u8 hbh[] = {0, 5, 2, 0, 0, 1, 0}; /* router alert, PadN */
	static const __u8 dst[] = {0, 1, 4, 0, 0, 0, 0}; /* PadN */

	switch (type) {
	case IPPROTO_HOPOPTS:
		put(p, hbh, sizeof(hbh));
		break;
	case IPPROTO_DSTOPTS:
		put(p, dst, sizeof(dst));
		break;
	case IPPROTO_ROUTING: /* type 2, one address */
		put32(p, 2 << 24 | 2 << 16 | 1 << 8);
		put(p, NULL, 3);
		put(p, s->d6, 16);
		break;
	case IPPROTO_FRAGMENT:
		put8(p, 0);
		put16(p, s->frag);
		put32(p, p->id);
		break;
	}
}

static void put_ip6(struct pkt *p, const struct spec *s)
{
	int i;

	p->l3 = p->len;
	put32(p, 6u << 28 | (__u32)s->tos << 20 | p->id);
	put16(p, 0); /* payload length: finish */
	put8(p, s->n_ext ? s->ext[0] : s->proto);
	put8(p, s->ttl);
	put(p, s->s6, 16);
	put(p, s->d6, 16);
	for (i = 0; i < s->n_ext; i++) {
		put8(p, i + 1 < s->n_ext ? s->ext[i + 1] : s->proto);
		put_ext6_body(p, s, s->ext[i]);
	}
}

static void put_arp(struct pkt *p, const struct spec *s)
{
	/* an ARP request asks for the target's MAC; a RARP request for its own IP */
	const __u8 *tha = s->type == 1 ? NULL : s->type == 3 ? s->smac : s->dmac;

	put32(p, 0x00010800); /* Ethernet, IPv4 */
	put16(p, 0x0604);
	put16(p, s->type);
	put(p, s->smac, 6);
	put32(p, s->s4);
	put(p, tha, 6);
	put32(p, s->d4);
}

static void put_tcp_opts(struct pkt *p, __u8 words)
{
	static const __u8 mss[] = {2, 4, 0x05, 0xb4}, ws[] = {1, 3, 3, 7};
	static const __u8 sack[] = {1, 1, 4, 2}, ts[] = {1, 1, 8, 10, 0, 0, 1, 0, 0, 0, 0, 0};
	static const struct {
		const __u8 *b;
		__u8 words;
	} opts[] = {{mss, 1}, {ts, 3}, {ws, 1}, {sack, 1}};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		if (opts[i].words <= words) {
			put(p, opts[i].b, 4 * opts[i].words);
			words -= opts[i].words;
		}
	}
	while (words--)
		put32(p, 0x01010101);
}

static void put_tcp(struct pkt *p, const struct spec *s)
{
	put16(p, s->sport);
	put16(p, s->dport);
	put32(p, xorshift(&p->rnd));
	put32(p, s->flags & ACK ? xorshift(&p->rnd) : 0);
	put8(p, (5 + s->tcpw) << 4);
	put8(p, s->flags);
	put16(p, 64240);
	put16(p, 0); /* checksum: finish */
	put16(p, s->flags & URG ? 3 : 0);
	put_tcp_opts(p, s->tcpw);
}

static void put_udp(struct pkt *p, const struct spec *s)
{
	put16(p, s->sport);
	put16(p, s->dport);
	put32(p, 0); /* length and checksum: finish */
}

static void put_sctp(struct pkt *p, const struct spec *s)
{
	put16(p, s->sport);
	put16(p, s->dport);
	put32(p, xorshift(&p->rnd)); /* verification tag */
	put32(p, 0);		     /* CRC32c, left out */
}

static void put_icmp4(struct pkt *p, const struct spec *s)
{
	put8(p, s->type);
	put8(p, s->code);
	put16(p, 0);
	switch (s->type) {
	case 3: /* unreachable, with the next-hop MTU for "fragmentation needed" */
	case 4:
	case 11:
		put32(p, s->type == 3 && s->code == 4 ? 1400 : 0);
		put_quote4(p, s);
		break;
	case 5: /* redirect, to a gateway */
		put32(p, IP4(198, 18, 0, 254));
		put_quote4(p, s);
		break;
	case 13: /* timestamp request and reply: three timestamps more */
	case 14:
		put32(p, p->id << 16 | 1);
		put(p, NULL, 12);
		break;
	default: /* echo: id, sequence */
		put32(p, p->id << 16 | 1);
		break;
	}
}

/* Neighbour discovery target, MLDv2 record, or the body of the other types. */
static void put_icmp6_body(struct pkt *p, const struct spec *s)
{
	switch (s->type) {
	case 1: /* unreachable, packet too big, time exceeded */
	case 2:
	case 3:
		put32(p, s->type == 2 ? 1280 : 0);
		put_quote6(p, s);
		break;
	case 133: /* router solicitation */
		put32(p, 0);
		break;
	case 134: /* router advertisement: hop limit 64, lifetime 1800 */
		put32(p, 64 << 24 | 1800);
		put(p, NULL, 8);
		break;
	case 135: /* neighbour solicitation and advertisement (S, O) */
	case 136:
		put32(p, s->type == 136 ? 0x60000000 : 0);
		put(p, a6_fd2, 16);
		break;
	case 143: /* MLDv2 report: one record, change to exclude ff02::fb */
		put32(p, 1);
		put32(p, 4 << 24);
		put(p, a6_mdns, 16);
		break;
	default: /* echo: id, sequence */
		put32(p, p->id << 16 | 1);
		break;
	}
}

static void put_icmp6(struct pkt *p, const struct spec *s)
{
	put8(p, s->type);
	put8(p, s->code);
	put16(p, 0);
	put_icmp6_body(p, s);
}

static void put_igmp(struct pkt *p, const struct spec *s)
{
	put8(p, s->type);
	put8(p, s->type == 0x11 ? 100 : 0); /* max response time, queries only */
	put16(p, 0);
	put32(p, s->type == 0x11 ? 0 : s->d4);
}

static void put_l4(struct pkt *p, const struct spec *s)
{
	if (later_fragment(s)) {
		put(p, trap, sizeof(trap));
		return;
	}
	p->l4 = p->len;
	switch (s->proto) {
	case IPPROTO_TCP:
		put_tcp(p, s);
		break;
	case IPPROTO_UDP:
		put_udp(p, s);
		break;
	case IPPROTO_SCTP:
		put_sctp(p, s);
		break;
	case IPPROTO_ICMP:
		put_icmp4(p, s);
		break;
	case IPPROTO_ICMPV6:
		put_icmp6(p, s);
		break;
	case IPPROTO_IGMP:
		put_igmp(p, s);
		break;
	default: /* GRE, ESP, no next header: all payload */
		p->l4 = 0;
		break;
	}
}

static void put_payload(struct pkt *p, const struct spec *s)
{
	__u32 head = s->headlen, n = s->headlen + s->pay;

	if (s->total)
		n = s->total > p->len ? s->total - p->len : 0;
	if (head > n)
		head = n;
	put(p, s->head, head);
	put_rand(p, n - head);
}

static __u16 l4_csum_offset(__u8 proto)
{
	switch (proto) {
	case IPPROTO_TCP:
		return 16;
	case IPPROTO_UDP:
		return 6;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
	case IPPROTO_IGMP:
		return 2;
	default:
		return 0; /* SCTP's CRC32c is not worth it here */
	}
}

/* The UDP length, and a transport checksum where the datagram is whole. */
static void fix_l4(struct pkt *p, const struct spec *s)
{
	__u32 n = p->len - p->l4, off = l4_csum_offset(s->proto), sum = 0;
	__u16 csum;

	if (s->proto == IPPROTO_UDP)
		set16(p, p->l4 + 4, n);
	if (!off || fragment(s))
		return;
	if (s->l3 == L3_IP6)
		sum = sum16(p->b + p->l3 + 8, 32, s->proto + n);
	else if (s->proto != IPPROTO_ICMP && s->proto != IPPROTO_IGMP)
		sum = sum16(p->b + p->l3 + 12, 8, s->proto + n);
	csum = fold(sum16(p->b + p->l4, n, sum));
	set16(p, p->l4 + off, s->proto == IPPROTO_UDP && !csum ? 0xffff : csum);
}

/* Lengths and checksums, then the padding and the cut that the spec asks for. */
static void finish(struct pkt *p, const struct spec *s)
{
	if (s->l3 == L3_LLC)
		set16(p, p->type_at, p->len - p->type_at - 2);
	if (p->pppoe_at)
		set16(p, p->pppoe_at, p->len - p->pppoe_at - 2);
	if (s->l3 == L3_IP4)
		set16(p, p->l3 + 2, p->len - p->l3);
	if (s->l3 == L3_IP6)
		set16(p, p->l3 + 4, p->len - p->l3 - 40);
	if (p->l4)
		fix_l4(p, s);
	if (s->l3 == L3_IP4)
		ip4_csum(p, p->l3);
	if (p->len < s->pad)
		put(p, NULL, s->pad - p->len);
	p->wire_len = p->len;
	if (s->cut && s->cut < p->len)
		p->len = s->cut;
}

static void build(struct pkt *p, const struct spec *s)
{
	put_eth(p, s);
	put_encap(p, s);
	if (s->l3 == L3_IP4)
		put_ip4(p, s);
	else if (s->l3 == L3_IP6)
		put_ip6(p, s);
	else if (s->l3 == L3_ARP)
		put_arp(p, s);
	if (s->l3 == L3_IP4 || s->l3 == L3_IP6)
		put_l4(p, s);
	put_payload(p, s);
	finish(p, s);
}

struct sbuf {
	char b[DESC_MAX];
	size_t len;
};

static __attribute__((format(printf, 2, 3))) void sb_add(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb->len >= sizeof(sb->b))
		return;
	va_start(ap, fmt);
	n = vsnprintf(sb->b + sb->len, sizeof(sb->b) - sb->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb->len += n;
}

/* " SRC > DST" of IPv4 (also ARP) or IPv6 */
static void describe_addrs(struct sbuf *sb, const struct spec *s)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	__u32 s4 = htonl(s->s4), d4 = htonl(s->d4);

	if (s->l3 == L3_IP6) {
		inet_ntop(AF_INET6, s->s6, src, sizeof(src));
		inet_ntop(AF_INET6, s->d6, dst, sizeof(dst));
	} else {
		inet_ntop(AF_INET, &s4, src, sizeof(src));
		inet_ntop(AF_INET, &d4, dst, sizeof(dst));
	}
	sb_add(sb, " %s > %s", src, dst);
}

static void describe_ip(struct sbuf *sb, const struct spec *s)
{
	bool v4 = s->l3 == L3_IP4;
	int i;

	sb_add(sb, " %s", v4 ? "ip" : "ip6");
	describe_addrs(sb, s);
	sb_add(sb, " %s %u", v4 ? "ttl" : "hlim", s->ttl);
	if (s->tos)
		sb_add(sb, " %s 0x%02x", v4 ? "tos" : "tclass", s->tos);
	if (s->optw && v4)
		sb_add(sb, " ihl %u", 5 + s->optw);
	if (s->frag && (s->l3 == L3_IP4 || has_ext(s, IPPROTO_FRAGMENT)))
		sb_add(sb, " frag 0x%04x", s->frag);
	for (i = 0; i < s->n_ext; i++)
		sb_add(sb, "%s%u", i ? "," : " ext ", s->ext[i]);
}

static void describe_l4(struct sbuf *sb, const struct spec *s)
{
	if (later_fragment(s)) {
		sb_add(sb, " proto %u later fragment", s->proto);
		return;
	}
	switch (s->proto) {
	case IPPROTO_TCP:
		sb_add(sb, " tcp %u > %u flags 0x%02x doff %u", s->sport, s->dport, s->flags,
		       5 + s->tcpw);
		break;
	case IPPROTO_UDP:
	case IPPROTO_SCTP:
		sb_add(sb, " %s %u > %u", s->proto == IPPROTO_UDP ? "udp" : "sctp", s->sport,
		       s->dport);
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
	case IPPROTO_IGMP:
		sb_add(sb, " proto %u type %u code %u", s->proto, s->type, s->code);
		break;
	default:
		sb_add(sb, " proto %u", s->proto);
		break;
	}
}

static void describe(struct sbuf *sb, const struct spec *s, __u32 len)
{
	int i;

	sb_add(sb, "%s:", s->tag);
	for (i = 0; i < 2 && s->tpid[i]; i++)
		sb_add(sb, " tag 0x%04x/%u", s->tpid[i], s->tci[i] & 0xfff);
	if (s->encap)
		sb_add(sb, " %s", s->encap == ENC_PPPOE ? "pppoe" : "mpls");
	if (s->l3 == L3_IP4 || s->l3 == L3_IP6) {
		describe_ip(sb, s);
		describe_l4(sb, s);
	} else if (s->l3 == L3_ARP) {
		sb_add(sb, " %s op %u", s->etype ? "rarp" : "arp", s->type);
		describe_addrs(sb, s);
	} else if (s->l3 == L3_LLC) {
		sb_add(sb, " llc");
	} else {
		sb_add(sb, " ethertype 0x%04x", s->etype);
	}
	sb_add(sb, " len %u%s", len, s->cut ? s->snap ? " snap" : " cut" : "");
}

static int add_frame(struct ctx *x, const struct pkt *p, bool s_snap, const char *desc)
{
	struct pp_corpus *c = x->c;
	struct pp_frame *f;

	if (c->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 256;

		f = realloc(c->v, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		c->v = f;
		x->cap = cap;
	}
	f = &c->v[c->n];
	f->data = malloc(p->len);
	f->desc = strdup(desc);
	if (!f->data || !f->desc) {
		free(f->data);
		free((char *)f->desc);
		return -ENOMEM;
	}
	memcpy(f->data, p->b, p->len);
	f->len = p->len;
	f->wire_len = s_snap ? p->wire_len : p->len;
	c->n++;
	return 0;
}

static void emit(struct ctx *x, const struct spec *s)
{
	struct pkt p = {.rnd = xorshift(&x->rnd) | 1, .id = (x->c->n + 1) & 0xffff};
	struct sbuf sb = {.len = 0};

	if (x->err)
		return;
	build(&p, s);
	/* Only a cut makes a frame shorter than Ethernet (gen_runt). */
	if (p.overflow || p.wire_len < ETH_HLEN) {
		x->err = -EINVAL; /* a spec that does not fit: a bug in this file */
		return;
	}
	describe(&sb, s, p.len);
	x->err = add_frame(x, &p, s->snap, sb.b);
}

static void pick_macs(struct ctx *x, struct spec *s)
{
	__u32 n = ARRAY_SIZE(mac_pool), i = rnd(x, n);

	s->dmac = mac_pool[i];
	s->smac = mac_pool[(i + 1 + rnd(x, n - 1)) % n];
}

/* Unicast defaults: TCP/UDP ephemeral > 80, ICMP echo request, ACK. */
static struct spec ip_spec(struct ctx *x, const char *tag, __u8 l3, __u8 proto)
{
	struct spec s = {.tag = tag, .l3 = l3, .proto = proto, .flags = ACK};
	__u32 n4 = ARRAY_SIZE(ip4_pool), n6 = ARRAY_SIZE(ip6_pool), i = rnd(x, n4), j = rnd(x, n6);

	pick_macs(x, &s);
	s.s4 = ip4_pool[i];
	s.d4 = ip4_pool[(i + 1 + rnd(x, n4 - 1)) % n4];
	s.s6 = ip6_pool[j];
	s.d6 = ip6_pool[(j + 1 + rnd(x, n6 - 1)) % n6];
	s.ttl = ttl_pool[rnd(x, ARRAY_SIZE(ttl_pool))];
	s.tos = tos_pool[rnd(x, ARRAY_SIZE(tos_pool))];
	s.sport = 32768 + rnd(x, 28000);
	s.dport = 80;
	s.type = l3 == L3_IP4 ? 8 : 128;
	return s;
}

static struct spec ip4_spec(struct ctx *x, const char *tag, __u8 proto)
{
	return ip_spec(x, tag, L3_IP4, proto);
}

static struct spec ip6_spec(struct ctx *x, const char *tag, __u8 proto)
{
	return ip_spec(x, tag, L3_IP6, proto);
}

/* ARP or RARP; requests go to broadcast and carry no target MAC. */
static struct spec arp_spec(struct ctx *x, const char *tag, __u8 op)
{
	struct spec s = ip4_spec(x, tag, 0);

	s.l3 = L3_ARP;
	s.type = op;
	s.etype = op > 2 ? 0x8035 : 0;
	if (op == 1 || op == 3)
		s.dmac = m_bcast;
	return s;
}

/* DNS on port 53, mDNS to its group, DHCP from 0.0.0.0 to broadcast. */
static void dress_udp(struct spec *s)
{
	if (s->proto != IPPROTO_UDP)
		return;
	s->head = NULL;
	s->headlen = 0;
	if (s->dport == 53 || s->dport == 5353) {
		s->head = dns_query;
		s->headlen = sizeof(dns_query) - 1;
	} else if (s->sport == 53) {
		s->head = dns_reply;
		s->headlen = sizeof(dns_reply) - 1;
	}
	if (s->dport == 5353) {
		s->ttl = 255;
		s->d4 = IP4(224, 0, 0, 251);
		s->d6 = a6_mdns;
		s->dmac = s->l3 == L3_IP4 ? m_mdns4 : m_mdns6;
	}
	if (s->dport == 67 && s->l3 == L3_IP4) {
		s->s4 = 0;
		s->d4 = IP4(255, 255, 255, 255);
		s->dmac = m_bcast;
	}
}

static struct spec kind_spec(struct ctx *x, enum kind k, const char *tag)
{
	static const __u8 l3[K_NKINDS] = {L3_IP4, L3_IP4, L3_IP4, L3_IP6, L3_IP6, L3_IP6};
	static const __u8 proto[K_NKINDS] = {IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP,
					     IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMPV6};
	struct spec s;

	if (k == KARP)
		return arp_spec(x, tag, 1);
	s = ip_spec(x, tag, l3[k], proto[k]);
	s.flags = SYN;
	if (s.proto == IPPROTO_UDP)
		s.dport = 53;
	dress_udp(&s);
	return s;
}

/* Ethernet headers alone, each with an ethertype something might look past. */
static void gen_bare(struct ctx *x)
{
	static const __u16 types[] = {0x0800, 0x86dd, 0x0806, 0x8035, 0x8100, 0x88a8,
				      0x88cc, 0x8847, 0x8864, 0x0000, 0x05dc, 0x9000};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		struct spec s = {.tag = "bare", .l3 = L3_NONE, .etype = types[i]};

		pick_macs(x, &s);
		if (i % 3 == 0)
			s.dmac = m_bcast;
		emit(x, &s);
	}
}

/* Every flag set each way over IPv4, and over IPv6, with data offsets 5 to 15. */
static void gen_tcp_flags(struct ctx *x)
{
	static const __u16 srv[] = {80, 443, 22, 1500, 8080, 25};
	size_t i, dir;

	for (i = 0; i < ARRAY_SIZE(flag_pool); i++) {
		for (dir = 0; dir < 3; dir++) {
			struct spec s =
				ip_spec(x, "tcp-flags", dir == 2 ? L3_IP6 : L3_IP4, IPPROTO_TCP);

			s.flags = flag_pool[i];
			s.tcpw = (i * 3 + dir) % 11;
			s.dport = srv[(i + dir) % ARRAY_SIZE(srv)];
			if (dir == 1) {
				s.sport = s.dport;
				s.dport = 32768 + rnd(x, 28000);
			}
			s.pay = s.flags & PSH ? 10 + rnd(x, 200) : 0;
			emit(x, &s);
		}
	}
}

/* IHL 5 to 15 under TCP (HTTP GET), UDP (DNS) and ICMP. */
static void gen_ip4_options(struct ctx *x)
{
	static const char get[] = "GET /options HTTP/1.1\r\n";
	static const __u8 protos[] = {IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP};
	__u8 w;
	size_t j;

	for (w = 0; w <= 10; w++) {
		for (j = 0; j < ARRAY_SIZE(protos); j++) {
			struct spec s = ip4_spec(x, "ip4-options", protos[j]);

			s.optw = w;
			s.tcpw = 10 - w;
			s.flags = PSH | ACK;
			s.head = get;
			s.headlen = sizeof(get) - 1;
			if (s.proto == IPPROTO_UDP)
				s.dport = 53;
			dress_udp(&s);
			s.pay = rnd(x, 64);
			emit(x, &s);
		}
	}
}

/* First, middle and last fragments, DF, a fragment at offset 8, and with options. */
static void gen_ip4_fragments(struct ctx *x)
{
	static const struct {
		__u16 frag;
		__u8 optw;
	} f[] = {{IP_MF, 0}, {IP_MF | 185, 0}, {370, 0}, {IP_DF, 0},
		 {IP_MF, 3}, {IP_MF | 1, 0},   {370, 2}};
	static const __u8 protos[] = {IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP};
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(f); i++) {
		for (j = 0; j < ARRAY_SIZE(protos); j++) {
			struct spec s = ip4_spec(x, "ip4-fragment", protos[j]);

			s.frag = f[i].frag;
			s.optw = f[i].optw;
			s.flags = SYN;
			if (s.proto == IPPROTO_UDP)
				s.dport = 53;
			dress_udp(&s);
			s.pay = 40 + rnd(x, 200);
			emit(x, &s);
		}
	}
}

/* DNS both ways, mDNS, DHCP, port 0, and both edges of portrange 1000-2000. */
static void gen_udp(struct ctx *x)
{
	static const __u16 ports[][2] = {
		{40001, 53},   {53, 40001},   {5353, 5353},   {40002, 5353}, {0, 0},
		{0, 9999},     {9999, 0},     {50000, 60000}, {65535, 1},    {999, 40003},
		{1000, 40004}, {40005, 2000}, {40006, 2001},  {1500, 1500},  {68, 67},
		{123, 123},    {514, 514},    {40007, 999},   {2001, 40008},
	};
	size_t i, v6;

	for (i = 0; i < ARRAY_SIZE(ports); i++) {
		for (v6 = 0; v6 < 2; v6++) {
			struct spec s = ip_spec(x, "udp", v6 ? L3_IP6 : L3_IP4, IPPROTO_UDP);

			s.sport = ports[i][0];
			s.dport = ports[i][1];
			s.pay = rnd(x, 120);
			dress_udp(&s);
			emit(x, &s);
		}
	}
}

/* TCP payloads that filters match on: HTTP requests and responses, TLS, SSH. */
static void gen_tcp_apps(struct ctx *x)
{
	static const struct {
		__u16 sport, dport;
		__u8 tcpw;
		const char *head;
	} apps[] = {
		{40010, 80, 0, "GET / HTTP/1.1\r\nHost: a\r\n\r\n"},
		{40011, 80, 3, "GET /index.html HTTP/1.1\r\n"},
		{40012, 80, 10, "GET /x HTTP/1.0\r\n"},
		{80, 40010, 3, "HTTP/1.1 200 OK\r\n"},
		{40013, 8080, 2, "GET /api HTTP/1.1\r\n"},
		{40014, 80, 3, "POST /form HTTP/1.1\r\n"},
		{40015, 443, 3, "\x16\x03\x01\x02\x00\x01"},
		{443, 40015, 3, "\x17\x03\x03\x00\x40"},
		{40016, 22, 3, "SSH-2.0-OpenSSH_9.2\r\n"},
		{40017, 1999, 1, "GET / HTTP/1.1\r\n"},
	};
	size_t i, v6;

	for (i = 0; i < ARRAY_SIZE(apps); i++) {
		for (v6 = 0; v6 < 2; v6++) {
			struct spec s = ip_spec(x, "tcp-app", v6 ? L3_IP6 : L3_IP4, IPPROTO_TCP);

			s.sport = apps[i].sport;
			s.dport = apps[i].dport;
			s.tcpw = apps[i].tcpw;
			s.flags = PSH | ACK;
			s.head = apps[i].head;
			s.headlen = strlen(apps[i].head);
			s.pay = rnd(x, 100);
			emit(x, &s);
		}
	}
}

static void gen_icmp4(struct ctx *x)
{
	static const __u8 tc[][2] = {{8, 0},  {0, 0},  {3, 0},	{3, 1}, {3, 3}, {3, 4},
				     {3, 13}, {11, 0}, {11, 1}, {5, 0}, {5, 1}, {4, 0},
				     {13, 0}, {14, 0}, {8, 0},	{0, 0}};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tc); i++) {
		struct spec s = ip4_spec(x, "icmp", IPPROTO_ICMP);

		s.type = tc[i][0];
		s.code = tc[i][1];
		s.ttl = ttl_pool[i % ARRAY_SIZE(ttl_pool)];
		s.pay = s.type == 0 || s.type == 8 ? 56 : 0;
		emit(x, &s);
	}
}

/* IGMP with its router alert, SCTP, GRE; IPv6 ESP and "no next header". */
static void gen_ip_other(struct ctx *x)
{
	static const __u8 gre[] = {0, 0, 0x88, 0xb5}; /* opaque: local experimental */
	static const struct {
		__u8 l3, proto, type;
		__u16 sport, dport;
	} o[] = {
		{L3_IP4, IPPROTO_IGMP, 0x16, 0, 0},  {L3_IP4, IPPROTO_IGMP, 0x11, 0, 0},
		{L3_IP4, IPPROTO_SCTP, 0, 5000, 80}, {L3_IP4, IPPROTO_SCTP, 0, 9899, 9899},
		{L3_IP6, IPPROTO_SCTP, 0, 80, 5000}, {L3_IP4, IPPROTO_GRE, 0, 0, 0},
		{L3_IP6, IPPROTO_ESP, 0, 0, 0},	     {L3_IP6, IPPROTO_NONE, 0, 0, 0},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(o); i++) {
		struct spec s = ip_spec(x, "ip-other", o[i].l3, o[i].proto);

		s.type = o[i].type;
		s.sport = o[i].sport;
		s.dport = o[i].dport;
		if (s.proto == IPPROTO_IGMP) {
			s.optw = 1;
			s.ttl = 1;
			s.d4 = s.type == 0x11 ? IP4(224, 0, 0, 1) : IP4(224, 0, 0, 251);
			s.dmac = s.type == 0x11 ? m_hosts4 : m_mdns4;
		}
		if (s.proto == IPPROTO_GRE) {
			s.head = gre;
			s.headlen = sizeof(gre);
		}
		s.pay = s.proto == IPPROTO_NONE ? 0 : 40;
		emit(x, &s);
	}
}

/* Chains of one to three extension headers, in RFC 8200 order, before each transport. */
static void gen_ip6_ext(struct ctx *x)
{
	static const struct {
		__u8 n, ext[3];
		__u16 frag;
	} ch[] = {
		{1, {0}, 0},
		{1, {43}, 0},
		{1, {44}, 1},
		{1, {60}, 0},
		{2, {0, 60}, 0},
		{2, {0, 43}, 0},
		{2, {0, 44}, 1},
		{2, {60, 44}, 0},
		{3, {0, 60, 43}, 0},
		{3, {0, 43, 44}, 1},
		{3, {43, 44, 60}, 1},
		{1, {44}, 185 << 3 | 1},
		{2, {0, 44}, 370 << 3},
	};
	static const __u8 protos[] = {IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMPV6};
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(ch); i++) {
		for (j = 0; j < ARRAY_SIZE(protos); j++) {
			struct spec s = ip6_spec(x, "ip6-ext", protos[j]);

			s.n_ext = ch[i].n;
			memcpy(s.ext, ch[i].ext, sizeof(s.ext));
			s.frag = ch[i].frag;
			s.flags = SYN;
			if (s.proto == IPPROTO_UDP)
				s.dport = 53;
			dress_udp(&s);
			s.pay = rnd(x, 100);
			emit(x, &s);
		}
	}
}

/* Echo, neighbour discovery to its multicast groups, errors, MLD behind hop-by-hop. */
static void gen_icmp6(struct ctx *x)
{
	static const struct {
		__u8 type, code;
		const __u8 *src, *dst, *dmac; /* NULL: unicast, from the pools */
	} m[] = {
		{128, 0, NULL, NULL, NULL},
		{129, 0, NULL, NULL, NULL},
		{128, 0, a6_ll1, a6_nodes, m_nodes6},
		{133, 0, a6_ll2, a6_routers, m_routers6},
		{134, 0, a6_ll1, a6_nodes, m_nodes6},
		{135, 0, a6_fd1, a6_sol, m_sol6},
		{135, 0, a6_any, a6_sol, m_sol6},
		{136, 0, a6_fd2, a6_fd1, NULL},
		{1, 4, NULL, NULL, NULL},
		{1, 0, NULL, NULL, NULL},
		{2, 0, NULL, NULL, NULL},
		{3, 0, NULL, NULL, NULL},
		{143, 0, a6_ll2, a6_mld, m_mld6},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(m); i++) {
		struct spec s = ip6_spec(x, "icmp6", IPPROTO_ICMPV6);

		s.type = m[i].type;
		s.code = m[i].code;
		s.s6 = m[i].src ? m[i].src : s.s6;
		s.d6 = m[i].dst ? m[i].dst : s.d6;
		s.dmac = m[i].dmac ? m[i].dmac : s.dmac;
		if (s.type >= 133 && s.type <= 136)
			s.ttl = 255;
		if (s.type == 143) {
			s.ttl = 1;
			s.n_ext = 1; /* hop-by-hop with a router alert */
		}
		s.pay = s.type >= 128 && s.type <= 129 ? 32 : 0;
		emit(x, &s);
	}
}

/* ARP request, reply, gratuitous; RARP; both padded to 60 as they are on the wire. */
static void gen_arp(struct ctx *x)
{
	static const __u8 ops[] = {1, 2, 1, 2, 1, 3, 4};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		struct spec s = arp_spec(x, "arp", ops[i]);

		if (i < 2) { /* a request from 198.18.0.1 and its reply */
			s.s4 = i ? IP4(198, 18, 0, 2) : IP4(198, 18, 0, 1);
			s.d4 = i ? IP4(198, 18, 0, 1) : IP4(198, 18, 0, 2);
		}
		if (i == 4)
			s.d4 = s.s4; /* gratuitous */
		if (i >= 2)
			s.pad = 60;
		emit(x, &s);
	}
}

/* 802.1Q with VIDs on both sides of "vlan 100", priority tags, QinQ, 0x9100. */
static void gen_vlan(struct ctx *x)
{
	static const __u16 tags[][4] = {
		/* outer tpid, outer tci, inner tpid, inner tci */
		{0x8100, 100},
		{0x8100, 200},
		{0x8100, 5 << 13 | 100},
		{0x8100, 1},
		{0x8100, 4094},
		{0x8100, 0},
		{0x88a8, 100, 0x8100, 200},
		{0x88a8, 300, 0x8100, 100},
		{0x8100, 100, 0x8100, 100},
		{0x9100, 10, 0x8100, 20},
	};
	size_t i, k;

	for (i = 0; i < ARRAY_SIZE(tags); i++) {
		for (k = 0; k < 3; k++) {
			struct spec s = kind_spec(x, (i + k) % K_NKINDS, "vlan");

			s.tpid[0] = tags[i][0];
			s.tci[0] = tags[i][1];
			s.tpid[1] = tags[i][2];
			s.tci[1] = tags[i][3];
			s.pay = rnd(x, 80);
			emit(x, &s);
		}
	}
}

/*
 * Cuts at and around every field a filter loads: the IPv4 protocol and
 * addresses, the end of the IP header, each byte of the ports, the TCP flags,
 * the IPv6 next header, an extension header, the VLAN tag.
 */
static void gen_trunc(struct ctx *x)
{
	enum { T_PLAIN, T_OPT, T_HBH, T_VLAN };
	static const struct {
		__u8 kind, how, cut;
	} c[] = {
		{K4TCP, T_PLAIN, 15}, {K4TCP, T_PLAIN, 20},  {K4TCP, T_PLAIN, 23},
		{K4TCP, T_PLAIN, 24}, {K4TCP, T_PLAIN, 30},  {K4TCP, T_PLAIN, 33},
		{K4TCP, T_PLAIN, 34}, {K4TCP, T_PLAIN, 35},  {K4TCP, T_PLAIN, 36},
		{K4TCP, T_PLAIN, 37}, {K4TCP, T_PLAIN, 38},  {K4TCP, T_PLAIN, 40},
		{K4TCP, T_PLAIN, 47}, {K4TCP, T_PLAIN, 48},  {K4TCP, T_PLAIN, 53},
		{K4UDP, T_PLAIN, 35}, {K4UDP, T_PLAIN, 37},  {K4UDP, T_PLAIN, 42},
		{K4UDP, T_PLAIN, 43}, {K4TCP, T_OPT, 40},    {K4TCP, T_OPT, 50},
		{K4TCP, T_OPT, 52},   {K4ICMP, T_PLAIN, 34}, {K4ICMP, T_PLAIN, 35},
		{K6TCP, T_PLAIN, 20}, {K6TCP, T_PLAIN, 21},  {K6TCP, T_PLAIN, 38},
		{K6TCP, T_PLAIN, 54}, {K6TCP, T_PLAIN, 55},  {K6TCP, T_PLAIN, 57},
		{K6TCP, T_PLAIN, 67}, {K6UDP, T_HBH, 58},    {K6UDP, T_HBH, 62},
		{K6UDP, T_HBH, 65},   {K6ICMP, T_PLAIN, 54}, {K4TCP, T_VLAN, 16},
		{K4TCP, T_VLAN, 18},  {K4TCP, T_VLAN, 20},   {K4TCP, T_VLAN, 38},
		{K4TCP, T_VLAN, 40},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		struct spec s = kind_spec(x, c[i].kind, "truncated");

		s.optw = c[i].how == T_OPT ? 4 : 0;
		s.n_ext = c[i].how == T_HBH;
		if (c[i].how == T_VLAN) {
			s.tpid[0] = 0x8100;
			s.tci[0] = 100;
		}
		s.dport = s.proto == IPPROTO_UDP ? 53 : 80;
		s.pay = 20;
		s.cut = c[i].cut;
		/* Half as an skb whose headers claim more than it holds, half as a
		 * capture's snap length (the wire length, "len", stays). */
		s.snap = i % 2;
		emit(x, &s);
	}
}

/*
 * Frames shorter than an Ethernet header (which BPF_PROG_TEST_RUN refuses),
 * whole or as a capture's snap length cut them.
 */
static void gen_runt(struct ctx *x)
{
	static const struct {
		__u8 kind, cut;
	} c[] = {
		{K4TCP, 1}, {K4TCP, 6},	  {K4TCP, 12}, {K4TCP, 13}, {K6UDP, 7},
		{KARP, 13}, {K4ICMP, 11}, {K6ICMP, 2}, {K4UDP, 13}, {KARP, 5},
	};

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		struct spec s = kind_spec(x, c[i].kind, "runt");

		s.cut = c[i].cut;
		s.snap = i % 2;
		emit(x, &s);
	}
}

/* Full-size frames, tagged ones past 1514, and lengths either side of 1000. */
static void gen_big(struct ctx *x)
{
	static const struct {
		__u8 kind, vlan;
		__u16 total;
	} b[] = {
		{K4TCP, 0, 1514},  {K4UDP, 0, 1514}, {K6TCP, 0, 1514}, {K4ICMP, 0, 1514},
		{K6ICMP, 0, 1514}, {K6UDP, 0, 1514}, {K4TCP, 1, 1518}, {K4TCP, 0, 999},
		{K4TCP, 0, 1000},  {K4TCP, 0, 1001}, {K4UDP, 0, 1001}, {K6TCP, 0, 1280},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(b); i++) {
		struct spec s = kind_spec(x, b[i].kind, "big");

		s.flags = PSH | ACK;
		s.total = b[i].total;
		if (b[i].vlan) {
			s.tpid[0] = 0x8100;
			s.tci[0] = 200;
		}
		emit(x, &s);
	}
}

/* Minimal frames padded to 60 as the wire pads them, and lengths around 64. */
static void gen_small(struct ctx *x)
{
	static const struct {
		__u8 kind, flags, pad, total;
	} m[] = {
		{K4TCP, ACK, 60, 0}, {K4TCP, RST, 60, 0}, {K4UDP, 0, 60, 0},   {K4ICMP, 0, 60, 0},
		{K4TCP, ACK, 0, 63}, {K4TCP, ACK, 0, 64}, {K4TCP, ACK, 0, 65}, {K4UDP, 0, 0, 64},
		{K6ICMP, 0, 0, 62},  {K6TCP, ACK, 0, 0},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(m); i++) {
		struct spec s = kind_spec(x, m[i].kind, "small");

		s.flags = m[i].flags;
		if (s.proto == IPPROTO_UDP)
			s.dport = 9; /* discard: nothing to decode */
		dress_udp(&s);
		s.pad = m[i].pad;
		s.total = m[i].total;
		emit(x, &s);
	}
}

/* LLDP, STP and CDP (802.3 + LLC), raw IPX, PPPoE discovery, unknown ethertypes. */
static void gen_odd_l2(struct ctx *x)
{
	/* LLDP: chassis id MAC 02:00:00:00:00:01, port id "p1", TTL 120, end */
	static const __u8 lldp[] = {0x02, 0x07, 0x04, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x04,
				    0x03, 0x07, 'p',  '1',  0x06, 0x02, 0x00, 0x78, 0x00, 0x00};
	/* STP config BPDU: root and bridge 8000.02:00:00:00:00:01, hello 2 s */
	static const __u8 bpdu[38] = {
		0x42,	     0x42,	  0x03,	       [8] = 0x80,  [10] = 0x02,
		[15] = 0x01, [20] = 0x80, [22] = 0x02, [27] = 0x01, [28] = 0x80,
		[29] = 0x01, [32] = 20,	  [34] = 2,    [36] = 15};
	/* SNAP, then CDPv2 with a device-id TLV */
	static const __u8 cdp[] = {0xaa, 0xaa, 0x03, 0x00, 0x00, 0x0c, 0x20, 0x00, 0x02, 180,
				   0x00, 0x00, 0x00, 0x01, 0x00, 0x08, 's',  'w',  '0',	 '1'};
	static const __u8 ipx[] = {0xff, 0xff, 0x00, 0x1e};
	static const __u8 padi[] = {0x11, 0x09, 0, 0, 0, 4, 0x01, 0x01, 0, 0};
	static const struct {
		__u8 l3;
		__u16 etype;
		const __u8 *dmac, *head;
		__u8 headlen, pay, pad;
	} o[] = {
		{L3_RAW, 0x88cc, m_lldp, lldp, sizeof(lldp), 0, 0},
		{L3_RAW, 0x88cc, m_lldp, lldp, sizeof(lldp), 0, 60},
		{L3_LLC, 0, m_stp, bpdu, sizeof(bpdu), 0, 60},
		{L3_LLC, 0, m_cdp, cdp, sizeof(cdp), 0, 0},
		{L3_LLC, 0, m_bcast, ipx, sizeof(ipx), 26, 0},
		{L3_RAW, 0x8863, m_bcast, padi, sizeof(padi), 0, 60},
		{L3_RAW, 0x1234, m_a, NULL, 0, 50, 0},
		{L3_RAW, 0x88b5, m_bcast, NULL, 0, 46, 0},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(o); i++) {
		struct spec s = {.tag = "odd-l2", .l3 = o[i].l3, .etype = o[i].etype};

		pick_macs(x, &s);
		s.dmac = o[i].dmac;
		s.head = o[i].head;
		s.headlen = o[i].headlen;
		s.pay = o[i].pay;
		s.pad = o[i].pad;
		emit(x, &s);
	}
}

/* IP that libpcap reaches only with mpls or pppoes: behind labels, in a PPPoE session. */
static void gen_encap(struct ctx *x)
{
	static const struct {
		__u8 kind, encap;
	} e[] = {
		{K4UDP, ENC_MPLS},  {K4TCP, ENC_MPLS},	{K6TCP, ENC_MPLS},  {K4UDP, ENC_MPLS1},
		{K6UDP, ENC_MPLS1}, {K4TCP, ENC_PPPOE}, {K6UDP, ENC_PPPOE}, {K4ICMP, ENC_PPPOE},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(e); i++) {
		struct spec s = kind_spec(x, e[i].kind, "encap");

		s.encap = e[i].encap;
		s.pay = rnd(x, 60);
		emit(x, &s);
	}
}

/* The rest: random mixes of everything above, to fill the space between the corners. */
static void gen_random(struct ctx *x)
{
	int i;

	for (i = 0; i < RANDOM_FRAMES; i++) {
		struct spec s = kind_spec(x, rnd(x, K6ICMP + 1), "random");

		s.sport = rnd(x, 2) ? port_pool[rnd(x, ARRAY_SIZE(port_pool))] : s.sport;
		s.dport = port_pool[rnd(x, ARRAY_SIZE(port_pool))];
		s.flags = flag_pool[rnd(x, ARRAY_SIZE(flag_pool))];
		s.tcpw = rnd(x, 11);
		s.optw = rnd(x, 4) ? 0 : rnd(x, 11);
		s.type = s.l3 == L3_IP4 ? 8 * rnd(x, 2) : 128 + rnd(x, 2);
		s.pay = rnd(x, 400);
		dress_udp(&s);
		if (!rnd(x, 8)) {
			s.tpid[0] = 0x8100;
			s.tci[0] = rnd(x, 2) ? 100 : 200;
		}
		emit(x, &s);
	}
}

static void (*const generators[])(struct ctx *x) = {
	gen_bare,     gen_tcp_flags, gen_ip4_options, gen_ip4_fragments, gen_udp,
	gen_tcp_apps, gen_icmp4,     gen_ip_other,    gen_ip6_ext,	 gen_icmp6,
	gen_arp,      gen_vlan,	     gen_trunc,	      gen_big,		 gen_small,
	gen_odd_l2,   gen_encap,     gen_random,      gen_runt,
};

int pp_corpus_build(struct pp_corpus *c)
{
	struct ctx x = {.c = c, .rnd = CORPUS_SEED};
	size_t i;

	c->v = NULL;
	c->n = 0;
	for (i = 0; i < ARRAY_SIZE(generators) && !x.err; i++)
		generators[i](&x);
	if (x.err)
		pp_corpus_free(c);
	return x.err;
}

void pp_corpus_free(struct pp_corpus *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		free((char *)c->v[i].desc);
		free(c->v[i].data);
	}
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

int pp_corpus_write_pcap(const struct pp_corpus *c, const char *path)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d;
	int err = 0;
	size_t i;

	if (!p)
		return -ENOMEM;
	errno = 0;
	d = pcap_dump_open(p, path);
	if (!d) {
		err = errno ? -errno : -EIO;
		goto cleanup;
	}
	for (i = 0; i < c->n; i++) {
		struct pcap_pkthdr h = {.ts = {PCAP_TS_SEC, i % 1000000},
					.caplen = c->v[i].len,
					.len = c->v[i].wire_len};

		pcap_dump((u_char *)d, &h, c->v[i].data);
	}
	if (pcap_dump_flush(d))
		err = -EIO;
	pcap_dump_close(d);
cleanup:
	pcap_close(p);
	return err;
}
