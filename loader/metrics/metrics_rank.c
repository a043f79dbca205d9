// SPDX-License-Identifier: GPL-2.0
/*
 * The busiest TOP of --metrics' paths and drop places (metrics.h): the
 * exported entries, and a bounded table of candidates that counts the
 * others' recent packets without a series of their own. A candidate takes
 * the place of the least busy exported entry once its recent packets (this
 * window and the last; a window is --metrics-idle seconds) exceed
 * PP_METRICS_MARGIN times that entry's: the margin keeps paths of about the
 * same rate from trading places at every packet. The entry displaced is
 * folded into "other" (its count goes on there: "other" never decreases and
 * the series still add up to every packet) and becomes a candidate; the
 * promoted one's series starts at 0, as a new series, which rate() reads as
 * a start. Its earlier packets stay in "other": starting it at its counted
 * packets would take them out of "other", which must not decrease.
 */
#include <stdlib.h>
#include <string.h>
#include "metrics/metrics.h"

#define SAMPLE 16 /* candidates looked at for the one to replace */

static int table_init(struct pp_mtable *t, size_t max, size_t size)
{
	t->max = max;
	t->size = size;
	t->nslots = 2;
	while (t->nslots < 2 * max)
		t->nslots <<= 1;
	t->v = calloc(max, size);
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	return t->v && t->slots ? 0 : -1;
}

static struct pp_mhead *entry(const struct pp_mtable *t, size_t i)
{
	return (struct pp_mhead *)((char *)t->v + i * t->size);
}

static size_t home(const struct pp_mtable *t, __u64 id)
{
	return (size_t)(id ^ (id >> 29)) & (t->nslots - 1);
}

/* The slot of ID: its entry's, or the empty one where it would go. */
static __u32 *slot_of(const struct pp_mtable *t, __u64 id)
{
	size_t mask = t->nslots - 1, i = home(t, id);

	while (t->slots[i] && entry(t, t->slots[i] - 1)->id != id)
		i = (i + 1) & mask;
	return &t->slots[i];
}

static void *table_find(const struct pp_mtable *t, __u64 id)
{
	__u32 s = *slot_of(t, id);

	return s ? entry(t, s - 1) : NULL;
}

/* A new entry for ID (zeroed, id set); the table has room. */
static void *table_add(struct pp_mtable *t, __u64 id)
{
	struct pp_mhead *e = entry(t, t->n);

	memset(e, 0, t->size);
	e->id = id;
	*slot_of(t, id) = (__u32)++t->n;
	return e;
}

/* Empties slot I of a linear-probing index, moving up those that probed past it. */
static void slot_del(struct pp_mtable *t, size_t i)
{
	size_t mask = t->nslots - 1, j = i;

	for (;;) {
		size_t k;

		j = (j + 1) & mask;
		if (!t->slots[j])
			break;
		k = home(t, entry(t, t->slots[j] - 1)->id);
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue; /* its home is between: it stays */
		t->slots[i] = t->slots[j];
		i = j;
	}
	t->slots[i] = 0;
}

/* Removes entry E; the last entry takes its place. */
static void table_del(struct pp_mtable *t, struct pp_mhead *e)
{
	__u32 *s = slot_of(t, e->id);
	size_t i = *s - 1;

	slot_del(t, (size_t)(s - t->slots));
	if (i != --t->n) {
		memcpy(e, entry(t, t->n), t->size);
		*slot_of(t, e->id) = (__u32)(i + 1);
	}
}

int pp_mrank_init(struct pp_mrank *r, size_t top, size_t size)
{
	if (table_init(&r->top, top, size) ||
	    table_init(&r->cand, PP_METRICS_CAND * top, sizeof(struct pp_mhead)))
		return -1;
	return 0;
}

void pp_mrank_free(struct pp_mrank *r)
{
	free(r->top.v);
	free(r->top.slots);
	free(r->cand.v);
	free(r->cand.slots);
}

static __u64 recent(const struct pp_mhead *e)
{
	return e->cur + e->prev;
}

/* The least busy of SAMPLE candidates from ID's place on: the one to replace. */
static struct pp_mhead *cand_victim(const struct pp_mtable *t, __u64 id)
{
	size_t at = (size_t)(id % t->n);
	struct pp_mhead *v = entry(t, at);

