/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A classic tracepoint (tracefs' events/) by its perf event: the send
 * calls' syscall tracepoints, the xdp redirect tracepoints. Their fields
 * are a stable record where the raw tracepoint's arguments changed.
 */
#ifndef PP_TP_LINK_H
#define PP_TP_LINK_H

#include <stdbool.h>

struct bpf_link;
struct bpf_program;

/* Tracefs has EVENT ("xdp/xdp_redirect"). */
bool pp_tp_exists(const char *event);

/* PROG on EVENT, on every CPU: its link, or NULL (errno set). */
struct bpf_link *pp_tp_link(struct bpf_program *prog, const char *event);

#endif /* PP_TP_LINK_H */
