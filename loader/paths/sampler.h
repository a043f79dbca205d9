/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --max-rate: at most about RATE new paths a second. Every quarter second
 * (a tick) the loader allows the next tick's share of paths (the BPF side
 * takes one per path and marks none past them: a flood is capped from its
 * first packet) and sets N, 1 matched packet in N being drawn
 * (bpf/identity.bpf.h, pp_sampled_out()): the matches of the last tick are
 * estimated as marks x N, and N made the smallest that keeps them within
 * the share; if the share ran out, N at least doubles, as the marks then
 * say too little. Traffic that slows is followed whole again as fast.
 * BPF-free.
 */
#ifndef PP_SAMPLER_H
#define PP_SAMPLER_H

#include <linux/types.h>

#define PP_SAMPLE_TICK_NS 250000000ULL /* how often N and the share are set */
#define PP_SAMPLE_MAX	  (1ULL << 24) /* the largest N */

struct pp_sampler {
	__u64 rate;	   /* paths a second at most; 0: no sampling */
	__u64 share;	   /* paths a tick at most */
	__u64 period;	   /* N now: 1 in N (1: every packet) */
	__u64 max_period;  /* the largest N so far */
	__u64 last_marked; /* marks at the last tick */
	__u64 last_ns;	   /* the last tick */
};

/* RATE paths a second at most (0: off), from NOW (ns). */
void pp_sampler_init(struct pp_sampler *s, __u64 rate, __u64 now);

/* RATE paths a second from the next tick on (--cpu-budget's). */
void pp_sampler_set_rate(struct pp_sampler *s, __u64 rate);

/*
 * MARKED: the packets marked since the start, LEFT: the share not taken
 * (below 0 if CPUs raced past it), at NOW (ns). Returns N for the next
 * tick (its share is s->share), or 0 if it is not time for a tick.
 */
__u64 pp_sampler_tick(struct pp_sampler *s, __u64 marked, __s64 left, __u64 now);

#endif
