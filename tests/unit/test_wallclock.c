// SPDX-License-Identifier: GPL-2.0
/* wallclock.c: the offset from the probes' clock to dates, and its text. */
#include <check.h>
#include <time.h>
#include "output/wallclock.h"

static __s64 now_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (__s64)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* The offset turns a CLOCK_MONOTONIC time into the CLOCK_REALTIME of that moment. */
START_TEST(test_measure)
{
	struct pp_wallclock w = {0};
	__s64 mono, real, d;

	pp_wallclock_measure(&w);
	mono = now_ns(CLOCK_MONOTONIC);
	real = now_ns(CLOCK_REALTIME);
	d = real - (mono + w.off);
	/* Reads a few us apart on a loaded machine; a wrong sign or unit is seconds off. */
	ck_assert_int_lt(d < 0 ? -d : d, 50000000);
	ck_assert_uint_lt(w.err_ns, 50000000);
	ck_assert_int_gt(w.off, 1500000000LL * 1000000000LL); /* a date after 2017 */
}
END_TEST

/* Nobody steps the clock in a test: no move; a changed offset is one. */
START_TEST(test_moved)
{
	struct pp_wallclock w;

	pp_wallclock_measure(&w);
	ck_assert_int_eq(pp_wallclock_moved(&w), 0);
	w.off -= 3000000000LL; /* as if the clock had been stepped 3 s ahead since */
	ck_assert_int_lt(pp_wallclock_moved(&w) - 3000000000LL, 50000000);
	ck_assert_int_gt(pp_wallclock_moved(&w), 2950000000LL);
}
END_TEST

/* Local time (main.c sets TZ=UTC), microseconds truncated as tcpdump's. */
START_TEST(test_hms)
{
	char b[PP_HMS_LEN];

	pp_wallclock_hms(1795688548123456789ULL, b);
	ck_assert_str_eq(b, "10:22:28.123456");
	pp_wallclock_hms(1795688548999999999ULL, b);
	ck_assert_str_eq(b, "10:22:28.999999");
	pp_wallclock_hms(1795688549000000000ULL, b);
	ck_assert_str_eq(b, "10:22:29.000000");
	pp_wallclock_hms(1795651200000000001ULL, b); /* midnight */
	ck_assert_str_eq(b, "00:00:00.000000");
	pp_wallclock_hms(1795688548123456789ULL, b); /* back: not the cached second */
	ck_assert_str_eq(b, "10:22:28.123456");
}
END_TEST

Suite *wallclock_suite(void)
{
	Suite *s = suite_create("wallclock");
	TCase *tc = tcase_create("clock");

	tcase_add_test(tc, test_measure);
	tcase_add_test(tc, test_moved);
	tcase_add_test(tc, test_hms);
	suite_add_tcase(s, tc);
	return s;
}
