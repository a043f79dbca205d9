// SPDX-License-Identifier: GPL-2.0
/*
 * Distinct paths: a hash of each packet's path signature finds its entry
 * in a table sized once, at the start, for max_paths entries; the latencies
 * go to that entry's histograms. Nothing here grows with the packet count.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "output/output.h"
#include "output/verdict.h"
#include "output/summary.h"

#define PP_SUM_LIMIT (1U << 20)

/* A 64-bit mix (the finaliser of MurmurHash3's 64-bit variant). */
static __u64 mix(__u64 h, __u64 v)
{
	h ^= v;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

/* Which skb of p the hop is on: 0 the first, K copy K. */
static __u32 hop_copy(const struct pp_packet *p, const struct pp_hop *x)
{
	size_t k;

	if (p->nskbs <= 1)
		return 0;
	k = pp_out_hop_skb(p, x);
	return k < p->nskbs ? (__u32)k : 0;
}

static __u64 fate_hash(const struct pp_packet *p)
{
	__u64 h = mix(0x9e3779b97f4a7c15ULL, (__u64)p->fate << 32 | p->reason);

	return mix(h, p->location);
}

static __u64 path_hash(const struct pp_packet *p)
{
	__u64 h = fate_hash(p);

	for (size_t i = 0; i < p->nhops; i++) {
		const struct pp_hop *x = &p->hops[i];

		h = mix(h, (__u64)x->probe << 32 | x->netns);
		h = mix(h, (__u64)hop_copy(p, x) << 32 | x->ifindex);
	}
	return mix(h, p->nhops);
}

static size_t slots_for(size_t n)
{
	size_t s = 16;

	while (s < 2 * n)
		s <<= 1;
	return s;
}

struct pp_summary *pp_summary_new(size_t max_paths, size_t max_drops)
{
	struct pp_summary *s;

	if (!max_paths || !max_drops || max_paths > PP_SUM_LIMIT || max_drops > PP_SUM_LIMIT)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->max_paths = max_paths;
	s->max_drops = max_drops;
	s->npslots = slots_for(max_paths);
	s->ndslots = slots_for(max_drops);
	s->paths = calloc(max_paths, sizeof(*s->paths));
	s->drops = calloc(max_drops, sizeof(*s->drops));
	s->pslots = calloc(s->npslots, sizeof(*s->pslots));
	s->dslots = calloc(s->ndslots, sizeof(*s->dslots));
	if (!s->paths || !s->drops || !s->pslots || !s->dslots) {
		pp_summary_free(s);
		return NULL;
	}
	return s;
}

static void path_free(struct pp_sum_path *e)
{
	pp_hist_free(&e->e2e);
	for (size_t i = 0; e->delta && i < e->nsteps; i++)
		pp_hist_free(&e->delta[i]);
	free(e->delta);
	free(e->steps);
}

void pp_summary_free(struct pp_summary *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->npaths; i++)
		path_free(&s->paths[i]);
	pp_hist_free(&s->other_e2e);
	free(s->paths);
	free(s->drops);
	free(s->pslots);
	free(s->dslots);
	free(s);
}

static bool path_equal(const struct pp_sum_path *e, __u64 h, const struct pp_packet *p)
{
	if (e->hash != h || e->nsteps != p->nhops || e->fate != p->fate || e->reason != p->reason ||
	    e->location != p->location)
		return false;
	for (size_t i = 0; i < p->nhops; i++) {
		const struct pp_hop *x = &p->hops[i];
		const struct pp_sum_step *st = &e->steps[i];

		if (st->probe != x->probe || st->netns != x->netns || st->ifindex != x->ifindex ||
		    st->copy != hop_copy(p, x))
			return false;
	}
	return true;
}

/* The slot that holds p's path, or the empty slot where it would go. */
static __u32 *path_slot(const struct pp_summary *s, __u64 h, const struct pp_packet *p)
{
	size_t mask = s->npslots - 1, i = h & mask;

	/* Never full: at most max_paths of 2 * max_paths slots are used. */
	while (s->pslots[i] && !path_equal(&s->paths[s->pslots[i] - 1], h, p))
		i = (i + 1) & mask;
	return &s->pslots[i];
}

static int path_init(struct pp_sum_path *e, __u64 h, const struct pp_packet *p, __u64 seq)
{
	*e = (struct pp_sum_path){.hash = h,
				  .seq = seq,
				  .fate = p->fate,
				  .reason = p->reason,
				  .location = p->location,
				  .nsteps = p->nhops};
	e->steps = calloc(p->nhops, sizeof(*e->steps));
	e->delta = calloc(p->nhops, sizeof(*e->delta));
	if (!e->steps || !e->delta) {
		free(e->steps);
		free(e->delta);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->nhops; i++) {
		const struct pp_hop *x = &p->hops[i];

		e->steps[i] = (struct pp_sum_step){.probe = x->probe,
						   .netns = x->netns,
						   .ifindex = x->ifindex,
						   .copy = hop_copy(p, x)};
		memcpy(e->steps[i].ifname, x->ifname, sizeof(x->ifname));
		e->steps[i].ifname[PP_IFNAMSIZ - 1] = '\0';
	}
	return 0;
}

