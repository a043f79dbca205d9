// SPDX-License-Identifier: GPL-2.0
/*
 * One packet across hosts: its key (loader/paths/pkt_key.c) is the same
 * after forwarding and NAT and differs between packets; the join
 * (loader/report/report_join.c) pairs each host's part of a packet, never
 * two packets of one key at distant times, and flags clocks that disagree.
 */
#include <check.h>
#include <string.h>
#include "paths/pkt_key.h"
#include "report/report_join.h"

/* A frame: Ethernet, IPv4 (ID 0x1234, TTL 64), then L4 bytes. */
static __u32 frame4(__u8 *f, __u8 proto, const __u8 *l4, __u32 l4len)
{
	static const __u8 eth[14] = {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00};
	__u32 tot = 20 + l4len;
	__u8 ip[20] = {0x45,	  0,	(__u8)(tot >> 8),
		       (__u8)tot, 0x12, 0x34,
		       0x40,	  0,	64,
		       proto,	  0xaa, 0xbb,
		       198,	  18,	0,
		       1,	  198,	18,
		       1,	  2};

	memcpy(f, eth, 14);
	memcpy(f + 14, ip, 20);
	memcpy(f + 34, l4, l4len);
	return 34 + l4len;
}

/* What a router and SNAT change: MACs, TTL, checksum, source address and port. */
static void nat(__u8 *f)
{
	f[0] ^= 0xff;
	f[6] ^= 0xff;
	f[14 + 8] = 63;
	f[14 + 10] ^= 0x55;
	f[14 + 12] = 203;
	f[14 + 15] = 9;
	f[34] ^= 0x77; /* the source port (TCP, UDP) */
	f[34 + 1] ^= 0x11;
}

static const __u8 udp[] = {0x30, 0x39, 0x00, 0x35, 0,	16,  0xde, 0xad,
			   'd',	 'g',  'r',  'a',  'm', ' ', '0',  '1'};

START_TEST(test_key_udp_survives_nat)
{
	__u8 a[128], b[128];
	__u32 n = frame4(a, 17, udp, sizeof(udp));
	__u64 k;

	frame4(b, 17, udp, sizeof(udp));
	k = pp_pkt_key(a, n);
	ck_assert_uint_ne(k, 0);
	nat(b);
	b[34 + 6] ^= 0xff; /* NAT rewrites the UDP checksum too */
	ck_assert_uint_eq(pp_pkt_key(b, n), k);
	b[n - 1] = '2'; /* another datagram of the flow */
	ck_assert_uint_ne(pp_pkt_key(b, n), k);
	frame4(b, 17, udp, sizeof(udp));
	b[14 + 5] = 0x35; /* another IP ID */
	ck_assert_uint_ne(pp_pkt_key(b, n), k);
}
END_TEST

START_TEST(test_key_tcp_seq_ack)
{
	__u8 tcp[20] = {0x9c, 0x40, 0, 80, 0, 0, 0, 1, 0, 0, 0, 2, 0x50, 0x10};
	__u8 a[128], b[128];
	__u32 n = frame4(a, 6, tcp, sizeof(tcp));
	__u64 k = pp_pkt_key(a, n);

	frame4(b, 6, tcp, sizeof(tcp));
	nat(b);
	ck_assert_uint_eq(pp_pkt_key(b, n), k);
	b[34 + 7] = 9; /* sequence */
	ck_assert_uint_ne(pp_pkt_key(b, n), k);
	frame4(b, 6, tcp, sizeof(tcp));
	b[34 + 11] = 9; /* acknowledgment */
	ck_assert_uint_ne(pp_pkt_key(b, n), k);
}
END_TEST

START_TEST(test_key_icmp_echo)
{
	__u8 icmp[16] = {8, 0, 0x11, 0x22, 0x04, 0xd2, 0, 1, 'p', 'i', 'n', 'g', 1, 2, 3, 4};
	__u8 a[128], b[128];
	__u32 n = frame4(a, 1, icmp, sizeof(icmp));
	__u64 k = pp_pkt_key(a, n);

	frame4(b, 1, icmp, sizeof(icmp));
	b[34 + 4] = 0x99; /* NAT maps the echo id as a port */
	b[34 + 2] = 0;
	ck_assert_uint_eq(pp_pkt_key(b, n), k);
	b[34 + 7] = 2; /* the next echo */
	ck_assert_uint_ne(pp_pkt_key(b, n), k);
}
END_TEST

