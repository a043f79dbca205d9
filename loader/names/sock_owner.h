/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which process holds a socket, by the socket's inode (what a scoped mark
 * carries, pp_hop.sock_ino; /proc/PID/fd/N links to "socket:[INODE]"). A
 * cache filled by scans of every process's fds (2.3 ms for 70 processes
 * here): a miss scans again while the scans of the last second took less
 * than PP_SOCK_SCAN_BUDGET_MS in all, so that the loader's time on them
 * stays within 5% of a CPU however many sockets come; an inode one scan
 * did not find waits PP_SOCK_MISS_MS for the next try. A process that has
 * exited is known only if a scan saw it first (the loader asks at the
 * packet's mark, which wakes it) or the kernel told its socket's maker
 * (pp_sock_owner_note()). A socket that several processes hold
 * (after fork) is the lowest pid's. A process's container or unit is
 * read once, when it is first asked for. BPF-free; ROOT lets the unit tests play a
 * host of their own.
 */
#ifndef PP_SOCK_OWNER_H
#define PP_SOCK_OWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define PP_SOCK_SCAN_BUDGET_MS 50
#define PP_SOCK_MISS_MS	       1000
#define PP_SOCK_COMMLEN	       16

#define PP_SOCK_PLACELEN 80

struct pp_sock_owner {
	__u32 pid; /* the process's (tgid) */
	char comm[PP_SOCK_COMMLEN];
	/*
	 * Where it runs, from its cgroup: a container's name (its pod's if it
	 * has none; else its id's first 12 digits), or a systemd service's;
	 * "" if neither, or the process is gone.
	 */
	enum pp_place { PP_PLACE_NONE, PP_PLACE_CONTAINER, PP_PLACE_UNIT } place_kind;
	char place[PP_SOCK_PLACELEN];
};

struct pp_sock_owners;

/*
 * An empty cache of the processes under ROOT ("" on a host: /proc, and the
 * container runtimes' files), or NULL if out of memory.
 */
struct pp_sock_owners *pp_sock_owners_new(const char *root);
void pp_sock_owners_free(struct pp_sock_owners *s);

/*
 * The holder of the socket of inode INO into O: true if known (by a scan
 * now if needed and within the budget; NOW_MS: CLOCK_MONOTONIC in ms).
 */
bool pp_sock_owner(struct pp_sock_owners *s, __u32 ino, __u64 now_ms, struct pp_sock_owner *o);

/*
 * O's container or unit (o->pid's) into O, read once for each pid: for a
 * holder the kernel told (pp_mark.maker_pid) rather than a scan found.
 */
void pp_sock_owner_place(struct pp_sock_owners *s, struct pp_sock_owner *o);

/*
 * O holds the socket of inode INO, as the kernel told at its making (a
 * process that may be gone before a scan), unless a scan found its holder.
 */
void pp_sock_owner_note(struct pp_sock_owners *s, __u32 ino, const struct pp_sock_owner *o);

/*
 * The deepest systemd service of cgroup v2 path PATH ("/system.slice/
 * nginx.service/x" is nginx.service) into UNIT (LEN bytes): false if none.
 */
bool pp_cgroup_unit(const char *path, char *unit, size_t len);

/* "socket:[N]" (a /proc/PID/fd link) into INO: 0, or -1 if it is another file. */
int pp_sock_link_ino(const char *link, __u32 *ino);

/* The comm of the process whose /proc directory is open as PIDFD, into COMM (PP_SOCK_COMMLEN). */
bool pp_proc_comm(int pidfd, char *comm);

/*
 * Each socket among the fds of the process whose /proc directory is open as
 * PIDFD: CB(ARG, its fd number, its inode), until CB returns false.
 */
void pp_sock_fds(int pidfd, bool (*cb)(void *arg, int fd, __u32 ino), void *arg);

#endif /* PP_SOCK_OWNER_H */
