// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <bpf/libbpf.h>
#include "probes/attach.h"
#include "kernel/cgroup2.h"
#include "probes.skel.h"
#include "probes/sock_reads.h"
#include "base/log.h"

/* A file's text, NUL-terminated, in *OUT (to free); 0 or -errno. */
static int slurp(const char *path, char **out)
{
	size_t cap = 0, n = 0;
	char *buf = NULL, *grown;
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	do {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = grown;
		}
		n += fread(buf + n, 1, 4096, f);
	} while (!feof(f) && !ferror(f));
	fclose(f);
	buf[n] = 0;
	*out = buf;
	return 0;
}

/*
 * The hierarchy mounted for a moment on a directory of our own, detached
 * once open: the open directory stays the root cgroup, and no mount is left.
 */
static int mount_cgroup2(void)
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

/*
 * The root cgroup's directory, open. "ip netns exec" mounts a fresh sysfs
 * over /sys, hiding the cgroup mounts: then the one of PID 1's mount
 * namespace, through /proc/1/root, or a mount of our own.
 */
static int open_cgroup2(void)
{
	static const char *const where[][2] = {{"/proc/self/mounts", ""},
					       {"/proc/1/mounts", "/proc/1/root"}};
	char dir[512], *mounts = NULL;
	int fd = -ENOENT;

	for (size_t i = 0; i < 2 && fd < 0; i++) {
		if (slurp(where[i][0], &mounts))
			continue;
		if (!pp_cgroup2_root(mounts, where[i][1], dir, sizeof(dir))) {
			fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0)
				fd = -errno;
		}
		free(mounts);
	}
	return fd < 0 ? mount_cgroup2() : fd;
}

int pp_sock_reads_attach(struct pp_probes *p)
{
	struct bpf_program *prog = p->skel->progs.pp_cg_ingress;
	struct bpf_link *link;
	int fd;

	if (!bpf_program__autoload(prog))
		return 0;
	fd = open_cgroup2();
	if (fd < 0) {
		pp_debug("no cgroup v2 hierarchy: datagrams read inline "
			 "end unseen\n");
		return 0;
	}
	link = bpf_program__attach_cgroup(prog, fd);
	close(fd);
	if (!link) {
		pp_debug("cgroup_skb ingress: not attached: %s\n", strerror(errno));
		return 0;
	}
	if (pp_probes_keep_link(p, link)) {
		bpf_link__destroy(link);
		return -ENOMEM;
	}
	return 1;
}
