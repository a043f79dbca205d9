// SPDX-License-Identifier: GPL-2.0
/* loader/paths/budget.c (--cpu-budget): the paths a second each tick. */
#include <check.h>
#include "paths/budget.h"
#include "suites.h"

#define SEC PP_BUDGET_TICK_NS
#define MS  1000000ULL

/* No tick before a second; a cost known: the budget's rate, growing PP_BUDGET_STEP at most. */
START_TEST(test_cost_sets_rate)
{
	struct pp_budget b;

	/* 5% of a CPU: 50 ms a second. */
	pp_budget_init(&b, 0.05, 100000, 0, 0);
	ck_assert_uint_eq(b.rate, PP_BUDGET_START);
	ck_assert_uint_eq(pp_budget_tick(&b, 1 * MS, 50, SEC / 2), 0);
	/* 100 paths took 2 ms: 20 us each, the budget buys 2500; 4 x 100 first, then 4 x 400. */
	ck_assert_uint_eq(pp_budget_tick(&b, 2 * MS, 100, SEC), 400);
	ck_assert_uint_eq(pp_budget_tick(&b, 10 * MS, 500, 2 * SEC), 1600);
	ck_assert_uint_eq(pp_budget_tick(&b, 60 * MS, 3000, 3 * SEC), 2500);
	ck_assert_uint_eq(b.over, 0);
	/* Paths cost 1 ms now: the average, 510 us, buys 98. */
	ck_assert_uint_eq(pp_budget_tick(&b, 560 * MS, 3500, 4 * SEC), 98);
	ck_assert_uint_eq(b.over, 1);
}
END_TEST

/* The loop's own time, learned in a second with no path, is not the paths'. */
START_TEST(test_fixed_part)
{
	struct pp_budget b;

	pp_budget_init(&b, 0.05, 100000, 0, 0);
	ck_assert_uint_eq(pp_budget_tick(&b, 10 * MS, 0, SEC), PP_BUDGET_START);
	/* 30 ms: 10 the loop's, 20 for 100 paths; 40 ms left buy 200. */
	ck_assert_uint_eq(pp_budget_tick(&b, 40 * MS, 100, 2 * SEC), 200);
	ck_assert_uint_eq(pp_budget_tick(&b, 90 * MS, 300, 3 * SEC), 200);
	/*
	 * 5 ms, less than the loop's time: a tenth of it counts for the 100
	 * paths, 5 us each, averaged with 200: 40 ms buy 390.
	 */
	ck_assert_uint_eq(pp_budget_tick(&b, 95 * MS, 400, 4 * SEC), 390);
}
END_TEST

/* The ceiling holds; a budget that buys less than a path still follows one. */
START_TEST(test_limits)
{
	struct pp_budget b;

	pp_budget_init(&b, 0.5, 30, 0, 0);
	ck_assert_uint_eq(b.rate, 30);
	ck_assert_uint_eq(pp_budget_tick(&b, 1 * MS, 10, SEC), 30);
	pp_budget_init(&b, 0.001, 1000, 0, 0);
	/* 10 paths took 100 ms: 10 ms each; 1 ms a second buys a tenth. */
	ck_assert_uint_eq(pp_budget_tick(&b, 100 * MS, 10, SEC), 1);
}
END_TEST

/* Over the budget with no path followed: one a second; idle within it: unchanged. */
START_TEST(test_no_paths)
{
	struct pp_budget b;

	pp_budget_init(&b, 0.01, 1000, 5 * MS, 0);
	ck_assert_uint_eq(pp_budget_tick(&b, 8 * MS, 0, SEC), PP_BUDGET_START);
	ck_assert_uint_eq(pp_budget_tick(&b, 40 * MS, 0, 2 * SEC), 1);
	ck_assert_uint_eq(b.over, 1);
}
END_TEST

Suite *budget_suite(void)
{
	Suite *s = suite_create("budget");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_cost_sets_rate);
	tcase_add_test(tc, test_fixed_part);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_no_paths);
	suite_add_tcase(s, tc);
	return s;
}
