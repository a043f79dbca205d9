// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test: every expression x every corpus frame, the verdict
 * --test-pcap gives (frame_verdict.c: the translated program run in the
 * kernel, or in user space for the frames the kernel will not test-run)
 * equals pcap_offline_filter()'s on libpcap's own program, in both load modes
 * (direct packet access, and bpf_skb_load_bytes() only, the path of
 * non-linear skbs). No pair is left out. Wherever the kernel decides, the
 * user-space interpreter must decide the same: that is what makes its
 * verdicts on the other frames worth having.
 */
#include <stdio.h>
#include <stdlib.h>
#include "suites.h"
#include "filter/classifier.h"
#include "corpus.h"
#include "filter_exprs.h"
#include "filter/frame_verdict.h"
#include "kernel_run.h"

#define PP_SHOW_MISMATCHES 20

struct diff {
	const struct pp_corpus *corpus;
	size_t pairs, mismatches;
	size_t by[PP_BY_USER_CUT + 1];	   /* pairs per enum pp_decider */
	size_t interp_pairs, interp_diffs; /* interpreter vs kernel */
};

static void show(struct diff *d, const char *what, const char *expr, unsigned int flags, size_t i,
		 int a, int b)
{
	if (d->mismatches + d->interp_diffs < PP_SHOW_MISMATCHES)
		printf("MISMATCH %s \"%s\" flags %u frame %zu (%s): %d, %d\n", what, expr, flags,
		       i + 1, d->corpus->v[i].desc, a, b);
}

/* In the kernel's pairs: does the interpreter say the same? */
static void check_interp(struct diff *d, const struct pp_cls *cls, const char *expr,
			 unsigned int flags, size_t i, int kernel)
{
	const struct pp_frame *f = &d->corpus->v[i];
	char err[320];
	int user = -1;

	ck_assert_msg(pp_frame_verdict_user(cls, f->data, f->len, f->wire_len, &user, err,
					    sizeof(err)) == 0,
		      "\"%s\" frame %zu: %s", expr, i + 1, err);
	d->interp_pairs++;
	if (user != kernel) {
		show(d, "interpreter vs kernel", expr, flags, i, user, kernel);
		d->interp_diffs++;
	}
}

static void compare_expr(struct diff *d, const char *expr, const struct sock_filter *prog,
			 size_t len, unsigned int flags)
{
	struct pp_cls_opts o = {.cbpf = prog, .cbpf_len = len, .xlate_flags = flags};
	struct pp_cls cls;
	char err[512];

	ck_assert_msg(pp_cls_load(&cls, &o, err, sizeof(err)) == 0, "\"%s\": %s", expr, err);
	for (size_t i = 0; i < d->corpus->n; i++) {
		const struct pp_frame *f = &d->corpus->v[i];
		int want = pp_pcap_offline_match(prog, len, f->data, f->len, f->wire_len) != 0;
		enum pp_decider by;
		int got = -1;

		ck_assert_msg(pp_frame_verdict(&cls, f->data, f->len, f->wire_len, &got, &by, err,
					       sizeof(err)) == 0,
			      "\"%s\" frame %zu (%s): %s", expr, i + 1, f->desc, err);
		d->pairs++;
		d->by[by]++;
		if (by == PP_BY_KERNEL)
			check_interp(d, &cls, expr, flags, i, got);
		if (got == want)
			continue;
		show(d, by == PP_BY_KERNEL ? "kernel vs libpcap" : "user space vs libpcap", expr,
		     flags, i, got, want);
		d->mismatches++;
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
	       "%zu mismatches; decided in the kernel %zu, in user space %zu (the kernel's test "
	       "run refuses the frame) and %zu (cut by a snap length, the filter reads len); "
	       "interpreter vs kernel: %zu pairs, %zu differ\n",
	       d.pairs, pp_filter_nexprs, corpus.n, d.mismatches, d.by[PP_BY_KERNEL],
	       d.by[PP_BY_USER_REFUSED], d.by[PP_BY_USER_CUT], d.interp_pairs, d.interp_diffs);
	fflush(stdout); /* the MISMATCH lines too, before an assertion ends the fork */
	/* Every pair decided; the corpus holds frames of each kind. */
	ck_assert_uint_eq(d.pairs, pp_filter_nexprs * corpus.n * 2);
	ck_assert_uint_gt(d.by[PP_BY_USER_REFUSED], 0);
	ck_assert_uint_gt(d.by[PP_BY_USER_CUT], 0);
	pp_corpus_free(&corpus);
	ck_assert_uint_eq(d.mismatches, 0);
	ck_assert_uint_eq(d.interp_diffs, 0);
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
