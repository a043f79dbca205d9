// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include "base/compat.h"
#include "probes/end_points.h"
#include "kernel/ftrace_funcs.h"
#include "kernel/ksyms.h"
#include "probes/plan.h"
#include "probes/probe_btf.h"
#include "probes/probe_list.h"

/* BPF trampolines before Linux 6.4 or so take six arguments at most. */
#define PP_FENTRY_MAX_ARGS 6

static const char *const skip_names[] = {
	[PP_SKIP_NONE] = NULL,
	[PP_SKIP_FUNC_NO_BTF] = "not in BTF: unknown, inlined or notrace",
	[PP_SKIP_FUNC_NO_SKB] = "no struct sk_buff * argument",
	[PP_SKIP_FUNC_ARGPOS] = "skb argument past the fifth",
	[PP_SKIP_TP_NO_BTF] = "no tracepoint of that name in BTF",
	[PP_SKIP_TP_NO_SKB] = "tracepoint has no skb argument",
	[PP_SKIP_NOTRACE] = "notrace: ftrace does not list it",
	[PP_SKIP_NO_KSYM] = "not in /proc/kallsyms",
	[PP_SKIP_KSYM_DUP] = "several kernel functions have this name",
	[PP_SKIP_BACKEND] = "a function, and the backend is tracepoint",
	[PP_SKIP_FENTRY_ARGS] = "more than six arguments: fentry cannot attach it on every kernel",
	[PP_SKIP_TP_BACKEND_ONLY] = "tracepoint backend only: another probe of the list shows this "
				    "step",
	[PP_SKIP_READS_FREE_SEEN] = "tracepoint backend only: the function probes see the "
				    "reader's copy and the socket's free",
	[PP_SKIP_ATTACH_FAILED] = "the kernel refused to attach it",
};
_Static_assert(ARRAY_SIZE(skip_names) == PP_SKIP_COUNT, "a name per skip reason");

const char *pp_skip_name(enum pp_skip reason)
{
	return (unsigned)reason < PP_SKIP_COUNT ? skip_names[reason] : NULL;
}

bool pp_skip_is_news(const struct pp_probe *pr)
{
	return pr->skip && pr->skip != PP_SKIP_BACKEND && pr->skip != PP_SKIP_TP_BACKEND_ONLY &&
	       !pp_point_cookie(pr);
}

/*
 * BTF lists functions the kernel will not probe: out-of-line copies of
 * inline functions are notrace (neigh_hh_output), and a name kallsyms holds
 * several times cannot be chosen by name.
 */
enum pp_skip pp_plan_reach(const struct pp_probe *pr, const struct pp_kfacts *k)
{
	long n;

	if (pr->kind != PP_PROBE_FUNC || pr->skip)
		return pr->skip;
	if (k->ftrace && !pp_names_has(k->ftrace, pr->target))
		return PP_SKIP_NOTRACE;
	/* -ENOMEM tells nothing: no skip. */
	n = k->ksyms ? pp_ksym_count(k->ksyms, pr->target) : 1;
	if (n == 0)
		return PP_SKIP_NO_KSYM;
	return n > 1 ? PP_SKIP_KSYM_DUP : PP_SKIP_NONE;
}

void pp_plan_reach_all(struct pp_probe_list *l, const struct pp_kfacts *k)
{
	for (size_t i = 0; i < l->n; i++)
		l->v[i].skip = pp_plan_reach(&l->v[i], k);
}

const struct pp_probe *pp_plan_first_func(const struct pp_probe_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].kind == PP_PROBE_FUNC && !l->v[i].skip)
			return &l->v[i];
	return NULL;
}

static bool has_kmulti(const struct pp_kfacts *k)
{
	return k->kmulti;
}

static bool has_kprobe(const struct pp_kfacts *k)
{
	return k->kprobe;
}

static bool has_fentry(const struct pp_kfacts *k)
{
	return k->fentry;
}

/*
 * The backends: a new one is a row here, its enum value (settings.h) and its
 * programs (bpf/probes.bpf.c); attach.c and kfacts.c go by its attach kind.
 */
const struct pp_backend_row pp_backends[] = {
	[PP_BACKEND_AUTO] = {.name = "auto"},
	[PP_BACKEND_KPROBE_MULTI] = {.name = "kprobe-multi",
				     .has = has_kmulti,
				     .lacks = "this kernel has no kprobe.multi (it needs "
					      "CONFIG_FPROBE, Linux 5.18+)",
				     .check = "kprobe.multi",
				     .gives = "--backend kprobe-multi: fast attach of many",
				     .check_rank = 2,
				     .auto_rank = 1,
				     .attach = PP_ATTACH_MULTI,
				     .entry = "pp_kmulti%d",
				     .ret = "pp_kmulti_ret"},
	[PP_BACKEND_KPROBE] = {.name = "kprobe",
			       .has = has_kprobe,
			       .lacks = "this kernel has no kprobes (CONFIG_KPROBES)",
			       .check = "kprobe",
			       .gives = "--backend kprobe",
			       .check_rank = 1,
			       .auto_rank = 2,
			       .attach = PP_ATTACH_KPROBE,
			       .entry = "pp_kprobe%d",
			       .entry_nocookie = "pp_kprobe_imm%d",
			       .ret = "pp_kret"},
	[PP_BACKEND_FENTRY] =
		{.name = "fentry",
		 .has = has_fentry,
		 .lacks = "this kernel cannot attach fentry programs (BPF trampolines)",
		 .check = "fentry",
		 .gives = "--backend fentry",
		 .check_rank = 3,
		 .attach = PP_ATTACH_TRAMPOLINE,
		 .entry = "pp_fentry%d",
		 .ret = "pp_fexit_ret%d"},
	[PP_BACKEND_TRACEPOINT] = {.name = "tracepoint",
				   .auto_rank = 3,
				   .slab_frees = true,
				   .fallback = "this kernel has no kprobes: tracing the "
					       "tracepoints of the list only"},
};
_Static_assert(ARRAY_SIZE(pp_backends) == PP_BACKEND_COUNT, "a row per backend");

