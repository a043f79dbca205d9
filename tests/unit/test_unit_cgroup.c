// SPDX-License-Identifier: GPL-2.0
/* loader/kernel/unit_cgroup.c (--unit): a unit's cgroup, by name, in a laid-out tree. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kernel/unit_cgroup.h"
#include "suites.h"

static char top[] = "/tmp/pp-unit-cgroup.XXXXXX";
static int root = -1;

/* mkdir -p TOP/REL */
static void make(const char *rel)
{
	char path[PATH_MAX];

	for (const char *p = rel;; p++) {
		if (*p != '/' && *p)
			continue;
		snprintf(path, sizeof(path), "%s/%.*s", top, (int)(p - rel), rel);
		mkdir(path, 0755);
		if (!*p)
			break;
	}
}

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(top));
	make("system.slice/nginx.service");
	make("system.slice/dup.service");
	make("system.slice/nginx.service/sub"); /* a unit's own cgroup below it */
	make("user.slice/user-1000.slice/user@1000.service/app.slice/foo.service");
	make("user.slice/user-1000.slice/user@1000.service/app.slice/dup.service");
	make("machine.slice/web.scope");
	root = open(top, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(root, 0);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	close(root);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(top, "/tmp/pp-unit-cgroup.XXXXXX");
}

static int find(const char *name, char *buf, size_t len)
{
	char err[512];

	return pp_unit_cgroup(root, name, buf, len, err, sizeof(err));
}

/* A name alone is a service; a suffix is kept; user units are found too. */
START_TEST(test_found)
{
	char buf[PATH_MAX];

	ck_assert_int_eq(find("nginx", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/system.slice/nginx.service");
	ck_assert_int_eq(find("nginx.service", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/system.slice/nginx.service");
	ck_assert_int_eq(find("foo", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf,
			 "/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service");
	ck_assert_int_eq(find("web.scope", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/machine.slice/web.scope");
}
END_TEST

/* None, several, a path for a name, a short buffer: each refused, said. */
START_TEST(test_refused)
{
	char buf[PATH_MAX], err[512];

	ck_assert_int_eq(find("web", buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(pp_unit_cgroup(root, "dup", buf, sizeof(buf), err, sizeof(err)), -EEXIST);
	ck_assert_ptr_nonnull(strstr(err, "2 cgroups"));
	ck_assert_int_eq(find("system.slice/nginx.service", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(find("nginx", buf, 8), -ENAMETOOLONG);
}
END_TEST

Suite *unit_cgroup_suite(void)
{
	Suite *s = suite_create("unit_cgroup");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_found);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	return s;
}
