// SPDX-License-Identifier: GPL-2.0
/* The mark-bytes decoder and its one-line format, on hand-built frames. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "paths/pkt_decode.h"
#include "suites.h"

struct frame {
	__u8 b[256];
	__u32 n;
};

static void put8(struct frame *f, __u8 v)
{
	ck_assert_uint_lt(f->n, sizeof(f->b));
	f->b[f->n++] = v;
}

static void put16(struct frame *f, __u16 v)
{
	put8(f, v >> 8);
	put8(f, v & 0xff);
}

static void put32(struct frame *f, __u32 v)
{
	put16(f, v >> 16);
	put16(f, v & 0xffff);
}

static void eth(struct frame *f, __u16 type)
{
	static const __u8 macs[12] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1};

	memset(f, 0, sizeof(*f));
	memcpy(f->b, macs, sizeof(macs));
	f->n = sizeof(macs);
	put16(f, type);
}

static void vlan(struct frame *f, __u16 id, __u16 type)
{
	put16(f, 0xe000 | id); /* priority 7: the id is only the low 12 bits */
	put16(f, type);
}

/* 198.18.0.1 > 198.18.1.2, ip id 4242, optwords NOP words of options. */
static void ip4(struct frame *f, __u8 proto, __u16 paylen, __u8 optwords, __u16 frag)
{
	__u8 ihl = 5 + optwords, i;

	put8(f, 0x40 | ihl);
	put8(f, 0);
	put16(f, ihl * 4 + paylen);
	put16(f, 4242);
	put16(f, frag);
	put8(f, 64);
	put8(f, proto);
	put16(f, 0);
	put32(f, 0xc6120001);
	put32(f, 0xc6120102);
	for (i = 0; i < optwords; i++)
		put32(f, 0x01010101);
}

/* fd00::1 > fd00::2 */
static void ip6(struct frame *f, __u8 nh, __u16 plen)
{
	int i;

	put32(f, 0x60000000);
	put16(f, plen);
	put8(f, nh);
	put8(f, 64);
	for (i = 0; i < 2; i++) {
		put32(f, 0xfd000000);
		put32(f, 0);
		put32(f, 0);
		put32(f, 1 + i);
	}
}

/* An 8n-byte extension header, padded with zeroes. */
static void ext6(struct frame *f, __u8 nh, __u8 units)
{
	int i;

	put8(f, nh);
	put8(f, units);
	for (i = 2; i < (units + 1) * 8; i++)
		put8(f, 0);
}

static void tcp(struct frame *f, __u16 sport, __u16 dport, __u8 flags)
{
	put16(f, sport);
	put16(f, dport);
	put32(f, 1);
	put32(f, 0);
	put8(f, 0x50);
	put8(f, flags);
	put16(f, 65535);
	put32(f, 0);
}

static void udp(struct frame *f, __u16 sport, __u16 dport)
{
	put16(f, sport);
	put16(f, dport);
	put16(f, 8);
	put16(f, 0);
}

static void icmp(struct frame *f, __u8 type, __u8 code, __u16 id, __u16 seq)
{
	put8(f, type);
	put8(f, code);
	put16(f, 0);
	put16(f, id);
	put16(f, seq);
}

/*
 * Decodes the first cap bytes from a buffer of exactly that size, so a
 * sanitizer catches any read past it, and returns the formatted line.
 */
static const char *line_of(const struct frame *f, __u32 cap, struct pp_pkt_summary *s)
{
	static char line[160];
	__u8 *copy = malloc(cap ? cap : 1);

	memcpy(copy, f->b, cap);
	ck_assert_int_eq(pp_pkt_decode(copy, cap, s), 0);
	free(copy);
	ck_assert_uint_lt(pp_pkt_format(s, line, sizeof(line)), sizeof(line));
	return line;
}

static const char *line(const struct frame *f, struct pp_pkt_summary *s)
{
	return line_of(f, f->n, s);
}

START_TEST(test_icmp_echo)
{
	struct pp_pkt_summary s;
	struct frame f;

	eth(&f, 0x0800);
	ip4(&f, 1, 8, 0, 0x4000); /* DF only: not a fragment */
	icmp(&f, 8, 0, 4242, 1);
	ck_assert_str_eq(line(&f, &s), "icmp 198.18.0.1 > 198.18.1.2 echo request id 4242 seq 1");
	ck_assert_str_eq(s.proto, "icmp");
	ck_assert(s.has_icmp && s.has_echo && !s.has_ports && !s.is_frag && !s.trunc);
	ck_assert_uint_eq(s.icmp_id, 4242);
	ck_assert_uint_eq(s.ip_ver, 4);
}
END_TEST

