/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A log-linear histogram of latencies in ns, for percentiles (the shape of
 * HdrHistogram): values below 64 are counted exactly; above, each power of
 * two (an octave) is cut into 64 equal buckets, so a bucket is at most 1/64
 * of its smallest value wide, and its midpoint, the value reported, is
 * within 1/128 (0.8%) of every value in it. Octaves are allocated when a
 * value first falls in them: latencies of one step span a few octaves, and
 * the most a histogram takes is fixed (PP_HIST_OCTAVES x 64 counters).
 */
#ifndef PP_HISTOGRAM_H
#define PP_HISTOGRAM_H

#include <linux/types.h>

#define PP_HIST_SUB_BITS 6
#define PP_HIST_SUB	 (1U << PP_HIST_SUB_BITS)
/* Values from 2^44 ns (4.9 hours) on share the last bucket; max stays exact. */
#define PP_HIST_MAX_BITS 44
#define PP_HIST_OCTAVES	 (PP_HIST_MAX_BITS - PP_HIST_SUB_BITS + 1)

struct pp_hist {
	__u64 count;
	__u64 min, max; /* exact; min is 0 while count is 0 */
	__u64 *oct[PP_HIST_OCTAVES];
};

/* A zeroed struct pp_hist is an empty histogram; free it with pp_hist_free(). */
void pp_hist_free(struct pp_hist *h);

/* Counts v; -ENOMEM if its octave could not be allocated (then nothing changed). */
int pp_hist_add(struct pp_hist *h, __u64 v);

/*
 * The value at quantile q (0 < q <= 1): the smallest recorded value whose
 * rank is at least ceil(q * count), as its bucket's midpoint, clamped to
 * [min, max]; q = 1 gives max. 0 for an empty histogram.
 */
__u64 pp_hist_quantile(const struct pp_hist *h, double q);

/* Bucket arithmetic, exposed for the tests: the bucket of v and its range. */
void pp_hist_bucket(__u64 v, unsigned int *oct, unsigned int *sub);
void pp_hist_bucket_range(unsigned int oct, unsigned int sub, __u64 *lo, __u64 *width);

#endif /* PP_HISTOGRAM_H */
