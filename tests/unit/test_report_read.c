// SPDX-License-Identifier: GPL-2.0
/*
 * loader/report/report_read.c: --json lines read back into packets. The main check
 * is a round trip: a packet written by pp_out_json(), read, and written
 * again with the reader's names, gives the same line byte for byte; then
 * cut lines, keys of later versions, wrong types and non-packet lines.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/output.h"
#include "report/report_read.h"
#include "suites.h"

#define LOC  0xffffffff81a2b3c4ULL
#define SKB0 0xffff888000007000ULL
#define SKB1 0xffff888000009100ULL
#define T0   5000000000ULL

static const char *const names[] = {"ip_rcv", "tp:skb:kfree_skb", "tp:skb:consume_skb",
				    "tp:skb:skb_copy_datagram_iovec", "bpf:xdp_lb#7"};

static const char *reason_name(__u32 reason, void *arg)
{
	(void)arg;
	return reason == 5 ? "NETFILTER_DROP" : NULL;
}

static const char *sym_name(__u64 addr, void *arg)
{
	(void)arg;
	return addr == LOC ? "nft_do_chain" : NULL;
}

/* A packet of two skbs: marked at tc:ingress, the original dropped, its copy read. */
struct fixture {
	struct pp_mark mark;
	struct pp_hop hops[5];
	struct pp_skbref skbs[2];
	struct pp_packet p;
};

static void hop(struct pp_hop *h, __u32 type, __u32 probe, __u64 dt, __u64 skb)
{
	*h = (struct pp_hop){.type = type,
			     .probe = probe,
			     .id = 42,
			     .ts = T0 + dt,
			     .skb = skb,
			     .cpu = 1,
			     .netns = 4026532001U,
			     .ifindex = 2,
			     .pid = 77,
			     .len = 98};
	/* Bytes that must be escaped: a quote and one above 0x7f. */
	memcpy(h->ifname, "r-\"eth\xe9", 8);
	strcpy(h->comm, "ping");
}

static void fixture(struct fixture *x)
{
	memset(x, 0, sizeof(*x));
	hop(&x->hops[0], PP_REC_MARK, PP_PROBE_TC_INGRESS, 0, SKB0);
	hop(&x->hops[1], PP_REC_HOP, 0, 1000, SKB0);
	hop(&x->hops[2], PP_REC_END, 1, 2500, SKB0);
	x->hops[2].fate = PP_FATE_DROPPED;
	x->hops[2].reason = 5;
	x->hops[2].location = LOC;
	hop(&x->hops[3], PP_REC_COPY, 3, 3000, SKB1);
	x->hops[3].location = SKB0;
	x->hops[3].ifindex = 0;
	x->hops[3].ifname[0] = '\0';
	hop(&x->hops[4], PP_REC_END, 2, 4000, SKB1);
	x->hops[4].fate = PP_FATE_CONSUMED;
	x->mark.hop = x->hops[0];
	x->mark.cap_len = 60;
	for (int i = 0; i < 60; i++)
		x->mark.data[i] = (__u8)(i * 7);
	x->skbs[0] = (struct pp_skbref){.skb = SKB0,
					.first_ts = T0,
					.ended = true,
					.fate = PP_FATE_DROPPED,
					.reason = 5,
					.location = LOC};
	x->skbs[1] = (struct pp_skbref){.skb = SKB1,
					.parent = SKB0,
					.first_ts = T0 + 3000,
					.probe = 3,
					.copy = true,
					.ended = true,
					.fate = PP_FATE_CONSUMED};
	x->p = (struct pp_packet){.id = 42,
				  .mark = &x->mark,
				  .hops = x->hops,
				  .nhops = 5,
				  .skbs = x->skbs,
				  .nskbs = 2,
				  .fate = PP_FATE_CONSUMED,
				  .lost = 3};
}

/* P as pktpath --json [--snaplen 128] writes it, names from O (f is set here). */
static char *write_json(struct pp_out *o, const struct pp_packet *p)
{
	char *buf = NULL, *line;
	size_t len = 0;

	o->f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(o->f);
	pp_out_json(o, p);
	fclose(o->f);
	/* A copy: GCC 12 takes what open_memstream() wrote for a pointer to &buf. */
	line = strdup(buf);
	free(buf);
	ck_assert_ptr_nonnull(line);
	return line;
}

