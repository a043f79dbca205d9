// SPDX-License-Identifier: GPL-2.0
/*
 * The --metrics model: paths and drop places in bounded tables, the
 * packets by fate and the reader's health, all under one short lock
 * (metrics.h). Rendering is in metrics_render.c.
 */
#include <stdlib.h>
#include <string.h>
#include "base/compat.h"
#include "metrics/metrics.h"
#include "output/drop_hint.h"
#include "output/summary.h"
#include "output/path_id.h"

static const double bounds[PP_METRICS_BUCKETS] = {
	1e-6, 2.5e-6, 5e-6,   1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4,
	5e-4, 1e-3,   2.5e-3, 5e-3, 1e-2,   0.1,  1,
};

const double *pp_metrics_bounds(void)
{
	return bounds;
}

struct pp_metrics *pp_metrics_new(size_t top, double idle, const struct pp_mbuild *b)
{
	struct pp_metrics *m;

	if (top < 1 || top > PP_METRICS_MAX_TOP || !(idle > 0))
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	pthread_mutex_init(&m->lock, NULL);
	m->top = top;
	m->idle_ns = (__u64)(idle * 1e9);
	m->build = *b;
	snprintf(m->other_path.fate, sizeof(m->other_path.fate), "other");
	if (pp_mrank_init(&m->paths, top, sizeof(struct pp_mpath)) ||
	    pp_mrank_init(&m->drops, top, sizeof(struct pp_mdrop))) {
		pp_metrics_free(m);
		return NULL;
	}
	return m;
}

