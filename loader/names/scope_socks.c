// SPDX-License-Identifier: GPL-2.0
/* A cgroup scope's sockets at start: see scope_socks.h. */
#include "names/scope_socks.h"

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
#include "names/sock_owner.h"

/* How deep below the scope's cgroup its cgroups are walked. */
#define PP_SCOPE_DEPTH 16

struct fill {
	int map_fd, pidfd, n;
	struct pp_sock_maker m;
};

/* One socket of the process: a copy of its fd named to the map, which keeps the first maker. */
static bool fill_sock(void *arg, int fd, __u32 ino)
{
	struct fill *f = arg;
	int mine = (int)syscall(SYS_pidfd_getfd, f->pidfd, fd, 0);

	(void)ino;
	if (mine < 0)
		return true;
	f->n += !bpf_map_update_elem(f->map_fd, &mine, &f->m, BPF_NOEXIST);
	close(mine);
	return true;
}

/* Each socket process PID holds (pidfd_getfd(2) takes a copy of each fd). */
static int fill_pid(int map_fd, pid_t pid)
{
	struct fill f = {.map_fd = map_fd, .m.pid = (__u32)pid};
	char path[64];
	int dir;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	f.pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (dir >= 0 && f.pidfd >= 0 && pp_proc_comm(dir, f.m.comm))
		pp_sock_fds(dir, fill_sock, &f);
	if (f.pidfd >= 0)
		close(f.pidfd);
	if (dir >= 0)
		close(dir);
	return f.n;
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

int pp_scope_socks_fill(int map_fd, int cgroup_fd)
{
	return fill_cgroup(map_fd, cgroup_fd, 0);
}