static struct pp_out live_out(__u32 head)
{
	return (struct pp_out){.probe_names = names,
			       .nprobes = sizeof(names) / sizeof(names[0]),
			       .reason_name = reason_name,
			       .sym_name = sym_name,
			       .head_bytes = head,
			       .real_off = 1700000000000000000LL};
}

/*
 * S without its "pkt" object: decoded from the mark's bytes, which a line
 * without "head" does not carry (nothing of the reader's prints it).
 */
static void drop_pkt(char *s)
{
	char *a = strstr(s, "\"pkt\":"), *b = strstr(s, "\"marked_at\":");

	ck_assert(a && b && a < b);
	memmove(a, b, strlen(b) + 1);
}

/* LINE read, then written again with the reader's names: must be LINE. */
static void round_trip(char *line, __u32 head)
{
	struct pp_report_read *r = pp_report_read_new();
	struct pp_out o = live_out(head);
	struct pp_report_read_item it;
	char err[256] = "", *again;

	ck_assert_int_eq(pp_report_read_line(r, line, strlen(line), &it, err, sizeof(err)), 0);
	ck_assert_msg(it.kind == PP_REPORT_READ_PACKET, "%s", err);
	ck_assert(it.has_head == (head != 0));
	ck_assert(it.has_time);
	pp_report_read_names(r, &o);
	again = write_json(&o, it.pkt);
	if (!head) {
		drop_pkt(again);
		drop_pkt(line);
	}
	ck_assert_str_eq(again, line);
	free(again);
	pp_report_read_free(r);
}

START_TEST(test_round_trip)
{
	struct fixture x;
	struct pp_out o = live_out(128);
	char *line;

	fixture(&x);
	line = write_json(&o, &x.p);
	ck_assert_ptr_nonnull(strstr(line, ",\"mono_ns\":5000000000,\"real_ns\":"
					   "1700000005000000000,\"head\":\"00070e15"));
	ck_assert_ptr_nonnull(strstr(line, "\"ifname\":\"r-\\\"eth\\u00e9\""));
	round_trip(line, 128);
	free(line);
	/* Without --snaplen: the times, no bytes. */
	o = live_out(0);
	line = write_json(&o, &x.p);
	ck_assert_ptr_nonnull(strstr(line, ",\"mono_ns\":5000000000,\"real_ns\":"
					   "1700000005000000000}"));
	ck_assert_ptr_null(strstr(line, "head"));
	round_trip(line, 0);
	free(line);
}
END_TEST

/*
 * An END by the reader's own free (PP_HOP_READ, the hop's "read"): read
 * back, it names the reader again, in the packet's fate and its copy's.
 */
START_TEST(test_round_trip_read_free)
{
	struct fixture x;
	struct pp_out o = live_out(128);
	char *line;

	fixture(&x);
	x.hops[4].flags = PP_HOP_READ;
	line = write_json(&o, &x.p);
	ck_assert_ptr_nonnull(strstr(line, "\"read\":true"));
	ck_assert_ptr_nonnull(strstr(line, "\"read\":{\"pid\":77,\"comm\":\"ping\""));
	round_trip(line, 128);
	free(line);
}
END_TEST

/* Other programs' verdicts (PP_HOP_VERDICT, an XDP one with PP_HOP_XDP) read back as words. */
START_TEST(test_round_trip_verdicts)
{
	struct fixture x;
	struct pp_out o = live_out(128);
	char *line;

	fixture(&x);
	x.hops[1].flags = PP_HOP_VERDICT | PP_HOP_XDP;
	x.hops[1].reason = 2;
	line = write_json(&o, &x.p);
	ck_assert_ptr_nonnull(strstr(line, "\"verdict\":\"XDP_PASS\""));
	round_trip(line, 128);
	free(line);
	x.hops[1].flags = PP_HOP_VERDICT;
	x.hops[1].reason = (__u32)-1;
	line = write_json(&o, &x.p);
	ck_assert_ptr_nonnull(strstr(line, "\"verdict\":\"TC_ACT_UNSPEC\""));
	round_trip(line, 128);
	free(line);
}
END_TEST

