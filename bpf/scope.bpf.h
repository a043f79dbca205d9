/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scope (--netns, --container): a packet's hops are recorded only in the
 * scope's namespaces; one that leaves the scope ends there.
 */
#ifndef PP_SCOPE_BPF_H
#define PP_SCOPE_BPF_H

#include "end.bpf.h"

/*
 * --netns/--container: NETNS is one of the scope's namespaces. Without a
 * scope pp_cfg.scope_n is 0, a constant to the verifier, which prunes every
 * test of it as dead code.
 */
static __always_inline bool pp_in_scope(__u32 netns)
{
#pragma unroll
	for (__u32 i = 0; i < PP_SCOPE_MAX; i++) {
		if (i >= pp_cfg.scope_n)
			break;
		if (pp_cfg.scope_netns[i] == netns)
			return true;
	}
	return false;
}

/*
 * SKB is in a namespace outside the scope: its device's, else its
 * socket's (pp_netns()). Where neither is known, it counts as inside: a
 * hop that cannot be placed is recorded.
 */
static __always_inline bool pp_out_of_scope(struct sk_buff *skb, const enum pp_via via)
{
	__u32 netns;

	if (!pp_cfg.scope_n)
		return false;
	netns = pp_netns(skb, pp_skb_dev(skb, via), via);
	return netns && !pp_in_scope(netns);
}

/*
 * A tracked SKB first met outside the scope (a veth's peer, a bridge of
 * the host): its END there, fate LEFT, and tracking stops, as on a host of
 * its own the packet would be gone. Should it come back into the scope
 * (through a router namespace outside), the classifier marks it anew. An
 * skb not tracked is not joined as a copy out there.
 */
static __always_inline int pp_leave_scope(struct pp_state *st, __u64 skb, __u32 probe,
					  const enum pp_via via)
{
	if (pp_skb_entry(skb))
		pp_end(st, skb, probe, PP_FATE_LEFT, 0, 0, 0, 0, false, via);
	return 0;
}

#endif
