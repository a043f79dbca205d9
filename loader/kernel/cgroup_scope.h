/* SPDX-License-Identifier: GPL-2.0 */
/* The cgroup v2 root, and --cgroup's and --pid's cgroup in it. */
#ifndef PP_CGROUP_SCOPE_H
#define PP_CGROUP_SCOPE_H

#include <linux/types.h>

struct pp_cgroup_scope {
	__u64 id;	    /* the cgroup's id (its directory's handle); 0: no scope */
	unsigned int level; /* below the root: bpf_skb_ancestor_cgroup_id()'s */
};

/*
 * The root cgroup's directory, open (O_CLOEXEC), or -errno. "ip netns exec"
 * mounts a fresh sysfs over /sys, hiding the cgroup mounts: then PID 1's
 * (through /proc/1/root), else a mount of our own, detached once open.
 */
int pp_cgroup2_open_root(void);

/*
 * The cgroup of PATH (a directory of the cgroup v2 file system, or a cgroup
 * as /proc/PID/cgroup names it: /system.slice/x.service), or of process
 * PID (PATH NULL), into S: 0, or -errno with the one-line reason in ERR
 * (bad input: nothing is attached yet). A process of the root cgroup is
 * refused: that scope is every socket.
 */
int pp_cgroup_scope_resolve(struct pp_cgroup_scope *s, const char *path, unsigned int pid,
			    char *err, size_t errlen);

/* The directory of the cgroup of id ID, open (O_CLOEXEC), or -errno. */
int pp_cgroup_open_id(__u64 id);

/* The cgroup of open cgroup v2 directory FD, into S: 0 or -errno. */
int pp_cgroup_scope_of_dir(struct pp_cgroup_scope *s, int fd);

#endif /* PP_CGROUP_SCOPE_H */
