/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The attacher: the probes' life in one place, new -> prepare -> load ->
 * attach -> destroy. It owns the probes' settings (settings.h): the
 * commands fill the options' part, pp_attacher_prepare() the kernel's, and
 * pp_attacher_destroy() leaves nothing of the probes in the kernel,
 * whichever step failed or was interrupted.
 */
#ifndef PP_ATTACHER_H
#define PP_ATTACHER_H

#include <stdbool.h>
#include <stddef.h>
#include "probes/attach.h"
#include "probes/plan.h"
#include "probes/settings.h"

struct btf;
struct pp_kfacts;
struct pp_ksyms;
struct pp_maps;
struct pp_probe_list;

struct pp_attacher {
	struct pp_probe_settings set; /* the options' part filled by the commands */
	struct pp_probes probes;
};

/* An attacher with nothing loaded: NULL without memory. */
struct pp_attacher *pp_attacher_new(void);

/*
 * The settings the kernel decides, from BTF, the kernel's symbols and
 * facts (K: the marking fact is tried here, pp_kfacts_marking()), for
 * set.backend.
 */
void pp_attacher_prepare(struct pp_attacher *at, const struct btf *btf,
			 const struct pp_ksyms *ksyms, struct pp_kfacts *k);

/* The probe runs the kernel skipped so far (pp_probes_skipped()). */
__u64 pp_attacher_skipped(const struct pp_attacher *at);

/* Whether probes mark sent packets: then set.l3 takes the filter's IP part. */
bool pp_attacher_marks(const struct pp_attacher *at);

/* Open and load the probe programs on MAPS for list L: 0 or -errno, ERR says why. */
int pp_attacher_load(struct pp_attacher *at, const struct pp_maps *maps, struct pp_probe_list *l,
		     char *err, size_t errlen);

/* Attach every planned probe of L (set.stop ends it early): 0 or -errno, ERR says why. */
int pp_attacher_attach(struct pp_attacher *at, struct pp_probe_list *l, char *err, size_t errlen);

/* Probe points attached so far. */
size_t pp_attacher_attached(const struct pp_attacher *at);

/* Other TC programs whose verdicts the probes record (verdicts.h). */
const struct pp_verdicts *pp_attacher_verdicts(const struct pp_attacher *at);

/* Other programs loaded since the start or the last rescan, recorded as those: how many. */
size_t pp_attacher_verdicts_rescan(struct pp_attacher *at);

/* Whether this kernel lets pktpath record other programs' verdicts (fexit on them). */
bool pp_attacher_verdicts_possible(const struct btf *btf, const struct pp_kfacts *k);

/* Detach and unload everything, free AT; NULL does nothing. */
void pp_attacher_destroy(struct pp_attacher *at);

/*
 * The reads' hooks (sock_reads.h) that load: the kernel's
 * sock:sock_recv_length tracepoint (Linux 6.3+) and bpf_cast_to_kern_ctx
 * kfunc (6.2+), and bpf_loop(), on the tracepoint backend only
 * (pp_plan_reads()).
 */
struct pp_reads_plan pp_attacher_reads(const struct btf *btf, enum pp_backend backend,
				       const struct pp_kfacts *k);

/*
 * Whether BACKEND attaches the reassembly hook (end_points.h,
 * PP_REASM_POINT) on the kernel of BTF: --list-probes names it then.
 */
bool pp_attacher_reasm(const struct btf *btf, enum pp_backend backend);

#endif
