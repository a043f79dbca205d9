// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include "suites.h"
#include "kernel/cgroup2.h"

/* A hybrid host: v1 controllers under /sys/fs/cgroup, v2 at .../unified. */
START_TEST(test_hybrid)
{
	const char *m = "tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0\n"
			"cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n"
			"cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n";
	char buf[64];

	ck_assert_int_eq(pp_cgroup2_root(m, "", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/sys/fs/cgroup/unified");
	ck_assert_int_eq(pp_cgroup2_root(m, "/proc/1/root", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/proc/1/root/sys/fs/cgroup/unified");
}
END_TEST

/* A unified host; the last line without its newline. */
START_TEST(test_unified)
{
	const char *m = "proc /proc proc rw 0 0\ncgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0";
	char buf[64];

	ck_assert_int_eq(pp_cgroup2_root(m, "", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/sys/fs/cgroup");
}
END_TEST

/* ip netns exec's fresh /sys hides them all; v1 only is none either. */
START_TEST(test_none)
{
	char buf[8];

	ck_assert_int_eq(pp_cgroup2_root("sysfs /sys sysfs rw 0 0\n", "", buf, sizeof(buf)),
			 -ENOENT);
	ck_assert_int_eq(
		pp_cgroup2_root("cgroup /sys/fs/cgroup/cpu cgroup rw 0 0\n", "", buf, sizeof(buf)),
		-ENOENT);
	ck_assert_int_eq(pp_cgroup2_root("", "", buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(
		pp_cgroup2_root("cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n", "", buf, sizeof(buf)),
		-ENAMETOOLONG);
}
END_TEST

/* /proc/PID/cgroup on a hybrid host: the v2 line is "0::". */
START_TEST(test_of_proc)
{
	const char *t = "9:name=systemd:/\n4:memory:/a/b\n0::/pp/x.scope\n";
	char buf[16];

	ck_assert_int_eq(pp_cgroup2_of_proc(t, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/pp/x.scope");
	ck_assert_int_eq(pp_cgroup2_of_proc("0::/", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/");
	ck_assert_int_eq(pp_cgroup2_of_proc("4:memory:/a\n", buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(pp_cgroup2_of_proc("0::/a/much/longer/path\n", buf, sizeof(buf)),
			 -ENAMETOOLONG);
}
END_TEST

START_TEST(test_level)
{
	ck_assert_uint_eq(pp_cgroup2_level("/"), 0);
	ck_assert_uint_eq(pp_cgroup2_level(""), 0);
	ck_assert_uint_eq(pp_cgroup2_level("/a"), 1);
	ck_assert_uint_eq(pp_cgroup2_level("/system.slice/nginx.service"), 2);
	ck_assert_uint_eq(pp_cgroup2_level("a//b/"), 2);
}
END_TEST

Suite *cgroup2_suite(void)
{
	Suite *s = suite_create("cgroup2");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_hybrid);
	tcase_add_test(tc, test_unified);
	tcase_add_test(tc, test_none);
	tcase_add_test(tc, test_of_proc);
	tcase_add_test(tc, test_level);
	suite_add_tcase(s, tc);
	return s;
}