START_TEST(test_icmp_other)
{
	struct pp_pkt_summary s;
	struct frame f;

	eth(&f, 0x0800);
	ip4(&f, 1, 8, 0, 0);
	icmp(&f, 3, 3, 0, 0);
	ck_assert_str_eq(line(&f, &s), "icmp 198.18.0.1 > 198.18.1.2 unreachable code 3");
	ck_assert(!s.has_echo);
	eth(&f, 0x0800);
	ip4(&f, 1, 8, 0, 0);
	icmp(&f, 42, 1, 0, 0);
	ck_assert_str_eq(line(&f, &s), "icmp 198.18.0.1 > 198.18.1.2 type 42 code 1");
}
END_TEST

START_TEST(test_tcp_flags)
{
	struct pp_pkt_summary s;
	struct frame f;
	char buf[9];

	eth(&f, 0x0800);
	ip4(&f, 6, 20, 0, 0);
	tcp(&f, 41000, 80, PP_TCP_SYN | PP_TCP_ACK);
	ck_assert_str_eq(line(&f, &s),
			 "tcp 198.18.0.1.41000 > 198.18.1.2.80 [S.] seq 1 ack 0 len 0");
	ck_assert(s.has_tcp && s.has_ports);
	ck_assert_uint_eq(s.sport, 41000);
	ck_assert_str_eq(pp_tcp_flags_str(0xff, buf), "FSRP.UEW");
	ck_assert_str_eq(pp_tcp_flags_str(PP_TCP_FIN | PP_TCP_PSH | PP_TCP_ACK, buf), "FP.");
	ck_assert_str_eq(pp_tcp_flags_str(0, buf), "none");
}
END_TEST

/*
 * A data segment: the numbers that tell a retransmission from new data, and
 * the payload's length from the IP header, which the capture (the mark's
 * first bytes) does not reach. No length without one (BIG TCP's zero).
 */
START_TEST(test_tcp_numbers)
{
	struct pp_pkt_summary s;
	struct frame f;

	eth(&f, 0x0800);
	ip4(&f, 6, 32 + 1448, 0, 0x4000);
	put16(&f, 41000);
	put16(&f, 5201);
	put32(&f, 3511637291u);
	put32(&f, 2811);
	put8(&f, 0x80); /* 32 bytes: timestamps */
	put8(&f, PP_TCP_PSH | PP_TCP_ACK);
	put16(&f, 502);
	put32(&f, 0);
	ck_assert_str_eq(line(&f, &s), "tcp 198.18.0.1.41000 > 198.18.1.2.5201 [P.] seq 3511637291 "
				       "ack 2811 len 1448");
	ck_assert(s.has_tcp_len && !s.trunc);
	ck_assert_uint_eq(s.tcp_seq, 3511637291u);
	ck_assert_uint_eq(s.tcp_ack, 2811);
	ck_assert_uint_eq(s.tcp_len, 1448);
	f.b[14 + 2] = f.b[14 + 3] = 0;
	ck_assert_str_eq(line(&f, &s),
			 "tcp 198.18.0.1.41000 > 198.18.1.2.5201 [P.] seq 3511637291 ack 2811");
	ck_assert(!s.has_tcp_len);
	eth(&f, 0x0800);
	ip4(&f, 6, 1480, 0, 0x2000); /* a first fragment: MF, offset 0 */
	tcp(&f, 1, 2, PP_TCP_ACK);
	ck_assert_str_eq(line(&f, &s),
			 "tcp 198.18.0.1.1 > 198.18.1.2.2 [.] seq 1 ack 0 frag id 4242 off 0+");
	eth(&f, 0x86dd);
	ip6(&f, 6, 20 + 10);
	tcp(&f, 1, 2, PP_TCP_FIN);
	ck_assert_str_eq(line(&f, &s), "tcp [fd00::1].1 > [fd00::2].2 [F] seq 1 len 10");
}
END_TEST

START_TEST(test_ipv4_options)
{
	struct pp_pkt_summary s;
	struct frame f;

	eth(&f, 0x0800);
	ip4(&f, 17, 8, 3, 0);
	udp(&f, 5353, 53);
	ck_assert_str_eq(line(&f, &s), "udp 198.18.0.1.5353 > 198.18.1.2.53");
}
END_TEST

