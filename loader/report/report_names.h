/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names a saved --json file gives as strings, numbered again for
 * `pktpath report`: probe points get probe indexes (the built-in points
 * their own, as in a live run), drop reason codes and drop locations keep
 * the names the recording host gave them. struct pp_out's callbacks then
 * name them as the live run did.
 */
#ifndef PP_REPORT_NAMES_H
#define PP_REPORT_NAMES_H

#include <linux/types.h>
#include "output/output.h"

struct pp_rnames;

struct pp_rnames *pp_rnames_new(void);
void pp_rnames_free(struct pp_rnames *n);

/*
 * The probe index of NAME (a hop's "func"), given on first sight; -ENOSPC
 * past PP_MAX_PROBES distinct names, -ENOMEM.
 */
long pp_rnames_probe(struct pp_rnames *n, const char *name);
/* Drop reason CODE is called NAME; the first name given for a code stays. 0 or -ENOMEM. */
int pp_rnames_reason(struct pp_rnames *n, __u32 code, const char *name);
/* The drop location ADDR is in function NAME; the first name stays. 0 or -ENOMEM. */
int pp_rnames_sym(struct pp_rnames *n, __u64 addr, const char *name);

/* Interface IFINDEX of netns INODE is called NAME (a redirect's "dev"); as above. */
int pp_rnames_ifname(struct pp_rnames *n, __u32 inode, __u32 ifindex, const char *name);

/* Netns INODE is called NAME (a hop's netns_name); the first name stays. 0 or -ENOMEM. */
int pp_rnames_netns(struct pp_rnames *n, __u32 inode, const char *name);

/* Fills O's probe names and its reason, symbol and netns name callbacks. */
void pp_rnames_out(const struct pp_rnames *n, struct pp_out *o);

#endif /* PP_REPORT_NAMES_H */
