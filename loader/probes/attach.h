/* SPDX-License-Identifier: GPL-2.0 */
/* Probe programs onto every usable entry of the probe list, by backend. */
#ifndef PP_ATTACH_H
#define PP_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include "probes/settings.h"
#include "pktpath.h"
#include "probes/probe_list.h"
#include "probes/verdicts.h"

struct probes;
struct bpf_link;
struct pp_maps;

struct pp_probes {
	const struct pp_probe_settings *set; /* the attacher's (attacher.h) */
	struct probes *skel;
	struct bpf_link **links; /* libbpf links: kprobe(s), kprobe.multi, free tracepoints */
	size_t nlinks, cap_links;
	int *fds; /* what attaches the copies: link fds (fentry, tp_btf), perf events (kprobe) */
	size_t nfds, cap_fds;
	int *prog_fds; /* the copies: program fds */
	size_t nprog_fds, cap_prog_fds;
	size_t attached; /* probe points attached */
	size_t marks;	 /* functions that mark packets (ip_output, ip6_output) */
	/* set->no_loop, or no cookies outside fentry: no copy returns (set_no_cookie()) */
	bool no_loop;
	__u32 copies[PP_COPY_POINTS]; /* probe indexes of the copy points planned */
	int ncopies;
	/*
	 * The BPF side's settings: set->cfg, and what choosing the probes
	 * decides (the probe indexes, the sk_buff caches learned: slab_learn.h);
	 * into the object's rodata at once before it loads (open_load()).
	 */
	struct pp_bpf_settings cfg;
	struct pp_verdicts verdicts; /* set->verdicts: other programs traced (verdicts.h) */
};

/* Probe points to attach besides the two free tracepoints that every run has. */
size_t pp_probes_planned(const struct pp_probe_list *l);

/* Open and load the probe programs, with P's settings, on MAPS for list L. */
int pp_probes_load(struct pp_probes *p, const struct pp_maps *maps, struct pp_probe_list *l,
		   char *err, size_t errlen);

/* Attach every planned probe of L (loaded by pp_probes_load()). */
int pp_probes_attach(struct pp_probes *p, struct pp_probe_list *l, char *err, size_t errlen);
/* Other programs loaded since the last look, their verdicts recorded (verdicts.h): how many. */
size_t pp_probes_verdicts_rescan(struct pp_probes *p);
/* The runs of P's programs the kernel skipped (skipped.h). */
__u64 pp_probes_skipped(const struct pp_probes *p);
void pp_probes_destroy(struct pp_probes *p);

/* Keep LINK with P's links, destroyed with them: 0 or -ENOMEM. */
int pp_probes_keep_link(struct pp_probes *p, struct bpf_link *link);

#endif
