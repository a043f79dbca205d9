// SPDX-License-Identifier: GPL-2.0
/* loader/output/histogram.c: buckets, and percentiles within 1% of the exact ones. */
#include <check.h>
#include <stdlib.h>
#include "output/histogram.h"
#include "suites.h"

static __u64 rng = 88172645463325252ULL;

static __u64 xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* The exact value at quantile q of sorted v[n], by the histogram's rank rule. */
static __u64 exact(const __u64 *v, size_t n, double q)
{
	size_t rank = (size_t)(q * (double)n);

	if ((double)rank < q * (double)n || rank == 0)
		rank++;
	return v[rank - 1];
}

/* Every value falls in the bucket whose range holds it; buckets tile the line. */
START_TEST(test_bucket_bounds)
{
	__u64 lo, width, prev_end = 0;
	unsigned int oct, sub;

	for (unsigned int k = 0; k < PP_HIST_OCTAVES; k++) {
		for (unsigned int s = 0; s < PP_HIST_SUB; s++) {
			pp_hist_bucket_range(k, s, &lo, &width);
			ck_assert_uint_eq(lo, prev_end);
			/* Width at most 1/64 of the bucket's lowest value, above the exact range.
			 */
			if (k > 0)
				ck_assert_uint_le(width * PP_HIST_SUB, lo);
			pp_hist_bucket(lo, &oct, &sub);
			ck_assert_uint_eq(oct, k);
			ck_assert_uint_eq(sub, s);
			pp_hist_bucket(lo + width - 1, &oct, &sub);
			ck_assert_uint_eq(oct, k);
			ck_assert_uint_eq(sub, s);
			prev_end = lo + width;
		}
	}
	ck_assert_uint_eq(prev_end, 1ULL << PP_HIST_MAX_BITS);
	pp_hist_bucket(~0ULL, &oct, &sub);
	ck_assert_uint_eq(oct, PP_HIST_OCTAVES - 1);
	ck_assert_uint_eq(sub, PP_HIST_SUB - 1);
}
END_TEST

static void check_quantiles(__u64 *v, size_t n)
{
	static const double qs[] = {0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0};
	struct pp_hist h = {0};

	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(pp_hist_add(&h, v[i]), 0);
	qsort(v, n, sizeof(*v), cmp_u64);
	ck_assert_uint_eq(h.count, n);
	ck_assert_uint_eq(h.min, v[0]);
	ck_assert_uint_eq(h.max, v[n - 1]);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		__u64 want = exact(v, n, qs[i]), got = pp_hist_quantile(&h, qs[i]);
		double err = want ? ((double)got - (double)want) / (double)want : (double)got;

		ck_assert_msg(err <= 0.01 && err >= -0.01, "q %g: got %llu want %llu", qs[i],
			      (unsigned long long)got, (unsigned long long)want);
	}
	pp_hist_free(&h);
}

/* Log-uniform values from 1 ns to about 17 s: every octave in use. */
START_TEST(test_quantiles_wide)
{
	size_t n = 200000;
	__u64 *v = malloc(n * sizeof(*v));

	ck_assert_ptr_nonnull(v);
	for (size_t i = 0; i < n; i++) {
		__u64 r = xorshift();

		v[i] = 1 + ((r >> 8) & ((1ULL << (r % 34)) - 1));
	}
	check_quantiles(v, n);
	free(v);
}
END_TEST

/* A narrow cluster (a few us, as one step's latency is) and a few outliers. */
START_TEST(test_quantiles_cluster)
{
	size_t n = 100000;
	__u64 *v = malloc(n * sizeof(*v));

	ck_assert_ptr_nonnull(v);
	for (size_t i = 0; i < n; i++)
		v[i] = i % 1000 == 0 ? 5000000 + xorshift() % 1000000 : 3000 + xorshift() % 700;
	check_quantiles(v, n);
	free(v);
}
END_TEST

/* Small values are exact, one value is every quantile, empty gives 0. */
START_TEST(test_exact_and_edges)
{
	struct pp_hist h = {0};

	ck_assert_uint_eq(pp_hist_quantile(&h, 0.5), 0);
	for (__u64 i = 0; i < 64; i++)
		ck_assert_int_eq(pp_hist_add(&h, i), 0);
	ck_assert_uint_eq(pp_hist_quantile(&h, 0.5), 31);
	ck_assert_uint_eq(pp_hist_quantile(&h, 1.0 / 64), 0);
	ck_assert_uint_eq(pp_hist_quantile(&h, 1.0), 63);
	pp_hist_free(&h);
	ck_assert_uint_eq(h.count, 0);
	ck_assert_int_eq(pp_hist_add(&h, 123456789), 0);
	ck_assert_uint_eq(pp_hist_quantile(&h, 0.01), 123456789);
	ck_assert_uint_eq(pp_hist_quantile(&h, 0.99), 123456789);
	/* Beyond the last octave: counted in the last bucket, max exact. */
	ck_assert_int_eq(pp_hist_add(&h, ~0ULL), 0);
	ck_assert_uint_eq(pp_hist_quantile(&h, 1.0), ~0ULL);
	ck_assert_uint_eq(h.count, 2);
	pp_hist_free(&h);
}
END_TEST

Suite *histogram_suite(void)
{
	Suite *s = suite_create("histogram");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_bucket_bounds);
	tcase_add_test(tc, test_quantiles_wide);
	tcase_add_test(tc, test_quantiles_cluster);
	tcase_add_test(tc, test_exact_and_edges);
	suite_add_tcase(s, tc);
	return s;
}
