/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Planning: from the kernel's facts (kfacts.h), decide which backend takes
 * the functions of the probe list and why each entry is skipped. Pure
 * decisions, no BPF and no kernel: --check, --list-probes and the attach
 * ask the same functions, so they cannot disagree.
 */
#ifndef PP_PLAN_H
#define PP_PLAN_H

#include <stdbool.h>
#include "probes/settings.h"
#include "probes/kfacts.h"

struct btf;
struct pp_probe;
struct pp_probe_list;

/* Why a probe point is not attached; PP_SKIP_NONE: it is. */
enum pp_skip {
	PP_SKIP_NONE,
	/* BTF (probe_btf.c, module_btf.c) */
	PP_SKIP_FUNC_NO_BTF,
	PP_SKIP_FUNC_NO_SKB,
	PP_SKIP_FUNC_ARGPOS,
	PP_SKIP_TP_NO_BTF,
	PP_SKIP_TP_NO_SKB,
	/* ftrace and kallsyms: what a probe by name can reach */
	PP_SKIP_NOTRACE,
	PP_SKIP_NO_KSYM,
	PP_SKIP_KSYM_DUP,
	/* the backend */
	PP_SKIP_BACKEND,
	PP_SKIP_FENTRY_ARGS,
	PP_SKIP_TP_BACKEND_ONLY, /* "tracepoint-only" in the list, a function backend */
	PP_SKIP_READS_FREE_SEEN, /* the reads' hooks, a function backend (pp_plan_reads()) */
	/* the attach itself */
	PP_SKIP_ATTACH_FAILED,
	PP_SKIP_COUNT,
};

/* What --list-probes and -v print for REASON; NULL for PP_SKIP_NONE. */
const char *pp_skip_name(enum pp_skip reason);

/*
 * Skipped because this kernel cannot probe it (worth a warning): not for
 * the backend's choice, nor for the built-in end points (end_points.h), which
 * differ by version (__kfree_skb_defer is 6.1's), so none is news.
 */
bool pp_skip_is_news(const struct pp_probe *pr);

/*
 * Functions a probe by name cannot reach: notrace (not in ftrace's list),
 * missing from kallsyms, or a name kallsyms holds several times. Facts
 * that are unknown (NULL) skip nothing. Entries skipped already keep their
 * reason.
 */
enum pp_skip pp_plan_reach(const struct pp_probe *pr, const struct pp_kfacts *k);

/* pp_plan_reach() on every entry of L. */
void pp_plan_reach_all(struct pp_probe_list *l, const struct pp_kfacts *k);

/* The first function of L not skipped: the one the backend facts are tried on. */
const struct pp_probe *pp_plan_first_func(const struct pp_probe_list *l);

/*
 * How a backend's entry programs reach functions; attach.c has a way per
 * kind, so a new backend of a known kind is its programs and its row.
 */
enum pp_attach_kind {
	PP_ATTACH_NONE,	      /* functions are not probed: the tracepoints of the list only */
	PP_ATTACH_MULTI,      /* a kprobe.multi link per skb argument position, cookie per point */
	PP_ATTACH_KPROBE,     /* a perf kprobe per function */
	PP_ATTACH_TRAMPOLINE, /* a program copy per function, bound to its BTF id at load */
};

/*
 * A backend's row (pp_backends[], plan.c, indexed by enum pp_backend): its
 * name for --backend, --help, the completion and the man page (tests/unit
 * test_cli.c checks those), the kernel fact that says it attaches here
 * (kfacts.h), what --check says of it, and its programs in
 * bpf/probes.bpf.c (tests/unit test_plan.c checks they are there).
 */
