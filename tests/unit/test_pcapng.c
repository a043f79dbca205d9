// SPDX-License-Identifier: GPL-2.0
/*
 * loader/output/pcapng.c: blocks byte for byte (lengths, padding, options), and
 * loader/output/export_pcapng.c: the blocks a packet turns into.
 */
#include <check.h>
#include <errno.h>
#include <unistd.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/export_pcapng.h"
#include "output/pcapng.h"
#include "output/exports.h"
#include "suites.h"

static __u32 u32_at(const __u8 *b, size_t off)
{
	__u32 v;

	memcpy(&v, b + off, 4);
	return v;
}

static __u16 u16_at(const __u8 *b, size_t off)
{
	__u16 v;

	memcpy(&v, b + off, 2);
	return v;
}

/* Every block: 32-bit multiple, its length at both ends. */
static void expect_frame(const __u8 *b, size_t n, __u32 type)
{
	ck_assert_uint_eq(n % 4, 0);
	ck_assert_uint_eq(u32_at(b, 0), type);
	ck_assert_uint_eq(u32_at(b, 4), n);
	ck_assert_uint_eq(u32_at(b, n - 4), n);
}

/* The option at OFF: CODE, LEN, value VAL, zeros to the boundary; returns the next offset. */
static size_t expect_opt(const __u8 *b, size_t off, __u16 code, const void *val, __u16 len)
{
	size_t padded = (len + 3u) & ~3u;

	ck_assert_uint_eq(u16_at(b, off), code);
	ck_assert_msg(u16_at(b, off + 2) == len, "option %u: length %u, not %u: \"%.*s\"", code,
		      u16_at(b, off + 2), len, (int)u16_at(b, off + 2), (const char *)b + off + 4);
	ck_assert_int_eq(memcmp(b + off + 4, val, len), 0);
	for (size_t i = len; i < padded; i++)
		ck_assert_uint_eq(b[off + 4 + i], 0);
	return off + 4 + padded;
}

START_TEST(test_shb)
{
	__u8 b[128];
	size_t n = pp_pcapng_shb(b, sizeof(b), "pktpath 1.0"); /* 11 bytes: 1 of padding */
	size_t off;

	/* 8 head + 16 fixed + (4 + 12) userappl + 4 end + 4 tail */
	ck_assert_uint_eq(n, 48);
	expect_frame(b, n, PP_PCAPNG_SHB);
	ck_assert_uint_eq(u32_at(b, 8), 0x1A2B3C4D);
	ck_assert_uint_eq(u16_at(b, 12), 1);
	ck_assert_uint_eq(u16_at(b, 14), 0);
	ck_assert_uint_eq(u32_at(b, 16), 0xffffffff);
	ck_assert_uint_eq(u32_at(b, 20), 0xffffffff);
	off = expect_opt(b, 24, PP_PCAPNG_SHB_USERAPPL, "pktpath 1.0", 11);
	off = expect_opt(b, off, PP_PCAPNG_OPT_END, "", 0);
	ck_assert_uint_eq(off, n - 4);
	/* No options: no opt_endofopt either. */
	ck_assert_uint_eq(pp_pcapng_shb(b, sizeof(b), NULL), 28);
	expect_frame(b, 28, PP_PCAPNG_SHB);
}
END_TEST

START_TEST(test_idb)
{
	__u8 b[128], nine = 9;
	size_t n = pp_pcapng_idb(b, sizeof(b), 1, 128, "eth0", "netns 1");
	size_t off;

	/* 8 + 8 + (4 + 4) name + (4 + 8) descr + (4 + 4) tsresol + 4 end + 4 */
	ck_assert_uint_eq(n, 52);
	expect_frame(b, n, PP_PCAPNG_IDB);
	ck_assert_uint_eq(u16_at(b, 8), 1);
	ck_assert_uint_eq(u16_at(b, 10), 0);
	ck_assert_uint_eq(u32_at(b, 12), 128);
	off = expect_opt(b, 16, PP_PCAPNG_IF_NAME, "eth0", 4);
	off = expect_opt(b, off, PP_PCAPNG_IF_DESCR, "netns 1", 7);
	off = expect_opt(b, off, PP_PCAPNG_IF_TSRESOL, &nine, 1);
	off = expect_opt(b, off, PP_PCAPNG_OPT_END, "", 0);
	ck_assert_uint_eq(off, n - 4);
	/* Name and description left out: only tsresol. */
	ck_assert_uint_eq(pp_pcapng_idb(b, sizeof(b), 1, 64, "", NULL), 32);
	expect_frame(b, 32, PP_PCAPNG_IDB);
	expect_opt(b, 16, PP_PCAPNG_IF_TSRESOL, &nine, 1);
}
END_TEST

