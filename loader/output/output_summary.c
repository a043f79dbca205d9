// SPDX-License-Identifier: GPL-2.0
/*
 * The --summary report. Printed once at exit and at each --interval, never
 * per packet: plain stdio is fast enough here, and the JSON form writes its
 * strings with the packets' escaping (pp_out_json_str()).
 */
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "base/compat.h"
#include "base/fmt.h"
#include "output/drop_hint.h"
#include "output/path_id.h"
#include "output/output_summary.h"
#include "output/path_line.h"

#define NAMELEN 64

static const double quantiles[] = {0.5, 0.9, 0.99, 1.0};
static const char *const qnames[] = {"p50", "p90", "p99", "max"};
#define NQ ARRAY_SIZE(quantiles)

static double share(__u64 n, __u64 total)
{
	return total ? 100.0 * (double)n / (double)total : 0;
}

static const char *reason_str(const struct pp_out *o, __u32 reason, char *buf, size_t len)
{
	const char *name = o->reason_name ? o->reason_name(reason, o->reason_arg) : NULL;

	if (name)
		return name;
	snprintf(buf, len, "reason %u", reason);
	return buf;
}

/* kfree_skb's caller by name, else its address, else "-". */
static const char *where_str(const struct pp_out *o, __u64 location, char *buf, size_t len)
{
	const char *sym = location && o->sym_name ? o->sym_name(location, o->sym_arg) : NULL;

	if (sym)
		return sym;
	if (!location)
		return "-";
	snprintf(buf, len, "0x%llx", (unsigned long long)location);
	return buf;
}

/* ------------------------------------------------------------------ text */

/* A latency in us with ns digits, as the packet blocks print times. */
static const char *us(__u64 ns, char *buf, size_t len)
{
	snprintf(buf, len, "%.3f", (double)ns / 1e3);
	return buf;
}

static void text_fate(const struct pp_out *o, const struct pp_sum_path *e)
{
	char buf[256], *s;
	size_t n;

	s = pp_line_fate_str(o, e->fate, e->reason, e->location, PP_LINE_SUMMARY, buf, sizeof(buf),
			     &n);
	fwrite(s, 1, n, o->f);
	if (s != buf)
		free(s);
}

static void text_e2e(const struct pp_out *o, const struct pp_hist *h)
{
	char b[32];

	fputs("  end to end (us):", o->f);
	for (size_t q = 0; q < NQ; q++)
		fprintf(o->f, " %s %s", qnames[q],
			us(pp_hist_quantile(h, quantiles[q]), b, sizeof(b)));
	fputc('\n', o->f);
}

/* The step whose median is the largest: where the time goes. */
static size_t slowest_step(const struct pp_sum_path *e)
{
	__u64 best = 0, v;
	size_t at = 0;

	for (size_t i = 1; i < e->nsteps; i++) {
		v = pp_hist_quantile(&e->delta[i], 0.5);
		if (v > best) {
			best = v;
			at = i;
		}
	}
	return at;
}

/* The probe's name, and "[copy K]" for a step on copy K of the packet. */
static const char *step_name(const struct pp_out *o, const struct pp_sum_step *st, char *buf,
			     size_t len)
{
	char tmp[NAMELEN];
	const char *pn = pp_out_probe_name(o, st->probe, tmp, sizeof(tmp));

	if (st->copy)
		snprintf(buf, len, "%s [copy %u]", pn, st->copy);
	else
		snprintf(buf, len, "%s", pn);
	return buf;
}

/*
 * One step: its netns and device only where they change (step 1: always),
 * so that the crossings stand out; the latency from the step before.
 */
static void text_step(const struct pp_out *o, const struct pp_sum_path *e, size_t i, size_t slow)
{
	const struct pp_sum_step *st = &e->steps[i], *prev = i ? &e->steps[i - 1] : NULL;
	bool ns_changed = !prev || prev->netns != st->netns;
	bool dev_changed = ns_changed || prev->ifindex != st->ifindex;
	char name[NAMELEN + 16], nsbuf[16], b[32];
	const char *ns = ns_changed ? pp_out_netns(o, st->netns, nsbuf, sizeof(nsbuf)) : "";

	fprintf(o->f, "%c%3zu %-32s %10s %-*s", i && i == slow ? '*' : ' ', i + 1,
		step_name(o, st, name, sizeof(name)), ns, i ? 15 : 0,
		dev_changed ? (st->ifname[0] ? st->ifname : "-") : "");
	for (size_t q = 0; i && q < NQ; q++)
		fprintf(o->f, " %8s",
			us(pp_hist_quantile(&e->delta[i], quantiles[q]), b, sizeof(b)));
	fputc('\n', o->f);
}

