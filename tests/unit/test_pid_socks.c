// SPDX-License-Identifier: GPL-2.0
/*
 * --pid-only's sockets of one process (loader/names/pid_socks.c), over a
 * made-up /proc: the sockets it holds, one of another process, a socket it
 * opens later (its fds read again), a decision kept, and a socket the
 * kernel said it made.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include "names/pid_socks.h"

static char root[64];

static void fd_link(const char *fd, const char *target)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/proc/42/fd/%s", root, fd);
	ck_assert_int_eq(symlink(target, path), 0);
}

START_TEST(test_holds)
{
	char path[128], cmd[160];
	struct pp_pid_socks *s;

	snprintf(root, sizeof(root), "/tmp/pp-pid-socks-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/proc/42/fd", root);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	ck_assert_int_eq(system(cmd), 0);
	fd_link("3", "socket:[100]");
	fd_link("4", "pipe:[7]");
	s = pp_pid_socks_new(root, 42);
	ck_assert_ptr_nonnull(s);
	ck_assert(pp_pid_socks_holds(s, 100));
	ck_assert(!pp_pid_socks_holds(s, 7));
	ck_assert(!pp_pid_socks_holds(s, 0));
	/* Another's socket: decided once, kept so when it turns up later. */
	ck_assert(!pp_pid_socks_holds(s, 200));
	fd_link("5", "socket:[200]");
	ck_assert(!pp_pid_socks_holds(s, 200));
	/* A socket opened later: its fds read again. */
	fd_link("6", "socket:[300]");
	ck_assert(pp_pid_socks_holds(s, 300));
	/* One the kernel says it made, closed before its fds are read: its. */
	pp_pid_socks_note(s, 400);
	ck_assert(pp_pid_socks_holds(s, 400));
	pp_pid_socks_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *pid_socks_suite(void)
{
	Suite *s = suite_create("pid_socks");
	TCase *tc = tcase_create("pid_socks");

	tcase_add_test(tc, test_holds);
	suite_add_tcase(s, tc);
	return s;
}
