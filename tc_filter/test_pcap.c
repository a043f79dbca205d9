// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "classifier.h"
#include "pcap_io.h"
#include "test_pcap.h"

#define ETH_HLEN 14

struct run_ctx {
	struct pp_cls *cls;
	FILE *out, *errout;
	unsigned long frames, matched, skipped;
	int err;
};

static int run_frame(unsigned long num, const unsigned char *data, unsigned int caplen, void *arg)
{
	struct run_ctx *r = arg;
	int match = 0, err;

	r->frames = num;
	/* The kernel runs a TC program only on a frame with an Ethernet header. */
	if (caplen < ETH_HLEN) {
		fprintf(r->errout, "pktpath: frame %lu: %u bytes, shorter than Ethernet: not run\n",
			num, caplen);
		r->skipped++;
		return 0;
	}
	err = pp_cls_run(r->cls, data, caplen, &match);
	if (err == -EINVAL) {
		fprintf(r->errout,
			"pktpath: frame %lu: the kernel refuses to test-run it (%u bytes: a "
			"truncated IP header?): not run\n",
			num, caplen);
		r->skipped++;
		return 0;
	}
	if (err) {
		fprintf(r->errout, "pktpath: frame %lu (%u bytes): test run failed: %s\n", num,
			caplen, strerror(-err));
		r->err = err;
		return err;
	}
	if (match) {
		r->matched++;
		fprintf(r->out, "%lu\n", num);
	}
	return 0;
}

int pp_test_pcap(const char *expr, const char *path, FILE *out, FILE *errout)
{
	struct pp_cls_opts o = {.expr = expr};
	struct run_ctx r = {.out = out, .errout = errout};
	struct pp_cls cls;
	char err[512] = "";
	int ret;

	ret = pp_cls_load(&cls, &o, err, sizeof(err));
	if (ret) {
		fprintf(errout, "pktpath: %s\n", err);
		return ret == -EINVAL || ret == -E2BIG ? 2 : 1;
	}
	r.cls = &cls;
	ret = pp_pcap_foreach(path, run_frame, &r, err, sizeof(err));
	pp_cls_destroy(&cls);
	if (ret && !r.err) {
		fprintf(errout, "pktpath: %s\n", err);
		return 2;
	}
	if (r.err)
		return 1;
	fprintf(errout, "%lu of %lu frames match", r.matched, r.frames);
	if (r.skipped)
		fprintf(errout, " (%lu not run)", r.skipped);
	fputs("\n", errout);
	return 0;
}
