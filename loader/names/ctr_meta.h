/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A container's name, and its Kubernetes pod where the runtime carries one,
 * from the runtime's own metadata files on disk (no daemon is asked, none
 * need be running). BPF-free: the unit tests read recorded files under a
 * root directory of their own.
 */
#ifndef PP_CTR_META_H
#define PP_CTR_META_H

#include <stdbool.h>
#include "names/ctr_id.h"

#define PP_CTR_NAME_MAX 128

struct pp_ctr {
	enum pp_rt rt;		      /* the runtime whose metadata named it */
	char id[PP_CTR_ID_LEN + 1];   /* the full id */
	char name[PP_CTR_NAME_MAX];   /* "web"; "" for a pod's sandbox without one */
	char pod[PP_CTR_NAME_MAX];    /* io.kubernetes.pod.name, "" if none */
	char pod_ns[PP_CTR_NAME_MAX]; /* io.kubernetes.pod.namespace */
	bool sandbox;		      /* a pod's sandbox (pause, infra) container */
};

/*
 * The metadata of container ID of runtime RT (PP_RT_ANY: each runtime's
 * files in turn) under ROOT ("" or "/" on a host) into *C: 0, or -ENOENT
 * when no runtime has it.
 */
int pp_ctr_meta(const char *root, enum pp_rt rt, const char *id, struct pp_ctr *c);

/*
 * NAME names container C: its name, its pod's, or a prefix of its id of
 * PP_CTR_SHORT_ID or more hex digits.
 */
#define PP_CTR_SHORT_ID 12
bool pp_ctr_matches(const struct pp_ctr *c, const char *name);

/*
 * The container of process PID under ROOT, from its /proc/PID/cgroup and
 * its runtime's files, into *C: 0, or -ENOENT when it is in none.
 */
int pp_pid_ctr(const char *root, int pid, struct pp_ctr *c);

/*
 * Each container whose runtime files name its network namespace by a file
 * (podman's and CRI-O's /run/netns/..., docker's SandboxKey, a containerd
 * sandbox's /var/run/netns/...): CB(runtime, id, path, ARG). Stat'ing such a
 * file needs no privilege, where /proc/PID/ns/net of a process that has more
 * capabilities than pktpath keeps (privs.h) is refused.
 */
void pp_ctr_each_netns(const char *root,
		       void (*cb)(enum pp_rt rt, const char *id, const char *path, void *arg),
		       void *arg);

#endif /* PP_CTR_META_H */
