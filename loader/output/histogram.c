// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include "output/histogram.h"

/*
 * Octave 0 holds [0, 64) one value a bucket; octave k >= 1 holds
 * [2^(k+5), 2^(k+6)) in buckets 2^(k-1) wide: v >> (k - 1) is 64..127.
 */
void pp_hist_bucket(__u64 v, unsigned int *oct, unsigned int *sub)
{
	unsigned int k;

	if (v < PP_HIST_SUB) {
		*oct = 0;
		*sub = (unsigned int)v;
		return;
	}
	k = 63 - (unsigned int)__builtin_clzll(v) - (PP_HIST_SUB_BITS - 1);
	if (k >= PP_HIST_OCTAVES) {
		*oct = PP_HIST_OCTAVES - 1;
		*sub = PP_HIST_SUB - 1;
		return;
	}
	*oct = k;
	*sub = (unsigned int)(v >> (k - 1)) - PP_HIST_SUB;
}

void pp_hist_bucket_range(unsigned int oct, unsigned int sub, __u64 *lo, __u64 *width)
{
	if (oct == 0) {
		*lo = sub;
		*width = 1;
		return;
	}
	*lo = (__u64)(PP_HIST_SUB + sub) << (oct - 1);
	*width = 1ULL << (oct - 1);
}

int pp_hist_add(struct pp_hist *h, __u64 v)
{
	unsigned int oct, sub;

	pp_hist_bucket(v, &oct, &sub);
	if (!h->oct[oct]) {
		h->oct[oct] = calloc(PP_HIST_SUB, sizeof(__u64));
		if (!h->oct[oct])
			return -ENOMEM;
	}
	h->oct[oct][sub]++;
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	return 0;
}

static __u64 clamp(__u64 v, const struct pp_hist *h)
{
	return v < h->min ? h->min : v > h->max ? h->max : v;
}

__u64 pp_hist_quantile(const struct pp_hist *h, double q)
{
	__u64 rank, seen = 0, lo, width;

	if (!h->count)
		return 0;
	if (q >= 1)
		return h->max;
	rank = (__u64)(q * (double)h->count);
	if ((double)rank < q * (double)h->count || rank == 0)
		rank++; /* ceil, and at least the first */
	for (unsigned int k = 0; k < PP_HIST_OCTAVES; k++) {
		if (!h->oct[k])
			continue;
		for (unsigned int s = 0; s < PP_HIST_SUB; s++) {
			seen += h->oct[k][s];
			if (seen < rank)
				continue;
			pp_hist_bucket_range(k, s, &lo, &width);
			return clamp(lo + width / 2, h);
		}
	}
	return h->max;
}

void pp_hist_free(struct pp_hist *h)
{
	for (unsigned int k = 0; k < PP_HIST_OCTAVES; k++) {
		free(h->oct[k]);
		h->oct[k] = NULL;
	}
	h->count = h->min = h->max = 0;
}
