/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --agent: the kernel's drop counters (bpf/drops.bpf.c) turned into counts.
 * The kernel's totals per place only grow; the places remember the last
 * total read of each, so that each read adds what came since, exactly,
 * whenever it runs. BPF-free.
 */
#ifndef PP_DROP_PLACES_H
#define PP_DROP_PLACES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "pktpath.h"

struct pp_drop_place {
	struct pp_drop_key k;
	__u64 total; /* the kernel's total at the last read */
};

struct pp_drop_places {
	struct pp_drop_place *v; /* PP_DROP_PLACES */
	size_t n;
	__u32 *slots; /* index + 1 into v, 0: empty; open addressing */
	size_t nslots;
	__u64 unkeyed; /* the kernel's drops past its places, last total */
};

/* Room for the kernel's PP_DROP_PLACES places: 0, or -ENOMEM. */
int pp_drop_places_init(struct pp_drop_places *t);
void pp_drop_places_free(struct pp_drop_places *t);

/*
 * The drops at K since the last read of K, TOTAL being the kernel's count
 * now (summed over its CPUs); the first read of K counts them all.
 */
__u64 pp_drop_places_delta(struct pp_drop_places *t, const struct pp_drop_key *k, __u64 total);

/*
 * Whether a free at place K is a drop, FUNC being K's function: not where
 * the skb's data went on in another skb (MERGE: FUNC is such a free, and
 * the reason says no drop: include/free_fate.h). REASONS: the kernel passes
 * reasons (from 5.17), NOT_SPECIFIED its value for "none given".
 */
bool pp_drop_place_counts(const struct pp_drop_key *k, bool merge, bool reasons,
			  __u32 not_specified);

/* One line of the exit table. */
struct pp_drop_row {
	__u64 count;
	const char *reason, *function, *netns, *device;
};

/* The table --agent prints at exit without --metrics: busiest first (ROWS is sorted). */
void pp_drop_places_print(FILE *f, struct pp_drop_row *rows, size_t n, __u64 unplaced,
			  double seconds);

#endif
