// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include "kernel/cgroup2.h"
#include "kernel/cgroup_scope.h"
#include "base/text_file.h"

static int mount_own(void)
{
	char dir[] = "/tmp/pktpath-cgroup.XXXXXX";
	int fd = -ENOENT;

	if (!mkdtemp(dir))
		return -errno;
	if (!mount("none", dir, "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
		umount2(dir, MNT_DETACH);
	}
	rmdir(dir);
	return fd;
}

int pp_cgroup2_open_root(void)
{
	static const char *const where[][2] = {{"/proc/self/mounts", ""},
					       {"/proc/1/mounts", "/proc/1/root"}};
	char dir[PATH_MAX], *mounts;
	int fd = -ENOENT;

	for (size_t i = 0; i < 2 && fd < 0; i++) {
		if (pp_text_file_read(where[i][0], &mounts))
			continue;
		if (!pp_cgroup2_root(mounts, where[i][1], dir, sizeof(dir)))
			fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		free(mounts);
	}
	return fd < 0 ? mount_own() : fd;
}

static bool is_cgroup2(int fd)
{
	struct statfs fs;

	return !fstatfs(fd, &fs) && fs.f_type == CGROUP2_SUPER_MAGIC;
}

/* A cgroup's id is its directory's file handle (a kernfs node id). */
static int cgroup_id(int fd, __u64 *id)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h = {.fh.handle_bytes = sizeof(__u64)};
	int mount_id;

	if (name_to_handle_at(fd, "", &h.fh, &mount_id, AT_EMPTY_PATH))
		return -errno;
	*id = h.id;
	return 0;
}

/* include/linux/exportfs.h: a kernfs node's handle, its id. */
#define PP_FILEID_KERNFS 0xfe

int pp_cgroup_open_id(__u64 id)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h = {.fh = {.handle_bytes = sizeof(__u64), .handle_type = PP_FILEID_KERNFS}, .id = id};
	int root = pp_cgroup2_open_root(), fd;

	if (root < 0)
		return root;
	fd = open_by_handle_at(root, &h.fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	close(root);
	return fd;
}

/*
 * The level of directory FD: the directories above it on its cgroup2
 * mount (a detached mount's root is its own "..").
 */
static unsigned int level_of(int fd)
{
	unsigned int level = 0;
	struct stat st, up;
	int cur = dup(fd);

	if (cur < 0 || fstat(cur, &st))
		goto out;
	for (;;) {
		int parent = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		close(cur);
		cur = parent;
		if (cur < 0 || fstat(cur, &up) || up.st_dev != st.st_dev ||
		    up.st_ino == st.st_ino || !is_cgroup2(cur))
			break;
		st = up;
		level++;
	}
out:
	if (cur >= 0)
		close(cur);
	return level;
}

/* Cgroup REL (from the root) open, or -errno. */
static int open_under_root(const char *rel)
{
	int root = pp_cgroup2_open_root(), fd;

	if (root < 0)
		return root;
	while (*rel == '/')
		rel++;
	fd = *rel ? openat(root, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : dup(root);
	if (fd < 0)
		fd = -errno;
	close(root);
	return fd;
}

/* --cgroup PATH: open, its level in *LEVEL; or -errno. */
static int open_path(const char *path, unsigned int *level)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0 && is_cgroup2(fd)) {
		*level = level_of(fd);
		return fd;
	}
	if (fd >= 0)
		close(fd);
	if (path[0] != '/')
		return -ENOENT;
	fd = open_under_root(path);
	*level = pp_cgroup2_level(path);
	return fd;
}

/* --pid PID: its cgroup open, its level in *LEVEL; or -errno with ERR said. */
static int open_pid(unsigned int pid, unsigned int *level, char *err, size_t errlen)
{
	char file[64], rel[PATH_MAX], *text;
	int ret;

	snprintf(file, sizeof(file), "/proc/%u/cgroup", pid);
	ret = pp_text_file_read(file, &text);
	if (ret) {
		snprintf(err, errlen, "--pid %u: %s", pid,
			 ret == -ENOENT ? "no such process" : strerror(-ret));
		return ret;
	}
	ret = pp_cgroup2_of_proc(text, rel, sizeof(rel));
	free(text);
	if (!ret && !pp_cgroup2_level(rel)) {
		snprintf(err, errlen,
			 "--pid %u: the process is in the root cgroup, which every process "
			 "shares: no scope (move it to a cgroup of its own, or give --cgroup)",
			 pid);
		return -EINVAL;
	}
	ret = ret ? ret : open_under_root(rel);
	if (ret < 0)
		snprintf(err, errlen, "--pid %u: its cgroup v2 is not found: %s", pid,
			 strerror(-ret));
	*level = pp_cgroup2_level(rel);
	return ret;
}

int pp_cgroup_scope_of_dir(struct pp_cgroup_scope *s, int fd)
{
	s->level = level_of(fd);
	return cgroup_id(fd, &s->id);
}

int pp_cgroup_scope_resolve(struct pp_cgroup_scope *s, const char *path, unsigned int pid,
			    char *err, size_t errlen)
{
	int fd = path ? open_path(path, &s->level) : open_pid(pid, &s->level, err, errlen);
	int ret;

	if (fd < 0 && path)
		snprintf(err, errlen,
			 "--cgroup %s: no such cgroup v2 directory, nor cgroup under the root",
			 path);
	if (fd < 0)
		return fd;
	ret = cgroup_id(fd, &s->id);
	close(fd);
	if (ret)
		snprintf(err, errlen, "the cgroup's id: %s", strerror(-ret));
	return ret;
}
