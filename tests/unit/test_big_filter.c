// SPDX-License-Identifier: GPL-2.0
/*
 * Big filters: where an "or" chain may be cut (filter_split.c), how chunks
 * are joined, and the proof that the cut changes no verdict: long chains of
 * mixed terms compiled in chunks decide every corpus frame as libpcap's
 * optimised compile of the whole expression (tcpdump's program) does, in
 * libpcap's interpreter and, translated, in the kernel. Then the sizes
 * tcpdump cannot compile: 10000 hosts load and decide as libpcap's
 * interpreter does on the joined program, and a jump past 32767 eBPF
 * instructions goes through islands.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suites.h"
#include "filter/classifier.h"
#include "corpus.h"
#include "filter/filter_split.h"
#include "filter/frame_verdict.h"
#include "kernel_run.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

static size_t nterms(const char *expr)
{
	struct pp_span *t;
	size_t n = pp_split_or(expr, &t);

	free(t);
	return n;
}

START_TEST(test_split_where)
{
	struct pp_span *t;

	ck_assert_uint_eq(nterms("host 198.18.0.1 or host 198.18.0.2"), 2);
	ck_assert_uint_eq(nterms("host 198.18.0.1 || port 53 or tcp[13] & 2 != 0"), 3);
	ck_assert_uint_eq(nterms("(host 198.18.0.1 or host 198.18.0.2) or ip6"), 2);
	ck_assert_uint_eq(nterms("not host 198.18.0.1 or udp"), 2);
	/* "and" binds like "or", left to right: never cut. */
	ck_assert_uint_eq(nterms("host 198.18.0.1 or host 198.18.0.2 and port 80"), 1);
	ck_assert_uint_eq(nterms("port 1 or port 2&&udp"), 1);
	/* A bare value takes the qualifiers of the term before it. */
	ck_assert_uint_eq(nterms("host 198.18.0.1 or 198.18.0.2 or host 198.18.0.3"), 2);
	ck_assert_uint_eq(nterms("port 1 or not 2"), 1);
	ck_assert_uint_eq(nterms("host 198.18.0.1 or (198.18.0.2)"), 1);
	/* Inside brackets, and malformed: whole, for libpcap to judge. */
	ck_assert_uint_eq(nterms("ip[0] or port 1"), 2);
	ck_assert_uint_eq(nterms("(port 1 or port 2"), 1);
	ck_assert_uint_eq(nterms("port 1 or"), 1);
	ck_assert_uint_eq(nterms("or port 1"), 1);
	ck_assert_uint_eq(pp_split_or("tcp or  udp", &t), 2);
	ck_assert_uint_eq(t[0].begin, 0);
	ck_assert_uint_eq(t[0].end, 3);
	ck_assert_uint_eq(t[1].begin, 8);
	ck_assert_uint_eq(t[1].end, 11);
	free(t);
}
END_TEST

START_TEST(test_join)
{
	struct sock_filter a[] = {{BPF_LD | BPF_W | BPF_LEN, 0, 0, 0},
				  {BPF_JMP | BPF_JGT | BPF_K, 0, 1, 100},
				  {BPF_RET | BPF_K, 0, 0, 1},
				  {BPF_RET | BPF_K, 0, 0, 0}};
	struct sock_filter b[] = {{BPF_RET | BPF_K, 0, 0, 0}};
	struct sock_filter c[] = {{BPF_RET | BPF_A, 0, 0, 0}};
	struct sock_filter *progs[] = {a, b}, *bad[] = {c, b}, *out;
	size_t lens[] = {LEN(a), LEN(b)}, n;

	ck_assert_int_eq(pp_cbpf_join(progs, lens, 2, &out, &n), 0);
	ck_assert_uint_eq(n, LEN(a) + 2 + LEN(b));
	ck_assert_uint_eq(out[3].code, BPF_JMP | BPF_JA);
	ck_assert_uint_eq(3 + 1 + out[3].k, 4); /* the next chunk's A = 0 */
	ck_assert_uint_eq(out[4].code, BPF_LD | BPF_IMM);
	ck_assert_uint_eq(out[5].code, BPF_LDX | BPF_IMM);
	ck_assert_uint_eq(out[6].code, BPF_RET | BPF_K); /* the last "no match" stays */
	free(out);
	ck_assert_int_eq(pp_cbpf_join(bad, lens, 2, &out, &n), -EINVAL);
}
END_TEST

/*
 * A chain of N terms of many kinds: fillers that match no corpus frame
 * (203.0.113.0/24, unused ports), with terms the corpus does match placed
 * in the first, a middle and the last chunk.
 */
