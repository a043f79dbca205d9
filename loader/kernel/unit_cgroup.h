/* SPDX-License-Identifier: GPL-2.0 */
/* --unit: a systemd unit's cgroup, found by its name in the cgroup v2 tree. */
#ifndef PP_UNIT_CGROUP_H
#define PP_UNIT_CGROUP_H

#include <stddef.h>

#define PP_UNIT_DEPTH 8 /* how deep below the root a unit's cgroup is looked for */

/*
 * The cgroup of unit NAME (".service" appended if NAME has no suffix, as
 * systemctl does) below the cgroup v2 root open at ROOT: the one directory
 * of that name within PP_UNIT_DEPTH levels (system units sit in
 * /system.slice or a slice of their own, user units under
 * /user.slice/user-UID.slice/user@UID.service), as a path from the root
 * ("/system.slice/nginx.service") into BUF. 0; or -ENOENT (none: the unit
 * does not run), -EEXIST (several), -ENAMETOOLONG, with the one-line
 * reason in ERR.
 */
int pp_unit_cgroup(int root, const char *name, char *buf, size_t len, char *err, size_t errlen);

#endif
