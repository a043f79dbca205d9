/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The functions ftrace can trace (available_filter_functions). Out-of-line
 * copies of inline functions are notrace, yet BTF lists them: the kernel
 * then refuses kprobes, kprobe.multi and fentry there.
 */
#ifndef PP_FTRACE_FUNCS_H
#define PP_FTRACE_FUNCS_H

#include <stdbool.h>
#include <stddef.h>

struct pp_names {
	char **v; /* sorted */
	size_t n;
	char *buf;
};

/* 0, or -errno when the list cannot be read (then nothing can be told). */
int pp_ftrace_funcs_load(struct pp_names *names);

/*
 * The whole of tracefs file REL ("events/syscalls/sys_enter_sendto/id") into
 * *BUF (NUL-terminated, the caller frees it), from a mounted tracefs or a
 * private mount in a child. 0 or a negative errno.
 */
int pp_tracefs_read(const char *rel, char **buf);
bool pp_names_has(const struct pp_names *names, const char *name);
void pp_names_free(struct pp_names *names);

#endif