/* X: a frame program xdp_lb#7 returned VERDICT for, its MARK and END, ended FATE. */
static void frame_fixture(struct fixture *x, __u32 verdict, enum pp_fate fate)
{
	fixture(x);
	x->hops[0].probe = 4;
	x->hops[0].flags = PP_HOP_VERDICT | PP_HOP_XDP | PP_HOP_FRAME;
	x->hops[0].reason = verdict;
	x->mark.hop = x->hops[0];
	x->hops[1] = x->hops[0];
	x->hops[1].type = PP_REC_END;
	x->hops[1].flags = PP_HOP_FRAME;
	x->hops[1].reason = 0;
	x->hops[1].fate = fate;
	x->skbs[0] = (struct pp_skbref){.skb = SKB0, .first_ts = T0, .ended = true, .fate = fate};
	x->p.nhops = 2;
	x->p.nskbs = 1;
	x->p.fate = fate;
}

/*
 * A frame an XDP program sent back before any skb (PP_HOP_FRAME): "frame"
 * on its two records, the program's verdict as its fate's "decided_by".
 */
START_TEST(test_round_trip_frame)
{
	struct fixture x;
	struct pp_out o = live_out(128);
	char *line;

	frame_fixture(&x, 3, PP_FATE_XDP); /* XDP_TX */
	line = write_json(&o, &x.p);
	ck_assert_ptr_nonnull(strstr(line, "\"func\":\"bpf:xdp_lb#7\",\"verdict\":\"XDP_TX\""));
	ck_assert_ptr_nonnull(strstr(line, "\"frame\":true"));
	ck_assert_ptr_nonnull(strstr(line, "\"decided_by\":\"xdp_lb#7 returned XDP_TX\""));
	round_trip(line, 128);
	free(line);
}
END_TEST

static const char *if_name(__u32 netns, __u32 ifindex, char *buf, void *arg)
{
	(void)netns;
	(void)arg;
	return ifindex == 7 ? strcpy(buf, "vr-b") : NULL;
}

/*
 * A frame whose redirect failed (PP_HOP_REDIRECT): its END's "redirect"
 * (the device by index and name, the map, the errno) reads back, and the
 * fate names where the program sent it.
 */
START_TEST(test_round_trip_redirect)
{
	struct fixture x;
	struct pp_out o = live_out(128);
	char *line;

	frame_fixture(&x, 4, PP_FATE_DROPPED); /* XDP_REDIRECT */
	o.if_name = if_name;
	x.hops[1].flags |= PP_HOP_REDIRECT;
	x.hops[1].out_ifindex = 7;
	x.hops[1].redirect_map = 3;
	x.hops[1].redirect_err = -100;
	line = write_json(&o, &x.p);
	ck_assert_msg(strstr(line, "\"redirect\":{\"ifindex\":7,\"dev\":\"vr-b\",\"map_id\":3,"
				   "\"errno\":100}"),
		      "%s", line);
	ck_assert_msg(strstr(line,
			     "\"decided_by\":\"xdp_lb#7 returned XDP_REDIRECT to vr-b (map id 3), "
			     "which failed: ENETDOWN\""),
		      "%s", line);
	round_trip(line, 128);
	free(line);
}
END_TEST

/*
 * A reply to a tracked packet's NAT rewrite (PP_HOP_REPLY): its mark's
 * "reply_to" reads back as the flag and the packet's id.
 */
START_TEST(test_round_trip_reply)
{
	struct fixture x;
	struct pp_out o = live_out(128);
	char *line;

	fixture(&x);
	x.mark.hop.flags |= PP_HOP_REPLY;
	x.mark.hop.location = 41;
	line = write_json(&o, &x.p);
	ck_assert_ptr_nonnull(strstr(line, "\"dir\":\"ingress\",\"reply_to\":41}"));
	round_trip(line, 128);
	free(line);
}
END_TEST

/* What the reader rebuilds that JSON does not say: the kinds of the hops. */
START_TEST(test_hop_kinds)
{
	struct fixture x;
	struct pp_out o = live_out(128);
	struct pp_report_read *r = pp_report_read_new();
	struct pp_report_read_item it;
	char err[256], *line;
	const struct pp_packet *p;

	fixture(&x);
	line = write_json(&o, &x.p);
	ck_assert_int_eq(pp_report_read_line(r, line, strlen(line), &it, err, sizeof(err)), 0);
	p = it.pkt;
	ck_assert_uint_eq(p->nhops, 5);
	for (size_t i = 0; i < 5; i++) {
		ck_assert_uint_eq(p->hops[i].type, x.hops[i].type);
		ck_assert_uint_eq(p->hops[i].ts, x.hops[i].ts);
		ck_assert_uint_eq(p->hops[i].fate, x.hops[i].fate);
		ck_assert_uint_eq(p->hops[i].location, x.hops[i].location);
	}
	ck_assert_uint_eq(p->hops[0].probe, PP_PROBE_TC_INGRESS);
	ck_assert_uint_eq(p->mark->cap_len, 60);
	ck_assert_mem_eq(p->mark->data, x.mark.data, 60);
	ck_assert_uint_eq(p->skbs[1].parent, SKB0);
	ck_assert(p->skbs[1].copy);
	ck_assert_uint_eq(p->lost, 3);
	ck_assert_int_eq(it.real_off, 1700000000000000000LL);
	free(line);
	pp_report_read_free(r);
}
END_TEST

