/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --tc-script DIR: the classifier pinned in bpffs and attached by the user
 * with iproute2, through DIR/attach.sh; DIR/detach.sh removes exactly that.
 */
#ifndef PP_TC_SCRIPT_H
#define PP_TC_SCRIPT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct pp_cls;
struct pp_tc;

struct pp_tc_script {
	const char *dir;	/* the user's DIR */
	char pin_dir[PATH_MAX]; /* /sys/fs/bpf/pktpath-PID */
	bool pinned;
};

int pp_tc_script_write(struct pp_tc_script *s, const char *dir, const struct pp_cls *cls,
		       const struct pp_tc *tc, char *err, size_t errlen);
/* Unpin; remind the user if attach.sh's filters are still there. */
void pp_tc_script_done(struct pp_tc_script *s);

#endif
