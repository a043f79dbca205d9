// SPDX-License-Identifier: GPL-2.0
/*
 * The instruction mapping where a mistake would hide: hand-written classic
 * programs, each run in the kernel in both load modes and compared with
 * libpcap's interpreter, plus the programs the translator must refuse.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "suites.h"
#include "filter/classifier.h"
#include "kernel_run.h"

#define LEN(a)	      (sizeof(a) / sizeof((a)[0]))
#define S(c, k)	      ((struct sock_filter){(c), 0, 0, (k)})
#define J(c, k, t, f) ((struct sock_filter){(c), (t), (f), (k)})

/* An IPv4/TCP frame: ihl 5, tos 0, ttl 64, ports 1234 > 80, 60 bytes. */
static unsigned char frame[60] = {
	0, 1,	 2, 3,	4, 5, 6, 7,   8,  9, 10, 11,  0x08, 0x00, 0x45, 0x00, 0x00, 0x2e, 0,
	0, 0x40, 0, 64, 6, 0, 0, 198, 18, 0, 1,	 198, 18,   1,	  2,	0x04, 0xd2, 0x00, 0x50,
};

/* Verdict in the kernel (both modes agree) or -1; it must equal libpcap's. */
static int kernel_verdict(const struct sock_filter *prog, size_t len)
{
	int verdict[2];

	for (int mode = 0; mode < 2; mode++) {
		struct pp_cls_opts o = {.cbpf = prog, .cbpf_len = len, .xlate_flags = mode};
		struct pp_cls cls;
		char err[256];

		ck_assert_msg(pp_cls_load(&cls, &o, err, sizeof(err)) == 0, "%s", err);
		ck_assert_int_eq(pp_cls_run(&cls, frame, sizeof(frame), &verdict[mode]), 0);
		pp_cls_destroy(&cls);
	}
	ck_assert_int_eq(verdict[0], verdict[1]);
	ck_assert_int_eq(verdict[0], pp_pcap_offline_match(prog, len, frame, sizeof(frame),
							   sizeof(frame)) != 0);
	return verdict[0];
}

#define CHECK(prog, want)                                                                          \
	do {                                                                                       \
		if (pp_need_root("xlate"))                                                         \
			ck_assert_int_eq(kernel_verdict(prog, LEN(prog)), want);                   \
	} while (0)

START_TEST(test_ld_abs_sizes)
{
	struct sock_filter w[] = {S(BPF_LD | BPF_W | BPF_ABS, 26),
				  J(BPF_JMP | BPF_JEQ | BPF_K, 0xc6120001, 0, 1),
				  S(BPF_RET | BPF_K, 1), S(BPF_RET | BPF_K, 0)};
	struct sock_filter h[] = {S(BPF_LD | BPF_H | BPF_ABS, 36),
				  J(BPF_JMP | BPF_JEQ | BPF_K, 80, 0, 1), S(BPF_RET | BPF_K, 1),
				  S(BPF_RET | BPF_K, 0)};
	struct sock_filter past[] = {S(BPF_LD | BPF_W | BPF_ABS, 58), S(BPF_RET | BPF_K, 1)};
	struct sock_filter huge[] = {S(BPF_LD | BPF_B | BPF_ABS, 0xfffff000),
				     S(BPF_RET | BPF_K, 1)};

	CHECK(w, 1);
	CHECK(h, 1);
	CHECK(past, 0); /* 58 + 4 > 60: no match, as in libpcap */
	CHECK(huge, 0); /* Linux's ancillary offsets are plain loads to libpcap */
}
END_TEST

START_TEST(test_msh_and_ind)
{
	/* X = ihl * 4; A = P[X + 14 + 2 : 2] is the destination port. */
	struct sock_filter p[] = {S(BPF_LDX | BPF_B | BPF_MSH, 14), S(BPF_LD | BPF_H | BPF_IND, 16),
				  J(BPF_JMP | BPF_JEQ | BPF_K, 80, 0, 1), S(BPF_RET | BPF_K, 1),
				  S(BPF_RET | BPF_K, 0)};
	/* libpcap does not wrap X + k at 32 bits: past the end, no match. */
	struct sock_filter wrap[] = {S(BPF_LDX | BPF_IMM, 0xffffffff),
				     S(BPF_LD | BPF_B | BPF_IND, 2), S(BPF_RET | BPF_K, 1)};

	CHECK(p, 1);
	CHECK(wrap, 0);
}
END_TEST

