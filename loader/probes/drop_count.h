/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --agent's one program (bpf/drops.bpf.c): every drop counted in the
 * kernel by place, at skb:kfree_skb. Start, read the totals, stop: stop
 * leaves nothing of it in the kernel.
 */
#ifndef PP_DROP_COUNT_H
#define PP_DROP_COUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "pktpath.h"

struct bpf_link;
struct drops;

struct pp_drop_count {
	struct drops *skel;
	struct bpf_link *link;
	__u64 *percpu; /* one value per possible CPU, for the reads */
	int ncpus;
};

/* Loads and attaches the counter; REASONS: the tracepoint passes a drop reason (5.17+). */
int pp_drop_count_start(struct pp_drop_count *d, bool reasons, char *err, size_t errlen);

/* Each place's total now, summed over the CPUs, to FN. 0, or -errno. */
typedef void (*pp_drop_fn)(void *arg, const struct pp_drop_key *k, __u64 total);
int pp_drop_count_read(const struct pp_drop_count *d, pp_drop_fn fn, void *arg);

/* The drops the kernel could not place (its PP_DROP_PLACES were taken), total now. */
__u64 pp_drop_count_unkeyed(const struct pp_drop_count *d);

/* The drops the kernel did not let the counter see (skipped.h), total now. */
__u64 pp_drop_count_skipped(const struct pp_drop_count *d);

/* The counters' map, for pp_privs_keep_bpf(). */
int pp_drop_count_fd(const struct pp_drop_count *d);

void pp_drop_count_stop(struct pp_drop_count *d);

#endif
