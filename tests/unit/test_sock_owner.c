// SPDX-License-Identifier: GPL-2.0
/*
 * Which process holds a socket (loader/names/sock_owner.c), over a made-up
 * /proc: the fd links read, the lowest pid of two holders, a socket no
 * process holds and the wait before it is looked for again, a process
 * that appears later.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "names/sock_owner.h"

static char root[64], proc[80];

/* PROC/PID with COMM, and fd N -> TARGET for each "N=TARGET" of FDS. */
static void proc_add(unsigned int pid, const char *comm, const char *const *fds)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u", proc, pid);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%u/fd", proc, pid);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%u/comm", proc, pid);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%s\n", comm);
	fclose(f);
	for (; *fds; fds++) {
		const char *eq = strchr(*fds, '=');

		snprintf(path, sizeof(path), "%s/%u/fd/%.*s", proc, pid, (int)(eq - *fds), *fds);
		ck_assert_int_eq(symlink(eq + 1, path), 0);
	}
}

/* PROC/NAME, a directory with a socket in it that no process holds. */
static void proc_dir(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", proc, name);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s/fd", proc, name);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s/fd/3", proc, name);
	ck_assert_int_eq(symlink("socket:[31337]", path), 0);
}

static void proc_setup(void)
{
	snprintf(root, sizeof(root), "/tmp/pp-sock-owner-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(proc, sizeof(proc), "%s/proc", root);
	ck_assert_int_eq(mkdir(proc, 0755), 0);
	proc_add(150, "worker", (const char *const[]){"0=/dev/null", "7=socket:[4242]", NULL});
	proc_add(123, "curl", (const char *const[]){"3=socket:[4242]", "4=socket:[77]", NULL});
	proc_add(200, "sh", (const char *const[]){"0=pipe:[9]", "1=anon_inode:[eventfd]", NULL});
	/* Not a process: not a number. */
	proc_dir("self");
	proc_dir("12ab");
}

static void proc_teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_link_ino)
{
	__u32 ino = 0;

	ck_assert_int_eq(pp_sock_link_ino("socket:[1126032]", &ino), 0);
	ck_assert_uint_eq(ino, 1126032);
	ck_assert_int_eq(pp_sock_link_ino("socket:[]", &ino), -1);
	ck_assert_int_eq(pp_sock_link_ino("socket:[12", &ino), -1);
	ck_assert_int_eq(pp_sock_link_ino("socket:[12]x", &ino), -1);
	ck_assert_int_eq(pp_sock_link_ino("socket:[99999999999]", &ino), -1);
	ck_assert_int_eq(pp_sock_link_ino("pipe:[12]", &ino), -1);
	ck_assert_int_eq(pp_sock_link_ino("/dev/null", &ino), -1);
}
END_TEST

START_TEST(test_owners)
{
	struct pp_sock_owners *s = pp_sock_owners_new(root);
	struct pp_sock_owner o = {0};

	ck_assert_ptr_nonnull(s);
	/* Held by 123 and 150: the lowest pid. */
	ck_assert(pp_sock_owner(s, 4242, 1000, &o));
	ck_assert_uint_eq(o.pid, 123);
	ck_assert_str_eq(o.comm, "curl");
	ck_assert(pp_sock_owner(s, 77, 1000, &o));
	ck_assert_uint_eq(o.pid, 123);
	ck_assert(!pp_sock_owner(s, 0, 1000, &o));
	ck_assert(!pp_sock_owner(s, 31337, 1000, &o));
	/* Nobody holds 555; a process that does appears: not looked for at once. */
	ck_assert(!pp_sock_owner(s, 555, 1000, &o));
	proc_add(300, "late", (const char *const[]){"5=socket:[555]", NULL});
	ck_assert(!pp_sock_owner(s, 555, 1000 + PP_SOCK_MISS_MS - 1, &o));
	ck_assert(pp_sock_owner(s, 555, 1000 + PP_SOCK_MISS_MS, &o));
	ck_assert_uint_eq(o.pid, 300);
	ck_assert_str_eq(o.comm, "late");
	/* Its process gone: still known from the scan that saw it. */
	proc_teardown();
	proc_setup();
	ck_assert(pp_sock_owner(s, 555, 5000, &o));
	ck_assert_uint_eq(o.pid, 300);
	pp_sock_owners_free(s);
}
END_TEST

