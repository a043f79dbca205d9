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
#include "base/safe_file.h"

struct pp_cls;
struct pp_maps;
struct pp_tc;

struct pp_tc_script {
	const char *dir;	  /* the user's DIR */
	struct pp_safe_dir dirfd; /* DIR, checked once (safe_file.h) */
	struct pp_safe_dir pins;  /* the pin directory */
	char pin_dir[PATH_MAX];	  /* /sys/fs/bpf/pktpath-PID */
	bool pinned;
};

/*
 * Before anything is attached: open DIR (made 0700 if missing) and refuse
 * it if others could change what pktpath writes there. 0, or -errno with
 * ERR saying why in one line.
 */
int pp_tc_script_prepare(struct pp_tc_script *s, const char *dir, char *err, size_t errlen);
/* Pin the classifier and skb_map; write DIR/attach.sh and DIR/detach.sh (0700). */
int pp_tc_script_write(struct pp_tc_script *s, const struct pp_cls *cls, const struct pp_maps *maps,
		       const struct pp_tc *tc, char *err, size_t errlen);
/* Unpin; remind the user if attach.sh's filters are still there. */
void pp_tc_script_done(struct pp_tc_script *s);

#endif