/* Padding past the IP length, and an 802.1Q tag in the frame, change nothing. */
START_TEST(test_key_padding_vlan)
{
	__u8 a[128], b[128] = {0};
	__u32 n = frame4(a, 17, udp, sizeof(udp));
	__u64 k = pp_pkt_key(a, n);

	memcpy(b, a, n);
	memset(b + n, 0x5a, 10);
	ck_assert_uint_eq(pp_pkt_key(b, n + 10), k);
	memcpy(b, a, 12);
	b[12] = 0x81;
	b[13] = 0;
	b[14] = 0;
	b[15] = 42;
	memcpy(b + 16, a + 12, n - 12);
	ck_assert_uint_eq(pp_pkt_key(b, n + 4), k);
}
END_TEST

START_TEST(test_key_none)
{
	__u8 a[128];
	__u32 n = frame4(a, 17, udp, sizeof(udp));

	ck_assert_uint_eq(pp_pkt_key(a, 10), 0);
	ck_assert_uint_eq(pp_pkt_key(a, 20), 0); /* half an IP header */
	a[12] = 0x08;
	a[13] = 0x06; /* ARP */
	ck_assert_uint_eq(pp_pkt_key(a, n), 0);
}
END_TEST

START_TEST(test_key_ipv6_udp)
{
	__u8 f[128] = {2, 0,	0,    0,    0,	  1,	2,    0, 0,  0,	 0,
		       2, 0x86, 0xdd, 0x60, 0x0a, 0xbc, 0xde, 0, 16, 17, 64};
	__u8 g[128];
	__u64 k;

	f[22] = 0xfd; /* source fd00::1 */
	f[37] = 1;
	f[38] = 0xfd;
	f[53] = 2;
	memcpy(f + 54, udp, sizeof(udp));
	k = pp_pkt_key(f, 54 + sizeof(udp));
	ck_assert_uint_ne(k, 0);
	memcpy(g, f, sizeof(f));
	g[21] = 63;    /* hop limit */
	g[37] = 7;     /* NPTv6, NAT66: the source */
	g[54] ^= 0xff; /* and its port */
	ck_assert_uint_eq(pp_pkt_key(g, 54 + sizeof(udp)), k);
	g[54 + 15] = 'x';
	ck_assert_uint_ne(pp_pkt_key(g, 54 + sizeof(udp)), k);
}
END_TEST

/*
 * OUTER: the headers a tunnel puts before the bare frame A's (from its IP
 * header on for IP-in-IP and GRE carrying IPv4: SKIP 14), as a 128-byte mark holds them.
 */
static __u32 encap(__u8 *f, const __u8 *outer, __u32 olen, const __u8 *a, __u32 n, __u32 skip)
{
	__u32 len = olen + n - skip;

	memcpy(f, outer, olen);
	memcpy(f + olen, a + skip, n - skip);
	return len < 128 ? len : 128;
}

/* IPv4 from 192.168.50.1 to .2, PROTO, ID 0x0101, its total length from byte 14 on. */
static void outer4(__u8 *o, __u8 proto, __u32 tot)
{
	static const __u8 h[34] = {2,	 0,    0,    0,	  0,  3, 2,   0,   0,  0, 0,  4,
				   0x08, 0x00, 0x45, 0,	  0,  0, 1,   1,   0,  0, 64, 0,
				   0,	 0,    192,  168, 50, 1, 192, 168, 50, 2};

	memcpy(o, h, sizeof(h));
	o[16] = (__u8)(tot >> 8);
	o[17] = (__u8)tot;
	o[23] = proto;
}

/*
 * One host marks the pod's packet bare, the next inside a tunnel's headers:
 * the same key, from the inner packet, whatever the outer headers hold; none
 * where the mark ends inside the inner packet's key fields.
 */