/* A maker the kernel told is kept for a socket no scan finds, never over a scan's holder. */
START_TEST(test_noted_makers)
{
	struct pp_sock_owners *s = pp_sock_owners_new(root);
	const struct pp_sock_owner gone = {.pid = 999, .comm = "gone"};
	struct pp_sock_owner o = {0};

	ck_assert_ptr_nonnull(s);
	ck_assert(!pp_sock_owner(s, 9000, 1000, &o));
	pp_sock_owner_note(s, 9000, &gone);
	ck_assert(pp_sock_owner(s, 9000, 1001, &o));
	ck_assert_uint_eq(o.pid, 999);
	ck_assert_str_eq(o.comm, "gone");
	/* 4242 is held by 123 (a scan says so): a maker noted after does not replace it. */
	ck_assert(pp_sock_owner(s, 4242, 1002, &o));
	pp_sock_owner_note(s, 4242, &gone);
	ck_assert(pp_sock_owner(s, 4242, 1003, &o));
	ck_assert_uint_eq(o.pid, 123);
	/* Inode 0 is no socket's. */
	pp_sock_owner_note(s, 0, &gone);
	ck_assert(!pp_sock_owner(s, 0, 1004, &o));
	pp_sock_owners_free(s);
}
END_TEST

/* PROC/PID/cgroup with TEXT. */
static void proc_cgroup(unsigned int pid, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u/cgroup", proc, pid);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* A holder's systemd service, from its cgroup v2 line; none for a session or none at all. */
START_TEST(test_places)
{
	struct pp_sock_owners *s = pp_sock_owners_new(root);
	struct pp_sock_owner o = {0};
	char unit[32];

	ck_assert(pp_cgroup_unit("/system.slice/nginx.service", unit, sizeof(unit)));
	ck_assert_str_eq(unit, "nginx.service");
	ck_assert(pp_cgroup_unit("/user.slice/user@0.service/app.slice/x.service/y\n", unit,
				 sizeof(unit)));
	ck_assert_str_eq(unit, "x.service");
	ck_assert(!pp_cgroup_unit("/user.slice/user-0.slice/session-2.scope", unit, sizeof(unit)));
	ck_assert(!pp_cgroup_unit("/", unit, sizeof(unit)));
	ck_assert(!pp_cgroup_unit("/.service", unit, sizeof(unit)));
	ck_assert(!pp_cgroup_unit("/a-very-long-name-indeed.service", unit, 8));

	proc_cgroup(123, "12:pids:/x\n0::/system.slice/web.service\n");
	ck_assert(pp_sock_owner(s, 77, 1000, &o));
	ck_assert_int_eq(o.place_kind, PP_PLACE_UNIT);
	ck_assert_str_eq(o.place, "web.service");
	proc_add(210, "sh", (const char *const[]){"3=socket:[88]", NULL});
	proc_cgroup(210, "0::/user.slice/user-0.slice/session-2.scope\n");
	ck_assert(pp_sock_owner(s, 88, 1000 + PP_SOCK_MISS_MS, &o));
	ck_assert_int_eq(o.place_kind, PP_PLACE_NONE);
	ck_assert_str_eq(o.place, "");
	pp_sock_owners_free(s);
}
END_TEST

Suite *sock_owner_suite(void)
{
	Suite *s = suite_create("sock_owner");
	TCase *tc = tcase_create("sock_owner");

	tcase_add_checked_fixture(tc, proc_setup, proc_teardown);
	tcase_add_test(tc, test_link_ino);
	tcase_add_test(tc, test_owners);
	tcase_add_test(tc, test_noted_makers);
	tcase_add_test(tc, test_places);
	suite_add_tcase(s, tc);
	return s;
}
