// SPDX-License-Identifier: GPL-2.0
/* grow: doubling, room kept when there is enough, limits, nothing lost on failure. */
#include <stdint.h>
#include <linux/types.h>
#include "suites.h"
#include "base/grow.h"

START_TEST(test_doubling)
{
	int *v = NULL;
	size_t n = 0, cap = 0;
	void *before;

	for (n = 0; n < 1000; n++) {
		ck_assert_int_eq(PP_GROW(v, cap, n + 1, 16), 0);
		v[n] = (int)n;
	}
	ck_assert_uint_eq(cap, 1024); /* 16, 32, ... 1024 */
	for (n = 0; n < 1000; n++)
		ck_assert_int_eq(v[n], (int)n);
	/* Enough room: nothing moves. */
	before = v;
	ck_assert_int_eq(PP_GROW(v, cap, 1024, 16), 0);
	ck_assert_ptr_eq(v, before);
	ck_assert_uint_eq(cap, 1024);
	/* A need past double the room goes straight there, in powers of two. */
	ck_assert_int_eq(PP_GROW(v, cap, 5000, 16), 0);
	ck_assert_uint_eq(cap, 8192);
	ck_assert_int_eq(v[999], 999);
	free(v);
}
END_TEST

/* A narrow room (__u8 here, __u32 in path.c) refuses what it cannot count; the array stays. */
START_TEST(test_narrow_cap)
{
	char *v = NULL;
	__u8 cap = 0;

	ck_assert_int_eq(PP_GROW(v, cap, 100, 64), 0);
	ck_assert_uint_eq(cap, 128);
	v[127] = 'x';
	ck_assert_int_eq(PP_GROW(v, cap, 129, 64), -ENOMEM); /* 256 does not fit a __u8 */
	ck_assert_uint_eq(cap, 128);
	ck_assert_int_eq(v[127], 'x');
	free(v);
}
END_TEST

/* Failure leaves the array as it was: no leak, no dangling pointer. */
START_TEST(test_failure_keeps)
{
	long *v = NULL;
	size_t cap = 0;

	ck_assert_int_eq(PP_GROW(v, cap, 4, 4), 0);
	v[3] = 42;
	/* More than memory can hold: the size computation refuses it. */
	ck_assert_int_eq(PP_GROW(v, cap, SIZE_MAX / 2, 4), -ENOMEM);
	ck_assert_uint_eq(cap, 4);
	ck_assert_int_eq(v[3], 42);
	free(v);
}
END_TEST

Suite *grow_suite(void)
{
	Suite *s = suite_create("grow");
	TCase *tc = tcase_create("grow");

	tcase_add_test(tc, test_doubling);
	tcase_add_test(tc, test_narrow_cap);
	tcase_add_test(tc, test_failure_keeps);
	suite_add_tcase(s, tc);
	return s;
}
