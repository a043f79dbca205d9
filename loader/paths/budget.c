// SPDX-License-Identifier: GPL-2.0
#include "paths/budget.h"

void pp_budget_init(struct pp_budget *b, double share, __u64 ceiling, __u64 cpu_ns, __u64 now)
{
	*b = (struct pp_budget){.share = share,
				.ceiling = ceiling,
				.rate = ceiling < PP_BUDGET_START ? ceiling : PP_BUDGET_START,
				.last_ns = now,
				.last_cpu_ns = cpu_ns};
}

static double average(double old, double now)
{
	return old ? (old + now) / 2 : now;
}

/* What the budget buys in a second at the cost known, within the limits. */
static __u64 affordable(const struct pp_budget *b)
{
	double r = (b->share * 1e9 - b->fixed_ns) / b->cost_ns;

	if (r > PP_BUDGET_STEP * (double)b->rate)
		r = PP_BUDGET_STEP * (double)b->rate;
	if (r > (double)b->ceiling)
		r = (double)b->ceiling;
	return r < 1 ? 1 : (__u64)r;
}

/* A tick's CPU time USED over SECS seconds, N paths followed, into the model. */
static void learn(struct pp_budget *b, double used, double secs, __u64 n)
{
	double paths_ns = used - b->fixed_ns * secs;

	if (!n) {
		b->fixed_ns = average(b->fixed_ns, used / secs);
		return;
	}
	/* Never below a tenth of the whole: a fixed part learned high must not make paths free. */
	if (paths_ns < used / 10)
		paths_ns = used / 10;
	b->cost_ns = average(b->cost_ns, paths_ns / (double)n);
}

__u64 pp_budget_tick(struct pp_budget *b, __u64 cpu_ns, __u64 paths, __u64 now)
{
	__u64 dt = now - b->last_ns, n = paths - b->last_paths;
	double used = (double)(cpu_ns - b->last_cpu_ns), secs = (double)dt / 1e9;

	if (dt < PP_BUDGET_TICK_NS)
		return 0;
	b->over += used > b->share * (double)dt;
	learn(b, used, secs, n);
	if (b->cost_ns)
		b->rate = affordable(b);
	else if (used > b->share * (double)dt)
		/* Over with no path to blame: the loop's own cost; follow the least. */
		b->rate = 1;
	b->last_ns = now;
	b->last_cpu_ns = cpu_ns;
	b->last_paths = paths;
	return b->rate;
}
