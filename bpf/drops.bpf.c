// SPDX-License-Identifier: GPL-2.0
/*
 * --agent: every drop counted in the kernel, by place (struct pp_drop_key),
 * whether or not any packet is tracked. It runs only where the kernel
 * drops (skb:kfree_skb; consumed skbs have a tracepoint of their own since
 * 6.3), so traffic that is not dropped pays nothing. Per-CPU counters: no
 * atomic and no shared cache line on a drop flood; the loader sums the
 * CPUs. Counts only grow: the loader keeps the last totals and takes the
 * difference, so no drop between a read and a reset is ever lost.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "skb_read.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, PP_DROP_PLACES);
	__type(key, struct pp_drop_key);
	__type(value, __u64);
} drop_counts SEC(".maps");

/* Drops of places past drop_counts' size: counted, not placed. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} drop_unkeyed SEC(".maps");

static __always_inline int pp_count_drop(struct sk_buff *skb, __u64 location, __u32 reason)
{
	struct net_device *dev = pp_skb_dev(skb, PP_VIA_BTF);
	struct pp_drop_key k = {.location = location, .reason = reason};
	__u64 one = 1, *v;
	__u32 zero = 0;

	/* Newer kernels free consumed skbs through kfree_skb_reason() as well. */
	if (bpf_core_enum_value_exists(enum skb_drop_reason, SKB_CONSUMED) &&
	    reason == bpf_core_enum_value(enum skb_drop_reason, SKB_CONSUMED))
		return 0;
	k.netns = pp_netns(skb, dev, PP_VIA_BTF);
	k.ifindex = dev ? dev->ifindex : 0;
	pp_ifname(k.ifname, dev, PP_VIA_BTF);
	v = bpf_map_lookup_elem(&drop_counts, &k);
	if (v) {
		(*v)++;
		return 0;
	}
	/* Another CPU may add the place first: then its entry holds this CPU's 1. */
	if (!bpf_map_update_elem(&drop_counts, &k, &one, BPF_NOEXIST))
		return 0;
	v = bpf_map_lookup_elem(&drop_counts, &k);
	if (!v)
		v = bpf_map_lookup_elem(&drop_unkeyed, &zero);
	if (v)
		(*v)++;
	return 0;
}

/* kfree_skb(skb, location, reason[, rx_sk]): reason since 5.17. */
SEC("tp_btf/kfree_skb")
int pp_drop_count(__u64 *ctx)
{
	return pp_count_drop((struct sk_buff *)ctx[0], ctx[1], (__u32)ctx[2]);
}

/* Before 5.17 the verifier refuses a read of ctx[2]. */
SEC("tp_btf/kfree_skb")
int pp_drop_count_noreason(__u64 *ctx)
{
	return pp_count_drop((struct sk_buff *)ctx[0], ctx[1], 0);
}
