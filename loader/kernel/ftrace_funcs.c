// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include "base/compat.h"
#include "kernel/ftrace_funcs.h"
#include "base/grow.h"

#define PP_AFF "available_filter_functions"

static const char *const mounted[] = {
	"/sys/kernel/tracing/",
	"/sys/kernel/debug/tracing/",
};

static int copy_fd(int from, int to)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(from, buf, sizeof(buf))) > 0)
		if (write(to, buf, (size_t)n) != n)
			return -1;
	return n < 0 ? -1 : 0;
}

/*
 * Where tracefs is not mounted (ip netns exec remounts /sys), a child
 * mounts it in a mount namespace of its own: nothing is left behind.
 */
static void child_read(const char *rel, int out)
{
	char dir[] = "/tmp/pktpath-tracefs-XXXXXX", path[256];
	int fd = -1;

	for (size_t i = 0; i < ARRAY_SIZE(mounted) && fd < 0; i++) {
		snprintf(path, sizeof(path), "%s%s", mounted[i], rel);
		fd = open(path, O_RDONLY);
	}
	if (fd < 0 && errno == ENOENT && !unshare(CLONE_NEWNS) &&
	    !mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) && mkdtemp(dir)) {
		if (!mount("nodev", dir, "tracefs", 0, NULL)) {
			snprintf(path, sizeof(path), "%s/%s", dir, rel);
			fd = open(path, O_RDONLY);
			umount2(dir, MNT_DETACH);
		}
		rmdir(dir);
	}
	_exit(fd < 0 || copy_fd(fd, out) ? 1 : 0);
}

static int read_all(int fd, char **buf, size_t *len)
{
	size_t cap = 0;
	ssize_t n;

	*len = 0;
	*buf = NULL;
	do {
		/* Room to read one byte at least, and for the NUL. */
		if (PP_GROW(*buf, cap, *len + 2, 1 << 20)) {
			free(*buf);
			*buf = NULL;
			return -ENOMEM;
		}
		n = read(fd, *buf + *len, cap - 1 - *len);
		if (n < 0 && errno == EINTR)
			continue;
		*len += n > 0 ? (size_t)n : 0;
	} while (n > 0);
	(*buf)[*len] = 0;
	return n < 0 ? -EIO : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One name per line, maybe followed by " [module]". */
static int index_names(struct pp_names *names, char *buf)
{
	size_t cap = 0;

	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		line[strcspn(line, " \t")] = 0;
		if (PP_GROW(names->v, cap, names->n + 1, 4096))
			return -ENOMEM;
		names->v[names->n++] = line;
	}
	qsort(names->v, names->n, sizeof(*names->v), cmp_str);
	return 0;
}

/* All of FD, which it closes; a failed read fails as the child's does. */
static int read_here(int fd, char **buf)
{
	size_t len;
	int err = read_all(fd, buf, &len);

	close(fd);
	if (err) {
		free(*buf);
		*buf = NULL;
		return -EACCES;
	}
	return 0;
}

/* REL of a mounted tracefs, opened here; -1 if none is mounted or readable. */
static int open_mounted(const char *rel)
{
	char path[256];
	int fd = -1;

	for (size_t i = 0; i < ARRAY_SIZE(mounted) && fd < 0; i++) {
		snprintf(path, sizeof(path), "%s%s", mounted[i], rel);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	return fd;
}

int pp_tracefs_read(const char *rel, char **buf)
{
	int pipefd[2], status, err, fd;
	size_t len;
	pid_t pid;

	*buf = NULL;
	/*
	 * A mounted tracefs is read here, without a fork and a copy through
	 * a pipe (available_filter_functions: about 1 MiB), which are slow in
	 * an emulated VM. Anything else goes to the child, as it always did.
	 */
	fd = open_mounted(rel);
	if (fd >= 0)
		return read_here(fd, buf);
	if (pipe(pipefd))
		return -errno;
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		child_read(rel, pipefd[1]);
	}
	close(pipefd[1]);
	err = pid < 0 ? -errno : read_all(pipefd[0], buf, &len);
	close(pipefd[0]);
	if (pid > 0 &&
	    (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)))
		err = err ? err : -EACCES;
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err;
}

int pp_ftrace_funcs_load(struct pp_names *names)
{
	int err;

	memset(names, 0, sizeof(*names));
	err = pp_tracefs_read(PP_AFF, &names->buf);
	if (!err)
		err = index_names(names, names->buf);
	if (err)
		pp_names_free(names);
	return err;
}

bool pp_names_has(const struct pp_names *names, const char *name)
{
	return bsearch(&name, names->v, names->n, sizeof(*names->v), cmp_str) != NULL;
}

void pp_names_free(struct pp_names *names)
{
	free(names->v);
	free(names->buf);
	memset(names, 0, sizeof(*names));
}