START_TEST(test_ipv4_fragments)
{
	struct pp_pkt_summary s;
	struct frame f;

	eth(&f, 0x0800);
	ip4(&f, 17, 8, 0, 0x2000); /* MF, offset 0: the first fragment has ports */
	udp(&f, 5353, 53);
	ck_assert_str_eq(line(&f, &s), "udp 198.18.0.1.5353 > 198.18.1.2.53 frag id 4242 off 0+");
	eth(&f, 0x0800);
	ip4(&f, 17, 8, 0, 1480 / 8); /* the last one: payload, no header */
	udp(&f, 1, 2);
	ck_assert_str_eq(line(&f, &s), "udp 198.18.0.1 > 198.18.1.2 frag id 4242 off 1480");
	ck_assert(!s.has_ports && s.is_frag && !s.more_frags);
	ck_assert_uint_eq(s.frag_off, 1480);
}
END_TEST

START_TEST(test_ipv4_other_proto)
{
	struct pp_pkt_summary s;
	struct frame f;

	eth(&f, 0x0800);
	ip4(&f, 47, 4, 0, 0);
	put32(&f, 0);
	ck_assert_str_eq(line(&f, &s), "ipv4 198.18.0.1 > 198.18.1.2 proto 47");
}
END_TEST

/* Ethernet pads short frames; the padding is not the UDP header's rest. */
START_TEST(test_ipv4_padding)
{
	struct pp_pkt_summary s;
	struct frame f;
	int i;

	eth(&f, 0x0800);
	ip4(&f, 17, 4, 0, 0);
	put16(&f, 5353);
	put16(&f, 53);
	for (i = 0; i < 22; i++)
		put8(&f, 0);
	ck_assert_str_eq(line(&f, &s), "udp 198.18.0.1.5353 > 198.18.1.2.53 [|udp]");
}
END_TEST

START_TEST(test_udp6)
{
	struct pp_pkt_summary s;
	struct frame f;

	eth(&f, 0x86dd);
	ip6(&f, 17, 8);
	udp(&f, 5353, 53);
	ck_assert_str_eq(line(&f, &s), "udp [fd00::1].5353 > [fd00::2].53");
	ck_assert_str_eq(s.src, "fd00::1");
	ck_assert_uint_eq(s.ip_ver, 6);
}
END_TEST

START_TEST(test_ipv6_ext_headers)
{
	struct pp_pkt_summary s;
	struct frame f;

	eth(&f, 0x86dd);
	ip6(&f, 0, 8 + 24 + 8 + 8);
	ext6(&f, 43, 0); /* hop-by-hop -> routing */
	ext6(&f, 60, 2); /* routing, 24 bytes -> destination options */
	ext6(&f, 58, 0); /* destination options -> ICMPv6 */
	icmp(&f, 128, 0, 7, 3);
	ck_assert_str_eq(line(&f, &s), "icmp6 fd00::1 > fd00::2 echo request id 7 seq 3");
	ck_assert_uint_eq(s.ip_proto, 58);
}
END_TEST

START_TEST(test_ipv6_fragments)
{
	struct pp_pkt_summary s;
	struct frame f;

	eth(&f, 0x86dd);
	ip6(&f, 44, 16);
	put8(&f, 17); /* fragment header: first, more follow, id 99 */
	put8(&f, 0);
	put16(&f, 0x0001);
	put32(&f, 99);
	udp(&f, 5353, 53);
	ck_assert_str_eq(line(&f, &s), "udp [fd00::1].5353 > [fd00::2].53 frag id 99 off 0+");
	eth(&f, 0x86dd);
	ip6(&f, 44, 16);
	put8(&f, 60); /* a later fragment: what follows is payload, not headers */
	put8(&f, 0);
	put16(&f, 1448);
	put32(&f, 99);
	udp(&f, 1, 2);
	ck_assert_str_eq(line(&f, &s), "ipv6 fd00::1 > fd00::2 proto 60 frag id 99 off 1448");
}
END_TEST

START_TEST(test_icmp6_nd)
{
	struct pp_pkt_summary s;
	struct frame f;

	eth(&f, 0x86dd);
	ip6(&f, 58, 24);
	icmp(&f, 135, 0, 0, 0);
	put32(&f, 0xfd000000);
	put32(&f, 0);
	put32(&f, 0);
	put32(&f, 2);
	ck_assert_str_eq(line(&f, &s), "icmp6 fd00::1 > fd00::2 neighbor solicitation");
	ck_assert(s.has_icmp && !s.has_echo);
}
END_TEST