static char *mixed_chain(size_t n)
{
	static const char *const hits[] = {
		"host 198.18.1.2",
		"ip6 host fd00::2",
		"dst port 53",
		"net 10.0.0.0/8",
		"portrange 1000-2000",
		"icmp",
		"ether host 02:00:00:00:00:02",
		"tcp[tcpflags] & tcp-syn != 0",
		"len > 1000",
		"src host 198.19.0.1",
	};
	size_t cap = n * 48 + 64, at = 0;
	char *e = malloc(cap);

	for (size_t i = 0; e && i < n; i++) {
		const char *sep = i ? " or " : "";

		if (i % 7 == 3 && (i < 32 || i > n / 2))
			at += (size_t)snprintf(e + at, cap - at, "%s%s", sep,
					       hits[i / 7 % LEN(hits)]);
		else if (i % 3)
			at += (size_t)snprintf(e + at, cap - at, "%shost 203.0.113.%zu", sep,
					       i % 250 + 1);
		else
			at += (size_t)snprintf(e + at, cap - at, "%sudp port %zu", sep, 40000 + i);
	}
	return e;
}

struct diff {
	size_t pairs, matches;
};

/* pktpath's verdict (as --test-pcap decides) against tcpdump's program. */
static void expect_frame(struct diff *d, const struct pp_cls *cls, const struct sock_filter *whole,
			 size_t wlen, const __u8 *data, __u32 caplen, __u32 wire, const char *desc)
{
	int want = pp_pcap_offline_match(whole, wlen, data, caplen, wire) != 0, got = -1;
	enum pp_decider by;
	char err[320];

	ck_assert_msg(pp_frame_verdict(cls, data, caplen, wire, &got, &by, err, sizeof(err)) == 0,
		      "%s: %s", desc, err);
	ck_assert_msg(got == want, "%s: pktpath %d, tcpdump's program %d", desc, got, want);
	d->pairs++;
	d->matches += want;
}

/* EXPR as pktpath loads it (in chunks) vs libpcap's optimised whole, on every corpus frame. */
static void compare_expr(struct diff *d, const struct pp_corpus *c, const char *expr, size_t chunks)
{
	struct sock_filter *whole;
	size_t wlen;
	char err[512];

	ck_assert_msg(pp_pcap_compile(expr, &whole, &wlen, err, sizeof(err)) == 0, "%s", err);
	for (unsigned int mode = 0; mode < 2; mode++) {
		struct pp_cls_opts o = {.expr = expr, .xlate_flags = mode};
		struct pp_cls cls;

		ck_assert_msg(pp_cls_load(&cls, &o, err, sizeof(err)) == 0, "%s", err);
		ck_assert_uint_eq(cls.filter.chunks, chunks);
		for (size_t i = 0; i < c->n; i++)
			expect_frame(d, &cls, whole, wlen, c->v[i].data, c->v[i].len,
				     c->v[i].wire_len, c->v[i].desc);
		pp_cls_destroy(&cls);
	}
	free(whole);
}

static void compare_chain(struct diff *d, const struct pp_corpus *c, size_t n)
{
	char *expr = mixed_chain(n);

	ck_assert_ptr_nonnull(expr);
	ck_assert_uint_eq(nterms(expr), n);
	compare_expr(d, c, expr, (n + PP_SPLIT_CHUNK - 1) / PP_SPLIT_CHUNK);
	free(expr);
}

/* UDP from 198.18.0.99 to DST (host byte order), 60 bytes. */
static void udp_frame(unsigned char *f, __u32 dst)
{
	static const unsigned char head[] = {2,	   0, 0,    0,	  0,	2, 2,	0,  0, 0,
					     0,	   1, 0x08, 0x00, 0x45, 0, 0,	46, 0, 1,
					     0x40, 0, 64,   17,	  0,	0, 198, 18, 0, 99};

	memset(f, 0, 60);
	memcpy(f, head, sizeof(head));
	f[30] = dst >> 24;
	f[31] = dst >> 16 & 0xff;
	f[32] = dst >> 8 & 0xff;
	f[33] = dst & 0xff;
	f[34] = 0x30;
	f[36] = 0x30;
	f[39] = 26;
}

START_TEST(test_chunks_decide_as_whole)
{
	struct pp_corpus corpus = {0};
	struct diff d = {0};
	static const size_t sizes[] = {33, 64, 100, 150};

	if (!pp_need_root("big_filter chunks vs whole"))
		return;
	ck_assert_int_eq(pp_corpus_build(&corpus), 0);
	for (size_t i = 0; i < LEN(sizes); i++)
		compare_chain(&d, &corpus, sizes[i]);
	printf("big_filter: chains of 33-150 mixed terms, in chunks, vs tcpdump's program: %zu "
	       "frame verdicts (%zu matches; both load modes, the kernel or user space as "
	       "--test-pcap decides), all equal\n",
	       d.pairs, d.matches);
	ck_assert_uint_gt(d.matches, 0);
	ck_assert_uint_lt(d.matches, d.pairs);
	pp_corpus_free(&corpus);
}
END_TEST

