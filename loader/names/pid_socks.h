/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --pid-only: which sockets one process holds, by inode (/proc/PID/fd/N
 * links to "socket:[INODE]"). Each inode is decided once: one not known
 * yet has the process's fds read again (a new connection of a server), and
 * one still not there is another process's for good. BPF-free; ROOT lets
 * the unit tests play a host of their own.
 */
#ifndef PP_PID_SOCKS_H
#define PP_PID_SOCKS_H

#include <stdbool.h>
#include <linux/types.h>

struct pp_pid_socks;

/* The sockets of process PID under ROOT ("" on a host), or NULL if out of memory. */
struct pp_pid_socks *pp_pid_socks_new(const char *root, __u32 pid);
void pp_pid_socks_free(struct pp_pid_socks *s);

/*
 * INO is the process's socket (the kernel told that it made it), if not
 * decided yet: a closed connection's last packets, whose socket no fd
 * holds by then, are still its.
 */
void pp_pid_socks_note(struct pp_pid_socks *s, __u32 ino);

/* Whether the process holds the socket of inode INO (0: no socket, false). */
bool pp_pid_socks_holds(struct pp_pid_socks *s, __u32 ino);

#endif /* PP_PID_SOCKS_H */