START_TEST(test_epb)
{
	static const __u8 data[5] = {1, 2, 3, 4, 5};
	struct pp_pcapng_pkt pk = {.ifid = 3,
				   .ts_ns = 0x0000000123456789ULL,
				   .data = data,
				   .caplen = 5,
				   .origlen = 98,
				   .comment = "abc",
				   .flags = PP_PCAPNG_DIR_INBOUND,
				   .packetid = 42};
	__u8 b[256];
	__u32 flags = 1;
	__u64 id = 42;
	size_t n = pp_pcapng_epb(b, sizeof(b), &pk), off;

	/* 8 + 20 + 8 data + (4 + 4) comment + (4 + 4) flags + (4 + 8) id + 4 end + 4 */
	ck_assert_uint_eq(n, 72);
	expect_frame(b, n, PP_PCAPNG_EPB);
	ck_assert_uint_eq(u32_at(b, 8), 3);
	ck_assert_uint_eq(u32_at(b, 12), 0x1);
	ck_assert_uint_eq(u32_at(b, 16), 0x23456789);
	ck_assert_uint_eq(u32_at(b, 20), 5);
	ck_assert_uint_eq(u32_at(b, 24), 98);
	ck_assert_int_eq(memcmp(b + 28, data, 5), 0);
	ck_assert_uint_eq(b[33] | b[34] | b[35], 0);
	off = expect_opt(b, 36, PP_PCAPNG_OPT_COMMENT, "abc", 3);
	off = expect_opt(b, off, PP_PCAPNG_EPB_FLAGS, &flags, 4);
	off = expect_opt(b, off, PP_PCAPNG_EPB_PACKETID, &id, 8);
	off = expect_opt(b, off, PP_PCAPNG_OPT_END, "", 0);
	ck_assert_uint_eq(off, n - 4);
}
END_TEST

START_TEST(test_epb_bare)
{
	struct pp_pcapng_pkt pk = {.origlen = 60};
	__u8 b[64];

	/* No data, no options: the fixed part only. */
	ck_assert_uint_eq(pp_pcapng_epb(b, sizeof(b), &pk), 32);
	expect_frame(b, 32, PP_PCAPNG_EPB);
	ck_assert_uint_eq(u32_at(b, 20), 0);
	ck_assert_uint_eq(u32_at(b, 24), 60);
	/* Data of a multiple of 4: no padding. */
	pk.data = "abcdefgh";
	pk.caplen = 8;
	ck_assert_uint_eq(pp_pcapng_epb(b, sizeof(b), &pk), 40);
	expect_frame(b, 40, PP_PCAPNG_EPB);
}
END_TEST

/* Too small: the length needed, and not a byte written. */
START_TEST(test_too_small)
{
	struct pp_pcapng_pkt pk = {.data = "abcd", .caplen = 4, .origlen = 4, .comment = "x"};
	__u8 b[64];

	memset(b, 0xaa, sizeof(b));
	ck_assert_uint_eq(pp_pcapng_epb(b, 47, &pk), 48);
	ck_assert_uint_eq(pp_pcapng_shb(b, 27, NULL), 28);
	ck_assert_uint_eq(pp_pcapng_idb(b, 31, 1, 1, NULL, NULL), 32);
	for (size_t i = 0; i < sizeof(b); i++)
		ck_assert_uint_eq(b[i], 0xaa);
	ck_assert_uint_eq(pp_pcapng_epb(b, 48, &pk), 48);
}
END_TEST

/* An option's length field is 16 bits: a longer comment is cut, aligned. */
START_TEST(test_long_comment)
{
	size_t big = 70000, n;
	char *c = malloc(big + 1);
	__u8 *b = malloc(big + 64);
	struct pp_pcapng_pkt pk = {.comment = c};

	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(b);
	memset(c, 'x', big);
	c[big] = 0;
	n = pp_pcapng_epb(b, big + 64, &pk);
	ck_assert_uint_eq(n, 32 + 4 + PP_PCAPNG_OPT_MAX + 4);
	expect_frame(b, n, PP_PCAPNG_EPB);
	ck_assert_uint_eq(u16_at(b, 30), PP_PCAPNG_OPT_MAX);
	free(c);
	free(b);
}
END_TEST

