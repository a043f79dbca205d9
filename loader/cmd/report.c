// SPDX-License-Identifier: GPL-2.0
/*
 * `pktpath report`: each line of a saved --json file is read back into the
 * packet a live run handed its printers (report_read.h), and the same
 * printers run: the distinct-path summary, the exit totals, the pcapng and
 * Perfetto exports. Nothing here needs a capability.
 *
 * A line that cannot be read (a run killed in mid-line leaves a cut last
 * line; a damaged file, a line of something else) is skipped, named on
 * stderr with its number and counted; every other line is still read.
 * A file where no line is a packet and some line was bad is bad input.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cli.h"
#include "output/exports.h"
#include "output/output_summary.h"
#include "cmd/report.h"
#include "cmd/report_hosts.h"
#include "report/report_read.h"
#include "base/log.h"

#ifndef PKTPATH_VERSION
#define PKTPATH_VERSION "dev"
#endif

#define PP_SKIP_NAMED 10 /* bad lines named one by one; the rest only counted */

struct report {
	const char *file;
	const char *const *export_paths; /* by enum pp_export_kind; NULL: not written */
	/* Several files: one packet's records from several hosts, joined (report_hosts.h). */
	const char *const *files;
	int nfiles;
	double window, tolerance; /* --window, --clock-tolerance (seconds), -1: not given */
	unsigned int snaplen;
	bool summary;
	const struct pp_out_ops *format;
	FILE *in;
	struct pp_report_read *reader;
	struct pp_summary *paths;
	struct pp_totals totals;
	struct pp_exports exports;
	struct pp_out out;
	unsigned long long lineno, skipped, others;
	bool has_totals;  /* the file's exit line was read: lost records are known */
	bool has_elapsed; /* a final path summary was read: its run's length */
	double elapsed;
	__u64 first_ns, last_ns; /* the span of the packets' times, when every line has them */
	bool all_timed;
	bool told_untimed; /* --perfetto of a file without times: said once */
	char err[512];
};

static void say(const char *fmt, va_list ap)
{
	pp_vwarn(fmt, ap);
	fputs("\n", stderr);
}

/* Bad usage or bad input: exit status 2. */
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	return PP_EXIT_USAGE;
}

/* Out of memory, a file not written: exit status 1. */
static int failure(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	return PP_EXIT_FAIL;
}

static void skip_line(struct report *r, const char *why)
{
	if (r->skipped++ < PP_SKIP_NAMED)
		pp_warn("%s:%llu: skipped: %s\n", r->file, r->lineno, why);
}

/*
 * What the exports need that the line may not have: bad input, said once.
 * A timeline needs no date: a packet line without times (written before
 * every line had them) starts at 0, and stderr says so once.
 */
static int check_export(struct report *r, const struct pp_report_read_item *it,
			enum pp_export_kind k)
{
	const struct pp_export_ops *ops = pp_export_ops_of(k);
	const char *need = NULL;

	if (ops->bytes && it->pkt->mark && !it->has_head)
		need = "packet bytes (\"head\")";
	else if (ops->bytes && !it->has_time)
		need = "packet times (\"mono_ns\", \"real_ns\")";
	if (need)
		return usage_error("%s:%llu: no %s: %s needs a file recorded with pktpath "
				   "--json --snaplen N",
				   r->file, r->lineno, need, ops->option);
	if (ops->zero_untimed && !it->has_time && !r->told_untimed) {
		r->told_untimed = true;
		pp_warn("%s:%llu: no packet times (\"mono_ns\"; an older pktpath's "
			"file): in %s such packets all start at 0\n",
			r->file, r->lineno, r->export_paths[k]);
	}
	return 0;
}

/* Each export asked for, in its row's order (exports.c), by its row's flags. */
static int check_packet(struct report *r, const struct pp_report_read_item *it)
{
	int ret = 0;

	for (size_t k = 0; !ret && k < PP_EXPORTS; k++)
		if (r->export_paths[k])
			ret = check_export(r, it, (enum pp_export_kind)k);
	return ret;
}

static void span(struct report *r, const struct pp_report_read_item *it)
{
	const struct pp_packet *p = it->pkt;
	__u64 a = p->hops[0].ts, b = p->hops[p->nhops - 1].ts;

	if (!it->has_time) {
		r->all_timed = false;
		return;
	}
	if (!r->first_ns || a < r->first_ns)
		r->first_ns = a;
	if (b > r->last_ns)
		r->last_ns = b;
}

static int on_packet(struct report *r, const struct pp_report_read_item *it)
{
	int ret = check_packet(r, it);

	if (ret)
		return ret;
	span(r, it);
	/* Names are added as lines come: the printers get the tables as they are now. */
	pp_report_read_names(r->reader, &r->out);
	if (r->paths)
		pp_summary_add(r->paths, it->pkt);
	pp_exports_set_real_off(&r->exports, it->real_off);
	pp_exports_packet(it->pkt, &r->exports);
	pp_totals_add(&r->totals, it->pkt);
	return 0;
}

static int on_item(struct report *r, const struct pp_report_read_item *it)
{
	switch (it->kind) {
	case PP_REPORT_READ_PACKET:
		return on_packet(r, it);
	case PP_REPORT_READ_TOTALS:
		r->has_totals = true;
		r->totals.lost += it->lost;
		r->totals.map_full += it->map_full;
		r->totals.skipped += it->skipped;
		return 0;
	case PP_REPORT_READ_PATH_SUMMARY:
		if (it->final && it->elapsed >= 0) {
			r->has_elapsed = true;
			r->elapsed = it->elapsed;
		}
		return 0;
	case PP_REPORT_READ_OTHER:
		r->others++;
		return 0;
	default:
		return 0;
	}
}

