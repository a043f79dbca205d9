// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include "paths/sampler.h"

void pp_sampler_init(struct pp_sampler *s, __u64 rate, __u64 now)
{
	*s = (struct pp_sampler){.period = 1, .max_period = 1, .last_ns = now};
	pp_sampler_set_rate(s, rate);
}

void pp_sampler_set_rate(struct pp_sampler *s, __u64 rate)
{
	double share = ceil((double)rate * (double)PP_SAMPLE_TICK_NS / 1e9);

	s->rate = rate;
	s->share = share < 1 ? 1 : (__u64)share;
}

__u64 pp_sampler_tick(struct pp_sampler *s, __u64 marked, __s64 left, __u64 now)
{
	__u64 dt = now - s->last_ns, n;
	double budget, matched;

	if (!s->rate || dt < PP_SAMPLE_TICK_NS)
		return 0;
	/* The paths the rate allows in DT, and the matches estimated in it. */
	budget = (double)s->rate * (double)dt / 1e9;
	matched = (double)(marked - s->last_marked) * (double)s->period;
	n = matched > budget ? (__u64)ceil(matched / budget) : 1;
	if (left <= 0 && n < 2 * s->period)
		n = 2 * s->period;
	s->period = n > PP_SAMPLE_MAX ? PP_SAMPLE_MAX : n;
	if (s->period > s->max_period)
		s->max_period = s->period;
	s->last_ns = now;
	s->last_marked = marked;
	return s->period;
}
