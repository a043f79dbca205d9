/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Other BPF programs' verdicts: an fexit program on each TC program loaded
 * on the host (Cilium's, Calico's, a firewall's; not pktpath's own
 * classifiers) records a hop with the program's return value for a tracked
 * packet (PP_HOP_VERDICT). One copy of bpf/probes.bpf.c's pp_verdict_tc
 * per program, its probe index past the probe list's. Needs BPF trampolines
 * and the program's BTF (its functions' info): a program without is listed
 * and not traced. Programs loaded after the start are not seen.
 */
#ifndef PP_VERDICTS_H
#define PP_VERDICTS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct bpf_program;

#define PP_VERDICT_MAX	  64 /* programs traced; more are listed, not traced */
#define PP_VERDICT_PREFIX "bpf:"

struct pp_verdict_prog {
	__u32 id;	/* the kernel's program id */
	__u32 btf_func; /* its main function's BTF id, in its own BTF; 0: none */
	int fd;		/* -1 once closed */
	char label[48]; /* "bpf:NAME#ID": the probe's name in the output */
	char func[64];	/* the main function's name */
};

struct pp_verdicts {
	struct pp_verdict_prog v[PP_VERDICT_MAX];
	size_t n;		       /* programs found with BTF (the first n of v) */
	size_t no_btf;		       /* found without BTF: not traced */
	size_t over;		       /* found past PP_VERDICT_MAX: not traced */
	size_t attached;	       /* copies attached */
	__u32 first;		       /* probe index of v[0] */
	int links[PP_VERDICT_MAX * 2]; /* copies' program and link fds */
	size_t nlinks;
};

/* The TC programs loaded now, with probe indexes from FIRST. 0 or -ENOMEM. */
int pp_verdicts_find(struct pp_verdicts *vs, __u32 first);

/* Before the probes' object loads: the template loads bound to the first program. */
int pp_verdicts_prepare(struct pp_verdicts *vs, struct bpf_program *tmpl);

/* A copy of the loaded template on each program found; one refused is said with -v. */
void pp_verdicts_attach(struct pp_verdicts *vs, const struct bpf_program *tmpl);

/* Probe I's name, if it is one of VS's programs; NULL otherwise. */
const char *pp_verdicts_label(const struct pp_verdicts *vs, __u32 i);

void pp_verdicts_close(struct pp_verdicts *vs);

#endif