/*
 * Under a drop at a TC or XDP hook, the BPF programs attached there now:
 * the suspects (pp_out_drop_programs()).
 */
static void text_drop_programs(const struct pp_out *o, const struct pp_sum_drop *d)
{
	char progs[512];
	int n;

	if (d->judge) {
		fprintf(o->f, "%19s by BPF program %s\n", "",
			pp_out_verdict_str(o, d->judge - 1, d->verdict, d->judge_xdp, progs,
					   sizeof(progs)));
		return;
	}
	n = pp_out_drop_programs(o, d->reason, d->location, d->netns, d->ifindex, progs,
				 sizeof(progs));
	if (n > 0)
		fprintf(o->f, "%19s BPF programs there now: %s\n", "", progs);
	else if (n == 0)
		fprintf(o->f, "%19s no BPF program there now but pktpath's\n", "");
}

/* Its --metrics path label: probe points and fate kind, so coarser than E. */
static void path_id(const struct pp_out *o, const struct pp_sum_path *e, char *buf, size_t len)
{
	__u64 h = 0;

	for (size_t i = 0; i < e->nsteps; i++)
		h = pp_path_id_hop(h, o, e->steps[i].probe);
	snprintf(buf, len, "%012llx", (unsigned long long)pp_path_id_end(h, e->fate));
}

static void text_path(const struct pp_out *o, const struct pp_summary *s,
		      const struct pp_sum_path *e, size_t rank)
{
	size_t slow = slowest_step(e);
	char id[16];

	fprintf(o->f, "path %zu: %llu packets (%.1f%%), ", rank, (unsigned long long)e->count,
		share(e->count, s->packets));
	text_fate(o, e);
	path_id(o, e, id, sizeof(id));
	fprintf(o->f, "; path id %s\n", id);
	text_e2e(o, &e->e2e);
	fprintf(o->f, "%4s %-32s %10s %-15s %8s %8s %8s %8s\n", "#",
		"step (us from the one before)", "netns", "device", "p50", "p90", "p99", "max");
	for (size_t i = 0; i < e->nsteps; i++)
		text_step(o, e, i, slow);
	fputc('\n', o->f);
}

static void text_drops(const struct pp_out *o, const struct pp_summary *s)
{
	const struct pp_sum_drop **v = calloc(s->ndrops ? s->ndrops : 1, sizeof(*v));
	char rb[32], lb[24], ns[16];

	if (!s->dropped || !v) {
		free(v);
		return;
	}
	pp_summary_sorted_drops(s, v);
	fprintf(o->f, "drops: %llu packets (%.1f%%), by reason and place\n",
		(unsigned long long)s->dropped, share(s->dropped, s->packets));
	fprintf(o->f, "%10s %6s  %-24s %-28s %10s %s\n", "packets", "share", "reason", "function",
		"netns", "device");
	for (size_t i = 0; i < s->ndrops; i++) {
		fprintf(o->f, "%10llu %5.1f%%  %-24s %-28s %10s %s\n",
			(unsigned long long)v[i]->count, share(v[i]->count, s->packets),
			reason_str(o, v[i]->reason, rb, sizeof(rb)),
			where_str(o, v[i]->location, lb, sizeof(lb)),
			pp_out_netns(o, v[i]->netns, ns, sizeof(ns)),
			v[i]->ifname[0] ? v[i]->ifname : "-");
		text_drop_programs(o, v[i]);
	}
	if (s->other_drops)
		fprintf(o->f, "%10llu %5.1f%%  other places (more than %zu)\n",
			(unsigned long long)s->other_drops, share(s->other_drops, s->packets),
			s->max_drops);
	fputc('\n', o->f);
	free(v);
}

/*
 * "pktpath summary at exit, after 5.0 s" of a live run; of a recording
 * (`pktpath report FILE`), which was not taken at exit: "pktpath summary of
 * FILE, 5.0 s recorded", or how long its packets took.
 */
static void text_when(const struct pp_out *o, const struct pp_sum_when *when)
{
	if (!when->file) {
		fprintf(o->f, "pktpath summary %s", when->final ? "at exit" : "so far");
		if (!when->untimed)
			fprintf(o->f, ", after %.1f s", when->elapsed);
		return;
	}
	fprintf(o->f, "pktpath summary of %s", when->file);
	if (!when->untimed)
		fprintf(o->f, when->span ? ", its packets within %.1f s" : ", %.1f s recorded",
			when->elapsed);
}