/* p's path entry, made if new and there is room; NULL: the "other" bucket. */
static struct pp_sum_path *path_get(struct pp_summary *s, const struct pp_packet *p, int *err)
{
	__u64 h = path_hash(p);
	__u32 *slot = path_slot(s, h, p);
	struct pp_sum_path *e;

	if (*slot)
		return &s->paths[*slot - 1];
	if (s->npaths == s->max_paths)
		return NULL;
	e = &s->paths[s->npaths];
	*err = path_init(e, h, p, s->packets);
	if (*err)
		return NULL;
	*slot = (__u32)++s->npaths;
	return e;
}

/* A latency into a histogram; a failed allocation is counted, never fatal. */
static void hist_add(struct pp_summary *s, struct pp_hist *h, __u64 v, int *err)
{
	if (pp_hist_add(h, v)) {
		s->nomem++;
		*err = -ENOMEM;
	}
}

const struct pp_hop *pp_summary_drop_hop(const struct pp_packet *p)
{
	const struct pp_hop *end = pp_out_drop_end(p);

	return end ? end : &p->hops[p->nhops - 1];
}

static bool drop_equal(const struct pp_sum_drop *d, __u64 h, const struct pp_packet *p,
		       const struct pp_hop *x, __u32 judge)
{
	return d->hash == h && d->reason == p->reason && d->location == p->location &&
	       d->netns == x->netns && d->ifindex == x->ifindex && d->judge == judge;
}

static void drop_add(struct pp_summary *s, const struct pp_packet *p)
{
	const struct pp_hop *x = pp_summary_drop_hop(p), *v = pp_verdict_judge(p, x);
	__u32 judge = v ? v->probe + 1 : 0;
	__u64 h = mix(mix(mix(fate_hash(p), x->netns), x->ifindex), judge);
	size_t mask = s->ndslots - 1, i = h & mask;
	struct pp_sum_drop *d;

	s->dropped++;
	while (s->dslots[i] && !drop_equal(&s->drops[s->dslots[i] - 1], h, p, x, judge))
		i = (i + 1) & mask;
	if (!s->dslots[i]) {
		if (s->ndrops == s->max_drops) {
			s->other_drops++;
			return;
		}
		d = &s->drops[s->ndrops];
		*d = (struct pp_sum_drop){.hash = h,
					  .seq = s->packets,
					  .location = p->location,
					  .reason = p->reason,
					  .netns = x->netns,
					  .ifindex = x->ifindex,
					  .judge = judge,
					  .verdict = v ? v->reason : 0,
					  .judge_xdp = v && (v->flags & PP_HOP_XDP)};
		memcpy(d->ifname, x->ifname, sizeof(d->ifname));
		d->ifname[PP_IFNAMSIZ - 1] = '\0';
		s->dslots[i] = (__u32)++s->ndrops;
	}
	s->drops[s->dslots[i] - 1].count++;
}

int pp_summary_add(struct pp_summary *s, const struct pp_packet *p)
{
	const struct pp_hop *hops = p->hops;
	__u64 e2e = hops[p->nhops - 1].ts - hops[0].ts;
	struct pp_sum_path *e;
	int err = 0;

	e = path_get(s, p, &err);
	if (!e) {
		s->other_paths++;
		hist_add(s, &s->other_e2e, e2e, &err);
	} else {
		e->count++;
		hist_add(s, &e->e2e, e2e, &err);
		for (size_t i = 1; i < p->nhops; i++)
			hist_add(s, &e->delta[i], hops[i].ts - hops[i - 1].ts, &err);
	}
	if (p->fate == PP_FATE_DROPPED)
		drop_add(s, p);
	s->packets++;
	return err;
}

/* Largest count first; equal counts in order of first appearance. */
static int cmp_count(__u64 ca, __u64 sa, __u64 cb, __u64 sb)
{
	if (ca != cb)
		return ca > cb ? -1 : 1;
	return sa < sb ? -1 : sa > sb;
}

static int cmp_path(const void *a, const void *b)
{
	const struct pp_sum_path *x = *(const struct pp_sum_path *const *)a;
	const struct pp_sum_path *y = *(const struct pp_sum_path *const *)b;

	return cmp_count(x->count, x->seq, y->count, y->seq);
}

static int cmp_drop(const void *a, const void *b)
{
	const struct pp_sum_drop *x = *(const struct pp_sum_drop *const *)a;
	const struct pp_sum_drop *y = *(const struct pp_sum_drop *const *)b;

	return cmp_count(x->count, x->seq, y->count, y->seq);
}

void pp_summary_sorted_paths(const struct pp_summary *s, const struct pp_sum_path **out)
{
	for (size_t i = 0; i < s->npaths; i++)
		out[i] = &s->paths[i];
	qsort(out, s->npaths, sizeof(*out), cmp_path);
}

void pp_summary_sorted_drops(const struct pp_summary *s, const struct pp_sum_drop **out)
{
	for (size_t i = 0; i < s->ndrops; i++)
		out[i] = &s->drops[i];
	qsort(out, s->ndrops, sizeof(*out), cmp_drop);
}
