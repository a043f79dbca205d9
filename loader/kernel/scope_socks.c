// SPDX-License-Identifier: GPL-2.0
/* A cgroup scope's sockets at start: see scope_socks.h. */
#include "kernel/scope_socks.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "pktpath.h"
#include "kernel/cgroup_scope.h"

/* How deep below the scope's cgroup its cgroups are walked. */
#define PP_SCOPE_DEPTH 16

/* Process PID's comm into M (its pid set): false if it is gone. */
static bool maker_of(pid_t pid, struct pp_sock_maker *m)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	memset(m, 0, sizeof(*m));
	n = read(fd, m->comm, sizeof(m->comm) - 1);
	close(fd);
	if (n <= 0)
		return false;
	m->comm[strcspn(m->comm, "\n")] = '\0';
	m->pid = (__u32)pid;
	return true;
}

/* Whether /proc/PID/fd/NAME is a socket. */
static bool is_socket(int fddir, const char *name)
{
	char link[64];
	ssize_t n = readlinkat(fddir, name, link, sizeof(link) - 1);

	if (n <= 0)
		return false;
	link[n] = '\0';
	return strncmp(link, "socket:[", 8) == 0;
}

/*
 * Each socket process PID holds, a copy of its fd taken (pidfd_getfd(2))
 * to name it to the map: it keeps the first maker it is given.
 */
static int fill_pid(int map_fd, pid_t pid)
{
	struct pp_sock_maker m;
	char path[64];
	struct dirent *e;
	int pidfd, fddir, n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0 || !maker_of(pid, &m))
		goto out;
	fddir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fddir < 0 ? NULL : fdopendir(fddir);
	if (!d) {
		if (fddir >= 0)
			close(fddir);
		goto out;
	}
	while ((e = readdir(d))) {
		int fd;

		if (e->d_name[0] == '.' || !is_socket(fddir, e->d_name))
			continue;
		fd = (int)syscall(SYS_pidfd_getfd, pidfd, atoi(e->d_name), 0);
		if (fd < 0)
			continue;
		n += !bpf_map_update_elem(map_fd, &fd, &m, BPF_NOEXIST);
		close(fd);
	}
	closedir(d);
out:
	if (pidfd >= 0)
		close(pidfd);
	return n;
}

/* The processes of open cgroup directory DIRFD and of those below it. */
static int fill_cgroup(int map_fd, int dirfd, int depth)
{
	int procs = openat(dirfd, "cgroup.procs", O_RDONLY | O_CLOEXEC), n = 0;
	FILE *f = procs < 0 ? NULL : fdopen(procs, "r");
	struct dirent *e;
	int pid, sub;
	DIR *d;

	if (!f && procs >= 0)
		close(procs);
	while (f && fscanf(f, "%d", &pid) == 1)
		n += fill_pid(map_fd, pid);
	if (f)
		fclose(f);
	if (depth >= PP_SCOPE_DEPTH)
		return n;
	d = fdopendir(dup(dirfd));
	while (d && (e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub < 0)
			continue;
		n += fill_cgroup(map_fd, sub, depth + 1);
		close(sub);
	}
	if (d)
		closedir(d);
	return n;
}

int pp_scope_socks_fill(int map_fd, __u64 cgroup_id)
{
	int dirfd = pp_cgroup_open_id(cgroup_id), n;

	if (dirfd < 0)
		return dirfd;
	n = fill_cgroup(map_fd, dirfd, 0);
	close(dirfd);
	return n;
}
