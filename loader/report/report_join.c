// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include "report/report_join.h"

/* A joined packet being built: its first start, and its hosts as bits. */
struct open_chain {
	__u64 first_ns;
	__u64 hosts;
	size_t id;
};

static int by_key_time(const void *a, const void *b)
{
	const struct pp_jpart *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->host < y->host ? -1 : x->host > y->host;
}

static int by_chain_time(const void *a, const void *b)
{
	const struct pp_jpart *x = a, *y = b;

	if (x->chain != y->chain)
		return x->chain < y->chain ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->host < y->host ? -1 : x->host > y->host;
}

/*
 * The parts of one key, in time order: each goes to the newest open packet
 * that lacks its host, within the window; the newest, so that a part
 * missing on one host (a datagram dropped on the way) costs one join, not
 * every later one.
 */
static void join_key(struct pp_jpart *p, size_t n, __u64 window_ns, struct open_chain *open,
		     size_t *next_id)
{
	size_t nopen = 0;

	for (size_t i = 0; i < n; i++) {
		__u64 bit = 1ULL << (p[i].host % PP_JOIN_MAX_HOSTS);
		size_t k = nopen;

		while (k-- > 0) {
			if (p[i].start_ns - open[k].first_ns > window_ns) {
				k = (size_t)-1; /* older ones are older still */
				break;
			}
			if (!(open[k].hosts & bit))
				break;
		}
		if (k == (size_t)-1) {
			open[nopen] = (struct open_chain){p[i].start_ns, 0, (*next_id)++};
			k = nopen++;
		}
		open[k].hosts |= bit;
		p[i].chain = open[k].id;
	}
}

long pp_join(struct pp_jpart *parts, size_t n, __u64 window_ns)
{
	struct open_chain *open = calloc(n ? n : 1, sizeof(*open));
	size_t next_id = 0;

	if (!open)
		return -ENOMEM;
	qsort(parts, n, sizeof(*parts), by_key_time);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && parts[j].key == parts[i].key; j++)
			;
		join_key(parts + i, j - i, window_ns, open, &next_id);
	}
	free(open);
	qsort(parts, n, sizeof(*parts), by_chain_time);
	return (long)next_id;
}

/* B, after A in time, left its scope into A's namespace, on A's kernel: B came first. */
static bool came_first(const struct pp_jpart *a, const struct pp_jpart *b)
{
	return b->left_to && b->left_to == a->netns && b->boot && b->boot == a->boot;
}

__u64 pp_join_skew(const struct pp_jpart *parts, size_t n, __u64 tol_ns, size_t *at,
		   enum pp_skew_by *by)
{
	__u64 worst = 0;

	for (size_t i = 1; i < n; i++) {
		const struct pp_jpart *a = &parts[i - 1], *b = &parts[i];
		bool order = came_first(a, b);
		__u64 hi = order ? b->end_ns : a->end_ns, lo = order ? a->start_ns : b->start_ns;

		if (hi > lo && hi - lo > tol_ns && hi - lo > worst) {
			worst = hi - lo;
			*at = i;
			*by = order ? PP_SKEW_ORDER : PP_SKEW_OVERLAP;
		}
	}
	return worst;
}