START_TEST(test_vlan)
{
	struct pp_pkt_summary s;
	struct frame f;

	eth(&f, 0x8100);
	vlan(&f, 100, 0x0800);
	ip4(&f, 1, 8, 0, 0);
	icmp(&f, 0, 0, 1, 2);
	ck_assert_str_eq(line(&f, &s),
			 "icmp 198.18.0.1 > 198.18.1.2 echo reply id 1 seq 2 vlan 100");
	ck_assert_uint_eq(s.nvlan, 1);
	eth(&f, 0x88a8);
	vlan(&f, 10, 0x8100);
	vlan(&f, 20, 0x0800);
	ip4(&f, 6, 20, 0, 0);
	tcp(&f, 1, 2, PP_TCP_RST);
	ck_assert_str_eq(line(&f, &s),
			 "tcp 198.18.0.1.1 > 198.18.1.2.2 [R] seq 1 len 0 vlan 10,20");
	ck_assert_uint_eq(s.vlan, 10);
	ck_assert_uint_eq(s.vlan_inner, 20);
	ck_assert_uint_eq(s.ethertype, 0x0800);
}
END_TEST

/* A received QinQ frame: the outer tag in metadata, the inner one in the bytes. */
START_TEST(test_vlan_in_metadata)
{
	struct pp_pkt_summary s;
	struct pp_mark m = {.vlan = 0x88a8u << 16 | 0x2000 | 10};
	struct frame f;

	eth(&f, 0x8100);
	vlan(&f, 20, 0x0800);
	ip4(&f, 1, 8, 0, 0);
	icmp(&f, 8, 0, 1, 2);
	memcpy(m.data, f.b, f.n);
	m.cap_len = f.n;
	pp_mark_put_tag(&m);
	ck_assert_uint_eq(m.cap_len, f.n + 4);
	ck_assert_int_eq(pp_pkt_decode(m.data, m.cap_len, &s), 0);
	ck_assert_uint_eq(s.nvlan, 2);
	ck_assert_uint_eq(s.vlan, 10);
	ck_assert_uint_eq(s.vlan_inner, 20);
	ck_assert_int_eq(memcmp(m.data + 16, f.b + 12, f.n - 12), 0);
	/* a full data[]: its last 4 bytes make room */
	m.cap_len = PP_HDR_BYTES;
	pp_mark_put_tag(&m);
	ck_assert_uint_eq(m.cap_len, PP_HDR_BYTES);
	ck_assert_uint_eq(m.data[12], 0x88);
	/* no tag in metadata: nothing moves */
	m.vlan = 0;
	m.cap_len = 20;
	pp_mark_put_tag(&m);
	ck_assert_uint_eq(m.cap_len, 20);
}
END_TEST

static void arp(struct frame *f, __u16 op)
{
	eth(f, 0x0806);
	put16(f, 1);
	put16(f, 0x0800);
	put8(f, 6);
	put8(f, 4);
	put16(f, op);
	put16(f, 0x0200); /* sender 02:00:00:00:00:02, 198.18.1.2 */
	put32(f, 2);
	put32(f, 0xc6120102);
	put16(f, 0); /* target 00:.., 198.18.0.1 */
	put32(f, 0);
	put32(f, 0xc6120001);
}

START_TEST(test_arp)
{
	struct pp_pkt_summary s;
	struct frame f;

	arp(&f, 1);
	ck_assert_str_eq(line(&f, &s), "arp who-has 198.18.0.1 tell 198.18.1.2");
	arp(&f, 2);
	ck_assert_str_eq(line(&f, &s), "arp reply 198.18.1.2 is-at 02:00:00:00:00:02");
	ck_assert_str_eq(line_of(&f, 14 + 10, &s), "arp op 2 [|arp]");
}
END_TEST

START_TEST(test_other_ethertype)
{
	struct pp_pkt_summary s;
	struct frame f;

	eth(&f, 0x88cc);
	put32(&f, 0);
	ck_assert_str_eq(line(&f, &s), "0x88cc");
	ck_assert_str_eq(s.proto, "0x88cc");
}
END_TEST

START_TEST(test_truncated)
{
	struct pp_pkt_summary s;
	struct frame f;

	eth(&f, 0x0800);
	ip4(&f, 6, 20, 0, 0);
	tcp(&f, 41000, 80, PP_TCP_SYN);
	ck_assert_str_eq(line_of(&f, 10, &s), "eth [|eth]");
	ck_assert_str_eq(line_of(&f, 14 + 19, &s), "ipv4 [|ip]");
	ck_assert_str_eq(line_of(&f, 14 + 20, &s), "tcp 198.18.0.1 > 198.18.1.2 [|tcp]");
	ck_assert_str_eq(line_of(&f, 14 + 24, &s), "tcp 198.18.0.1.41000 > 198.18.1.2.80 [|tcp]");
	ck_assert_str_eq(line_of(&f, 14 + 34, &s),
			 "tcp 198.18.0.1.41000 > 198.18.1.2.80 [S] seq 1 len 0 [|tcp]");
	eth(&f, 0x8100);
	vlan(&f, 5, 0x86dd);
	ck_assert_str_eq(line_of(&f, 16, &s), "0x8100 [|vlan]");
	ck_assert_str_eq(line_of(&f, 18, &s), "ipv6 vlan 5 [|ip6]");
}
END_TEST