START_TEST(test_alu_edges)
{
	struct sock_filter div0[] = {S(BPF_LD | BPF_IMM, 7), S(BPF_LDX | BPF_IMM, 0),
				     S(BPF_ALU | BPF_DIV | BPF_X, 0), S(BPF_RET | BPF_K, 1)};
	struct sock_filter mod0[] = {S(BPF_LD | BPF_IMM, 7), S(BPF_LDX | BPF_IMM, 0),
				     S(BPF_ALU | BPF_MOD | BPF_X, 0), S(BPF_RET | BPF_K, 1)};
	struct sock_filter neg[] = {S(BPF_LD | BPF_IMM, 1), S(BPF_ALU | BPF_NEG, 0),
				    J(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffff, 0, 1),
				    S(BPF_RET | BPF_K, 1), S(BPF_RET | BPF_K, 0)};
	struct sock_filter shl40[] = {S(BPF_LD | BPF_IMM, 1), S(BPF_LDX | BPF_IMM, 40),
				      S(BPF_ALU | BPF_LSH | BPF_X, 0), S(BPF_RET | BPF_A, 0)};
	struct sock_filter rsh31[] = {S(BPF_LD | BPF_IMM, 0x80000000), S(BPF_LDX | BPF_IMM, 31),
				      S(BPF_ALU | BPF_RSH | BPF_X, 0), S(BPF_RET | BPF_A, 0)};
	struct sock_filter wrapadd[] = {S(BPF_LD | BPF_IMM, 0xffffffff),
					S(BPF_ALU | BPF_ADD | BPF_K, 2),
					J(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
					S(BPF_RET | BPF_K, 1), S(BPF_RET | BPF_K, 0)};
	struct sock_filter ugt[] = {S(BPF_LD | BPF_IMM, 0x90000000),
				    J(BPF_JMP | BPF_JGT | BPF_K, 0x7fffffff, 0, 1),
				    S(BPF_RET | BPF_K, 1), S(BPF_RET | BPF_K, 0)};

	CHECK(div0, 0);
	CHECK(mod0, 0);
	CHECK(neg, 1);
	CHECK(shl40, 0); /* libpcap 1.10: everything shifted out */
	CHECK(rsh31, 1);
	CHECK(wrapadd, 1); /* 32-bit arithmetic */
	CHECK(ugt, 1);	   /* unsigned compare of a "negative" constant */
}
END_TEST

START_TEST(test_scratch_memory)
{
	struct sock_filter p[] = {S(BPF_LD | BPF_B | BPF_ABS, 23), /* protocol 6 */
				  S(BPF_ST, 3),
				  S(BPF_LD | BPF_IMM, 0),
				  S(BPF_LDX | BPF_MEM, 3),
				  S(BPF_MISC | BPF_TXA, 0),
				  S(BPF_STX, 15),
				  S(BPF_LD | BPF_MEM, 15),
				  J(BPF_JMP | BPF_JEQ | BPF_K, 6, 0, 1),
				  S(BPF_RET | BPF_K, 1),
				  S(BPF_RET | BPF_K, 0)};
	struct sock_filter unset[] = {S(BPF_LD | BPF_MEM, 5), S(BPF_ALU | BPF_ADD | BPF_K, 1),
				      S(BPF_RET | BPF_A, 0)};

	CHECK(p, 1);
	CHECK(unset, 1); /* never-written M[] reads 0 here */
}
END_TEST

/* A long forward jump over the whole program, and jt/jf both taken. */
START_TEST(test_jumps)
{
	struct sock_filter p[210];
	size_t n = 0;

	p[n++] = S(BPF_LD | BPF_B | BPF_ABS, 23);
	p[n++] = J(BPF_JMP | BPF_JEQ | BPF_K, 6, 1, 0);
	p[n++] = S(BPF_JMP | BPF_JA, 200); /* to the "ret 0" at the end */
	while (n < 203)
		p[n++] = S(BPF_LD | BPF_H | BPF_ABS, 12);
	p[n++] = J(BPF_JMP | BPF_JSET | BPF_K, 0x0800, 0, 1);
	p[n++] = S(BPF_RET | BPF_K, 262144);
	p[n++] = S(BPF_RET | BPF_K, 0);
	if (pp_need_root("xlate"))
		ck_assert_int_eq(kernel_verdict(p, n), 1);
	p[1].k = 17; /* not UDP: the long jump is taken */
	if (pp_need_root("xlate"))
		ck_assert_int_eq(kernel_verdict(p, n), 0);
}
END_TEST

/* The verifier refuses unreachable code: it is not emitted. */
START_TEST(test_unreachable_and_never)
{
	struct sock_filter dead[] = {S(BPF_RET | BPF_K, 1), S(BPF_LD | BPF_IMM, 1),
				     S(BPF_RET | BPF_A, 0)};
	struct sock_filter never[] = {S(BPF_RET | BPF_K, 0)};

	CHECK(dead, 1);
	CHECK(never, 0);
}
END_TEST

static void expect_refused(const struct sock_filter *p, size_t n, const char *msg)
{
	struct bpf_insn *out = NULL;
	size_t cnt;
	char err[256] = "";

	ck_assert_int_eq(pp_xlate(p, n, 0, &out, &cnt, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, msg), "\"%s\" lacks \"%s\"", err, msg);
	ck_assert_ptr_null(out);
}

START_TEST(test_refused)
{
	struct sock_filter div[] = {S(BPF_ALU | BPF_DIV | BPF_K, 0), S(BPF_RET | BPF_K, 1)};
	struct sock_filter mem[] = {S(BPF_ST, 16), S(BPF_RET | BPF_K, 1)};
	struct sock_filter past[] = {J(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 0), S(BPF_RET | BPF_K, 1)};
	struct sock_filter off[] = {S(BPF_LD | BPF_IMM, 1)};
	struct sock_filter back[] = {S(BPF_JMP | BPF_JA, 0xffffffff), S(BPF_RET | BPF_K, 1)};
	struct sock_filter shift[] = {S(BPF_ALU | BPF_LSH | BPF_K, 32), S(BPF_RET | BPF_K, 1)};
	struct sock_filter op[] = {S(0xff, 0), S(BPF_RET | BPF_K, 1)};
	struct sock_filter *ch;
	size_t len;
	char err[256];

	expect_refused(div, LEN(div), "division by constant zero");
	expect_refused(mem, LEN(mem), "scratch memory index 16");
	expect_refused(past, LEN(past), "jump past the end");
	expect_refused(off, LEN(off), "runs off the end");
	expect_refused(back, LEN(back), "backward jump");
	expect_refused(shift, LEN(shift), "shift by 32");
	expect_refused(op, LEN(op), "0x00ff");
	/* libpcap's protochain is such a loop. */
	ck_assert_int_eq(pp_pcap_compile("ip6 protochain 6", &ch, &len, err, sizeof(err)), 0);
	expect_refused(ch, len, "protochain");
	free(ch);
}
END_TEST

/* A bad expression: libpcap's message, and nothing loaded. */
START_TEST(test_bad_expression)
{
	struct pp_cls_opts o = {.expr = "icmp and and"};
	struct pp_cls cls;
	char err[256];

	ck_assert_int_eq(pp_cls_load(&cls, &o, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "bad filter \"icmp and and\": can't parse filter expression: "
			      "syntax error");
	ck_assert_ptr_null(cls.skel);
}
END_TEST

Suite *xlate_suite(void)
{
	Suite *s = suite_create("xlate");
	TCase *tc = tcase_create("mapping");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_ld_abs_sizes);
	tcase_add_test(tc, test_msh_and_ind);
	tcase_add_test(tc, test_alu_edges);
	tcase_add_test(tc, test_scratch_memory);
	tcase_add_test(tc, test_jumps);
	tcase_add_test(tc, test_unreachable_and_never);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_bad_expression);
	suite_add_tcase(s, tc);
	return s;
}
