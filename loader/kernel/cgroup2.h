/* SPDX-License-Identifier: GPL-2.0 */
/* Where the cgroup v2 hierarchy is mounted, and where a process is in it, from /proc's text. */
#ifndef PP_CGROUP2_H
#define PP_CGROUP2_H

#include <stddef.h>

/*
 * The mount point of the first cgroup2 file system in MOUNTS (the text of
 * /proc/PID/mounts: "DEVICE DIR TYPE OPTIONS 0 0" lines), PREFIX prepended,
 * into BUF: 0; -ENOENT if none is mounted, -ENAMETOOLONG if BUF is short.
 * Mount points with spaces (\\040 in the table) are not decoded.
 */
int pp_cgroup2_root(const char *mounts, const char *prefix, char *buf, size_t len);

/*
 * The cgroup v2 path of a process, from TEXT (/proc/PID/cgroup: its "0::PATH"
 * line), into BUF: 0; -ENOENT if it has no such line, -ENAMETOOLONG.
 */
int pp_cgroup2_of_proc(const char *text, char *buf, size_t len);

/* The level of cgroup PATH (relative to the root: "/" or "" is 0, "/a/b" is 2). */
unsigned int pp_cgroup2_level(const char *path);

#endif /* PP_CGROUP2_H */