/* Every prefix of a line (a run killed while writing it) is an error, never a packet. */
START_TEST(test_cut_line)
{
	struct fixture x;
	struct pp_out o = live_out(128);
	struct pp_report_read *r = pp_report_read_new();
	struct pp_report_read_item it;
	char err[256], *line;
	size_t len;

	fixture(&x);
	line = write_json(&o, &x.p);
	len = strlen(line) - 1; /* without its newline */
	for (size_t n = 1; n < len; n++) {
		err[0] = '\0';
		ck_assert_int_eq(pp_report_read_line(r, line, n, &it, err, sizeof(err)), -EINVAL);
		ck_assert_msg(err[0], "no message for a line cut at %zu", n);
	}
	ck_assert_int_eq(pp_report_read_line(r, line, len / 2, &it, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "the line ends inside its JSON object (cut short)");
	ck_assert_int_eq(pp_report_read_line(r, line, len, &it, err, sizeof(err)), 0);
	free(line);
	pp_report_read_free(r);
}
END_TEST

static int read_one(const char *line, struct pp_report_read_item *it, char *err, size_t errlen)
{
	struct pp_report_read *r = pp_report_read_new();
	int ret;

	err[0] = '\0';
	ret = pp_report_read_line(r, line, strlen(line), it, err, errlen);
	pp_report_read_free(r);
	return ret;
}

#define HOP0 "{\"func\":\"ip_rcv\",\"t_ns\":0,\"skb\":\"0x10\"}"

/* Keys a later version may add, anywhere, are ignored. */
START_TEST(test_unknown_keys)
{
	const char *line = "{\"later\":{\"x\":[1,2.5,null]},\"id\":3,\"len\":9,\"hops\":"
			   "[{\"func\":\"ip_rcv\",\"t_ns\":0,\"new\":true,\"skb\":\"0x10\"},"
			   "{\"func\":\"tp:skb:consume_skb\",\"t_ns\":250,\"skb\":\"0x10\"}],"
			   "\"fate\":{\"kind\":\"consumed\",\"why\":\"later\"},\"z\":1}";
	/* Its own reader: the packet lives in it (read_one() frees its own). */
	struct pp_report_read *r = pp_report_read_new();
	struct pp_report_read_item it;
	char err[256];

	ck_assert_int_eq(pp_report_read_line(r, line, strlen(line), &it, err, sizeof(err)), 0);
	ck_assert_int_eq(it.kind, PP_REPORT_READ_PACKET);
	ck_assert_uint_eq(it.pkt->id, 3);
	ck_assert_uint_eq(it.pkt->nhops, 2);
	ck_assert_uint_eq(it.pkt->hops[1].ts - it.pkt->hops[0].ts, 250);
	ck_assert_uint_eq(it.pkt->hops[1].type, PP_REC_END);
	ck_assert_ptr_null(it.pkt->mark);
	ck_assert(!it.has_time);
	pp_report_read_free(r);
}
END_TEST

static void expect_bad(const char *line, const char *msg)
{
	struct pp_report_read_item it;
	char err[256];

	ck_assert_int_eq(read_one(line, &it, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, msg);
}

START_TEST(test_wrong_types)
{
	expect_bad("{\"id\":\"7\",\"hops\":[" HOP0 "],\"fate\":{\"kind\":\"consumed\"}}",
		   "\"id\" is not an unsigned integer");
	expect_bad("{\"id\":-7,\"hops\":[" HOP0 "],\"fate\":{\"kind\":\"consumed\"}}",
		   "\"id\" is negative");
	expect_bad("{\"id\":7,\"hops\":[" HOP0 ",{\"func\":\"ip_rcv\",\"t_ns\":1.5}],"
		   "\"fate\":{\"kind\":\"consumed\"}}",
		   "hops[1].\"t_ns\" is not an unsigned integer");
	expect_bad("{\"id\":7,\"hops\":[{\"func\":\"ip_rcv\",\"t_ns\":0,\"skb\":\"16\"}],"
		   "\"fate\":{\"kind\":\"consumed\"}}",
		   "hops[0].\"skb\" is not an address in hex (\"0x...\")");
	expect_bad("{\"id\":7,\"hops\":[],\"fate\":{\"kind\":\"consumed\"}}", "\"hops\" is empty");
	expect_bad("{\"id\":7,\"hops\":[{\"func\":\"ip_rcv\",\"t_ns\":5},{\"func\":\"ip_rcv\","
		   "\"t_ns\":4}],\"fate\":{\"kind\":\"consumed\"}}",
		   "hops[1].\"t_ns\" is earlier than the hop before");
	expect_bad("{\"id\":7,\"hops\":[" HOP0 "]}", "\"fate\" is missing");
	expect_bad("{\"id\":7,\"hops\":[" HOP0 "],\"fate\":{\"kind\":\"vanished\"}}",
		   "\"kind\" is not a fate this version knows");
	expect_bad("{\"id\":7,\"hops\":[" HOP0 "],\"fate\":{\"kind\":\"dropped\"}}",
		   "\"reason_code\" is missing");
	expect_bad("{\"id\":7,\"hops\":[" HOP0 "],\"fate\":{\"kind\":\"consumed\"},"
		   "\"marked_at\":{},\"head\":\"abc\"}",
		   "\"head\" has an odd number of hex digits");
	expect_bad("{\"id\":7,\"hops\":[{\"func\":\"ip_rcv\",\"t_ns\":0,\"ifname\":"
		   "\"\\u0100\"}],\"fate\":{\"kind\":\"consumed\"}}",
		   "hops[0].\"ifname\" has a character beyond U+00FF");
	expect_bad("{\"id\":7,\"hops\":[{\"func\":\"ip_rcv\",\"t_ns\":0,\"ifname\":"
		   "\"0123456789abcdefg\"}],\"fate\":{\"kind\":\"consumed\"}}",
		   "hops[0].\"ifname\" is too long");
	expect_bad("[1,2]", "not a JSON object");
	expect_bad("{} x", "more after the JSON object, at byte 4");
	expect_bad("garbage", "unexpected character");
}
END_TEST

START_TEST(test_other_lines)
{
	struct pp_report_read_item it;
	char err[256];

	ck_assert_int_eq(read_one("{\"summary\":{\"packets\":2,\"lost\":7,\"map_full\":1,"
				  "\"skipped\":3}}",
				  &it, err, sizeof(err)),
			 0);
	ck_assert_int_eq(it.kind, PP_REPORT_READ_TOTALS);
	ck_assert_uint_eq(it.lost, 7);
	ck_assert_uint_eq(it.map_full, 1);
	ck_assert_uint_eq(it.skipped, 3);
	ck_assert_int_eq(read_one("{\"path_summary\":{\"final\":true,\"elapsed_s\":4.25}}", &it,
				  err, sizeof(err)),
			 0);
	ck_assert_int_eq(it.kind, PP_REPORT_READ_PATH_SUMMARY);
	ck_assert(it.final);
	ck_assert(it.elapsed == 4.25);
	ck_assert_int_eq(read_one("{\"interval_stats\":{}}", &it, err, sizeof(err)), 0);
	ck_assert_int_eq(it.kind, PP_REPORT_READ_OTHER);
	ck_assert_int_eq(read_one("  \r\n", &it, err, sizeof(err)), 0);
	ck_assert_int_eq(it.kind, PP_REPORT_READ_BLANK);
}
END_TEST

Suite *report_read_suite(void)
{
	Suite *s = suite_create("report_read");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_round_trip_read_free);
	tcase_add_test(tc, test_round_trip_reply);
	tcase_add_test(tc, test_round_trip_verdicts);
	tcase_add_test(tc, test_round_trip_frame);
	tcase_add_test(tc, test_round_trip_redirect);
	tcase_add_test(tc, test_hop_kinds);
	tcase_add_test(tc, test_cut_line);
	tcase_add_test(tc, test_unknown_keys);
	tcase_add_test(tc, test_wrong_types);
	tcase_add_test(tc, test_other_lines);
	suite_add_tcase(s, tc);
	return s;
}
