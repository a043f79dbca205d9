// SPDX-License-Identifier: GPL-2.0
/*
 * loader/base/safe_file.c: what it refuses (directories others can write to,
 * their symlinks and files) and what it makes (0700 directories, files of
 * the mode asked, replaced or new, never through a symlink). Cases that
 * need a file of another owner chown one, as root only; run as another
 * user they print SKIP.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "base/safe_file.h"
#include "suites.h"

#define OTHER_UID 65534

static char base[64];
static char err[512];

static void setup(void)
{
	/* Whoever ran the tests with sudo is not the other owner of these tests. */
	pp_safe_file_set_trusted_uid((uid_t)-1);
	snprintf(base, sizeof(base), "/tmp/pp-unit-sf.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	umask(022);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	ck_assert_int_eq(system(cmd), 0);
}

/* BASE/REL into a static buffer (one at a time). */
static const char *at(const char *rel)
{
	static char buf[2][256];
	static int i;

	i ^= 1;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", base, rel);
	return buf[i];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void expect_text(const char *path, const char *want)
{
	char got[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(got, 1, sizeof(got) - 1, f);
	got[n] = '\0';
	fclose(f);
	ck_assert_str_eq(got, want);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	ck_assert_int_eq(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

static bool is_regular(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool as_root(const char *test)
{
	if (geteuid() == 0)
		return true;
	printf("SKIP: %s: needs root to make a file of another owner\n", test);
	return false;
}

/* Write TEXT as NAME in D; REPLACE as pp_safe_dir_create. Returns 0 or -errno. */
static int write_in(struct pp_safe_dir *d, const char *name, const char *text, bool replace)
{
	int fd = pp_safe_dir_create(d, name, 0700, replace, err, sizeof(err));

	if (fd < 0)
		return fd;
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	return pp_safe_dir_commit(d, name, fd, replace, err, sizeof(err));
}

START_TEST(test_fresh_dir)
{
	struct pp_safe_dir d;
	char tmp[64];

	ck_assert_int_eq(pp_safe_dir_open(&d, at("new"), PP_SAFE_DIR_PRIVATE, err, sizeof(err)), 0);
	ck_assert(!d.shared);
	ck_assert_uint_eq(mode_of(at("new")), 0700);
	ck_assert_int_eq(write_in(&d, "a.sh", "one", true), 0);
	ck_assert_uint_eq(mode_of(at("new/a.sh")), 0700);
	expect_text(at("new/a.sh"), "one");
	/* Again: replaced in place, no temporary file left. */
	ck_assert_int_eq(write_in(&d, "a.sh", "two", true), 0);
	expect_text(at("new/a.sh"), "two");
	snprintf(tmp, sizeof(tmp), "new/.a.sh.pktpath-%d", (int)getpid());
	ck_assert_int_eq(access(at(tmp), F_OK), -1);
	pp_safe_dir_close(&d);
	/* An existing directory of ours is taken as it is. */
	ck_assert_int_eq(pp_safe_dir_open(&d, at("new"), PP_SAFE_DIR_EXISTING, err, sizeof(err)),
			 0);
	pp_safe_dir_close(&d);
	ck_assert_int_eq(
		pp_safe_dir_open(&d, at("missing"), PP_SAFE_DIR_EXISTING, err, sizeof(err)),
		-ENOENT);
}
END_TEST

/* The attack, in a directory of ours: the symlink is replaced, its target untouched. */
START_TEST(test_replace_symlink)
{
	struct pp_safe_dir d;

	put(at("victim"), "victim");
	ck_assert_int_eq(mkdir(at("dir"), 0700), 0);
	ck_assert_int_eq(symlink(at("victim"), at("dir/attach.sh")), 0);
	ck_assert_int_eq(pp_safe_dir_open(&d, at("dir"), PP_SAFE_DIR_PRIVATE, err, sizeof(err)), 0);
	/* New only: the symlink is in the way, and is not followed. */
	ck_assert_int_eq(write_in(&d, "attach.sh", "script", false), -EEXIST);
	expect_text(at("victim"), "victim");
	ck_assert_int_eq(write_in(&d, "attach.sh", "script", true), 0);
	expect_text(at("victim"), "victim");
	ck_assert_uint_eq(mode_of(at("victim")), 0644);
	ck_assert(is_regular(at("dir/attach.sh")));
	expect_text(at("dir/attach.sh"), "script");
	pp_safe_dir_close(&d);
}
END_TEST

START_TEST(test_world_writable)
{
	struct pp_safe_dir d;

	ck_assert_int_eq(mkdir(at("ww"), 0700), 0);
	ck_assert_int_eq(chmod(at("ww"), 0777), 0);
	ck_assert_int_eq(pp_safe_dir_open(&d, at("ww"), PP_SAFE_DIR_CREATE, err, sizeof(err)),
			 -EPERM);
	ck_assert_ptr_nonnull(strstr(err, "writable by others"));
	/* Nor anything under it: ww's entries can be swapped. */
	ck_assert_int_eq(mkdir(at("ww/sub"), 0700), 0);
	ck_assert_int_eq(pp_safe_dir_open(&d, at("ww/sub"), PP_SAFE_DIR_CREATE, err, sizeof(err)),
			 -EPERM);
	/* Nor through a symlink of ours that leads there. */
	ck_assert_int_eq(symlink("ww/sub", at("link")), 0);
	ck_assert_int_eq(pp_safe_dir_open(&d, at("link"), PP_SAFE_DIR_CREATE, err, sizeof(err)),
			 -EPERM);
	ck_assert_ptr_nonnull(strstr(err, "/ww: writable by others"));
	ck_assert_int_eq(chmod(at("ww"), 0770), 0);
	ck_assert_int_eq(pp_safe_dir_open(&d, at("ww"), PP_SAFE_DIR_CREATE, err, sizeof(err)),
			 -EPERM);
	/* Made safe, the same symlink leads there. */
	ck_assert_int_eq(chmod(at("ww"), 0755), 0);
	ck_assert_int_eq(pp_safe_dir_open(&d, at("link"), PP_SAFE_DIR_CREATE, err, sizeof(err)), 0);
	pp_safe_dir_close(&d);
	/* A loop ends. */
	ck_assert_int_eq(symlink("loop", at("loop")), 0);
	ck_assert_int_eq(pp_safe_dir_open(&d, at("loop"), PP_SAFE_DIR_CREATE, err, sizeof(err)),
			 -ELOOP);
}
END_TEST

START_TEST(test_sticky)
{
	struct pp_safe_dir d;

	ck_assert_int_eq(mkdir(at("st"), 0700), 0);
	ck_assert_int_eq(chmod(at("st"), 01777), 0);
	ck_assert_int_eq(pp_safe_dir_open(&d, at("st"), PP_SAFE_DIR_PRIVATE, err, sizeof(err)),
			 -EPERM);
	ck_assert_int_eq(pp_safe_dir_open(&d, at("st"), PP_SAFE_DIR_EXISTING, err, sizeof(err)), 0);
	ck_assert(d.shared);
	/* New files only, even when asked to replace. */
	put(at("st/there"), "theirs");
	ck_assert_int_eq(write_in(&d, "there", "ours", true), -EEXIST);
	expect_text(at("st/there"), "theirs");
	ck_assert_int_eq(write_in(&d, "new", "ours", true), 0);
	expect_text(at("st/new"), "ours");
	pp_safe_dir_close(&d);
	/* A directory of ours made under it is ours alone. */
	ck_assert_int_eq(pp_safe_dir_open(&d, at("st/mine"), PP_SAFE_DIR_PRIVATE, err, sizeof(err)),
			 0);
	ck_assert(!d.shared);
	pp_safe_dir_close(&d);
}
END_TEST

START_TEST(test_foreign_owner)
{
	struct pp_safe_dir d;

	if (!as_root("test_foreign_owner"))
		return;
	ck_assert_int_eq(mkdir(at("theirs"), 0755), 0);
	ck_assert_int_eq(chown(at("theirs"), OTHER_UID, OTHER_UID), 0);
	ck_assert_int_eq(pp_safe_dir_open(&d, at("theirs"), PP_SAFE_DIR_CREATE, err, sizeof(err)),
			 -EPERM);
	ck_assert_ptr_nonnull(strstr(err, "owned by uid 65534"));
	/* Under it, even a directory of ours: they can swap it. */
	ck_assert_int_eq(mkdir(at("theirs/ours"), 0700), 0);
	ck_assert_int_eq(
		pp_safe_dir_open(&d, at("theirs/ours"), PP_SAFE_DIR_CREATE, err, sizeof(err)),
		-EPERM);
	/* Unless they ran pktpath with sudo: then it is theirs to decide. */
	pp_safe_file_set_trusted_uid(pp_safe_file_invoking_uid("65534"));
	ck_assert_int_eq(
		pp_safe_dir_open(&d, at("theirs/ours"), PP_SAFE_DIR_CREATE, err, sizeof(err)), 0);
	pp_safe_dir_close(&d);
	pp_safe_file_set_trusted_uid(pp_safe_file_invoking_uid("65534x"));
	ck_assert_int_eq(pp_safe_dir_open(&d, at("theirs"), PP_SAFE_DIR_CREATE, err, sizeof(err)),
			 -EPERM);
	pp_safe_file_set_trusted_uid((uid_t)-1);
}
END_TEST

/* SUDO_UID counts only for root, and only when it is a uid. */
START_TEST(test_invoking_uid)
{
	uid_t me = getuid();

	ck_assert_uint_eq(pp_safe_file_invoking_uid(NULL), me);
	ck_assert_uint_eq(pp_safe_file_invoking_uid(""), me);
	ck_assert_uint_eq(pp_safe_file_invoking_uid("65534x"), me);
	ck_assert_uint_eq(pp_safe_file_invoking_uid("-1"), me);
	ck_assert_uint_eq(pp_safe_file_invoking_uid("4294967295"), me);
	ck_assert_uint_eq(pp_safe_file_invoking_uid("65534"), me == 0 ? 65534 : me);
}
END_TEST

/* In a sticky directory: another's symlink or directory is refused, ours taken. */
START_TEST(test_sticky_foreign_entries)
{
	struct pp_safe_dir d;

	if (!as_root("test_sticky_foreign_entries"))
		return;
	ck_assert_int_eq(mkdir(at("st"), 01777), 0);
	ck_assert_int_eq(chmod(at("st"), 01777), 0);
	ck_assert_int_eq(mkdir(at("real"), 0700), 0);
	ck_assert_int_eq(symlink(at("real"), at("st/link")), 0);
	ck_assert_int_eq(pp_safe_dir_open(&d, at("st/link"), PP_SAFE_DIR_CREATE, err, sizeof(err)),
			 0);
	pp_safe_dir_close(&d);
	ck_assert_int_eq(lchown(at("st/link"), OTHER_UID, OTHER_UID), 0);
	ck_assert_int_eq(pp_safe_dir_open(&d, at("st/link"), PP_SAFE_DIR_CREATE, err, sizeof(err)),
			 -EPERM);
	ck_assert_ptr_nonnull(strstr(err, "symlink owned by uid 65534"));
	ck_assert_int_eq(mkdir(at("st/dir"), 0700), 0);
	ck_assert_int_eq(chown(at("st/dir"), OTHER_UID, OTHER_UID), 0);
	ck_assert_int_eq(pp_safe_dir_open(&d, at("st/dir"), PP_SAFE_DIR_CREATE, err, sizeof(err)),
			 -EPERM);
}
END_TEST

START_TEST(test_bad_names)
{
	struct pp_safe_dir d;

	ck_assert_int_eq(pp_safe_dir_open(&d, "", PP_SAFE_DIR_CREATE, err, sizeof(err)), -EINVAL);
	put(at("file"), "x");
	ck_assert_int_eq(pp_safe_dir_open(&d, at("file"), PP_SAFE_DIR_CREATE, err, sizeof(err)),
			 -ENOTDIR);
	ck_assert_int_eq(pp_safe_dir_open(&d, base, PP_SAFE_DIR_EXISTING, err, sizeof(err)), 0);
	ck_assert_int_eq(pp_safe_dir_create(&d, "a/b", 0600, false, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(pp_safe_dir_create(&d, "..", 0600, false, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(pp_safe_dir_create(&d, "", 0600, false, err, sizeof(err)), -EINVAL);
	pp_safe_dir_close(&d);
}
END_TEST

/* A file name past NAME_MAX is refused, and closes nothing of the caller's (fd 0). */
START_TEST(test_name_too_long)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/", base);

	memset(path + n, 'x', NAME_MAX + 8);
	path[n + NAME_MAX + 8] = 0;
	ck_assert_ptr_null(pp_safe_file_create(path, 0600, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "file name too long"));
	ck_assert_int_ne(fcntl(0, F_GETFD), -1);
}
END_TEST

START_TEST(test_output_file)
{
	struct pp_safe_file *f;

	put(at("victim"), "victim");
	ck_assert_int_eq(symlink(at("victim"), at("out.pcapng")), 0);
	f = pp_safe_file_create(at("out.pcapng"), 0600, err, sizeof(err));
	ck_assert_msg(f, "%s", err);
	fputs("capture", pp_safe_file_file(f));
	ck_assert_int_eq(pp_safe_file_close(f, err, sizeof(err)), 0);
	expect_text(at("victim"), "victim");
	expect_text(at("out.pcapng"), "capture");
	ck_assert_uint_eq(mode_of(at("out.pcapng")), 0600);
	/* In a sticky directory, only a new name. */
	ck_assert_int_eq(mkdir(at("st"), 0700), 0);
	ck_assert_int_eq(chmod(at("st"), 01777), 0);
	ck_assert_int_eq(symlink(at("victim"), at("st/out")), 0);
	ck_assert_ptr_null(pp_safe_file_create(at("st/out"), 0600, err, sizeof(err)));
	expect_text(at("victim"), "victim");
	f = pp_safe_file_create(at("st/new"), 0600, err, sizeof(err));
	ck_assert_msg(f, "%s", err);
	ck_assert_int_eq(pp_safe_file_close(f, err, sizeof(err)), 0);
	ck_assert_uint_eq(mode_of(at("st/new")), 0600);
}
END_TEST

/*
 * Published early (before privileges go): in place at once, the old file
 * replaced, the writes going on after; discarded: nothing left, the old
 * file kept.
 */
START_TEST(test_output_publish_discard)
{
	struct pp_safe_file *f;

	put(at("old"), "old");
	f = pp_safe_file_create(at("old"), 0600, err, sizeof(err));
	ck_assert_msg(f, "%s", err);
	fputs("new", pp_safe_file_file(f));
	pp_safe_file_discard(f);
	expect_text(at("old"), "old");
	f = pp_safe_file_create(at("old"), 0600, err, sizeof(err));
	ck_assert_msg(f, "%s", err);
	ck_assert_int_eq(pp_safe_file_publish(f, err, sizeof(err)), 0);
	expect_text(at("old"), "");
	fputs("new", pp_safe_file_file(f));
	ck_assert_int_eq(pp_safe_file_close(f, err, sizeof(err)), 0);
	expect_text(at("old"), "new");
	/* A directory there: refused at once, as a rename over it would fail. */
	ck_assert_int_eq(mkdir(at("d"), 0700), 0);
	ck_assert_ptr_null(pp_safe_file_create(at("d"), 0600, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "a directory"));
	/* A new file in a sticky directory is in place from the start. */
	ck_assert_int_eq(mkdir(at("st"), 0700), 0);
	ck_assert_int_eq(chmod(at("st"), 01777), 0);
	f = pp_safe_file_create(at("st/new"), 0600, err, sizeof(err));
	ck_assert_msg(f, "%s", err);
	ck_assert_int_eq(pp_safe_file_publish(f, err, sizeof(err)), 0);
	pp_safe_file_discard(f);
	ck_assert_int_eq(access(at("st/new"), F_OK), -1);
}
END_TEST

/* Nothing but what the test made: no temporary file left behind. */
static int entries(const char *dir)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "exit $(ls -A '%s' | wc -l)", dir);
	return WEXITSTATUS(system(cmd));
}

START_TEST(test_output_no_leftovers)
{
	struct pp_safe_file *f = pp_safe_file_create(at("out"), 0600, err, sizeof(err));

	ck_assert_msg(f, "%s", err);
	ck_assert_int_eq(entries(base), 1); /* the temporary file */
	pp_safe_file_discard(f);
	ck_assert_int_eq(entries(base), 0);
	f = pp_safe_file_create(at("out"), 0600, err, sizeof(err));
	ck_assert_msg(f, "%s", err);
	ck_assert_int_eq(pp_safe_file_publish(f, err, sizeof(err)), 0);
	ck_assert_int_eq(pp_safe_file_close(f, err, sizeof(err)), 0);
	ck_assert_int_eq(entries(base), 1);
}
END_TEST

Suite *safe_file_suite(void)
{
	Suite *s = suite_create("safe_file");
	TCase *tc = tcase_create("dirs");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fresh_dir);
	tcase_add_test(tc, test_replace_symlink);
	tcase_add_test(tc, test_world_writable);
	tcase_add_test(tc, test_sticky);
	tcase_add_test(tc, test_foreign_owner);
	tcase_add_test(tc, test_invoking_uid);
	tcase_add_test(tc, test_sticky_foreign_entries);
	tcase_add_test(tc, test_bad_names);
	tcase_add_test(tc, test_name_too_long);
	tcase_add_test(tc, test_output_file);
	tcase_add_test(tc, test_output_publish_discard);
	tcase_add_test(tc, test_output_no_leftovers);
	suite_add_tcase(s, tc);
	return s;
}
