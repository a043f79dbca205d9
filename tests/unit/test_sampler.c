// SPDX-License-Identifier: GPL-2.0
/* loader/paths/sampler.c (--max-rate): the period and share each tick. */
#include <check.h>
#include "paths/sampler.h"
#include "suites.h"

#define TICK PP_SAMPLE_TICK_NS

/* Under the rate: every packet, and no tick before a quarter second. */
START_TEST(test_under_rate)
{
	struct pp_sampler s;

	pp_sampler_init(&s, 1000, 5 * TICK);
	ck_assert_uint_eq(s.share, 250);
	ck_assert_uint_eq(pp_sampler_tick(&s, 100, 150, 5 * TICK + TICK / 2), 0);
	ck_assert_uint_eq(pp_sampler_tick(&s, 200, 50, 6 * TICK), 1);
	ck_assert_uint_eq(s.max_period, 1);
}
END_TEST

/* A flood: the share runs out, N doubles at least, then follows the estimate. */
START_TEST(test_flood)
{
	struct pp_sampler s;

	pp_sampler_init(&s, 1000, 0);
	/* 250 marked (the share, then none left) of a 10,000-a-tick flood. */
	ck_assert_uint_eq(pp_sampler_tick(&s, 250, 0, TICK), 2);
	/* Still capped: doubles again. */
	ck_assert_uint_eq(pp_sampler_tick(&s, 500, -1, 2 * TICK), 4);
	/* 1 in 4 of 10,000: 2,500 drawn, 250 marked before the share ran out: the marks say 1,000,
	 * too little. */
	ck_assert_uint_eq(pp_sampler_tick(&s, 750, 0, 3 * TICK), 8);
	/* 1 in 8 of 10,000 is 1250 drawn; still capped: 16, then 32, then the estimate holds. */
	ck_assert_uint_eq(pp_sampler_tick(&s, 1000, 0, 4 * TICK), 16);
	ck_assert_uint_eq(pp_sampler_tick(&s, 1250, 0, 5 * TICK), 32);
	/* 1 in 32 of 10,000: 312 drawn, 250 marked, capped: 64; at 1 in 64, 156 marked, 94 left. */
	ck_assert_uint_eq(pp_sampler_tick(&s, 1500, 0, 6 * TICK), 64);
	ck_assert_uint_eq(pp_sampler_tick(&s, 1656, 94, 7 * TICK), 40);
	ck_assert_uint_eq(s.max_period, 64);
	/* The flood ends: every packet again. */
	ck_assert_uint_eq(pp_sampler_tick(&s, 1656, 250, 8 * TICK), 1);
}
END_TEST

/* A rate below a path a tick still allows one; off samples nothing. */
START_TEST(test_edges)
{
	struct pp_sampler s;

	pp_sampler_init(&s, 1, 0);
	ck_assert_uint_eq(s.share, 1);
	pp_sampler_init(&s, 0, 0);
	ck_assert_uint_eq(pp_sampler_tick(&s, 1000000, 0, 100 * TICK), 0);
	pp_sampler_init(&s, 1, 0);
	ck_assert_uint_eq(pp_sampler_tick(&s, 1ULL << 40, 0, TICK), PP_SAMPLE_MAX);
}
END_TEST

Suite *sampler_suite(void)
{
	Suite *s = suite_create("sampler");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_under_rate);
	tcase_add_test(tc, test_flood);
	tcase_add_test(tc, test_edges);
	suite_add_tcase(s, tc);
	return s;
}
