/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fate of an skb freed through kfree_skb (its tracepoint), free of BPF
 * so that the unit tests run it (bpf/probes.bpf.c's pp_kfree()).
 */
#ifndef PP_FREE_FATE_H
#define PP_FREE_FATE_H

#ifndef __bpf__ /* vmlinux.h has them in BPF */
#include <stdbool.h>
#include <linux/types.h>
#endif
#include "pktpath.h"

/*
 * REASONED: the tracepoint names a drop reason other than NOT_SPECIFIED
 * (reasons came in 5.17); CONSUMED: that reason is SKB_CONSUMED (newer
 * kernels free consumed skbs through kfree_skb_reason() too); MERGE_AT: the
 * free's location is one where the skb's data went on in another skb
 * (pp_merge_at()). skb_release_data() frees a reassembled datagram's
 * frag_list with kfree_skb(): no reason before 5.17, NOT_SPECIFIED up to
 * 6.1 (kfree_skb_list(), net/core/skbuff.c); those fragments went on in
 * the datagram. From 6.2 the same free passes the datagram's own reason:
 * SKB_CONSUMED is a merge, and a real drop reason there (a frag_list
 * dropped with its datagram) stays a drop.
 */
static inline __attribute__((always_inline)) __u32 pp_kfree_fate(bool reasoned, bool consumed,
								 bool merge_at)
{
	if (merge_at && (consumed || !reasoned))
		return PP_FATE_MERGED;
	return consumed ? PP_FATE_CONSUMED : PP_FATE_DROPPED;
}

#endif
