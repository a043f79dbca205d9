/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Distinct paths (--summary): closed packets grouped by their path, with
 * counts and latency percentiles, and their drops grouped by reason and
 * place. Memory grows with the number of distinct paths, never with the
 * number of packets: past max_paths distinct paths, packets of new paths
 * are counted in one "other paths" bucket, past max_drops drop places in
 * an "other drops" count.
 *
 * A path is the packet's hops in time order (every skb of it, copies
 * included), each as its probe point, network namespace, interface and skb,
 * and the packet's fate (kind, drop reason and location). Two packets
 * share a path when all of that is equal.
 */
#ifndef PP_SUMMARY_H
#define PP_SUMMARY_H

#include <stddef.h>
#include <linux/types.h>
#include "output/histogram.h"
#include "paths/path.h"

#define PP_SUM_DEF_PATHS 1000
#define PP_SUM_DEF_DROPS 256

/*
 * One hop of a path: where, and on which skb of the packet (0: the first,
 * K: copy K, in order of appearance). ifname is the first packet's.
 */
struct pp_sum_step {
	__u32 probe;
	__u32 netns;
	__u32 ifindex;
	__u32 copy;
	char ifname[PP_IFNAMSIZ];
};

struct pp_sum_path {
	__u64 hash;
	__u64 count;
	__u64 seq; /* when it was first seen: the order among equal counts */
	enum pp_fate fate;
	__u32 reason;
	__u64 location;
	size_t nsteps;
	struct pp_sum_step *steps;
	struct pp_hist e2e;    /* first hop to last hop, ns */
	struct pp_hist *delta; /* [i]: steps[i - 1] to steps[i], ns; [0] unused */
};

/* Drops of packets: reason x location (kfree_skb's caller, device, namespace). */
struct pp_sum_drop {
	__u64 hash;
	__u64 count;
	__u64 seq;
	__u64 location;
	__u32 reason;
	__u32 netns;
	__u32 ifindex;
	char ifname[PP_IFNAMSIZ];
	/*
	 * --verdicts: the BPF program whose verdict dropped these (its probe
	 * index + 1; 0: none seen), that verdict, and whether it was XDP's.
	 */
	__u32 judge, verdict;
	bool judge_xdp;
};

struct pp_summary {
	size_t max_paths, max_drops;
	__u64 packets; /* every packet added */
	__u64 dropped; /* those whose fate is dropped */
	struct pp_sum_path *paths;
	size_t npaths;
	struct pp_sum_drop *drops;
	size_t ndrops;
	__u64 other_paths;	  /* packets of paths beyond max_paths */
	struct pp_hist other_e2e; /* and their end-to-end latency */
	__u64 other_drops;	  /* dropped packets of places beyond max_drops */
	__u64 nomem;		  /* latencies not counted for lack of memory */
	/* Open addressing: index + 1 into paths[] / drops[], 0 empty. */
	__u32 *pslots, *dslots;
	size_t npslots, ndslots;
};

/* max_paths, max_drops: 1 .. 1 << 20. NULL on bad limits or no memory. */
struct pp_summary *pp_summary_new(size_t max_paths, size_t max_drops);
void pp_summary_free(struct pp_summary *s);

/* Counts packet p. Returns 0, or -ENOMEM (it is still counted, in "other" if need be). */
int pp_summary_add(struct pp_summary *s, const struct pp_packet *p);

/*
 * Pointers to the paths (drops) in out[] (room for s->npaths, s->ndrops),
 * largest count first, equal counts in order of first appearance.
 */
void pp_summary_sorted_paths(const struct pp_summary *s, const struct pp_sum_path **out);
void pp_summary_sorted_drops(const struct pp_summary *s, const struct pp_sum_drop **out);

/* The hop of p where its fate's drop happened (pp_out_drop_end()), else its last. */
const struct pp_hop *pp_summary_drop_hop(const struct pp_packet *p);

#endif /* PP_SUMMARY_H */
