// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include "output/export_pcapng.h"
#include "output/export_perfetto.h"
#include "output/exports.h"
#include "base/safe_file.h"

/*
 * The capture holds packet bytes (up to 128 of each: payload too, for small
 * packets): its owner only. The timeline holds what the text output shows.
 */
#define PP_PCAPNG_MODE	 0600
#define PP_PERFETTO_MODE 0644

static int create(struct pp_safe_file **sf, const char *opt, const char *path, mode_t mode,
		  char *err, size_t errlen)
{
	char why[384];

	*sf = pp_safe_file_create(path, mode, why, sizeof(why));
	if (!*sf) {
		snprintf(err, errlen, "%s %s: %s", opt, path, why);
		return -EINVAL;
	}
	return 0;
}

int pp_exports_open(struct pp_exports *x, const char *pcapng, const char *perfetto, __u32 snaplen,
		    const char *appl, char *err, size_t errlen)
{
	int ret = 0;

	memset(x, 0, sizeof(*x));
	pp_wallclock_measure(&x->clock);
	x->pcapng_path = pcapng;
	x->perfetto_path = perfetto;
	if (pcapng)
		ret = create(&x->pcapng_sf, "--pcapng", pcapng, PP_PCAPNG_MODE, err, errlen);
	if (!ret && perfetto)
		ret = create(&x->perfetto_sf, "--perfetto", perfetto, PP_PERFETTO_MODE, err,
			     errlen);
	if (!ret && x->pcapng_sf) {
		x->pcapng = pp_pcapng_out_new(pp_safe_file_file(x->pcapng_sf), snaplen,
					      x->clock.off, appl);
		ret = x->pcapng ? 0 : -ENOMEM;
	}
	if (!ret && x->perfetto_sf) {
		x->perfetto = pp_perfetto_out_new(pp_safe_file_file(x->perfetto_sf), appl);
		ret = x->perfetto ? 0 : -ENOMEM;
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (ret)
		pp_exports_discard(x);
	return ret;
}

int pp_exports_publish(struct pp_exports *x, char *err, size_t errlen)
{
	if (x->pcapng_sf && pp_safe_file_publish(x->pcapng_sf, err, errlen))
		return -EIO;
	if (x->perfetto_sf && pp_safe_file_publish(x->perfetto_sf, err, errlen))
		return -EIO;
	return 0;
}

void pp_exports_packet(const struct pp_packet *p, void *ctx)
{
	struct pp_exports *x = ctx;

	if (x->pcapng)
		pp_pcapng_out_packet(x->pcapng, x->out, p);
	if (x->perfetto)
		pp_perfetto_out_packet(x->perfetto, x->out, p);
}

static int close_one(struct pp_safe_file **sf, __u64 n, const char *path, FILE *report, char *err,
		     size_t errlen)
{
	int ret = pp_safe_file_close(*sf, err, errlen);

	*sf = NULL;
	if (!ret && report)
		fprintf(report, "pktpath: %llu packet%s written to %s\n", (unsigned long long)n,
			n == 1 ? "" : "s", path);
	return ret;
}

int pp_exports_close(struct pp_exports *x, FILE *report, char *err, size_t errlen)
{
	int ret = 0, r;

	if (x->pcapng_sf)
		ret = close_one(&x->pcapng_sf, pp_pcapng_out_count(x->pcapng), x->pcapng_path,
				report, err, errlen);
	if (x->perfetto_sf) {
		pp_perfetto_out_end(x->perfetto);
		r = close_one(&x->perfetto_sf, pp_perfetto_out_count(x->perfetto), x->perfetto_path,
			      report, ret ? NULL : err, ret ? 0 : errlen);
		ret = ret ? ret : r;
	}
	pp_exports_discard(x);
	return ret;
}

void pp_exports_discard(struct pp_exports *x)
{
	pp_safe_file_discard(x->pcapng_sf);
	pp_safe_file_discard(x->perfetto_sf);
	pp_pcapng_out_free(x->pcapng);
	pp_perfetto_out_free(x->perfetto);
	x->pcapng_sf = x->perfetto_sf = NULL;
	x->pcapng = NULL;
	x->perfetto = NULL;
}