void pp_metrics_free(struct pp_metrics *m)
{
	if (!m)
		return;
	pp_mrank_free(&m->paths);
	pp_mrank_free(&m->drops);
	free(m->health.lost);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/* "a > b > c", cut with "..." where the label's room ends. */
static void path_steps(const struct pp_out *o, const struct pp_packet *p, char *dst, size_t len)
{
	size_t at = 0;
	char buf[32];

	for (size_t i = 0; i < p->nhops && at < len; i++)
		at += (size_t)snprintf(dst + at, len - at, "%s%s", i ? " > " : "",
				       pp_out_probe_name(o, p->hops[i].probe, buf, sizeof(buf)));
	if (at >= len)
		memcpy(dst + len - 4, "...", 4);
}

static void observe(struct pp_mpath *e, const struct pp_packet *p)
{
	double s = (double)(p->hops[p->nhops - 1].ts - p->hops[0].ts) / 1e9;
	size_t b = 0;

	for (size_t i = 0; i + 1 < p->nhops && i < PP_METRICS_NSTEPS; i++)
		e->step[i] += (double)(p->hops[i + 1].ts - p->hops[i].ts) / 1e9;

	while (b < PP_METRICS_BUCKETS && s > bounds[b])
		b++;
	if (b < PP_METRICS_BUCKETS)
		e->buckets[b]++;
	else
		e->inf++;
	e->h.count++;
	e->sum += s;
}

/* A path that loses its series: its packets go on in path="other". */
static void fold_path(void *arg, const struct pp_mhead *h)
{
	struct pp_mpath *o = arg;
	const struct pp_mpath *e = (const struct pp_mpath *)h;

	o->h.count += e->h.count;
	for (size_t b = 0; b < PP_METRICS_BUCKETS; b++)
		o->buckets[b] += e->buckets[b];
	o->inf += e->inf;
	o->sum += e->sum;
}

static void fold_drop(void *arg, const struct pp_mhead *h)
{
	*(__u64 *)arg += h->count;
}

static void add_path(struct pp_metrics *m, const struct pp_out *o, const struct pp_packet *p,
		     __u64 now)
{
	__u64 id = pp_path_id(o, p);
	bool fresh;
	struct pp_mpath *e = pp_mrank_get(&m->paths, id, 1, now, &fresh, fold_path, &m->other_path);

	if (!e) {
		observe(&m->other_path, p);
		return;
	}
	if (fresh) {
		snprintf(e->fate, sizeof(e->fate), "%s", pp_fate_key(p->fate));
		path_steps(o, p, e->steps, sizeof(e->steps));
	}
	observe(e, p);
}

static void label(char *dst, const char *s)
{
	snprintf(dst, PP_METRICS_LABEL, "%s", s ? s : "");
}

/* A TC or XDP drop's programs (pp_out_drop_programs()) into D: "" if none, or another drop. */
static void drop_programs(const struct pp_out *o, __u32 reason, __u64 location, __u32 netns,
			  __u32 ifindex, struct pp_mdrop *d)
{
	if (pp_out_drop_programs(o, reason, location, netns, ifindex, d->programs,
				 sizeof(d->programs)) < 0)
		d->programs[0] = '\0';
}

/* The labels of P's drop, named as the packet blocks name them. */
static void drop_labels(const struct pp_out *o, const struct pp_packet *p, struct pp_mdrop *d)
{
	const struct pp_hop *end = pp_summary_drop_hop(p);
	const char *reason = o->reason_name ? o->reason_name(p->reason, o->reason_arg) : NULL;
	const char *func = p->location && o->sym_name ? o->sym_name(p->location, o->sym_arg) : NULL;
	const char *caller = NULL, *family = NULL, *hook = NULL;
	char buf[PP_METRICS_LABEL];

	snprintf(buf, sizeof(buf), "%u", p->reason);
	label(d->reason, reason ? reason : buf);
	label(d->function, func);
	if (end && end->caller && o->sym_name)
		caller = o->sym_name(end->location + (__s64)end->caller, o->sym_arg);
	if (caller && ((end->flags & PP_HOP_NF_CALLER) || (func && !strcmp(func, "nf_hook_slow"))))
		hook = pp_nf_hook_of(caller, &family);
	snprintf(d->hook, sizeof(d->hook), "%s%s%s", hook && family ? family : "",
		 hook && family ? " " : "", hook ? hook : "");
	label(d->netns, end && end->netns ? pp_out_netns(o, end->netns, buf, sizeof(buf)) : NULL);
	if (!end)
		return;
	snprintf(d->device, sizeof(d->device), "%.*s", (int)sizeof(end->ifname), end->ifname);
	/* --verdicts saw which program decided: that one alone. */
	if (!pp_out_drop_judge(o, p, d->programs, sizeof(d->programs)))
		drop_programs(o, p->reason, p->location, end->netns, end->ifindex, d);
}

static __u64 drop_id(const struct pp_mdrop *d)
{
	__u64 h = PP_FNV_OFF;

	h = pp_fnv(pp_fnv(h, d->reason), d->function);
	return pp_fnv(pp_fnv(pp_fnv(pp_fnv(h, d->hook), d->netns), d->device), d->programs);
}

static void add_drop(struct pp_metrics *m, const struct pp_mdrop *d, __u64 n, __u64 now)
{
	bool fresh;
	struct pp_mdrop *e =
		pp_mrank_get(&m->drops, d->h.id, n, now, &fresh, fold_drop, &m->other_drops);

	if (!e) {
		m->other_drops += n;
		return;
	}
	if (fresh) {
		struct pp_mhead h = e->h;

		*e = *d;
		e->h = h;
	}
	e->h.count += n;
}

void pp_metrics_add(struct pp_metrics *m, const struct pp_out *o, const struct pp_packet *p,
		    __u64 now)
{
	struct pp_mdrop d = {0};
	bool dropped = p->fate == PP_FATE_DROPPED && !m->kernel_drops;

	/* Naming takes the symbol and namespace caches: outside the lock. */
	if (dropped) {
		drop_labels(o, p, &d);
		d.h.id = drop_id(&d);
	}
	pthread_mutex_lock(&m->lock);
	pp_totals_add(&m->totals, p);
	add_path(m, o, p, now);
	if (dropped)
		add_drop(m, &d, 1, now);
	pthread_mutex_unlock(&m->lock);
}

void pp_metrics_drop_place(const struct pp_out *o, const struct pp_drop_key *k, struct pp_mdrop *d)
{
	const char *reason = o->reason_name ? o->reason_name(k->reason, o->reason_arg) : NULL;
	const char *func = k->location && o->sym_name ? o->sym_name(k->location, o->sym_arg) : NULL;
	char buf[PP_METRICS_LABEL];

	memset(d, 0, sizeof(*d));
	snprintf(buf, sizeof(buf), "%u", k->reason);
	/* Before 5.17 the kernel gives no reason: "", not a number. */
	label(d->reason, reason ? reason : k->reason ? buf : "");
	label(d->function, func);
	label(d->netns, k->netns ? pp_out_netns(o, k->netns, buf, sizeof(buf)) : NULL);
	snprintf(d->device, sizeof(d->device), "%.*s", (int)sizeof(k->ifname), k->ifname);
	drop_programs(o, k->reason, k->location, k->netns, k->ifindex, d);
	d->h.id = drop_id(d);
}

void pp_metrics_add_drops(struct pp_metrics *m, const struct pp_mdrop *d, __u64 n, __u64 now)
{
	pthread_mutex_lock(&m->lock);
	if (d)
		add_drop(m, d, n, now);
	else
		m->other_drops += n;
	pthread_mutex_unlock(&m->lock);
}

static int copy_lost(struct pp_metrics *m, const struct pp_mhealth *h)
{
	if (h->nlost > m->lost_cap) {
		struct pp_mlost *v = realloc(m->health.lost, h->nlost * sizeof(*v));

		if (!v)
			return -1;
		m->health.lost = v;
		m->lost_cap = h->nlost;
	}
	if (h->nlost)
		memcpy(m->health.lost, h->lost, h->nlost * sizeof(*h->lost));
	return 0;
}

/* Windows of IDLE seconds: the busiest are those with most packets in this one and the last. */
static void window(struct pp_metrics *m, __u64 now)
{
	if (!m->window)
		m->window = now;
	if (now - m->window < m->idle_ns)
		return;
	pp_mrank_window(&m->paths, now - m->window >= 2 * m->idle_ns);
	pp_mrank_window(&m->drops, now - m->window >= 2 * m->idle_ns);
	m->window = now;
}

void pp_metrics_health(struct pp_metrics *m, const struct pp_mhealth *h, __u64 now)
{
	__u64 cutoff = now > m->idle_ns ? now - m->idle_ns : 0;
	struct pp_mlost *lost;
	size_t nlost;

	pthread_mutex_lock(&m->lock);
	lost = m->health.lost;
	nlost = m->health.nlost;
	/* Out of memory: the per-probe losses keep their last values. */
	if (!copy_lost(m, h)) {
		lost = m->health.lost;
		nlost = h->nlost;
	}
	m->health = *h;
	m->health.lost = lost;
	m->health.nlost = nlost;
	m->health_at = now;
	window(m, now);
	m->evicted += pp_mrank_expire(&m->paths, cutoff, fold_path, &m->other_path);
	m->evicted += pp_mrank_expire(&m->drops, cutoff, fold_drop, &m->other_drops);
	pthread_mutex_unlock(&m->lock);
}

bool pp_metrics_alive(struct pp_metrics *m, __u64 now)
{
	__u64 at;

	pthread_mutex_lock(&m->lock);
	at = m->health_at;
	pthread_mutex_unlock(&m->lock);
	return at && now - at < 10000000000ULL;
}
