/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Least privilege once attached: after the last attach pktpath only reads
 * the ring buffer, formats, and at the end detaches. It keeps the
 * capabilities that detaching needs and gives up the rest, for good.
 */
#ifndef PP_PRIVS_H
#define PP_PRIVS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/*
 * What the rest of the run needs (bit N: capability N), tried on 6.18:
 * with CLSACT, CAP_NET_ADMIN, to delete the clsact filters and qdisc
 * through netlink. Nothing else: closing tcx link, BPF link and perf event
 * fds, reading and deleting skb_map entries through held map fds, reading
 * the ring buffer, unpinning in the bpffs directory root owns need none.
 */
__u64 pp_privs_keep(bool clsact);

/*
 * What bpf() on the fds pktpath holds (FD: a map's) needs, found by trying
 * in a child without CAP_BPF and CAP_SYS_ADMIN: none where the kernel
 * checks capabilities only to create maps and load programs (5.16 or so);
 * CAP_BPF (else CAP_SYS_ADMIN) where kernel.unprivileged_bpf_disabled
 * makes it check every command (5.10: the ring buffer could not be read).
 */
__u64 pp_privs_keep_bpf(int fd);

/*
 * Keep only KEEP in the effective and permitted sets and in the bounding
 * set; empty the inheritable and ambient sets; set no_new_privs, so that
 * nothing this process runs can have more. 0, or -errno with ERR filled.
 */
int pp_privs_drop(__u64 keep, char *err, size_t errlen);

/*
 * A seccomp filter for the rest of the run (after pp_privs_drop): EPERM
 * for execve, opening files to write, io_uring, ptrace, mounts, modules.
 * Open output files before. 0, or -errno with ERR filled.
 */
int pp_privs_seccomp(char *err, size_t errlen);

/* The capability names in KEEP, comma-separated, into BUF ("none" if empty). */
const char *pp_privs_names(__u64 keep, char *buf, size_t len);

#endif