void pp_out_summary_text(const struct pp_out *o, const struct pp_summary *s,
			 const struct pp_sum_when *when)
{
	const struct pp_sum_path **v = calloc(s->npaths ? s->npaths : 1, sizeof(*v));

	if (!v)
		return;
	pp_summary_sorted_paths(s, v);
	text_when(o, when);
	fprintf(o->f, ": %llu packets, %zu distinct paths%s\n\n", (unsigned long long)s->packets,
		s->npaths, s->other_paths ? " and others" : "");
	for (size_t i = 0; i < s->npaths; i++)
		text_path(o, s, v[i], i + 1);
	if (s->other_paths) {
		fprintf(o->f, "other paths (beyond the first %zu): %llu packets (%.1f%%)\n",
			s->max_paths, (unsigned long long)s->other_paths,
			share(s->other_paths, s->packets));
		text_e2e(o, &s->other_e2e);
		fputc('\n', o->f);
	}
	text_drops(o, s);
	fflush(o->f);
	free(v);
}

/* ------------------------------------------------------------------ JSON */

/* An object being written, as in output_json.c: whether a comma comes first. */
struct jw {
	struct pp_wbuf *w;
	bool first;
};

static void jkey(struct jw *j, const char *key)
{
	if (!j->first)
		pp_wb_putc(j->w, ',');
	j->first = false;
	pp_out_json_str(j->w, key, NAMELEN);
	pp_wb_putc(j->w, ':');
}

static void jnum(struct jw *j, const char *key, __u64 v)
{
	jkey(j, key);
	pp_wb_done(j->w, pp_fmt_u64(pp_wb_room(j->w, PP_FMT_U64), v));
}

static void jstr(struct jw *j, const char *key, const char *v, size_t max)
{
	jkey(j, key);
	pp_out_json_str(j->w, v, max);
}

static void jraw(struct jw *j, const char *key, const char *v)
{
	jkey(j, key);
	pp_wb_write(j->w, v, strlen(v));
}

static struct jw jopen(struct jw *j, const char *key, char bracket)
{
	if (key)
		jkey(j, key);
	else if (!j->first)
		pp_wb_putc(j->w, ',');
	j->first = false;
	pp_wb_putc(j->w, bracket);
	return (struct jw){.w = j->w, .first = true};
}

static void jclose(struct jw *j, char bracket)
{
	pp_wb_putc(j->w, bracket);
}

static void json_share(struct jw *j, __u64 n, __u64 total)
{
	char b[32];

	snprintf(b, sizeof(b), "%.4f", total ? (double)n / (double)total : 0.0);
	jraw(j, "share", b);
}

/* "latency_ns":{"p50":..,"p90":..,"p99":..,"max":..} */
static void json_hist(struct jw *j, const struct pp_hist *h)
{
	struct jw l = jopen(j, "latency_ns", '{');

	for (size_t q = 0; q < NQ; q++)
		jnum(&l, qnames[q], pp_hist_quantile(h, quantiles[q]));
	jclose(&l, '}');
}

static void json_drop_fields(const struct pp_out *o, struct jw *j, __u32 reason, __u64 location)
{
	const char *name = o->reason_name ? o->reason_name(reason, o->reason_arg) : NULL;
	const char *sym = location && o->sym_name ? o->sym_name(location, o->sym_arg) : NULL;
	char b[24];

	if (name)
		jstr(j, "reason", name, NAMELEN);
	jnum(j, "reason_code", reason);
	if (sym)
		jstr(j, "func", sym, NAMELEN);
	if (location) {
		snprintf(b, sizeof(b), "0x%llx", (unsigned long long)location);
		jstr(j, "location", b, sizeof(b));
	}
}

/* The namespace's name where one is known (ns_label.c). */
static void json_netns_name(const struct pp_out *o, struct jw *j, __u32 inode)
{
	char buf[16];
	const char *name = pp_out_netns(o, inode, buf, sizeof(buf));

	if (inode && name != buf)
		jstr(j, "netns_name", name, SIZE_MAX);
}

static void json_step(const struct pp_out *o, struct jw *arr, const struct pp_sum_path *e, size_t i)
{
	const struct pp_sum_step *st = &e->steps[i];
	struct jw j = jopen(arr, NULL, '{');
	char name[NAMELEN];

	jstr(&j, "func", pp_out_probe_name(o, st->probe, name, sizeof(name)), NAMELEN);
	if (st->netns)
		jnum(&j, "netns", st->netns);
	json_netns_name(o, &j, st->netns);
	if (st->ifname[0])
		jstr(&j, "ifname", st->ifname, sizeof(st->ifname));
	if (st->ifindex)
		jnum(&j, "ifindex", st->ifindex);
	if (st->copy)
		jnum(&j, "copy", st->copy);
	if (i)
		json_hist(&j, &e->delta[i]);
	jclose(&j, '}');
}

