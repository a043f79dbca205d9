// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "filter/classifier.h"
#include "filter/frame_verdict.h"
#include "filter/pcap_io.h"
#include "filter/test_pcap.h"

struct run_ctx {
	struct pp_cls *cls;
	FILE *out, *errout;
	unsigned long frames, matched;
	unsigned long by[PP_BY_USER_CUT + 1]; /* frames per enum pp_decider */
	int err;
};

static int run_frame(unsigned long num, const unsigned char *data, unsigned int caplen,
		     unsigned int wirelen, void *arg)
{
	struct run_ctx *r = arg;
	enum pp_decider by;
	char err[320];
	int match = 0;

	r->frames = num;
	r->err = pp_frame_verdict(r->cls, data, caplen, wirelen, &match, &by, err, sizeof(err));
	if (r->err) {
		fprintf(r->errout, "pktpath: frame %lu (%u bytes): %s\n", num, caplen, err);
		return r->err;
	}
	r->by[by]++;
	if (match) {
		r->matched++;
		fprintf(r->out, "%lu\n", num);
	}
	return 0;
}

static const char *plural(unsigned long n)
{
	return n == 1 ? "" : "s";
}

/* How many frames the kernel did not decide, and why. */
static void report_user_space(const struct run_ctx *r)
{
	unsigned long refused = r->by[PP_BY_USER_REFUSED], cut = r->by[PP_BY_USER_CUT];

	if (refused)
		fprintf(r->errout,
			"pktpath: %lu frame%s the kernel's test run refuses (too short for %s "
			"headers, or too long) decided in user space\n",
			refused, plural(refused), refused == 1 ? "its" : "their");
	if (cut)
		fprintf(r->errout,
			"pktpath: %lu frame%s cut short by the capture decided in user space, "
			"with %s length on the wire as the filter's len\n",
			cut, plural(cut), cut == 1 ? "its" : "their");
}

int pp_test_pcap(const char *expr, bool inner, const char *path, FILE *out, FILE *errout)
{
	struct pp_cls_opts o = {.expr = expr, .xlate_flags = inner ? PP_XLATE_INNER : 0};
	struct run_ctx r = {.out = out, .errout = errout};
	struct pp_cls cls;
	char err[512] = "";
	int ret;

	ret = pp_cls_load(&cls, &o, err, sizeof(err));
	if (ret) {
		fprintf(errout, "pktpath: %s\n", err);
		return ret == -EINVAL || ret == -E2BIG ? 2 : 1;
	}
	if (cls.outer_only)
		fprintf(errout, "pktpath: the filter fits the verifier's limits only without the "
				"inner view: it matches the outer headers only (as --no-inner)\n");
	r.cls = &cls;
	ret = pp_pcap_foreach(path, run_frame, &r, err, sizeof(err));
	pp_cls_destroy(&cls);
	if (ret && !r.err) {
		fprintf(errout, "pktpath: %s\n", err);
		return 2;
	}
	if (r.err)
		return 1;
	report_user_space(&r);
	fprintf(errout, "%lu of %lu frames match\n", r.matched, r.frames);
	return 0;
}
