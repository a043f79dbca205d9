// SPDX-License-Identifier: GPL-2.0
/*
 * Step latency where it matters: pktpath_path_step_seconds, for each
 * exported path only its slowest step, the one with the largest share of
 * the path's time (its seconds summed over the path's packets). A step is
 * the time from one hop to the next. It is a summary without quantiles, a
 * _sum and a _count (the path's packets), so two series a path however long
 * the path: a series per step, or a histogram each, would multiply the
 * series by the hops (up to PP_METRICS_NSTEPS) and by the buckets, while the
 * one step that holds the time up is what a user acts on; the end-to-end
 * histogram is beside it. The slowest step can change: each step's sum goes
 * on counting while the path has its series, so a step's series that comes
 * back has only grown.
 */
#include <string.h>
#include "metrics/metrics.h"

#define SEP " > "

/* The index of P's slowest step; -1: none took any time. */
static int slowest(const struct pp_mpath *p)
{
	int best = -1;

	for (int i = 0; i < PP_METRICS_NSTEPS; i++)
		if (p->step[i] > 0 && (best < 0 || p->step[i] > p->step[best]))
			best = i;
	return best;
}

/*
 * Step I of STEPS ("a > b > c"): "b > c" for 1; the hop numbers ("1 > 2")
 * if the label was cut before its end.
 */
static void step_name(const char *steps, int i, char *dst, size_t len)
{
	const char *a = steps, *b, *e;

	for (int k = 0; k < i && a; k++)
		a = strstr(a, SEP) ? strstr(a, SEP) + strlen(SEP) : NULL;
	b = a ? strstr(a, SEP) : NULL;
	e = b ? strstr(b + strlen(SEP), SEP) : NULL;
	if (!e && b)
		e = b + strlen(b);
	if (!e || (!*e && !strcmp(e - 3, "..."))) {
		snprintf(dst, len, "%d > %d", i, i + 1);
		return;
	}
	snprintf(dst, len, "%.*s", (int)(e - a), a);
}

void pp_metrics_steps(FILE *f, const struct pp_mpath *paths, size_t n)
{
	const char *name = "pktpath_path_step_seconds";
	char id[16], step[PP_METRICS_STEPS];

	pp_metrics_family(f, name, "summary",
			  "Time from hop to hop in each path's slowest step, the one with "
			  "most of the path's time.");
	for (size_t i = 0; i < n; i++) {
		const struct pp_mpath *p = &paths[i];
		int s = slowest(p);

		if (s < 0)
			continue;
		snprintf(id, sizeof(id), "%012llx", (unsigned long long)p->h.id);
		step_name(p->steps, s, step, sizeof(step));
		pp_metrics_sample(f, "pktpath_path_step_seconds_sum",
				  (const char *const[]){"path", id, "step", step, NULL},
				  p->step[s]);
		pp_metrics_sample(f, "pktpath_path_step_seconds_count",
				  (const char *const[]){"path", id, "step", step, NULL},
				  (double)p->h.count);
	}
}
