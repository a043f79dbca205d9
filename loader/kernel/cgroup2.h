/* SPDX-License-Identifier: GPL-2.0 */
/* Where the cgroup v2 hierarchy is mounted, from a mount table's text. */
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

#endif /* PP_CGROUP2_H */
