/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The send system calls' tracepoints (sys_enter/sys_exit of sendto, sendmsg,
 * sendmmsg): a locally sent packet's path starts at the call that sent it.
 */
#ifndef PP_SEND_CALLS_H
#define PP_SEND_CALLS_H

struct pp_probes;

#define PP_SEND_CALLS 3

/* The calls, as their tracepoints name them: sys_enter_NAME, sys_exit_NAME. */
extern const char *const pp_send_calls[PP_SEND_CALLS];

/*
 * Attach pp_enter_* / pp_exit_* of P's object to their tracepoints. Returns
 * the number attached; a kernel without syscall tracepoints (no
 * CONFIG_FTRACE_SYSCALLS) or without tracefs gets none, and paths start at
 * the mark as before. -ENOMEM only is an error.
 */
int pp_send_calls_attach(struct pp_probes *p);

#endif /* PP_SEND_CALLS_H */
