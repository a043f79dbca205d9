// SPDX-License-Identifier: GPL-2.0
/*
 * Empty programs, one of each attach kind pktpath uses, for the per-hit
 * floor of bench/host_cost.sh: on the same hook as pktpath's program, in the
 * same run, an empty program's run_time_ns / run_cnt is what any program
 * there costs (the dispatch, the indirect call, bpf_stats' two clock reads).
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

/* A BTF-typed tracepoint (pktpath's probe list on the tracepoint backend). */
SEC("tp_btf")
int he_btf(__u64 *ctx)
{
	return 0;
}
