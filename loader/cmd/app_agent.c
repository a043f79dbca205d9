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
#include "output/metrics.h"
#include "paths/drop_reason.h"
#include "probes/drop_count.h"
#include "probes/end_points.h"
#include "base/log.h"

#define PP_AGENT_READ_NS 1000000000ULL /* the counters read every second */

struct agent {
	struct pp_app *a;
	struct pp_out out; /* the names: reasons, functions, namespaces */
	struct pp_drop_places places;
	__u32 not_specified;
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
	return g->out.sym_name(addr, g->out.sym_arg);
}

/* A place's drops since the last read, into the metrics; merges are not drops. */
static void add_place(void *arg, const struct pp_drop_key *k, __u64 total)
{
	struct agent *g = arg;
	__u64 n = pp_drop_places_delta(&g->places, k, total);
	const char *func = function(g, k->location);
	struct pp_mdrop d;

	if (!n ||
	    !pp_drop_place_counts(k, pp_merge_free(func), g->a->facts.reasons, g->not_specified))
		return;
	pp_metrics_drop_place(&g->out, k, &d);
	pp_metrics_add_drops(g->a->metrics, &d, n, g->now);
}

static void read_counts(struct agent *g)
{
	__u64 unkeyed = pp_drop_count_unkeyed(&g->a->drops);
	struct pp_mhealth h = {.probes = 1};

	g->now = now_ns();
	if (pp_drop_count_read(&g->a->drops, add_place, g))
		pp_warn("--agent: the drop counters could not be read\n");
	if (unkeyed > g->places.unkeyed)
		pp_metrics_add_drops(g->a->metrics, NULL, unkeyed - g->places.unkeyed, g->now);
	g->places.unkeyed = unkeyed;
	pp_metrics_health(g->a->metrics, &h, g->now);
}

/* At exit without --metrics: each place that counts, its labels and total. */
static void add_row(void *arg, const struct pp_drop_key *k, __u64 total)
{
	struct agent *g = arg;
	const char *func = function(g, k->location);
	struct pp_mdrop *d;

	if (!total ||
	    !pp_drop_place_counts(k, pp_merge_free(func), g->a->facts.reasons, g->not_specified))
		return;
	d = realloc(g->places_named, (g->nnamed + 1) * sizeof(*d));
	if (!d)
		return;
	g->places_named = d;
	pp_metrics_drop_place(&g->out, k, &d[g->nnamed]);
	d[g->nnamed++].h.count = total;
}

static void print_table(struct agent *g, double seconds)
{
	struct pp_drop_row *rows;

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

static int setup_names(struct pp_app *a, struct agent *g)
{
	long long ns;

	pp_ksyms_load(&a->ksyms, "/proc/kallsyms");
	if (!a->netns)
		a->netns = pp_netns_cache_new("/");
	pp_app_out_names(a, &g->out);
	ns = pp_drop_reason_value(a->reasons, "NOT_SPECIFIED");
	g->not_specified = ns >= 0 ? (__u32)ns : 0;
	return pp_drop_places_init(&g->places);
}

int pp_app_agent_run(struct pp_app *a)
{
	struct agent g = {.a = a};
	int ret = PP_EXIT_OK;

	if (setup_names(a, &g)) {
		pp_warn("out of memory\n");
		return PP_EXIT_FAIL;
	}
	pp_app_signals_catch();
	if (pp_drop_count_start(&a->drops, a->facts.reasons, a->err, sizeof(a->err))) {
		pp_warn("%s\n", a->err);
		ret = PP_EXIT_FAIL;
	} else if (pp_app_stop) { /* interrupted while attaching: pp_app_free() detaches */
	} else if (pp_app_drop_privileges(a, pp_privs_keep_bpf(pp_drop_count_fd(&a->drops))) ||
		   pp_app_metrics_start(a)) {
		ret = PP_EXIT_FAIL;
	} else {
		pp_info("ready: agent, counting every drop at skb:kfree_skb (no packet "
			"followed)\n");
		loop(&g);
	}
	pp_drop_places_free(&g.places);
	return ret;
}
