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
#include "bpf_settings.h"

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
	/*
	 * The filter for packets that start at the IP header, spliced over
	 * pp_filter_l3() in pp_kmark (splice.h); NULL: packets are marked at
	 * TC only. The commands compile it when pp_attacher_marks() asks:
	 * filter/ sits beside probes/ in the layers.
	 */
	const struct bpf_insn *l3;
	size_t l3_cnt;
	/* With verdicts: the filter for XDP's frames, from the Ethernet header on (probe mode). */
	const struct bpf_insn *l2;
	size_t l2_cnt;

	/*
	 * The BPF side's settings (include/bpf_settings.h): the scope from the
	 * commands (--netns/--container: scope_netns), the kernel's part from
	 * pp_attacher_prepare(); loader/probes/attach.c adds the probes' part.
	 */
	struct pp_bpf_settings cfg;

	/* From the kernel: pp_attacher_prepare(). */
	bool consume_at; /* consume_skb's tracepoint has its location (Linux 6.3+) */
	bool reasm;	 /* the reassembly hook is attached (pp_attacher_reasm()) */
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
	 * its reads (bpf/reads.bpf.h); cg_ingress, pp_cg_ingress notes the
	 * datagrams queued to sockets. Neither without bpf_loop().
	 */
	bool recv_done, cg_ingress;
	bool marks;    /* probes mark sent packets (pp_plan_marks_in_probes()) */
	bool verdicts; /* --verdicts, and the kernel has trampolines: fexit on others (verdicts.h)
			*/
	/* With verdicts: bpf_prog_run_generic_xdp()'s arguments (3 or 4); 0: no such function. */
	int xdp_generic_args;
	/* With verdicts: the xdp_redirect raw tracepoint's arguments, __data first: 8 (its map by
	 * type and id), 7 (by pointer); 0: none. */
	int xdp_redirect_args;
	/* With verdicts: pktpath's classifier (its fd, -1: none), the TC template's target while no
	 * other TC program is loaded (verdicts.h); its XDP program, the frame template's. */
	int verdict_anchor, frame_anchor;
};

#endif
