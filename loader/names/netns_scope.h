/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --netns and --container arguments -> the namespaces of a scope: each
 * one's inode (what a hop carries) and a file that enters it (setns(2)).
 * BPF-free; ROOT lets the unit tests play a host of their own.
 */
#ifndef PP_NETNS_SCOPE_H
#define PP_NETNS_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "names/netns_names.h"

#define PP_SCOPE_PATH 288

struct pp_scope_ns {
	__u32 inode;
	char path[PP_SCOPE_PATH];    /* a namespace file for it: /run/netns/X, /proc/PID/ns/net */
	char label[PP_CTR_NAME_MAX]; /* its name (netns_names.h), else the argument */
};

/*
 * ARG, as --container (CTR true: a container's name, id or pod) or --netns
 * (an `ip netns` or container name, a path with a '/', or an inode in
 * decimal), on the host under ROOT ("" on a real one) whose names N holds.
 * 0, or -ENOENT / -EINVAL with a message for the user in ERR.
 */
int pp_scope_resolve(struct pp_netns_cache *n, const char *root, const char *arg, bool ctr,
		     struct pp_scope_ns *out, char *err, size_t errlen);

/*
 * A namespace file of netns INODE under ROOT: an entry of /run/netns, else
 * /proc/PID/ns/net of a process in it. 0, or -ENOENT.
 */
int pp_scope_path_of(const char *root, __u32 inode, char *path, size_t len);

#endif /* PP_NETNS_SCOPE_H */