/* Every prefix of every frame: decode what is there, never past cap_len. */
START_TEST(test_every_prefix)
{
	struct pp_pkt_summary s;
	struct frame f[4];
	__u32 i, cap;

	eth(&f[0], 0x86dd);
	ip6(&f[0], 0, 8 + 8 + 20);
	ext6(&f[0], 44, 0);
	put8(&f[0], 6);
	put8(&f[0], 0);
	put16(&f[0], 1);
	put32(&f[0], 1);
	tcp(&f[0], 1, 2, 3);
	eth(&f[1], 0x88a8);
	vlan(&f[1], 1, 0x8100);
	vlan(&f[1], 2, 0x0800);
	ip4(&f[1], 1, 8, 2, 0);
	icmp(&f[1], 8, 0, 1, 1);
	arp(&f[2], 1);
	eth(&f[3], 0x86dd);
	ip6(&f[3], 51, 8 + 8);
	ext6(&f[3], 17, 0); /* AH, (0 + 2) * 4 = 8 bytes */
	udp(&f[3], 7, 9);
	ck_assert_str_eq(line(&f[3], &s), "udp [fd00::1].7 > [fd00::2].9");
	for (i = 0; i < 4; i++)
		for (cap = 0; cap <= f[i].n; cap++)
			line_of(&f[i], cap, &s);
}
END_TEST

/* Garbage of every length: no crash, always a NUL-terminated line. */
START_TEST(test_random_bytes)
{
	struct pp_pkt_summary s;
	struct frame f;
	int i, j;

	srand(42);
	for (i = 0; i < 20000; i++) {
		eth(&f, (i & 3) == 0 ? 0x0800 : (i & 3) == 1 ? 0x86dd : 0x8100);
		for (j = 0; j < 100; j++)
			put8(&f, rand() & 0xff);
		if (i & 4)
			f.b[14] = (i & 1) ? 0x45 : 0x60;
		line_of(&f, rand() % (f.n + 1), &s);
	}
}
END_TEST

START_TEST(test_format_small_buffer)
{
	struct pp_pkt_summary s;
	struct frame f;
	char buf[8];

	eth(&f, 0x0800);
	ip4(&f, 1, 8, 0, 0);
	icmp(&f, 8, 0, 4242, 1);
	line(&f, &s);
	ck_assert_uint_eq(pp_pkt_format(&s, buf, sizeof(buf)), 55);
	ck_assert_str_eq(buf, "icmp 19");
	ck_assert_uint_eq(pp_pkt_format(&s, NULL, 0), 55);
	ck_assert_int_eq(pp_pkt_decode(NULL, 0, &s), -EINVAL);
	ck_assert_int_eq(pp_pkt_decode(f.b, 0, NULL), -EINVAL);
}
END_TEST

Suite *decode_suite(void)
{
	Suite *s = suite_create("decode");
	TCase *tc = tcase_create("frames");

	tcase_add_test(tc, test_icmp_echo);
	tcase_add_test(tc, test_icmp_other);
	tcase_add_test(tc, test_tcp_flags);
	tcase_add_test(tc, test_tcp_numbers);
	tcase_add_test(tc, test_ipv4_options);
	tcase_add_test(tc, test_ipv4_fragments);
	tcase_add_test(tc, test_ipv4_other_proto);
	tcase_add_test(tc, test_ipv4_padding);
	tcase_add_test(tc, test_udp6);
	tcase_add_test(tc, test_ipv6_ext_headers);
	tcase_add_test(tc, test_ipv6_fragments);
	tcase_add_test(tc, test_icmp6_nd);
	tcase_add_test(tc, test_vlan);
	tcase_add_test(tc, test_vlan_in_metadata);
	tcase_add_test(tc, test_arp);
	tcase_add_test(tc, test_other_ethertype);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_every_prefix);
	tcase_add_test(tc, test_random_bytes);
	tcase_add_test(tc, test_format_small_buffer);
	suite_add_tcase(s, tc);
	return s;
}
