// SPDX-License-Identifier: GPL-2.0
/*
 * Empty programs, one of each attach kind pktpath uses, for the per-hit
 * floor of bench/host_cost.sh: on the same hook as pktpath's program, in the
 * same run, an empty program's run_time_ns / run_cnt is what any program
 * there costs (the dispatch, the indirect call, bpf_stats' two clock reads).
 * bench/netbench.sh's floor-all puts one on every hook pktpath holds.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* A raw tracepoint (pktpath's kmem_cache_alloc / kmem_cache_free). */
SEC("raw_tp")
int he_raw(void *ctx)
{
	return 0;
}

/* A tracepoint through a perf event (pktpath's --send-calls). */
SEC("tracepoint")
int he_perf(void *ctx)
{
	return 0;
}

/*
 * TC_ACT_UNSPEC (-1): clsact (direct action) reads it as "no verdict" and
 * goes on to the next filter, or passes the packet when none is left; tcx
 * reads the same value as TCX_NEXT. Either way the traffic is what it
 * would be without this program, and a program after it still sees every
 * packet (TC_ACT_OK, 0, would pass the packet but end the chain there).
 */
#define TC_ACT_UNSPEC (-1)

/* The classifier's hook (pktpath's tcx link or clsact filter on an interface). */
SEC("tc")
int he_tc(struct __sk_buff *skb)
{
	return TC_ACT_UNSPEC;
}

/*
 * A cgroup's ingress (pktpath's pp_cg_ingress): 1 lets the packet in, as
 * pktpath's does; the socket's verdict is that of every program there.
 */
SEC("cgroup_skb/ingress")
int he_cg(struct __sk_buff *skb)
{
	return 1;
}

/* A BTF-typed tracepoint (pktpath's probe list on the tracepoint backend). */
SEC("tp_btf")
int he_btf(__u64 *ctx)
{
	return 0;
}