START_TEST(test_key_tunnel_inner)
{
	__u8 dgram[8 + 40] = {0x30, 0x39, 0x00, 0x35, 0, 48};
	__u8 a[128], f[256], o[80] = {0};
	__u32 n, m;
	__u64 k;

	memcpy(dgram + 8, "datagram 0001 of the tunnel key test, 40b", 40);
	n = frame4(a, 17, dgram, sizeof(dgram));
	k = pp_pkt_key(a, n);
	/* VXLAN on flannel's port 8472, VNI 42, over IPv4 */
	outer4(o, 17, 20 + 8 + 8 + n);
	o[34] = 0x9c; /* the source port: the sender's flow hash */
	o[35] = 0x41;
	o[36] = 0x21;
	o[37] = 0x18;
	o[42] = 0x08;
	o[48] = 42;
	m = encap(f, o, 50, a, n, 0);
	ck_assert_uint_eq(pp_pkt_key(f, m), k);
	f[18] = 7; /* another outer IPv4 ID, UDP source port */
	f[35] = 7;
	ck_assert_uint_eq(pp_pkt_key(f, m), k);
	f[50 + 14 + 5] ^= 1; /* another inner IPv4 ID: another packet */
	ck_assert_uint_ne(pp_pkt_key(f, m), k);
	/* IP-in-IP */
	outer4(o, 4, 20 + n - 14);
	m = encap(f, o, 34, a, n, 14);
	ck_assert_uint_eq(pp_pkt_key(f, m), k);
	/* GRE with a key, carrying IPv4 */
	memset(o, 0, sizeof(o));
	outer4(o, 47, 20 + 8 + n - 14);
	o[34] = 0x20;
	o[36] = 0x08;
	o[41] = 42;
	m = encap(f, o, 42, a, n, 14);
	ck_assert_uint_eq(pp_pkt_key(f, m), k);
	/* VXLAN over IPv6: 70 bytes of outer headers leave 16 of the payload */
	memset(o, 0, sizeof(o));
	o[12] = 0x86;
	o[13] = 0xdd;
	o[14] = 0x60;
	o[19] = (__u8)(8 + 8 + n);
	o[20] = 17;
	o[56] = 0x21;
	o[57] = 0x18;
	o[62] = 0x08;
	m = encap(f, o, 70, a, n, 0);
	ck_assert_uint_eq(m, 128);
	ck_assert_uint_eq(pp_pkt_key(f, m), 0);
}
END_TEST

#define MS 1000000ULL
#define S  1000000000ULL

static struct pp_jpart part(__u64 key, __u32 host, __u64 start, __u64 len, size_t src)
{
	return (struct pp_jpart){
		.key = key, .host = host, .start_ns = start, .end_ns = start + len, .src = src};
}

/* The parts with SRC A and B are one joined packet, of those two alone. */
static void expect_pair(const struct pp_jpart *p, size_t n, size_t a, size_t b)
{
	size_t ia = n, ib = n, count = 0;

	for (size_t i = 0; i < n; i++) {
		if (p[i].src == a)
			ia = i;
		if (p[i].src == b)
			ib = i;
	}
	ck_assert_uint_lt(ia, n);
	ck_assert_uint_lt(ib, n);
	ck_assert_uint_eq(p[ia].chain, p[ib].chain);
	for (size_t i = 0; i < n; i++)
		count += p[i].chain == p[ia].chain;
	ck_assert_uint_eq(count, 2);
	ck_assert_uint_lt(p[ia].start_ns <= p[ib].start_ns ? ia : ib,
			  p[ia].start_ns <= p[ib].start_ns ? ib : ia); /* time order */
}

START_TEST(test_join_pairs)
{
	struct pp_jpart p[6] = {
		part(3, 1, 2 * MS + 50000, 20000, 0),
		part(1, 0, 0, 30000, 1),
		part(2, 0, MS, 30000, 2),
		part(1, 1, 40000, 20000, 3),
		part(3, 0, 2 * MS, 30000, 4),
		part(2, 1, MS + 40000, 20000, 5),
	};

	ck_assert_int_eq(pp_join(p, 6, S), 3);
	expect_pair(p, 6, 1, 3);
	expect_pair(p, 6, 2, 5);
	expect_pair(p, 6, 4, 0);
	for (size_t i = 0; i < 6; i += 2) {
		enum pp_skew_by by;
		size_t at = 0;

		ck_assert_uint_eq(pp_join_skew(p + i, 2, 0, &at, &by), 0);
	}
}
END_TEST

