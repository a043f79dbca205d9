// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test: every expression x every corpus frame, the verdict of
 * the translated program run in the kernel equals pcap_offline_filter()'s
 * on libpcap's own program, in both load modes (direct packet access, and
 * bpf_skb_load_bytes() only, the path of non-linear skbs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "suites.h"
#include "classifier.h"
#include "corpus.h"
#include "filter_exprs.h"
#include "kernel_run.h"

#define PP_SHOW_MISMATCHES 20
/* BPF_PROG_TEST_RUN refuses IP frames shorter than an IP header (-EINVAL). */
#define PP_MIN_RUNNABLE_IP (14 + 40)

struct diff {
	const struct pp_corpus *corpus;
	size_t pairs, mismatches, refused;
};

static void compare_expr(struct diff *d, const char *expr, const struct sock_filter *prog,
			 size_t len, unsigned int flags)
{
	struct pp_cls_opts o = {.cbpf = prog, .cbpf_len = len, .xlate_flags = flags};
	struct pp_cls cls;
	char err[512];

	ck_assert_msg(pp_cls_load(&cls, &o, err, sizeof(err)) == 0, "\"%s\": %s", expr, err);
	for (size_t i = 0; i < d->corpus->n; i++) {
		const struct pp_frame *f = &d->corpus->v[i];
		int want = pp_pcap_offline_match(prog, len, f->data, f->len) != 0, got = -1;

		int ret = pp_cls_run(&cls, f->data, f->len, &got);

		if (ret == -EINVAL && f->len < PP_MIN_RUNNABLE_IP) {
			d->refused++;
			continue;
		}
		ck_assert_msg(ret == 0, "frame %zu (%s): %d", i + 1, f->desc, ret);
		d->pairs++;
		if (got == want)
			continue;
		if (d->mismatches++ < PP_SHOW_MISMATCHES)
			printf("MISMATCH \"%s\" flags %u frame %zu (%s): kernel %d, libpcap %d\n",
			       expr, flags, i + 1, f->desc, got, want);
	}
	pp_cls_destroy(&cls);
}

START_TEST(test_against_libpcap)
{
	struct pp_corpus corpus = {0};
	struct diff d = {.corpus = &corpus};

	if (!pp_need_root("filter_diff"))
		return;
	ck_assert_int_eq(pp_corpus_build(&corpus), 0);
	ck_assert_uint_ge(corpus.n, 300);
	ck_assert_uint_ge(pp_filter_nexprs, 80);
	for (size_t e = 0; e < pp_filter_nexprs; e++) {
		struct sock_filter *prog;
		size_t len;
		char err[256];

		ck_assert_msg(pp_pcap_compile(pp_filter_exprs[e], &prog, &len, err, sizeof(err)) ==
				      0,
			      "\"%s\": %s", pp_filter_exprs[e], err);
		compare_expr(&d, pp_filter_exprs[e], prog, len, 0);
		compare_expr(&d, pp_filter_exprs[e], prog, len, PP_XLATE_NO_DIRECT);
		free(prog);
	}
	printf("filter_diff: compared %zu pairs (%zu expressions x %zu frames x 2 load modes), "
	       "%zu mismatches; %zu pairs not run: the kernel refuses to test-run IP frames "
	       "shorter than an IP header\n",
	       d.pairs, pp_filter_nexprs, corpus.n, d.mismatches, d.refused);
	pp_corpus_free(&corpus);
	ck_assert_uint_eq(d.mismatches, 0);
}
END_TEST

Suite *filter_diff_suite(void)
{
	Suite *s = suite_create("filter_diff");
	TCase *tc = tcase_create("libpcap");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_against_libpcap);
	suite_add_tcase(s, tc);
	return s;
}