enum pp_backend pp_backend_auto_at(int rank)
{
	for (int i = 0; rank > 0 && i < PP_BACKEND_COUNT; i++)
		if (pp_backends[i].auto_rank == rank)
			return (enum pp_backend)i;
	return PP_BACKEND_AUTO;
}

/* Auto: the first row by auto_rank that K offers (kprobe.multi attaches hundreds at once). */
static enum pp_backend auto_backend(const struct pp_kfacts *k)
{
	enum pp_backend b;

	for (int rank = 1; (b = pp_backend_auto_at(rank)) != PP_BACKEND_AUTO; rank++)
		if (!pp_backends[b].has || pp_backends[b].has(k))
			return b;
	return PP_BACKEND_AUTO;
}

int pp_plan_backend(enum pp_backend want, bool funcs, const struct pp_kfacts *k,
		    enum pp_backend *got, const char **why)
{
	const struct pp_backend_row *b = &pp_backends[want];

	*got = want;
	*why = NULL;
	/* Nothing to attach to functions: no backend is needed for them. */
	if (!funcs)
		return 0;
	if (want == PP_BACKEND_AUTO) {
		*got = auto_backend(k);
		*why = pp_backends[*got].fallback;
		return 0;
	}
	if (!b->has || b->has(k))
		return 0;
	*why = b->lacks;
	return -EOPNOTSUPP;
}

static enum pp_skip backend_skip(const struct pp_probe *pr, enum pp_backend backend,
				 const struct btf *btf)
{
	enum pp_attach_kind attach = pp_backends[backend].attach;

	if (pr->skip)
		return pr->skip;
	/* Auto with no function to attach probes none: the tracepoint backend's case. */
	if (pr->tp_backend_only && attach != PP_ATTACH_NONE)
		return PP_SKIP_TP_BACKEND_ONLY;
	if (pr->kind != PP_PROBE_FUNC)
		return PP_SKIP_NONE;
	if (attach == PP_ATTACH_NONE)
		return PP_SKIP_BACKEND;
	if (attach == PP_ATTACH_TRAMPOLINE && !pr->btf_obj_fd &&
	    pp_btf_func_nargs(btf, pr->btf_id) > PP_FENTRY_MAX_ARGS)
		return PP_SKIP_FENTRY_ARGS;
	return PP_SKIP_NONE;
}

void pp_plan_backend_skips(struct pp_probe_list *l, enum pp_backend backend, const struct btf *btf)
{
	for (size_t i = 0; i < l->n; i++)
		l->v[i].skip = backend_skip(&l->v[i], backend, btf);
}

bool pp_plan_marks_in_probes(enum pp_backend backend, const struct pp_kfacts *k)
{
	/* pp_kmark is a kprobe: the kprobe kinds have them, a trampoline backend may. */
	switch (pp_backends[backend].attach) {
	case PP_ATTACH_MULTI:
	case PP_ATTACH_KPROBE:
		return true;
	case PP_ATTACH_TRAMPOLINE:
		return k->mark_kprobe;
	default:
		return false;
	}
}

struct pp_reads_plan pp_plan_reads(enum pp_backend backend, bool recv_tp, bool kern_ctx,
				   const struct pp_kfacts *k)
{
	struct pp_reads_plan r = {.recv_done = recv_tp && k->loop};

	/* What it notes is only ever read at the end of a receive call. */
	r.cg_ingress = r.recv_done && kern_ctx;
	/*
	 * Auto with no function to attach is the tracepoint backend's case
	 * (backend_skip()). Elsewhere the reader's copy
	 * (skb_copy_datagram_iovec) and the socket's free (consume_skb from
	 * skb_consume_udp, skb_attempt_defer_free) end a read packet first,
	 * and the hooks would cost every datagram a socket takes and every
	 * receive call two programs more (docs/PERFORMANCE.md).
	 */
	if (r.recv_done && pp_backends[backend].attach != PP_ATTACH_NONE)
		r.skip = PP_SKIP_READS_FREE_SEEN;
	return r;
}

bool pp_reads_recv_done(const struct pp_reads_plan *r)
{
	return r->recv_done && !r->skip;
}

bool pp_reads_cg_ingress(const struct pp_reads_plan *r)
{
	return r->cg_ingress && !r->skip;
}

bool pp_plan_can_trace(const struct pp_kfacts *k)
{
	return k->caps && k->btf && k->ringbuf && k->tp_btf && (k->tcx || k->clsact);
}