/* ---- export_pcapng.c: a packet -> IDB (once per device) + EPB */

static const char *const names[] = {"ip_rcv", "tp:skb:kfree_skb"};

static const char *reason_name(__u32 reason, void *arg)
{
	(void)arg;
	return reason == 2 ? "NO_SOCKET" : NULL;
}

struct blocks {
	__u32 type[8];
	size_t off[8], n;
};

/* Split a file into blocks, checking each frame. */
static void split(const __u8 *b, size_t len, struct blocks *bl)
{
	size_t off = 0;

	bl->n = 0;
	while (off < len) {
		__u32 n = u32_at(b, off + 4);

		ck_assert_uint_le(off + n, len);
		expect_frame(b + off, n, u32_at(b, off));
		ck_assert_uint_lt(bl->n, 8);
		bl->type[bl->n] = u32_at(b, off);
		bl->off[bl->n++] = off;
		off += n;
	}
}

static struct pp_mark mkmark(__u32 probe, const char *dev, __u32 len, __u32 cap)
{
	struct pp_mark m = {.hop = {.type = PP_REC_MARK,
				    .probe = probe,
				    .id = 9,
				    .ts = 1000,
				    .skb = 0x1000,
				    .netns = 77,
				    .ifindex = 2,
				    .len = len},
			    .cap_len = cap};

	snprintf(m.hop.ifname, sizeof(m.hop.ifname), "%s", dev);
	for (__u32 i = 0; i < PP_HDR_BYTES; i++)
		m.data[i] = (__u8)i;
	return m;
}

START_TEST(test_export_packets)
{
	struct pp_out o = {.probe_names = names, .nprobes = 2, .reason_name = reason_name};
	struct pp_mark m1 = mkmark(PP_PROBE_TC_INGRESS, "r-eth0", 98, 98);
	struct pp_mark m2 = mkmark(0, "eth9", 84, 98); /* marked in a probe: no real L2 */
	struct pp_hop h[2] = {m1.hop, m1.hop};
	struct pp_skbref s = {.skb = 0x1000, .ended = true, .fate = PP_FATE_DROPPED, .reason = 2};
	struct pp_packet p = {.id = 9,
			      .mark = &m1,
			      .hops = h,
			      .nhops = 2,
			      .skbs = &s,
			      .nskbs = 1,
			      .fate = PP_FATE_DROPPED,
			      .reason = 2};
	struct pp_pcapng_out *x;
	struct blocks bl;
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	const __u8 *b;

	h[1].type = PP_REC_END;
	h[1].probe = 1;
	h[1].ts = 46210;
	x = pp_pcapng_out_new(f, 64, 5000, "pktpath test");
	ck_assert_ptr_nonnull(x);
	pp_pcapng_out_packet(x, &o, &p);
	pp_pcapng_out_packet(x, &o, &p); /* the same device: no second IDB */
	p.mark = &m2;
	pp_pcapng_out_packet(x, &o, &p);
	ck_assert_uint_eq(pp_pcapng_out_count(x), 3);
	pp_pcapng_out_free(x);
	fclose(f);
	b = (const __u8 *)buf;
	split(b, len, &bl);
	ck_assert_uint_eq(bl.n, 6);
	ck_assert_uint_eq(bl.type[0], PP_PCAPNG_SHB);
	ck_assert_uint_eq(bl.type[1], PP_PCAPNG_IDB);
	ck_assert_uint_eq(bl.type[2], PP_PCAPNG_EPB);
	ck_assert_uint_eq(bl.type[3], PP_PCAPNG_EPB);
	ck_assert_uint_eq(bl.type[4], PP_PCAPNG_IDB);
	ck_assert_uint_eq(bl.type[5], PP_PCAPNG_EPB);
	/* The IDB: Ethernet, the snap length, the device's name. */
	ck_assert_uint_eq(u16_at(b, bl.off[1] + 8), 1);
	ck_assert_uint_eq(u32_at(b, bl.off[1] + 12), 64);
	expect_opt(b, bl.off[1] + 16, PP_PCAPNG_IF_NAME, "r-eth0", 6);
	/* The first EPB: interface 0, cut to 64 of 98, time moved by the offset. */
	ck_assert_uint_eq(u32_at(b, bl.off[2] + 8), 0);
	ck_assert_uint_eq(u32_at(b, bl.off[2] + 16), 6000);
	ck_assert_uint_eq(u32_at(b, bl.off[2] + 20), 64);
	ck_assert_uint_eq(u32_at(b, bl.off[2] + 24), 98);
	ck_assert_int_eq(memcmp(b + bl.off[2] + 28, m1.data, 64), 0);
	expect_opt(b, bl.off[2] + 28 + 64, PP_PCAPNG_OPT_COMMENT,
		   "pktpath #9: tc:ingress@r-eth0 > tp:skb:kfree_skb; dropped: NO_SOCKET after "
		   "45.210 us",
		   84);
	/* The probe's mark: interface 1, its IP length and the made-up Ethernet header's. */
	ck_assert_uint_eq(u32_at(b, bl.off[5] + 8), 1);
	ck_assert_uint_eq(u32_at(b, bl.off[5] + 24), 84 + 14);
	free(buf);
}
END_TEST

