// SPDX-License-Identifier: GPL-2.0
/*
 * --agent: the node agent's run. One program counts every drop in the
 * kernel by place (probes/drop_count.h); no classifier, no probe, no packet
 * followed, so traffic that is not dropped pays nothing. Once a second the
 * loader reads the totals and adds what came since to --metrics; without
 * --metrics it prints the table at exit.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cmd/app.h"
#include "kernel/ksyms.h"
#include "kernel/privs.h"
#include "names/netns_names.h"
#include "output/drop_places.h"
#include "metrics/metrics.h"
#include "paths/drop_reason.h"
#include "probes/drop_count.h"
#include "probes/end_points.h"
#include "base/log.h"

#define PP_AGENT_READ_NS 1000000000ULL /* the counters read every second */

/* The state of a read, with the app's agent (struct pp_agent). */
struct agent {
	struct pp_app *a;
	struct pp_agent *ag;
	__u64 now;
	struct pp_mdrop *places_named; /* at exit, without --metrics */
	size_t nnamed;
};

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static const char *function(const struct agent *g, __u64 addr)
{
	return g->ag->out.sym_name(addr, g->ag->out.sym_arg);
}

/* A place's drops since the last read, into the metrics; merges are not drops. */
static void add_place(void *arg, const struct pp_drop_key *k, __u64 total)
{
	struct agent *g = arg;
	__u64 n = pp_drop_places_delta(&g->ag->places, k, total);
	const char *func = function(g, k->location);
	struct pp_mdrop d;

	if (!n || !pp_drop_place_counts(k, pp_merge_free(func), g->a->facts.reasons,
					g->ag->not_specified))
		return;
	pp_metrics_drop_place(&g->ag->out, k, &d);
	pp_metrics_add_drops(g->a->metrics, &d, n, g->now);
}

void pp_app_agent_read(struct pp_app *a, __u64 now)
{
	struct agent g = {.a = a, .ag = &a->agent, .now = now};
	__u64 unkeyed = pp_drop_count_unkeyed(&a->drops);

	if (pp_drop_count_read(&a->drops, add_place, &g))
		pp_warn("--agent: the drop counters could not be read\n");
	if (unkeyed > a->agent.places.unkeyed)
		pp_metrics_add_drops(a->metrics, NULL, unkeyed - a->agent.places.unkeyed, now);
	a->agent.places.unkeyed = unkeyed;
}

/* Without a trace, the agent's health is its reads. */
static void read_counts(struct agent *g)
{
	struct pp_mhealth h = {.probes = 1, .skipped = pp_drop_count_skipped(&g->a->drops)};

	g->now = now_ns();
	pp_app_agent_read(g->a, g->now);
	pp_metrics_health(g->a->metrics, &h, g->now);
}

/* At exit without --metrics: each place that counts, its labels and total. */
static void add_row(void *arg, const struct pp_drop_key *k, __u64 total)
{
	struct agent *g = arg;
	const char *func = function(g, k->location);
	struct pp_mdrop *d;

	if (!total || !pp_drop_place_counts(k, pp_merge_free(func), g->a->facts.reasons,
					    g->ag->not_specified))
		return;
	d = realloc(g->places_named, (g->nnamed + 1) * sizeof(*d));
	if (!d)
		return;
	g->places_named = d;
	pp_metrics_drop_place(&g->ag->out, k, &d[g->nnamed]);
	d[g->nnamed++].h.count = total;
}

static void print_table(struct agent *g, double seconds)
{
	struct pp_drop_row *rows;
	__u64 skipped;

	pp_drop_count_read(&g->a->drops, add_row, g);
	rows = calloc(g->nnamed + 1, sizeof(*rows));
	for (size_t i = 0; rows && i < g->nnamed; i++) {
		const struct pp_mdrop *d = &g->places_named[i];

		rows[i] = (struct pp_drop_row){.count = d->h.count,
					       .reason = d->reason,
					       .function = d->function,
					       .netns = d->netns,
					       .device = d->device};
	}
	if (rows)
		pp_drop_places_print(stdout, rows, g->nnamed, pp_drop_count_unkeyed(&g->a->drops),
				     seconds);
	free(rows);
	free(g->places_named);
	skipped = pp_drop_count_skipped(&g->a->drops);
	if (skipped)
		pp_warn("the kernel did not run the counter %llu times: a BPF program was already "
			"running on that CPU; those drops are not counted\n",
			(unsigned long long)skipped);
}

/* Until Ctrl-C, SIGTERM or --duration. */
static void loop(struct agent *g)
{
	__u64 start = now_ns(), end = 0;
	struct timespec tick = {.tv_sec = 0, .tv_nsec = 100000000}; /* a tenth: stops are prompt */
	__u64 next = start + PP_AGENT_READ_NS;

	if (g->a->env.duration > 0)
		end = start + (__u64)(g->a->env.duration * 1e9);
	while (!pp_app_stop && (!end || now_ns() < end)) {
		nanosleep(&tick, NULL);
		if (g->a->metrics && now_ns() >= next) {
			read_counts(g);
			next += PP_AGENT_READ_NS;
		}
	}
	if (g->a->metrics)
		read_counts(g);
	else
		print_table(g, (double)(now_ns() - start) / 1e9);
}

int pp_app_agent_start(struct pp_app *a)
{
	struct pp_agent *ag = &a->agent;
	long long ns;

	if (!a->ksyms)
		pp_ksyms_load(&a->ksyms, "/proc/kallsyms");
	if (!a->netns)
		a->netns = pp_netns_cache_new("/");
	pp_app_out_names(a, &ag->out);
	ns = pp_drop_reason_value(a->reasons, "NOT_SPECIFIED");
	ag->not_specified = ns >= 0 ? (__u32)ns : 0;
	if (pp_drop_places_init(&ag->places)) {
		snprintf(a->err, sizeof(a->err), "out of memory");
		return -1;
	}
	return pp_drop_count_start(&a->drops, a->facts.reasons, a->err, sizeof(a->err));
}

void pp_app_agent_free(struct pp_app *a)
{
	pp_drop_count_stop(&a->drops);
	pp_drop_places_free(&a->agent.places);
}

int pp_app_agent_run(struct pp_app *a)
{
	struct agent g = {.a = a, .ag = &a->agent};

	pp_app_signals_catch();
	if (pp_app_agent_start(a)) {
		pp_warn("%s\n", a->err);
		return PP_EXIT_FAIL;
	}
	if (pp_app_stop) /* interrupted while attaching: pp_app_free() detaches */
		return PP_EXIT_OK;
	if (pp_app_drop_privileges(a, pp_privs_keep_bpf(pp_drop_count_fd(&a->drops))) ||
	    pp_app_metrics_start(a))
		return PP_EXIT_FAIL;
	pp_info("ready: agent, counting every drop at skb:kfree_skb (no packet followed)\n");
	loop(&g);
	return PP_EXIT_OK;
}