/* One key at distant times (a retransmission, a datagram of the same bytes): two packets. */
START_TEST(test_join_collision_distant)
{
	struct pp_jpart p[4] = {
		part(7, 0, 0, 30000, 0),
		part(7, 1, 40000, 20000, 1),
		part(7, 0, 10 * S, 30000, 2),
		part(7, 1, 10 * S + 40000, 20000, 3),
	};

	ck_assert_int_eq(pp_join(p, 4, S), 2);
	expect_pair(p, 4, 0, 1);
	expect_pair(p, 4, 2, 3);
}
END_TEST

/*
 * One key, close in time, one host's first part missing (dropped on the
 * way): the later part joins the later packet, and the first stays alone.
 */
START_TEST(test_join_collision_missing)
{
	struct pp_jpart p[3] = {
		part(7, 0, 0, 30000, 0),
		part(7, 0, 100 * MS, 30000, 1),
		part(7, 1, 100 * MS + 40000, 20000, 2),
	};

	ck_assert_int_eq(pp_join(p, 3, S), 2);
	expect_pair(p, 3, 1, 2);
}
END_TEST

/* Two parts of one host never join: that host saw two packets. */
START_TEST(test_join_same_host)
{
	struct pp_jpart p[2] = {part(7, 0, 0, 30000, 0), part(7, 0, 50000, 30000, 1)};

	ck_assert_int_eq(pp_join(p, 2, S), 2);
	ck_assert_uint_ne(p[0].chain, p[1].chain);
}
END_TEST

/* Host 1's part starts 50 us before host 0's ends: one clock is off. */
START_TEST(test_join_skew)
{
	struct pp_jpart p[2] = {part(7, 0, 0, 100000, 0), part(7, 1, 50000, 20000, 1)};
	enum pp_skew_by by = PP_SKEW_ORDER;
	size_t at = 0;

	ck_assert_int_eq(pp_join(p, 2, S), 1);
	ck_assert_uint_eq(pp_join_skew(p, 2, 10000, &at, &by), 50000);
	ck_assert_uint_eq(at, 1);
	ck_assert_int_eq(by, PP_SKEW_OVERLAP);
	ck_assert_uint_eq(pp_join_skew(p, 2, 60000, &at, &by), 0);
}
END_TEST

/*
 * Two scoped runs on one kernel: host 1's part left into host 0's
 * namespace, so it came first, though its clock puts it 10 ms later. On
 * two kernels (boot ids differ) inodes say nothing: not flagged.
 */
START_TEST(test_join_skew_order)
{
	struct pp_jpart p[2] = {part(7, 0, 0, 100000, 0), part(7, 1, 10 * MS, 20000, 1)};
	enum pp_skew_by by = PP_SKEW_OVERLAP;
	size_t at = 0;

	p[0].netns = 4026532179;
	p[1].netns = 4026532521;
	p[1].left_to = 4026532179;
	p[0].boot = p[1].boot = 42;
	ck_assert_int_eq(pp_join(p, 2, S), 1);
	ck_assert_uint_eq(pp_join_skew(p, 2, MS, &at, &by), 10 * MS + 20000);
	ck_assert_uint_eq(at, 1);
	ck_assert_int_eq(by, PP_SKEW_ORDER);
	p[1].boot = 43;
	ck_assert_uint_eq(pp_join_skew(p, 2, MS, &at, &by), 0);
}
END_TEST

Suite *hostjoin_suite(void)
{
	Suite *s = suite_create("hostjoin");
	TCase *key = tcase_create("key"), *join = tcase_create("join");

	tcase_add_test(key, test_key_udp_survives_nat);
	tcase_add_test(key, test_key_tcp_seq_ack);
	tcase_add_test(key, test_key_icmp_echo);
	tcase_add_test(key, test_key_padding_vlan);
	tcase_add_test(key, test_key_none);
	tcase_add_test(key, test_key_ipv6_udp);
	tcase_add_test(key, test_key_tunnel_inner);
	suite_add_tcase(s, key);
	tcase_add_test(join, test_join_pairs);
	tcase_add_test(join, test_join_collision_distant);
	tcase_add_test(join, test_join_collision_missing);
	tcase_add_test(join, test_join_same_host);
	tcase_add_test(join, test_join_skew);
	tcase_add_test(join, test_join_skew_order);
	suite_add_tcase(s, join);
	return s;
}
