/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Other BPF programs' verdicts: for a tracked packet, a hop with the return
 * value of each TC or XDP program loaded on the host that judged it
 * (Cilium's, Calico's, a firewall's; not pktpath's own classifiers):
 * PP_HOP_VERDICT. A TC program gets an fexit program of its own, a copy of
 * bpf/probes.bpf.c's pp_verdict_tc with its probe index, which needs the
 * program's BTF (its functions' info): one without is counted, not traced.
 * XDP programs in generic mode share one fexit on the kernel's
 * bpf_prog_run_generic_xdp(), which finds their probe index by program id
 * (xdp_probe_map). An XDP program with BTF also gets a copy of
 * pp_verdict_frame, which tells the frames it drops, sends back or
 * redirects before any skb, native XDP's (bpf/frames.bpf.h). Probe indexes
 * follow the probe list's. Programs loaded after the start are found by a
 * rescan (pp_verdicts_rescan(), about once a second): the template is
 * loaded at the start even with no TC program to copy it for, bound to
 * pktpath's own classifier (never attached there), so that it can be.
 */
#ifndef PP_VERDICTS_H
#define PP_VERDICTS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "pktpath.h"

struct bpf_map;
struct bpf_program;

#define PP_VERDICT_MAX	  PP_VERDICT_PROGS /* programs traced; more are counted, not traced */
#define PP_VERDICT_PREFIX "bpf:"

struct pp_verdict_prog {
	__u32 id;	/* the kernel's program id */
	__u32 btf_func; /* its main function's BTF id, in its own BTF; 0: none (XDP) */
	bool xdp;	/* an XDP program */
	bool on;	/* its verdicts are recorded */
	int fd;		/* -1 once closed */
	char label[48]; /* "bpf:NAME#ID": the probe's name in the output */
	char func[64];	/* the main function's name */
};

struct pp_verdicts {
	struct pp_verdict_prog v[PP_VERDICT_MAX];
	size_t n;	 /* programs found, traceable (the first n of v) */
	size_t no_btf;	 /* found without BTF: not traced */
	size_t over;	 /* found past PP_VERDICT_MAX: not traced */
	size_t attached; /* programs whose verdicts are recorded */
	__u32 first;	 /* probe index of v[0] */
	__u32 seen;	 /* the highest program id looked at */
	bool with_xdp;	 /* XDP programs are looked for (an XDP fexit loads) */
	bool tmpl;	 /* the TC programs' template loaded: copies can be made */
	bool frames;	 /* the XDP programs' frame template loaded, likewise */
	bool xdp_on;	 /* the XDP fexit attached */
	int links[PP_VERDICT_MAX * 2 + 1]; /* copies' program and link fds, the XDP fexit's link */
	size_t nlinks;
};

/* The programs that record verdicts, from bpf/probes.bpf.c; NULL: not used. */
struct pp_verdict_progs {
	struct bpf_program *tc;	   /* the template of the TC programs' fexit copies */
	struct bpf_program *xdp;   /* the fexit on bpf_prog_run_generic_xdp() */
	struct bpf_program *frame; /* the template of the XDP programs' frame copies */
	struct bpf_map *xdp_map;   /* xdp_probe_map */
};

/* The TC (and, with XDP, XDP) programs loaded now, with probe indexes from FIRST. */
void pp_verdicts_find(struct pp_verdicts *vs, __u32 first, bool xdp);

/*
 * Before the probes' object loads: what of P loads, the templates bound to
 * the first TC program and the first XDP program with BTF, or where there
 * is none yet to ANCHOR and FRAME_ANCHOR (a TC and an XDP program of
 * pktpath's own with BTF, -1: none).
 */
int pp_verdicts_prepare(struct pp_verdicts *vs, const struct pp_verdict_progs *p, int anchor,
			int frame_anchor);

/* After: a copy of the template on each TC program, the XDP programs' fexit; -v says what failed.
 */
void pp_verdicts_attach(struct pp_verdicts *vs, const struct pp_verdict_progs *p);

/*
 * The TC and XDP programs loaded since the last look, recorded as the
 * others (their probe indexes follow): how many were recorded.
 */
size_t pp_verdicts_rescan(struct pp_verdicts *vs, const struct pp_verdict_progs *p);

/* Probe I's name, if it is one of VS's programs; NULL otherwise. */
const char *pp_verdicts_label(const struct pp_verdicts *vs, __u32 i);

void pp_verdicts_close(struct pp_verdicts *vs);

#endif
