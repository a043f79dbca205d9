/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's facts, gathered once into one struct; plan.h decides on
 * them and check_kernel.h reports them. Gathering tries the real thing
 * (kfeatures.h) and reads ftrace's and kallsyms' lists.
 */
#ifndef PP_KFACTS_H
#define PP_KFACTS_H

#include <stdbool.h>
#include "probes/settings.h"

struct btf;
struct pp_names;
struct pp_ksyms;
struct pp_probe;

struct pp_kfacts {
	/* Attach types, tried on one function: what the backend policy reads. */
	bool kprobe, kmulti, fentry;
	bool mark_kprobe; /* ip_output takes a kprobe (pp_kmark) */
	/* The rest of --check's table. */
	bool caps, btf, ringbuf, tp_btf, tcx, clsact, cookie, reasons, tracefs, bpffs;
	/*
	 * What the programs use beyond the attach (pp_kfacts_programs()):
	 * atomics that fetch, bpf_loop(), slab tracepoints that pass the cache.
	 */
	bool fetch, loop, slab;
	bool maker; /* pp_kfeatures_has_sock_maker() */
	/* Functions ftrace can trace, and kernel symbols; NULL: unknown. */
	const struct pp_names *ftrace;
	struct pp_ksyms *ksyms;
};

/* Everything --check shows, tried on consume_skb, which every kernel has. */
void pp_kfacts_check(struct pp_kfacts *k, const struct btf *btf);

/*
 * What the BPF programs need besides an attach type, and each has a way
 * around: fetch, cookie, loop, reasons, slab. Tried once per run.
 */
void pp_kfacts_programs(struct pp_kfacts *k, const struct btf *btf);

/*
 * The attach facts that pp_plan_backend(WANT) reads, tried on function F
 * (NULL: none is needed); only those, as each try costs a load or an attach.
 */
void pp_kfacts_backend(struct pp_kfacts *k, enum pp_backend want, const struct pp_probe *f);

/* The fact pp_plan_marks_in_probes(BACKEND) reads beyond the backend. */
void pp_kfacts_marking(struct pp_kfacts *k, enum pp_backend backend);

/*
 * ftrace's list of traceable functions into FTRACE and /proc/kallsyms into
 * *KSYMS; K points to each that could be read. The caller frees both
 * (pp_names_free, pp_ksyms_free), also when K does not point to them.
 */
void pp_kfacts_symbols(struct pp_kfacts *k, struct pp_names *ftrace, struct pp_ksyms **ksyms);

#endif
