/* SPDX-License-Identifier: GPL-2.0 */
/* Probe programs onto every usable entry of the probe list, by backend. */
#ifndef PP_ATTACH_H
#define PP_ATTACH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include "probes/settings.h"
#include "pktpath.h"
#include "probes/probe_list.h"

struct probes;
struct bpf_link;
struct pp_maps;
struct bpf_insn;

struct pp_probes {
	struct probes *skel;
	struct bpf_link **links; /* libbpf links: kprobe(s), kprobe.multi, free tracepoints */
	size_t nlinks, cap_links;
	int *fds; /* fentry and tp_btf copies: program fds, then link fds */
	size_t nfds, cap_fds;
	size_t attached;		   /* probe points attached */
	const volatile sig_atomic_t *stop; /* Ctrl-C: stop attaching */
	/*
	 * The filter for packets that start at the IP header, spliced over
	 * pp_filter_l3() in pp_kmark (splice.h); NULL: packets are marked at TC only.
	 */
	const struct bpf_insn *l3;
	size_t l3_cnt;
	size_t marks;	  /* functions that mark packets (ip_output, ip6_output) */
	__u32 mark_netns; /* the network namespace whose sent packets they mark; 0: all */
	/* --netns/--container: the namespaces hops are recorded in; nscope 0: everywhere. */
	__u32 scope[PP_SCOPE_MAX];
	__u32 nscope;
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
	/* Where a free is a merge (pp_merge_at() in bpf/probes.bpf.c). 0, 0: unknown. */
	__u64 merge_lo[PP_MERGE_RANGES], merge_hi[PP_MERGE_RANGES];
	bool consume_at;
	/*
	 * What the kernel lacks (kfacts.h, pp_kfacts_programs()), each with a
	 * way around: atomic fetch (packet ids per CPU), bpf cookies (a
	 * kprobe program per point, pp_kprobe_imm*), bpf_loop (no copy
	 * returns), drop reasons in kfree_skb, slab tracepoints with the cache
	 * (the tracepoint backend's slab hooks look at every object).
	 */
	bool no_fetch, no_cookie, no_loop, no_reasons, no_slab;
	bool send_calls; /* --send-calls: the syscall tracepoints (send_calls.h) */
	/*
	 * The reads' programs that load (pp_plan_reads()): recv_done, at the
	 * sock:sock_recv_length tracepoint, the end of a receive call confirms
	 * its reads (bpf/record.bpf.h); cg_ingress, pp_cg_ingress notes the
	 * datagrams queued to sockets. Neither without bpf_loop().
	 */
	bool recv_done, cg_ingress;
	__u32 copies[PP_COPY_POINTS]; /* probe indexes of the copy points planned */
	int ncopies;
};

/* Probe points to attach besides the two free tracepoints that every run has. */
size_t pp_probes_planned(const struct pp_probe_list *l);

/* Load the probe programs on MAPS and attach every planned probe. */
int pp_probes_attach(struct pp_probes *p, const struct pp_maps *maps, struct pp_probe_list *l,
		     enum pp_backend backend, char *err, size_t errlen);
void pp_probes_destroy(struct pp_probes *p);

/* Keep LINK with P's links, destroyed with them: 0 or -ENOMEM. */
int pp_probes_keep_link(struct pp_probes *p, struct bpf_link *link);

#endif
