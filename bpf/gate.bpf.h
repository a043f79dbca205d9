/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The gate: whether any packet is in flight (pktpath's state: pp_busy()),
 * the first test of every program, so that untracked traffic pays next to
 * nothing; then whether an skb is a tracked packet's (its skb_map entry),
 * and forgetting one.
 */
#ifndef PP_GATE_BPF_H
#define PP_GATE_BPF_H

#include <bpf/bpf_endian.h>
#include "maps.bpf.h"
#include "skb_read.bpf.h"

#ifndef READ_ONCE
#define READ_ONCE(x) (*(volatile typeof(x) *)&(x))
#endif

static __always_inline struct pp_state *pp_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&state_map, &zero);
}

/* Anything to follow: a tracked skb, or an orphaned data buffer a copy may hold. */
static __always_inline bool pp_busy(struct pp_state *st)
{
	return st && (READ_ONCE(st->inflight) || READ_ONCE(st->orphans));
}

/*
 * SKB's entry in skb_map. The key is a copy: once a helper has read a stack
 * slot holding a spilled BTF pointer, older verifiers (6.12 still) take the
 * slot for a scalar, and clang would load SKB back from it for the direct
 * loads that follow.
 */
static __always_inline struct pp_skb_val *pp_skb_entry(__u64 skb)
{
	__u64 key = skb;

	return bpf_map_lookup_elem(&skb_map, &key);
}

/*
 * Forget SKB, tracked as packet ID: true if this call took its entry out.
 * Two CPUs may end one skb at once (a datagram read on one is freed on the
 * CPU that allocated it, skb_attempt_defer_free()), and that CPU may hand
 * the address to its next packet at once: only ID's entry goes, and only
 * the call whose delete took it lets go of the packet's data
 * (pp_let_go()). Whoever deletes an entry (here or the loader) drops the
 * count.
 */
static __always_inline bool pp_forget(struct pp_state *st, __u64 skb, __u64 id)
{
	struct pp_skb_val *v = pp_skb_entry(skb);
	__u64 key = skb;

	if (!v || v->id != id || bpf_map_delete_elem(&skb_map, &key))
		return false;
	__sync_fetch_and_sub(&st->inflight, 1);
	return true;
}

#endif
