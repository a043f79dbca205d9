// SPDX-License-Identifier: GPL-2.0
/*
 * Probe programs: one per backend and skb argument position, all over the
 * record core in record.bpf.h. kprobe and kprobe.multi find their probe
 * index in the bpf cookie. fentry and tp_btf programs are bound to one
 * target each, so the loader loads a copy of a template per target, with
 * the probe index patched into the PP_PROBE_MAGIC immediate.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "record.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Probe indexes of the two free tracepoints, set by the loader. */
const volatile __u32 pp_consume_probe = 0;
const volatile __u32 pp_kfree_probe = 0;

/* An immediate that the loader finds and replaces in each copy. */
static __always_inline __u32 pp_probe_imm(void)
{
	__u64 v;

	asm volatile("%0 = %1" : "=r"(v) : "i"(PP_PROBE_MAGIC));
	return (__u32)v;
}

#define PP_KPROBES(N)                                                                              \
	SEC("kprobe.multi")                                                                        \
	int pp_kmulti##N(struct pt_regs *ctx)                                                      \
	{                                                                                          \
		return pp_on_hop(PT_REGS_PARM##N(ctx), bpf_get_attach_cookie(ctx));                \
	}                                                                                          \
	SEC("kprobe")                                                                              \
	int pp_kprobe##N(struct pt_regs *ctx)                                                      \
	{                                                                                          \
		return pp_on_hop(PT_REGS_PARM##N(ctx), bpf_get_attach_cookie(ctx));                \
	}                                                                                          \
	SEC("fentry")                                                                              \
	int pp_fentry##N(__u64 *ctx)                                                               \
	{                                                                                          \
		return pp_on_hop(ctx[N - 1], pp_probe_imm());                                      \
	}                                                                                          \
	SEC("tp_btf")                                                                              \
	int pp_tp##N(__u64 *ctx)                                                                   \
	{                                                                                          \
		return pp_on_hop(ctx[N - 1], pp_probe_imm());                                      \
	}

PP_KPROBES(1)
PP_KPROBES(2)
PP_KPROBES(3)
PP_KPROBES(4)
PP_KPROBES(5)

/* consume_skb's arguments differ across kernels; only the skb is common. */
SEC("tp_btf/consume_skb")
int pp_tp_consume(__u64 *ctx)
{
	return pp_on_free(ctx[0], pp_consume_probe, PP_FATE_CONSUMED, 0, 0);
}

/* kfree_skb(skb, location, reason[, rx_sk]): reason since 5.17. */
SEC("tp_btf/kfree_skb")
int pp_tp_kfree(__u64 *ctx)
{
	__u32 reason = (__u32)ctx[2];
	__u32 fate = PP_FATE_DROPPED;

	/* Newer kernels free consumed skbs through kfree_skb_reason() too. */
	if (bpf_core_enum_value_exists(enum skb_drop_reason, SKB_CONSUMED) &&
	    reason == bpf_core_enum_value(enum skb_drop_reason, SKB_CONSUMED))
		fate = PP_FATE_CONSUMED;
	return pp_on_free(ctx[0], pp_kfree_probe, fate, reason, ctx[1]);
}