static int read_all(struct report *r)
{
	struct pp_report_read_item it;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	while (!ret && (n = getline(&line, &cap, r->in)) > 0) {
		bool cut = line[n - 1] != '\n';

		r->lineno++;
		ret = pp_report_read_line(r->reader, line, (size_t)n, &it, r->err, sizeof(r->err));
		if (ret == -EINVAL && cut)
			strncat(r->err, " (the last line, with no newline: was the run killed?)",
				sizeof(r->err) - strlen(r->err) - 1);
		if (ret == -EINVAL)
			skip_line(r, r->err);
		else if (!ret)
			ret = on_item(r, &it);
		ret = ret == -EINVAL ? 0 : ret;
	}
	free(line);
	if (ret == -ENOMEM)
		return failure("%s: out of memory", r->file);
	if (!ret && ferror(r->in))
		return usage_error("%s: read error: %s", r->file, strerror(errno));
	return ret;
}

static void print_summary(struct report *r)
{
	/* The run's length, from the final path summary line the file holds. */
	struct pp_sum_when when = {.elapsed = r->elapsed, .final = true, .file = r->file};

	if (!strcmp(r->file, "-"))
		when.file = "the standard input";
	/* Else the first packet's first hop to the last one's last hop, if any time passed. */
	if (!r->has_elapsed && r->all_timed && r->last_ns > r->first_ns) {
		when.elapsed = (double)(r->last_ns - r->first_ns) / 1e9;
		when.span = true;
	} else if (!r->has_elapsed) {
		when.untimed = true;
	}
	r->out.ops->summary(&r->out, r->paths, &when);
}

static void print_totals(struct report *r)
{
	if (r->summary && r->paths)
		print_summary(r);
	r->out.ops->totals(&r->out, &r->totals);
	fflush(stdout);
	if (r->skipped)
		pp_warn("%llu line%s of %s skipped (%s)\n", r->skipped, r->skipped == 1 ? "" : "s",
			r->file,
			r->skipped > PP_SKIP_NAMED ? "the first named above" : "named above");
	if (r->others)
		pp_warn("%llu line%s of a kind this version does not know "
			"ignored\n",
			r->others, r->others == 1 ? "" : "s");
	if (!r->has_totals && r->totals.packets)
		pp_warn("%s has no exit line (was the run killed?): "
			"records lost while tracing, if any, are not known\n",
			r->file);
}

static int open_all(struct report *r)
{
	r->in = strcmp(r->file, "-") ? fopen(r->file, "r") : stdin;
	if (!r->in)
		return usage_error("cannot read %s: %s", r->file, strerror(errno));
	if (pp_exports_open(&r->exports, r->export_paths, r->snaplen, "pktpath " PKTPATH_VERSION,
			    r->err, sizeof(r->err)))
		return usage_error("%s", r->err);
	r->reader = pp_report_read_new();
	if (r->summary)
		r->paths = pp_summary_new(PP_SUM_DEF_PATHS, PP_SUM_DEF_DROPS);
	if (!r->reader || (r->summary && !r->paths))
		return failure("out of memory");
	r->out.f = stdout;
	r->out.ops = r->format;
	r->exports.out = &r->out;
	r->all_timed = true;
	return 0;
}

/* A file with no packet has no paths, drops nor exports to give: said, status 1. */
static int no_packet(struct report *r)
{
	if (r->has_totals)
		return failure("%s holds no packet: the run it recorded printed none", r->file);
	return failure("%s holds no packet%s", r->file,
		       r->lineno ? " (is it the output of pktpath --json?)" : ": it is empty");
}

static int finish(struct report *r)
{
	if (!r->totals.packets && r->skipped)
		return usage_error("%s: no line of it could be read as a packet", r->file);
	if (!r->totals.packets)
		return no_packet(r);
	print_totals(r);
	if (pp_exports_publish(&r->exports, r->err, sizeof(r->err)) ||
	    pp_exports_close(&r->exports, stderr, r->err, sizeof(r->err)))
		return failure("%s", r->err);
	return PP_EXIT_OK;
}

static int join_hosts(const struct report *r)
{
	struct pp_hosts_opts o = {.files = r->files,
				  .nfiles = r->nfiles,
				  .window_ns = (__u64)((r->window >= 0 ? r->window : 1.0) * 1e9),
				  .tol_ns =
					  (__u64)((r->tolerance >= 0 ? r->tolerance : 0.001) * 1e9),
				  .format = r->format->name,
				  .out = stdout};

	return pp_report_hosts(&o);
}

int pp_report_main(const struct pp_env *env)
{
	struct report r = {.window = env->window,
			   .tolerance = env->tolerance,
			   .export_paths = env->exports,
			   .snaplen = env->snaplen,
			   .summary = env->summary,
			   .format = pp_out_format(env->format)};
	int ret;

	pp_log_setup(0, "pktpath report");
	if (env->nfiles > 1) {
		r.files = (const char *const *)env->files;
		r.nfiles = env->nfiles;
		return join_hosts(&r);
	}
	r.file = env->files[0];
	ret = open_all(&r);
	if (!ret)
		ret = read_all(&r);
	if (!ret)
		ret = finish(&r);
	pp_exports_discard(&r.exports);
	pp_summary_free(r.paths);
	pp_report_read_free(r.reader);
	if (r.in && r.in != stdin)
		fclose(r.in);
	return ret;
}