static void json_path(const struct pp_out *o, struct jw *arr, const struct pp_summary *s,
		      const struct pp_sum_path *e)
{
	struct jw j = jopen(arr, NULL, '{'), f, st;
	char id[16];

	path_id(o, e, id, sizeof(id));
	jstr(&j, "id", id, sizeof(id));
	jnum(&j, "count", e->count);
	json_share(&j, e->count, s->packets);
	f = jopen(&j, "fate", '{');
	jstr(&f, "kind", pp_fate_key(e->fate), 16);
	if (e->fate == PP_FATE_DROPPED)
		json_drop_fields(o, &f, e->reason, e->location);
	jclose(&f, '}');
	json_hist(&j, &e->e2e);
	st = jopen(&j, "steps", '[');
	for (size_t i = 0; i < e->nsteps; i++)
		json_step(o, &st, e, i);
	jclose(&st, ']');
	jclose(&j, '}');
}

static void json_drop(const struct pp_out *o, struct jw *arr, const struct pp_summary *s,
		      const struct pp_sum_drop *d)
{
	struct jw j = jopen(arr, NULL, '{');
	char progs[512];

	jnum(&j, "count", d->count);
	json_share(&j, d->count, s->packets);
	json_drop_fields(o, &j, d->reason, d->location);
	if (d->netns)
		jnum(&j, "netns", d->netns);
	json_netns_name(o, &j, d->netns);
	if (d->ifname[0])
		jstr(&j, "ifname", d->ifname, sizeof(d->ifname));
	if (d->ifindex)
		jnum(&j, "ifindex", d->ifindex);
	if (pp_out_drop_programs(o, d->reason, d->location, d->netns, d->ifindex, progs,
				 sizeof(progs)) >= 0)
		jstr(&j, "bpf_programs", progs, sizeof(progs));
	if (d->judge)
		jstr(&j, "decided_by",
		     pp_out_verdict_str(o, d->judge - 1, d->verdict, d->judge_xdp, progs,
					sizeof(progs)),
		     sizeof(progs));
	jclose(&j, '}');
}

static void json_paths(const struct pp_out *o, struct jw *top, const struct pp_summary *s,
		       const struct pp_sum_path **v)
{
	struct jw arr = jopen(top, "paths", '['), other;

	for (size_t i = 0; i < s->npaths; i++)
		json_path(o, &arr, s, v[i]);
	jclose(&arr, ']');
	if (!s->other_paths)
		return;
	other = jopen(top, "other_paths", '{');
	jnum(&other, "count", s->other_paths);
	json_share(&other, s->other_paths, s->packets);
	json_hist(&other, &s->other_e2e);
	jclose(&other, '}');
}

static void json_drops(const struct pp_out *o, struct jw *top, const struct pp_summary *s,
		       const struct pp_sum_drop **v)
{
	struct jw arr = jopen(top, "drops", '[');

	for (size_t i = 0; i < s->ndrops; i++)
		json_drop(o, &arr, s, v[i]);
	jclose(&arr, ']');
	if (s->other_drops)
		jnum(top, "other_drops", s->other_drops);
}

void pp_out_summary_json(const struct pp_out *o, const struct pp_summary *s,
			 const struct pp_sum_when *when)
{
	const struct pp_sum_path **pv = calloc(s->npaths ? s->npaths : 1, sizeof(*pv));
	const struct pp_sum_drop **dv = calloc(s->ndrops ? s->ndrops : 1, sizeof(*dv));
	struct pp_wbuf *w = malloc(sizeof(*w));
	struct jw root, top;
	char b[32];

	if (!pv || !dv || !w)
		goto out;
	pp_summary_sorted_paths(s, pv);
	pp_summary_sorted_drops(s, dv);
	pp_wb_init(w, o->f);
	root = (struct jw){.w = w, .first = true};
	pp_wb_putc(w, '{');
	top = jopen(&root, "path_summary", '{');
	jraw(&top, "final", when->final ? "true" : "false");
	snprintf(b, sizeof(b), "%.3f", when->elapsed);
	if (!when->untimed)
		jraw(&top, "elapsed_s", b);
	jnum(&top, "packets", s->packets);
	jnum(&top, "distinct", s->npaths);
	jnum(&top, "dropped", s->dropped);
	json_paths(o, &top, s, pv);
	json_drops(o, &top, s, dv);
	if (s->nomem)
		jnum(&top, "nomem", s->nomem);
	jclose(&top, '}');
	pp_wb_lit(w, "}\n");
	pp_wb_flush(w);
	fflush(o->f);
out:
	free(pv);
	free(dv);
	free(w);
}