/*
 * Frames cut inside the IP header, the host in the last of three chunks.
 * pktpath decides as libpcap's interpreter does on the joined program: a
 * load past the captured bytes ends the filter with no match, in whichever
 * chunk it comes. tcpdump's program for the whole chain tests every source
 * address before any destination (its optimiser merges the terms' loads),
 * so a frame cut between the two addresses matches there by its source:
 * the one known difference, on frames no interface delivers (a capture's
 * snap length inside the IP header). It is asserted exactly, so that any
 * other difference fails.
 */
START_TEST(test_cut_frames)
{
	static const __u32 cuts[] = {26, 29, 30, 33, 34, 60};
	size_t n = 70, cap = n * 32, at = 0, differ = 0;
	char *expr = malloc(cap), err[256];
	struct pp_cls_opts o = {0};
	struct sock_filter *whole;
	unsigned char f[60];
	struct pp_cls cls;
	size_t wlen;

	if (!pp_need_root("big_filter cut frames"))
		return;
	for (size_t i = 0; i + 1 < n; i++)
		at += (size_t)snprintf(expr + at, cap - at, "host 203.0.113.%zu or ", i + 1);
	snprintf(expr + at, cap - at, "host 198.18.1.2");
	o.expr = expr;
	ck_assert_int_eq(pp_pcap_compile(expr, &whole, &wlen, err, sizeof(err)), 0);
	ck_assert_msg(pp_cls_load(&cls, &o, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(cls.filter.chunks, 3);
	for (int from = 0; from < 2; from++) {
		udp_frame(f, from ? 0xc6120063 : 0xc6120102);
		if (from)
			memcpy(f + 26, "\xc6\x12\x01\x02", 4);
		for (size_t i = 0; i < 2 * LEN(cuts); i++) {
			__u32 caplen = cuts[i / 2], wire = i % 2 ? 60 : caplen;
			int joined = pp_pcap_offline_match(cls.filter.cbpf, cls.filter.cbpf_len, f,
							   caplen, wire) != 0;
			int tcpdump = pp_pcap_offline_match(whole, wlen, f, caplen, wire) != 0;
			bool known = from && caplen >= 30 && caplen < 34;
			enum pp_decider by;
			int got = -1;

			ck_assert_int_eq(pp_frame_verdict(&cls, f, caplen, wire, &got, &by, err,
							  sizeof(err)),
					 0);
			ck_assert_msg(got == joined, "%s, %u/%u bytes: pktpath %d, libpcap %d",
				      from ? "from" : "to", caplen, wire, got, joined);
			ck_assert_msg((got != tcpdump) == known,
				      "%s, %u/%u bytes: pktpath %d, tcpdump's program %d",
				      from ? "from" : "to", caplen, wire, got, tcpdump);
			differ += got != tcpdump;
		}
	}
	ck_assert_uint_eq(differ, 4);
	pp_cls_destroy(&cls);
	free(whole);
	free(expr);
}
END_TEST

#define BIG_HOSTS 10000

/* host 198.19.X.Y: the I-th of BIG_HOSTS. */
static __u32 big_host(size_t i)
{
	return (198u << 24) | (19u << 16) | (__u32)(i / 250) << 8 | (__u32)(i % 250 + 1);
}

START_TEST(test_ten_thousand_hosts)
{
	static const size_t probe[] = {0, 31, 32, 5000, BIG_HOSTS - 1};
	struct pp_cls_opts o = {0};
	char *expr = malloc(BIG_HOSTS * 32), err[512];
	unsigned char f[60];
	struct pp_cls cls;
	size_t at = 0;
	int got;

	if (!pp_need_root("big_filter 10000 hosts"))
		return;
	for (size_t i = 0; i < BIG_HOSTS; i++) {
		__u32 h = big_host(i);

		at += (size_t)sprintf(expr + at, "%shost %u.%u.%u.%u", i ? " or " : "", h >> 24,
				      h >> 16 & 0xff, h >> 8 & 0xff, h & 0xff);
	}
	o.expr = expr;
	ck_assert_msg(pp_cls_load(&cls, &o, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(cls.filter.chunks, (BIG_HOSTS + PP_SPLIT_CHUNK - 1) / PP_SPLIT_CHUNK);
	ck_assert_uint_gt(cls.filter.cnt, 32767); /* jumps to the match go through islands */
	for (size_t i = 0; i <= LEN(probe); i++) {
		__u32 dst = i < LEN(probe) ? big_host(probe[i]) : big_host(BIG_HOSTS);
		int want;

		udp_frame(f, dst);
		want = pp_pcap_offline_match(cls.filter.cbpf, cls.filter.cbpf_len, f, sizeof(f),
					     sizeof(f));
		ck_assert_int_eq(pp_cls_run(&cls, f, sizeof(f), &got), 0);
		ck_assert_int_eq(want != 0, i < LEN(probe));
		ck_assert_msg(got == (want != 0), "host #%zu: kernel %d, libpcap %d", i, got, want);
	}
	printf("big_filter: %d hosts: %zu classic, %zu eBPF instructions, %zu libpcap compiles\n",
	       BIG_HOSTS, cls.filter.cbpf_len, cls.filter.cnt, cls.filter.chunks);
	pp_cls_destroy(&cls);
	free(expr);
}
END_TEST

/*
 * A classic JA across 5000 loads of one byte (about 40000 eBPF instructions;
 * one offset, so that the verifier prunes) to a RET that matches: the kernel's verdict is libpcap's
 * both ways.
 */
START_TEST(test_long_jump)
{
	size_t n = 5000, len = n + 5;
	struct sock_filter *p = calloc(len, sizeof(*p));
	unsigned char f[60];
	struct pp_cls cls;
	char err[512];

	if (!pp_need_root("big_filter long jump"))
		return;
	p[0] = (struct sock_filter){BPF_LD | BPF_W | BPF_ABS, 0, 0, 30};
	p[1] = (struct sock_filter){BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0xc6130001};
	p[2] = (struct sock_filter){BPF_JMP | BPF_JA, 0, 0, (__u32)n + 1};
	for (size_t i = 0; i < n; i++)
		p[3 + i] = (struct sock_filter){BPF_LD | BPF_B | BPF_ABS, 0, 0, 23};
	p[n + 3] = (struct sock_filter){BPF_RET | BPF_K, 0, 0, 0};
	p[n + 4] = (struct sock_filter){BPF_RET | BPF_K, 0, 0, 1};
	for (unsigned int mode = 0; mode < 2; mode++) {
		struct pp_cls_opts o = {.cbpf = p, .cbpf_len = len, .xlate_flags = mode};

		ck_assert_msg(pp_cls_load(&cls, &o, err, sizeof(err)) == 0, "%s", err);
		ck_assert_uint_gt(cls.filter.cnt, 32767);
		for (__u32 dst = 0xc6130001; dst <= 0xc6130002; dst++) {
			int got, want;

			udp_frame(f, dst);
			want = pp_pcap_offline_match(p, len, f, sizeof(f), sizeof(f)) != 0;
			ck_assert_int_eq(pp_cls_run(&cls, f, sizeof(f), &got), 0);
			ck_assert_int_eq(want, dst == 0xc6130001);
			ck_assert_int_eq(got, want);
		}
		pp_cls_destroy(&cls);
	}
	free(p);
}
END_TEST

/* Past the verifier's limits: -E2BIG, a message with the limit and the size. */
START_TEST(test_too_big)
{
	size_t n = 1000001;
	struct sock_filter *p = calloc(n, sizeof(*p));
	struct bpf_insn *v = NULL;
	char err[256];
	size_t cnt;

	p[n - 1].code = BPF_RET | BPF_K;
	ck_assert_int_eq(pp_xlate(p, n, 0, &v, &cnt, err, sizeof(err)), -E2BIG);
	ck_assert_msg(strstr(err, "1000001") && strstr(err, "limit"), "%s", err);
	/* 600000 loads fit the classic count but not the eBPF one. */
	for (size_t i = 0; i < 600000; i++)
		p[i] = (struct sock_filter){BPF_LD | BPF_B | BPF_ABS, 0, 0, 0};
	p[600000] = (struct sock_filter){BPF_RET | BPF_K, 0, 0, 1};
	ck_assert_int_eq(pp_xlate(p, 600001, 0, &v, &cnt, err, sizeof(err)), -E2BIG);
	ck_assert_msg(strstr(err, "eBPF instructions") && strstr(err, "1000000"), "%s", err);
	free(p);
}
END_TEST

Suite *big_filter_suite(void)
{
	Suite *s = suite_create("big_filter");
	TCase *tc = tcase_create("big");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_split_where);
	tcase_add_test(tc, test_join);
	tcase_add_test(tc, test_chunks_decide_as_whole);
	tcase_add_test(tc, test_cut_frames);
	tcase_add_test(tc, test_ten_thousand_hosts);
	tcase_add_test(tc, test_long_jump);
	tcase_add_test(tc, test_too_big);
	suite_add_tcase(s, tc);
	return s;
}
