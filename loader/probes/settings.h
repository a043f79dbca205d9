/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the probes' layer takes from the command line: the backend a probe
 * attaches with, and the probes' one settings struct. cli.h (the commands'
 * layer) includes it, so that nothing below the commands includes cli.h
 * (scripts/check-layers.py).
 */
#ifndef PP_SETTINGS_H
#define PP_SETTINGS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "pktpath.h"

enum pp_backend {
	PP_BACKEND_AUTO,
	PP_BACKEND_KPROBE_MULTI,
	PP_BACKEND_KPROBE,
	PP_BACKEND_FENTRY,
	PP_BACKEND_TRACEPOINT,
	PP_BACKEND_COUNT, /* backends: rows of pp_backends[] (plan.h) */
};

struct bpf_insn;

/*
 * Everything the probe programs are loaded and attached with, read-only
 * once loading starts. The commands fill the first part from the options;
 * pp_attacher_prepare() (attacher.h) fills the rest from the kernel.
 */
struct pp_probe_settings {
	/* From the options (and the plan: plan.h). */
	enum pp_backend backend; /* the backend functions get, never auto */
	bool send_calls;	 /* --send-calls: the syscall tracepoints (send_calls.h) */
	bool all_netns;		 /* --all-netns: mark the packets of every namespace */
	const volatile sig_atomic_t *stop; /* Ctrl-C: stop attaching */
	/* --netns/--container: the namespaces hops are recorded in; nscope 0: everywhere. */
	__u32 scope[PP_SCOPE_MAX];
	__u32 nscope;
	/*
	 * The filter for packets that start at the IP header, spliced over
	 * pp_filter_l3() in pp_kmark (splice.h); NULL: packets are marked at
	 * TC only. The commands compile it when pp_attacher_marks() asks:
	 * filter/ sits beside probes/ in the layers.
	 */
	const struct bpf_insn *l3;
	size_t l3_cnt;

	/* From the kernel: pp_attacher_prepare(). */
	__u32 mark_netns; /* the network namespace whose sent packets pp_kmark marks; 0: all */
	/*
	 * Where GSO's caller consumes the skb it cut up (validate_xmit_skb()),
	 * [gso_lo, gso_hi); 0, 0: unknown. Needs the consume_skb tracepoint's
	 * location argument (Linux 6.3+): consume_at.
	 */
	__u64 gso_lo, gso_hi;
	/* nf_hook_slow(), [nf_lo, nf_hi): its caller names a netfilter drop's hook. 0, 0: unknown.
	 */
	__u64 nf_lo, nf_hi;
	/* af_packet's receive functions: a tracked skb freed there is a tap's. 0, 0: unknown. */
	__u64 tap_lo[PP_TAP_RANGES], tap_hi[PP_TAP_RANGES];
	/* sock_rfree(): a tracked skb it would free is owned for reading. 0: unknown. */
	__u64 sock_rfree;
	/* Where a free is a merge (pp_merge_at() in bpf/probes.bpf.c). 0, 0: unknown. */
	__u64 merge_lo[PP_MERGE_RANGES], merge_hi[PP_MERGE_RANGES];
	/* Where a consume_skb() is the reader's (PP_HOP_READ). 0, 0: unknown. */
	__u64 read_lo[PP_READ_RANGES], read_hi[PP_READ_RANGES];
	bool consume_at;
	bool reasm; /* the reassembly hook is attached (pp_attacher_reasm()) */
	/*
	 * What the kernel lacks (kfacts.h, pp_kfacts_programs()), each with a
	 * way around: atomic fetch (packet ids per CPU), bpf cookies (a
	 * kprobe program per point, pp_kprobe_imm*), bpf_loop (no copy
	 * returns), drop reasons in kfree_skb, slab tracepoints with the cache
	 * (the tracepoint backend's slab hooks look at every object).
	 */
	bool no_fetch, no_cookie, no_loop, no_reasons, no_slab;
	/*
	 * The reads' programs that load (pp_plan_reads()): recv_done, at the
	 * sock:sock_recv_length tracepoint, the end of a receive call confirms
	 * its reads (bpf/record.bpf.h); cg_ingress, pp_cg_ingress notes the
	 * datagrams queued to sockets. Neither without bpf_loop().
	 */
	bool recv_done, cg_ingress;
	/* bpf_rdonly_cast() (6.2+): tp_btf and fentry pointers untrusted (bpf/skb_read.bpf.h). */
	bool rdonly_cast;
	bool marks;    /* probes mark sent packets (pp_plan_marks_in_probes()) */
	bool verdicts; /* --verdicts, and the kernel has trampolines: fexit on others (verdicts.h)
			*/
	/* With verdicts: bpf_prog_run_generic_xdp()'s arguments (3 or 4); 0: no such function. */
	int xdp_generic_args;
};

#endif
