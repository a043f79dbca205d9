// SPDX-License-Identifier: GPL-2.0
/*
 * A container on the host's network, by its processes: /proc/PID/cgroup
 * names the container (ctr_id.c), its runtime's files its name
 * (ctr_meta.c). Only processes in the host's namespace are read.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "names/ctr_host.h"
#include "names/netns_names.h"

/* PID 1's may be unreadable (a sandbox's init with more capabilities than pktpath). */
static bool on_host(const char *root, int pid, __u32 init_ino)
{
	__u32 ino = pp_pid_netns(root, pid);

	return ino && (ino == init_ino || ino == PP_NET_INIT_INO);
}

int pp_ctr_host_pid(const char *root, const char *name, struct pp_ctr *c)
{
	__u32 init_ino = pp_pid_netns(root, 1);
	char dir[512];
	struct dirent *d;
	int found = 0;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/proc", root);
	dp = opendir(dir);
	while (dp && (d = readdir(dp))) {
		int pid = atoi(d->d_name);
		struct pp_ctr got;

		if (pid <= 0 || (found && pid > found) || !on_host(root, pid, init_ino) ||
		    pp_pid_ctr(root, pid, &got) || !pp_ctr_matches(&got, name))
			continue;
		*c = got;
		found = pid;
	}
	if (dp)
		closedir(dp);
	return found;
}
