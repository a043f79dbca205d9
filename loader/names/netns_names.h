/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network namespaces by name: the root one as "host", a container's by its
 * container (or its Kubernetes pod), else its `ip netns` name; keyed by the
 * namespace's inode, which is all a hop carries (pp_hop.netns). A cache
 * filled by one scan of /run/netns and /proc, rescanned on a miss at most
 * every PP_NAMES_RESCAN_MS, so that a namespace that appears while tracing
 * is named when it is first printed, and a hop costs one hash lookup.
 * BPF-free; ROOT lets the unit tests play a host of their own.
 */
#ifndef PP_NETNS_NAMES_H
#define PP_NETNS_NAMES_H

#include <stdbool.h>
#include <linux/types.h>
#include "names/ctr_meta.h"

#define PP_NAMES_RESCAN_MS 100 /* the shortest time between two scans */
/*
 * How often a name's source is checked again: a stat() or readlink() per
 * namespace. Short, as the kernel gives a freed namespace's inode to the
 * next one made: a container removed and another started within a second
 * (1000 here before) had its hops named after the first.
 */
#define PP_NAMES_RECHECK_MS 20
#define PP_NETNS_NAME_MAX   64

/* The kernel's init_net inode where it is fixed (Linux 6.18: PROC_NET_INIT_INO). */
#define PP_NET_INIT_INO 0xEFFFFFF9U

struct pp_ns_name {
	__u32 inode;
	char name[PP_CTR_NAME_MAX];    /* what a person reads: "host", "web", "coredns-x", "blue" */
	bool host;		       /* the root namespace (PID 1's) */
	char netns[PP_NETNS_NAME_MAX]; /* its `ip netns` name, "" if none */
	bool has_ctr;
	struct pp_ctr ctr; /* with has_ctr: the container found in it */
};

struct pp_netns_cache;

/* A cache over the host under ROOT ("" on a real host), scanned once: NULL on ENOMEM. */
struct pp_netns_cache *pp_netns_cache_new(const char *root);
void pp_netns_cache_free(struct pp_netns_cache *n);

/*
 * The name of netns INODE, NULL if none is known (0 is never a namespace);
 * valid until the next call (a scan may move the entries).
 */
const struct pp_ns_name *pp_netns_cache_get(struct pp_netns_cache *n, __u32 inode);
/* The same at NOW_MS (CLOCK_MONOTONIC), for tests of the rate limit. */
const struct pp_ns_name *pp_netns_cache_get_at(struct pp_netns_cache *n, __u32 inode, __u64 now_ms);
/* How many scans ran (the first included). */
__u64 pp_netns_cache_scans(const struct pp_netns_cache *n);

/*
 * The inodes that NAME means, for a user's argument: an `ip netns` name, a
 * container's name or id (a prefix of 12 or more hex digits), a pod's name,
 * "host". How many, at most MAX into INODES.
 */
size_t pp_netns_cache_find(struct pp_netns_cache *n, const char *name, __u32 *inodes, size_t max);

/* The inode of process PID's network namespace under ROOT; 0 if unknown. */
__u32 pp_pid_netns(const char *root, int pid);

#endif /* PP_NETNS_NAMES_H */
