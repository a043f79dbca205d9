// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "free_fate.h"
#include "output/drop_places.h"

int pp_drop_places_init(struct pp_drop_places *t)
{
	memset(t, 0, sizeof(*t));
	t->nslots = 2 * PP_DROP_PLACES;
	t->v = calloc(PP_DROP_PLACES, sizeof(*t->v));
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	if (t->v && t->slots)
		return 0;
	pp_drop_places_free(t);
	return -ENOMEM;
}

void pp_drop_places_free(struct pp_drop_places *t)
{
	free(t->v);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* FNV-1a over the key's bytes: its padding is zero on both sides. */
static size_t hash(const struct pp_drop_key *k)
{
	const unsigned char *b = (const unsigned char *)k;
	__u64 h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return (size_t)h;
}

/* K's place, added if new; NULL when all PP_DROP_PLACES are taken (never: the kernel has as many).
 */
static struct pp_drop_place *place(struct pp_drop_places *t, const struct pp_drop_key *k)
{
	size_t i = hash(k) % t->nslots;

	for (; t->slots[i]; i = (i + 1) % t->nslots)
		if (!memcmp(&t->v[t->slots[i] - 1].k, k, sizeof(*k)))
			return &t->v[t->slots[i] - 1];
	if (t->n == PP_DROP_PLACES)
		return NULL;
	t->v[t->n].k = *k;
	t->slots[i] = (__u32)++t->n;
	return &t->v[t->n - 1];
}

__u64 pp_drop_places_delta(struct pp_drop_places *t, const struct pp_drop_key *k, __u64 total)
{
	struct pp_drop_place *p = place(t, k);
	__u64 d;

	if (!p)
		return 0;
	d = total > p->total ? total - p->total : 0;
	p->total = total;
	return d;
}

bool pp_drop_place_counts(const struct pp_drop_key *k, bool merge, bool reasons,
			  __u32 not_specified)
{
	bool reasoned = reasons && k->reason != not_specified;

	return pp_kfree_fate(reasoned, false, merge) == PP_FATE_DROPPED;
}

static int by_count(const void *a, const void *b)
{
	const struct pp_drop_row *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

void pp_drop_places_print(FILE *f, struct pp_drop_row *rows, size_t n, __u64 unplaced,
			  double seconds)
{
	__u64 all = unplaced;

	for (size_t i = 0; i < n; i++)
		all += rows[i].count;
	qsort(rows, n, sizeof(*rows), by_count);
	fprintf(f, "%llu drop%s in %.1f s, by place:\n", (unsigned long long)all,
		all == 1 ? "" : "s", seconds);
	if (all)
		fprintf(f, "%12s  %-28s %-28s %-16s %s\n", "drops", "reason", "function", "device",
			"netns");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%12llu  %-28s %-28s %-16s %s\n", (unsigned long long)rows[i].count,
			rows[i].reason[0] ? rows[i].reason : "-",
			rows[i].function[0] ? rows[i].function : "-",
			rows[i].device[0] ? rows[i].device : "-",
			rows[i].netns[0] ? rows[i].netns : "-");
	if (unplaced)
		fprintf(f, "%12llu  (past the kernel's %d places: not placed)\n",
			(unsigned long long)unplaced, PP_DROP_PLACES);
}
