/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One packet across hosts: the parts that several hosts recorded of it
 * (each host's JSON line for it) share a packet key (paths/pkt_key.h).
 * Parts of one key are joined when their hosts differ and they start
 * within a window of each other; a key met again later (a retransmitted
 * TCP segment, another datagram of the same bytes) is another packet.
 * BPF-free and json-free: the unit tests give parts directly.
 */
#ifndef PP_REPORT_JOIN_H
#define PP_REPORT_JOIN_H

#include <stddef.h>
#include <linux/types.h>

#define PP_JOIN_MAX_HOSTS 64

struct pp_jpart {
	__u64 key;
	__u64 start_ns, end_ns; /* wall clock of its first and last hop */
	__u32 host;		/* which host recorded it, below PP_JOIN_MAX_HOSTS */
	/*
	 * Where it was: its first hop's netns inode, and with fate "left" its
	 * last hop's (where it went); 0: not known. Inodes compare only on
	 * one kernel: BOOT, its host's boot id hashed (0: not known).
	 */
	__u32 netns, left_to;
	__u64 boot;
	size_t chain; /* set by pp_join(): the joined packet it is part of */
	size_t src;   /* the caller's: which record it is */
};

/*
 * Join the N PARTS: sorted so that each joined packet's parts are
 * consecutive, in time order, and numbered (chain) from 0 in order of
 * key. A part joins the most recent packet of its key that began at most
 * WINDOW_NS before it and has no part from its host yet; else it begins
 * one. Returns the number of joined packets (single parts included), or
 * -ENOMEM.
 */
long pp_join(struct pp_jpart *parts, size_t n, __u64 window_ns);

enum pp_skew_by {
	PP_SKEW_OVERLAP = 0, /* a part begins before the one before it ended */
	PP_SKEW_ORDER = 1,   /* a part left the scope into the namespace of the one before it */
};

/*
 * The clocks of a joined packet's N parts (consecutive, in time order)
 * disagree when one part begins before the one before it ended (a packet
 * is on one host at a time), or, for two parts of one kernel (scoped runs:
 * the same boot id), when the later one left its scope into the earlier
 * one's namespace: it came first, whatever the times say (then by its end
 * past the other's start). The largest such disagreement beyond TOL_NS,
 * with at *AT the index of the later part and in *BY which kind; 0 if none.
 */
__u64 pp_join_skew(const struct pp_jpart *parts, size_t n, __u64 tol_ns, size_t *at,
		   enum pp_skew_by *by);

#endif /* PP_REPORT_JOIN_H */