/*
 * exports.c over its table: each file asked for made with its format's mode,
 * written, closed with one line each in order; a bad path names its option.
 */
START_TEST(test_exports_files)
{
	struct pp_out o = {.probe_names = names, .nprobes = 2, .reason_name = reason_name};
	struct pp_mark m = mkmark(PP_PROBE_TC_INGRESS, "r-eth0", 98, 98);
	struct pp_hop h[2] = {m.hop, m.hop};
	struct pp_packet p = {.id = 9, .mark = &m, .hops = h, .nhops = 2, .fate = PP_FATE_CONSUMED};
	char dir[] = "/tmp/pp-unit-exports.XXXXXX", pc[64], pf[64], err[256], *said;
	const char *paths[PP_EXPORTS] = {[PP_EXPORT_PCAPNG] = pc, [PP_EXPORT_PERFETTO] = pf};
	struct pp_exports x;
	struct stat st;
	size_t len;
	FILE *report = open_memstream(&said, &len);

	h[1].type = PP_REC_END;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(pc, sizeof(pc), "%s/a.pcapng", dir);
	snprintf(pf, sizeof(pf), "%s/a.json", dir);
	ck_assert_int_eq(pp_exports_open(&x, paths, 0, "pktpath test", err, sizeof(err)), 0);
	x.out = &o;
	ck_assert(pp_exports_has(&x, PP_EXPORT_PCAPNG) && pp_exports_has(&x, PP_EXPORT_PERFETTO));
	ck_assert_int_eq(pp_exports_publish(&x, err, sizeof(err)), 0);
	pp_exports_packet(&p, &x);
	ck_assert_int_eq(pp_exports_close(&x, report, err, sizeof(err)), 0);
	fclose(report);
	ck_assert_int_eq(stat(pc, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(stat(pf, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0644);
	snprintf(err, sizeof(err),
		 "pktpath: 1 packet written to %s\npktpath: 1 packet written to %s\n", pc, pf);
	ck_assert_str_eq(said, err);
	free(said);
	unlink(pc);
	unlink(pf);
	rmdir(dir);
	paths[PP_EXPORT_PCAPNG] = NULL;
	snprintf(pf, sizeof(pf), "%s/no/a.json", dir);
	ck_assert_int_eq(pp_exports_open(&x, paths, 0, "pktpath test", err, sizeof(err)), -EINVAL);
	ck_assert_msg(!strncmp(err, "--perfetto ", 11), "\"%s\"", err);
}
END_TEST

Suite *pcapng_suite(void)
{
	Suite *s = suite_create("pcapng");
	TCase *tc = tcase_create("blocks");

	tcase_add_test(tc, test_shb);
	tcase_add_test(tc, test_idb);
	tcase_add_test(tc, test_epb);
	tcase_add_test(tc, test_epb_bare);
	tcase_add_test(tc, test_too_small);
	tcase_add_test(tc, test_long_comment);
	tcase_add_test(tc, test_export_packets);
	tcase_add_test(tc, test_exports_files);
	suite_add_tcase(s, tc);
	return s;
}
