/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel text symbols from /proc/kallsyms: address -> function name. */
#ifndef PP_KSYMS_H
#define PP_KSYMS_H

#include <linux/types.h>

struct pp_ksyms;

/*
 * Load the text symbols (types t, T, W) of @path (NULL: /proc/kallsyms).
 * Returns 0, -errno if the file cannot be read, -ENOENT if it has no text
 * symbol, or -EPERM if every address is 0 (kptr_restrict hides them from
 * readers without CAP_SYSLOG).
 */
int pp_ksyms_load(struct pp_ksyms **out, const char *path);

/*
 * The symbol that holds @addr: the one with the largest start <= @addr.
 * NULL below the first symbol. @offset (may be NULL) gets @addr - start.
 */
const char *pp_ksym_name(const struct pp_ksyms *k, __u64 addr, __u64 *offset);

/*
 * How many text symbols are named @name: a kprobe by name needs exactly one
 * (static inline functions leave one copy per user). -ENOMEM on failure.
 */
long pp_ksym_count(struct pp_ksyms *k, const char *name);

/*
 * The text of function @name, or of its one compiler clone ("@name.isra.0",
 * ".constprop.0"): [*lo, *hi), up to the next symbol. @name itself wins over
 * its clones and split-off parts ("@name.cold": ask for that by its name).
 * -ENOENT if there is none, or no @name and several clones (no single range).
 */
int pp_ksym_range(const struct pp_ksyms *k, const char *name, __u64 *lo, __u64 *hi);

void pp_ksyms_free(struct pp_ksyms *k);

#endif /* PP_KSYMS_H */