	for (size_t i = 1; i < SAMPLE && i < t->n; i++) {
		struct pp_mhead *e = entry(t, (at + i) % t->n);

		if (recent(e) < recent(v) || (recent(e) == recent(v) && e->last < v->last))
			v = e;
	}
	return v;
}

/* ID's candidate, a new one (replacing a less busy one if full). */
static struct pp_mhead *cand_get(struct pp_mtable *t, __u64 id)
{
	struct pp_mhead *e = table_find(t, id);

	if (e)
		return e;
	if (t->n == t->max)
		table_del(t, cand_victim(t, id));
	return table_add(t, id);
}

/* The least busy exported entry; the floor follows it. */
static struct pp_mhead *top_least(struct pp_mrank *r)
{
	struct pp_mhead *v = entry(&r->top, 0);

	for (size_t i = 1; i < r->top.n; i++)
		if (recent(entry(&r->top, i)) < recent(v))
			v = entry(&r->top, i);
	r->floor = recent(v);
	return v;
}

/* C's place in the top, if it is busy enough: the new entry, else NULL. */
static void *promote(struct pp_mrank *r, struct pp_mhead *c, pp_mfold fold, void *arg)
{
	struct pp_mhead h = *c, *v, *e;

	if (recent(c) <= PP_METRICS_MARGIN * r->floor)
		return NULL;
	v = top_least(r);
	if (recent(c) <= PP_METRICS_MARGIN * r->floor)
		return NULL;
	table_del(&r->cand, c);
	fold(arg, v);
	e = table_add(&r->cand, v->id);
	e->last = v->last;
	e->cur = v->cur;
	e->prev = v->prev;
	table_del(&r->top, v);
	e = table_add(&r->top, h.id);
	e->last = h.last;
	e->cur = h.cur;
	e->prev = h.prev;
	r->swaps++;
	return e;
}

/* ID in the top, where there is room: a candidate's recent packets come along. */
static struct pp_mhead *top_add(struct pp_mrank *r, __u64 id)
{
	struct pp_mhead *c = table_find(&r->cand, id), *e = table_add(&r->top, id);

	if (c) {
		e->last = c->last;
		e->cur = c->cur;
		e->prev = c->prev;
		table_del(&r->cand, c);
	}
	r->floor = 0; /* it may be the least busy */
	return e;
}

void *pp_mrank_get(struct pp_mrank *r, __u64 id, __u64 n, __u64 now, bool *fresh, pp_mfold fold,
		   void *arg)
{
	struct pp_mhead *e = table_find(&r->top, id);

	*fresh = !e;
	if (!e && r->top.n < r->top.max)
		e = top_add(r, id);
	if (!e) {
		e = cand_get(&r->cand, id);
		e->cur += n;
		e->last = now;
		return promote(r, e, fold, arg);
	}
	e->cur += n;
	e->last = now;
	return e;
}

/* Drops T's entries idle since before CUTOFF, FOLD first if given. Returns how many. */
static size_t table_expire(struct pp_mtable *t, __u64 cutoff, pp_mfold fold, void *arg)
{
	size_t gone = 0;

	for (size_t i = t->n; i-- > 0;) {
		struct pp_mhead *e = entry(t, i);

		if (e->last >= cutoff)
			continue;
		if (fold)
			fold(arg, e);
		table_del(t, e);
		gone++;
	}
	return gone;
}

size_t pp_mrank_expire(struct pp_mrank *r, __u64 cutoff, pp_mfold fold, void *arg)
{
	table_expire(&r->cand, cutoff, NULL, NULL);
	return table_expire(&r->top, cutoff, fold, arg);
}

static void table_shift(struct pp_mtable *t, bool skipped)
{
	for (size_t i = 0; i < t->n; i++) {
		struct pp_mhead *e = entry(t, i);

		e->prev = skipped ? 0 : e->cur;
		e->cur = 0;
	}
}

void pp_mrank_window(struct pp_mrank *r, bool skipped)
{
	table_shift(&r->top, skipped);
	table_shift(&r->cand, skipped);
	r->floor = 0; /* counts fell: found again at the next promotion */
}