struct pp_backend_row {
	const char *name;
	/* The fact that says the kernel offers it; NULL: every kernel pktpath runs on. */
	bool (*has)(const struct pp_kfacts *k);
	const char *lacks; /* why --backend NAME fails where has() is false */
	const char *check; /* its row in --check; NULL: none of its own */
	const char *gives; /* what that row says it gives */
	int check_rank;	   /* the row's place among --check's backend rows, from 1 */
	/* --backend auto tries the rows by this rank, from 1; 0: auto never takes it. */
	int auto_rank;
	const char *fallback; /* why auto took it: its has() is NULL, it is the last */
	enum pp_attach_kind attach;
	/*
	 * No function probe sees frees: the slab's tracepoints watch sk_buff
	 * frees and reuse (attach.c kmem_hooks(), --list-probes says so).
	 */
	bool slab_frees;
	/* The entry program of a function, %d its skb argument's position (1-5). */
	const char *entry;
	const char *entry_nocookie; /* the same without bpf cookies (Linux < 5.15) */
	/* The return program of a copy point; under PP_ATTACH_TRAMPOLINE one per point, %d. */
	const char *ret;
};

extern const struct pp_backend_row pp_backends[PP_BACKEND_COUNT];

/* The backend --backend auto tries at RANK (its row's auto_rank, from 1); PP_BACKEND_AUTO: none. */
enum pp_backend pp_backend_auto_at(int rank);

/*
 * The backend that functions get: WANT, or for auto the best K has. FUNCS:
 * the list has a function left to attach (else any backend does). Returns
 * 0, or -EOPNOTSUPP when K lacks WANT; *WHY says what is missing, or why
 * auto chose less (NULL: nothing to say).
 */
int pp_plan_backend(enum pp_backend want, bool funcs, const struct pp_kfacts *k,
		    enum pp_backend *got, const char **why);

/*
 * Mark what BACKEND cannot take as skipped (functions under the tracepoint
 * backend, fentry past six arguments) or the list keeps from it (a
 * tracepoint-only line under a function backend), so --list-probes and the
 * attach agree.
 * BTF gives the arguments of vmlinux functions.
 */
void pp_plan_backend_skips(struct pp_probe_list *l, enum pp_backend backend, const struct btf *btf);

/*
 * Whether probes mark the packets this host sends (pp_kmark, a kprobe on
 * ip_output): under the kprobe backends, or fentry when K's ip_output
 * takes a kprobe.
 */
bool pp_plan_marks_in_probes(enum pp_backend backend, const struct pp_kfacts *k);

/*
 * The reads' programs (sock_reads.h) that load. RECV_TP: BTF has the
 * sock:sock_recv_length tracepoint (Linux 6.3+), the end of a receive call;
 * KERN_CTX: the bpf_cast_to_kern_ctx kfunc (6.2+), which the cgroup_skb
 * ingress program needs. The end of a call walks its socket's ring in
 * bpf_loop() (5.17+, K->loop): without it neither loads, and a delivered
 * packet ends where its free is seen, not at its reader. They are the
 * tracepoint backend's: the function backends (BACKEND) probe the socket's
 * free of a read skb and the reader's copy, which name the reader without
 * them, so there neither loads and SKIP says why.
 */
struct pp_reads_plan {
	bool recv_done;	 /* tp:sock:sock_recv_length (pp_tp_recv_done) */
	bool cg_ingress; /* cgroup_skb:ingress on the root cgroup v2 (pp_cg_ingress) */
	/*
	 * PP_SKIP_READS_FREE_SEEN: the kernel has what the hooks need (the
	 * flags above say which), and BACKEND leaves them out.
	 */
	enum pp_skip skip;
};

struct pp_reads_plan pp_plan_reads(enum pp_backend backend, bool recv_tp, bool kern_ctx,
				   const struct pp_kfacts *k);

/* Whether R's tracepoint, and its cgroup program, load. */
bool pp_reads_recv_done(const struct pp_reads_plan *r);
bool pp_reads_cg_ingress(const struct pp_reads_plan *r);

/* What --check needs to say "pktpath can trace here". */
bool pp_plan_can_trace(const struct pp_kfacts *k);

#endif
