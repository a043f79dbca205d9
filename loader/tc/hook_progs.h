/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF programs other than pktpath's at an interface's TC or XDP hook,
 * as they are now: those that may have judged a packet dropped there. The
 * host's kernel has no fexit on BPF programs to see a verdict; the hook's
 * programs, with the drop reason (TC_INGRESS, XDP), name the suspects.
 */
#ifndef PP_HOOK_PROGS_H
#define PP_HOOK_PROGS_H

#include <linux/types.h>

enum pp_hook {
	PP_HOOK_TC_INGRESS,
	PP_HOOK_TC_EGRESS,
	PP_HOOK_XDP,
	/* No hook: the interface's own name, in the first program's name. */
	PP_HOOK_IFNAME,
};

struct pp_hook_prog {
	__u32 id;
	char name[16]; /* the kernel's (16 bytes at most); "" if it has none */
	char via[12];  /* "tcx", "clsact", "xdp generic", "xdp native", "xdp offload" */
};

/*
 * Up to MAX programs at HOOK of interface IFINDEX of the network namespace
 * that file NSPATH enters (NULL: pktpath's own), in the order they run,
 * pktpath's classifiers left out, into OUT: how many there are (more than
 * MAX: MAX kept), or -errno.
 */
int pp_hook_progs(const char *nspath, int ifindex, enum pp_hook hook, struct pp_hook_prog *out,
		  int max);

/*
 * pktpath gives up its capabilities once attached (kernel/privs.h), and
 * listing a hook's programs takes CAP_SYS_ADMIN (setns(2) into another
 * namespace, BPF_PROG_GET_FD_BY_ID for a name). So a reader forked before
 * anything is loaded keeps CAP_SYS_ADMIN and CAP_NET_ADMIN and nothing
 * else, under pktpath's seccomp filter, holds no fd of pktpath's, and
 * answers one question over a socket: the programs at a hook of an
 * interface of a namespace given by its inode. It ends when pktpath closes
 * its end of the socket, or dies.
 */
struct pp_hook_reader {
	int fd; /* -1: none */
	int pid;
};

/* Fork the reader: 0, or -errno (then R->fd is -1). */
int pp_hook_reader_start(struct pp_hook_reader *r);

/* pp_hook_progs() asked of reader R, for the namespace with inode NETNS. */
int pp_hook_reader_ask(struct pp_hook_reader *r, __u32 netns, int ifindex, enum pp_hook hook,
		       struct pp_hook_prog *out, int max);

/* Close R's socket and reap it. */
void pp_hook_reader_stop(struct pp_hook_reader *r);

#endif /* PP_HOOK_PROGS_H */
