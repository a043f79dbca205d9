// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "kernel/unit_cgroup.h"

struct search {
	const char *unit;
	char *buf;
	size_t len;
	int found;
	char other[4096]; /* a second match, for the error */
};

/* A match at REL: the first goes into BUF, a second into OTHER. */
static void found(struct search *s, const char *rel)
{
	if (s->found++ == 0)
		snprintf(s->buf, s->len, "%s", rel);
	else if (s->found == 2)
		snprintf(s->other, sizeof(s->other), "%s", rel);
}

/* Whether entry E of directory DIRFD is a directory (some file systems do not say in d_type). */
static bool is_dir(int dirfd, const struct dirent *e)
{
	struct stat st;

	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_DIR;
	return !fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode);
}

/* Directory FD (at REL from the root, DEPTH below it): its children, recursively. */
static void walk(struct search *s, int fd, const char *rel, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	char sub[4096];

	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		int child;

		if (e->d_name[0] == '.' || !is_dir(dirfd(d), e))
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", rel, e->d_name) >= sizeof(sub))
			continue;
		if (!strcmp(e->d_name, s->unit)) {
			found(s, sub);
			continue; /* a unit's own cgroups below it are not units of that name */
		}
		if (depth + 1 >= PP_UNIT_DEPTH)
			continue;
		child = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (child >= 0)
			walk(s, child, sub, depth + 1);
	}
	closedir(d);
}

int pp_unit_cgroup(int root, const char *name, char *buf, size_t len, char *err, size_t errlen)
{
	struct search s = {.buf = buf, .len = len};
	char unit[256];
	int fd;

	if ((size_t)snprintf(unit, sizeof(unit), "%s%s", name,
			     strchr(name, '.') ? "" : ".service") >= sizeof(unit) ||
	    strchr(name, '/')) {
		snprintf(err, errlen, "--unit %s: not a unit's name", name);
		return -EINVAL;
	}
	s.unit = unit;
	fd = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "--unit %s: the cgroup v2 root: %s", name, strerror(errno));
		return -errno;
	}
	walk(&s, fd, "", 0);
	if (!s.found) {
		snprintf(err, errlen,
			 "--unit %s: no cgroup named %s in the cgroup v2 tree (the unit runs no "
			 "process, or systemd does not manage this machine's cgroups)",
			 name, unit);
		return -ENOENT;
	}
	if (s.found > 1) {
		snprintf(err, errlen, "--unit %s: %d cgroups of that name (%s, %s): give --cgroup",
			 name, s.found, buf, s.other);
		return -EEXIST;
	}
	if (strlen(buf) + 1 >= len) {
		snprintf(err, errlen, "--unit %s: its cgroup's path is too long", name);
		return -ENAMETOOLONG;
	}
	return 0;
}
