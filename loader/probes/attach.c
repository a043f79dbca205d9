// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "pktpath.h"
#include "base/compat.h"
#include "probes/attach.h"
#include "probes/end_points.h"
#include "probes/link_release.h"
#include "kernel/kfeatures.h"
#include "probes/life_points.h"
#include "probes/plan.h"
#include "bpfobj/maps.h"
#include "probes/probe_btf.h"
#include "probes/skipped.h"
#include "base/grow.h"
#include "bpf_settings.h" /* the skeleton's rodata */
#include "probes.skel.h"
#include "probes/send_calls.h"
#include "probes/sock_reads.h"
#include "probes/slab_learn.h"
#include "bpfobj/splice.h"
#include "base/log.h"

#define PP_FREE_CONSUME "tp:skb:consume_skb"
#define PP_FREE_KFREE	"tp:skb:kfree_skb"
#define PP_PROGRESS_MIN 300 /* probe points from which attaching shows progress */

static int find_probe(const struct pp_probe_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return (int)i;
	return -1;
}

static bool is_free_tp(const struct pp_probe *pr)
{
	return !strcmp(pr->name, PP_FREE_CONSUME) || !strcmp(pr->name, PP_FREE_KFREE);
}

int pp_probes_keep_link(struct pp_probes *p, struct bpf_link *link)
{
	struct bpf_link **v;

	if (p->nlinks == p->cap_links) {
		p->cap_links = p->cap_links ? p->cap_links * 2 : 64;
		v = realloc(p->links, p->cap_links * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->links = v;
	}
	p->links[p->nlinks++] = link;
	return 0;
}

static int push_fd(int **fds, size_t *n, size_t *cap, int fd)
{
	if (PP_GROW(*fds, *cap, *n + 1, 64))
		return -ENOMEM;
	(*fds)[(*n)++] = fd;
	return 0;
}

static struct bpf_program *prog_by_name(struct probes *s, const char *fmt, int n)
{
	char name[32];

	snprintf(name, sizeof(name), fmt, n);
	return bpf_object__find_program_by_name(s->obj, name);
}

/* How BACKEND's entry programs reach functions (its row, plan.h). */
static enum pp_attach_kind kind_of(enum pp_backend backend)
{
	return pp_backends[backend].attach;
}

/* The program that takes probe PR under BACKEND (its row's entry); NULL if none does. */
static struct bpf_program *prog_for(const struct pp_probes *p, const struct pp_probe *pr,
				    enum pp_backend backend)
{
	const struct pp_backend_row *b = &pp_backends[backend];
	const char *entry = p->set->no_cookie && b->entry_nocookie ? b->entry_nocookie : b->entry;

	if (pr->kind == PP_PROBE_TP)
		return prog_by_name(p->skel, "pp_tp%d", pr->argpos + 1);
	return entry ? prog_by_name(p->skel, entry, pr->argpos) : NULL;
}

static bool planned(const struct pp_probe *pr)
{
	return !pr->skip && !is_free_tp(pr);
}

/*
 * Where a locally sent packet is first whole at the IP layer: pp_kmark
 * marks new matches there (and records hops of tracked packets).
 */
static bool mark_point(const struct pp_probes *p, const struct pp_probe *pr)
{
	return p->set->l3 && planned(pr) && pr->kind == PP_PROBE_FUNC && pr->argpos == 3 &&
	       (!strcmp(pr->target, "ip_output") || !strcmp(pr->target, "ip6_output"));
}

size_t pp_probes_planned(const struct pp_probe_list *l)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n; i++)
		n += planned(&l->v[i]);
	return n;
}

/*
 * The probe's cookie: its index, what an end point does to the skb, its part
 * in a life. No copy returns without bpf_loop(): no copy noted at the entry.
 */
static __u32 cookie_of(const struct pp_probes *p, const struct pp_probe *pr, size_t index)
{
	__u32 point = pp_point_cookie(pr) & ~(p->no_loop ? PP_COOKIE_COPIES : 0);

	return (__u32)index | point | pp_life_point_bits(pr->name) |
	       (pr->stack ? PP_COOKIE_STACK : 0);
}

/* A copying function's entry, planned: its return is attached too (needs bpf_loop()). */
static bool copy_point(const struct pp_probes *p, const struct pp_probe *pr)
{
	return !p->no_loop && planned(pr) && pr->kind == PP_PROBE_FUNC &&
	       (pp_point_cookie(pr) & PP_COOKIE_COPIES);
}

/*
 * The program for the return of copy point K (of the plan's order) under
 * BACKEND. fexit programs are bound to one function each, and a copy of a
 * template cannot be loaded as the fentry ones are (bpf_loop()'s callback
 * needs the BTF function info that only libbpf's load gives): one program
 * per copy point, its cookie in the settings' copy_cookie[K].
 */
static struct bpf_program *return_prog(struct probes *s, enum pp_backend backend, int k)
{
	const char *ret = pp_backends[backend].ret;

	if (!ret || (kind_of(backend) == PP_ATTACH_TRAMPOLINE && k >= PP_COPY_POINTS))
		return NULL;
	return prog_by_name(s, ret, k);
}

/* The copy points planned, in p->copies; their return programs load. */
static int choose_returns(struct pp_probes *p, const struct pp_probe_list *l,
			  enum pp_backend backend)
{
	struct probes *s = p->skel;
	struct bpf_program *prog;
	int err = 0;

	for (size_t i = 0; i < l->n && !err; i++) {
		if (!copy_point(p, &l->v[i]))
			continue;
		prog = return_prog(s, backend, p->ncopies);
		if (!prog)
			break;
		bpf_program__set_autoload(prog, true);
		if (kind_of(backend) == PP_ATTACH_TRAMPOLINE) {
			p->cfg.copy_cookie[p->ncopies] = cookie_of(p, &l->v[i], i);
			err = bpf_program__set_attach_target(prog, 0, l->v[i].target);
		}
		p->copies[p->ncopies++] = (__u32)i;
	}
	return err;
}

/* The marking program the kernel takes (bpf/identity.bpf.h, pp_next_id()). */
static struct bpf_program *kmark(const struct pp_probes *p)
{
	return p->set->no_fetch ? p->skel->progs.pp_kmark_nofetch : p->skel->progs.pp_kmark;
}

/*
 * The slab's tracepoints, where no function probe sees frees: those that
 * pass the cache, once both skb caches are known (pp_tp_kmem_*), else those
 * that look at every object (pp_tp_kmem_*_any).
 */
static bool kmem_hooks(const struct pp_probes *p, enum pp_backend backend)
{
	return pp_backends[backend].slab_frees && p->cfg.skb_cache && p->cfg.fclone_cache;
}

static bool kmem_any_hooks(const struct pp_probes *p, enum pp_backend backend)
{
	return pp_backends[backend].slab_frees && !kmem_hooks(p, backend);
}

/* The reassembly hook's program for BACKEND (end_points.h), if it is attached. */
static struct bpf_program *reasm_prog(const struct pp_probes *p, enum pp_backend backend)
{
	switch (p->set->reasm ? kind_of(backend) : PP_ATTACH_NONE) {
	case PP_ATTACH_MULTI:
		return p->skel->progs.pp_reasm_kmulti;
	case PP_ATTACH_KPROBE:
		return p->skel->progs.pp_reasm_kprobe;
	case PP_ATTACH_TRAMPOLINE:
		return p->skel->progs.pp_reasm_fentry;
	default:
		return NULL;
	}
}

/*
 * Attach the reassembly hook. Without it, fragments that reassembly
 * consumes end consumed, as they did before: a warning, not a failure.
 */
static int attach_reasm(struct pp_probes *p, enum pp_backend backend)
{
	struct bpf_program *prog = reasm_prog(p, backend);
	LIBBPF_OPTS(bpf_kprobe_multi_opts, o);
	const char *syms[] = {PP_REASM_POINT};
	struct bpf_link *link;

	if (!prog)
		return 0;
	o.syms = syms;
	o.cnt = 1;
	if (prog == p->skel->progs.pp_reasm_kmulti)
		link = bpf_program__attach_kprobe_multi_opts(prog, NULL, &o);
	else if (prog == p->skel->progs.pp_reasm_kprobe)
		link = bpf_program__attach_kprobe(prog, false, PP_REASM_POINT);
	else
		link = bpf_program__attach(prog);
	if (!link) {
		pp_warn("%s: not attached (%s): fragments it consumes end consumed, not merged\n",
			PP_REASM_POINT, strerror(errno));
		return 0;
	}
	return pp_probes_keep_link(p, link);
}

/*
 * Load only what is used. fentry and tp_btf templates need an attach target
 * to load: each takes that of its first user; the copies get their own.
 */
static int choose_programs(struct pp_probes *p, const struct pp_probe_list *l,
			   enum pp_backend backend)
{
	struct probes *s = p->skel;
	struct bpf_program *prog;
	int err = 0;

	bpf_object__for_each_program(prog, s->obj)
		bpf_program__set_autoload(prog, false);
	bpf_program__set_autoload(s->progs.pp_tp_consume, !p->set->consume_at);
	bpf_program__set_autoload(s->progs.pp_tp_consume_at, p->set->consume_at);
	bpf_program__set_autoload(s->progs.pp_tp_kfree, !p->set->no_reasons);
	bpf_program__set_autoload(s->progs.pp_tp_kfree_noreason, p->set->no_reasons);
	bpf_program__set_autoload(s->progs.pp_tp_kmem_free, kmem_hooks(p, backend));
	bpf_program__set_autoload(s->progs.pp_tp_kmem_alloc, kmem_hooks(p, backend));
	bpf_program__set_autoload(s->progs.pp_tp_kmem_free_any, kmem_any_hooks(p, backend));
	bpf_program__set_autoload(s->progs.pp_tp_kmem_alloc_any, kmem_any_hooks(p, backend));
	bpf_program__set_autoload(s->progs.pp_tp_recv_done, p->set->recv_done);
	bpf_program__set_autoload(s->progs.pp_cg_ingress, p->set->cg_ingress);
	bpf_program__set_autoload(s->progs.pp_enter_sendto, p->set->send_calls);
	bpf_program__set_autoload(s->progs.pp_exit_sendto, p->set->send_calls);
	bpf_program__set_autoload(s->progs.pp_enter_sendmsg, p->set->send_calls);
	bpf_program__set_autoload(s->progs.pp_exit_sendmsg, p->set->send_calls);
	bpf_program__set_autoload(s->progs.pp_enter_sendmmsg, p->set->send_calls);
	bpf_program__set_autoload(s->progs.pp_exit_sendmmsg, p->set->send_calls);
	if (reasm_prog(p, backend))
		bpf_program__set_autoload(reasm_prog(p, backend), true);
	for (size_t i = 0; i < l->n && !err; i++) {
		const struct pp_probe *pr = &l->v[i];

		if (mark_point(p, pr)) {
			bpf_program__set_autoload(kmark(p), true);
			continue;
		}
		prog = planned(pr) ? prog_for(p, pr, backend) : NULL;
		if (!prog || bpf_program__autoload(prog))
			continue;
		bpf_program__set_autoload(prog, true);
		if (pr->kind == PP_PROBE_TP || kind_of(backend) == PP_ATTACH_TRAMPOLINE)
			err = bpf_program__set_attach_target(prog, 0, pr->target);
	}
	return err ? err : choose_returns(p, l, backend);
}

/*
 * A copy of TMPL with PR's cookie in the PP_PROBE_MAGIC immediate, loaded
 * as TYPE (a tracing program is bound to PR's BTF id as ATTACH): its fd, or
 * -errno.
 */
static int load_copy(struct pp_probes *p, struct bpf_program *tmpl, const struct pp_probe *pr,
		     __u32 index, enum bpf_prog_type type, enum bpf_attach_type attach)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o);
	char name[16];

	if (type == BPF_PROG_TYPE_TRACING) {
		o.expected_attach_type = attach;
		o.attach_btf_id = pr->btf_id;
		o.attach_btf_obj_fd = pr->btf_obj_fd;
	}
	snprintf(name, sizeof(name), "pp_%s", pr->target);
	return pp_splice_load_copy(tmpl, (__s32)cookie_of(p, pr, index), type, name, &o);
}

/* Keep program FD and the fd that attaches it (ATTACHED: -errno if that failed). */
static int keep_copy(struct pp_probes *p, int fd, int attached)
{
	int err = attached < 0 ? attached : push_fd(&p->fds, &p->nfds, &p->cap_fds, attached);

	if (push_fd(&p->prog_fds, &p->nprog_fds, &p->cap_prog_fds, fd)) {
		close(fd);
		return -ENOMEM;
	}
	return err;
}

/* fentry and tp_btf: a copy per point, bound to it at load. */
static int attach_traced_copy(struct pp_probes *p, struct bpf_program *tmpl,
			      const struct pp_probe *pr, __u32 index, enum bpf_attach_type attach)
{
	int fd = load_copy(p, tmpl, pr, index, BPF_PROG_TYPE_TRACING, attach), link;

	if (fd < 0)
		return fd;
	link = bpf_raw_tracepoint_open(NULL, fd);
	return keep_copy(p, fd, link < 0 ? -errno : link);
}

/*
 * Without bpf cookies (Linux before 5.15): a copy of pp_kprobe_imm* per
 * point, set on a kprobe perf event of its own, as libbpf does where the
 * kernel has no perf links; closing the event detaches it.
 */
static int attach_kprobe_copy(struct pp_probes *p, struct bpf_program *tmpl,
			      const struct pp_probe *pr, __u32 index)
{
	int fd = load_copy(p, tmpl, pr, index, BPF_PROG_TYPE_KPROBE, 0);
	int ev = fd < 0 ? fd : pp_kfeatures_kprobe_open(pr->target);

	if (fd < 0)
		return fd;
	if (ev >= 0 &&
	    (ioctl(ev, PERF_EVENT_IOC_SET_BPF, fd) || ioctl(ev, PERF_EVENT_IOC_ENABLE, 0))) {
		int err = -errno;

		close(ev);
		ev = err;
	}
	return keep_copy(p, fd, ev);
}

static int attach_kprobe(struct pp_probes *p, struct bpf_program *prog, const struct pp_probe *pr,
			 __u32 index, bool retprobe)
{
	/* Without cookies only pp_kmark comes here: libbpf refuses a cookie then. */
	LIBBPF_OPTS(bpf_kprobe_opts, o,
		    .bpf_cookie = p->set->no_cookie ? 0 : cookie_of(p, pr, index),
		    .retprobe = retprobe);
	struct bpf_link *link = bpf_program__attach_kprobe_opts(prog, pr->target, &o);

	if (!link)
		return -errno;
	return pp_probes_keep_link(p, link);
}

static void note_failure(struct pp_probe *pr, int err)
{
	pr->skip = PP_SKIP_ATTACH_FAILED;
	pp_debug("%s: attach failed: %s\n", pr->name, strerror(-err));
}

/* Hundreds of single attaches take a while: say how far it got. */
static void progress(size_t i, size_t n)
{
	if (n >= PP_PROGRESS_MIN && (i % 100 == 0 || i + 1 == n))
		pp_info_cr("attaching %zu of %zu probe points%s", i + 1, n, i + 1 == n ? "\n" : "");
}

/* The program for probe PR outside of kprobe.multi links; NULL: not here. */
static struct bpf_program *single_prog(const struct pp_probes *p, const struct pp_probe *pr,
				       enum pp_backend backend)
{
	if (mark_point(p, pr))
		return kmark(p);
	if (!planned(pr) || (pr->kind == PP_PROBE_FUNC && kind_of(backend) == PP_ATTACH_MULTI))
		return NULL;
	return prog_for(p, pr, backend);
}

/* One at a time: fentry and tracepoint copies, single kprobes, the markers. */
static int attach_singles(struct pp_probes *p, struct pp_probe_list *l, enum pp_backend backend)
{
	for (size_t i = 0; i < l->n && !(p->set->stop && *p->set->stop); i++) {
		struct pp_probe *pr = &l->v[i];
		struct bpf_program *prog = single_prog(p, pr, backend);
		bool kprobe = mark_point(p, pr) ||
			      (pr->kind == PP_PROBE_FUNC && kind_of(backend) == PP_ATTACH_KPROBE);
		int err;

		progress(i, l->n);
		if (!prog)
			continue;
		if (kprobe && p->set->no_cookie && !mark_point(p, pr))
			err = attach_kprobe_copy(p, prog, pr, (__u32)i);
		else if (kprobe)
			err = attach_kprobe(p, prog, pr, (__u32)i, false);
		else
			err = attach_traced_copy(p, prog, pr, (__u32)i,
						 pr->kind == PP_PROBE_TP ? BPF_TRACE_RAW_TP
									 : BPF_TRACE_FENTRY);
		if (err == -ENOMEM)
			return err;
		if (err) {
			note_failure(pr, err);
			continue;
		}
		p->attached++;
		p->marks += mark_point(p, pr);
	}
	return 0;
}

static struct bpf_link *kmulti_link(struct bpf_program *prog, const char **syms, __u64 *cookies,
				    size_t n, bool retprobe)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .syms = syms, .cookies = cookies, .cnt = n,
		    .retprobe = retprobe);

	return bpf_program__attach_kprobe_multi_opts(prog, NULL, &o);
}

/*
 * One kprobe.multi link per argument position, cookie = probe index. One bad
 * symbol fails the whole link: then each is tried alone to find it.
 */
static int attach_kmulti_pos(struct pp_probes *p, struct pp_probe_list *l, enum pp_backend backend,
			     int pos)
{
	struct bpf_program *prog = prog_by_name(p->skel, pp_backends[backend].entry, pos);
	const char **syms = calloc(l->n, sizeof(*syms));
	__u64 *cookies = calloc(l->n, sizeof(*cookies));
	size_t *idx = calloc(l->n, sizeof(*idx)), n = 0, good = 0;
	struct bpf_link *link = NULL;
	int err = 0;

	if (!syms || !cookies || !idx) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < l->n; i++) {
		if (planned(&l->v[i]) && l->v[i].kind == PP_PROBE_FUNC && l->v[i].argpos == pos &&
		    !mark_point(p, &l->v[i])) {
			idx[n] = i;
			syms[n] = l->v[i].target;
			cookies[n++] = cookie_of(p, &l->v[i], i);
		}
	}
	if (!n)
		goto cleanup;
	link = kmulti_link(prog, syms, cookies, n, false);
	if (!link) {
		for (size_t j = 0; j < n; j++) {
			struct bpf_link *one = kmulti_link(prog, &syms[j], &cookies[j], 1, false);

			if (!one) {
				note_failure(&l->v[idx[j]], -errno);
				continue;
			}
			bpf_link__destroy(one);
			syms[good] = syms[j];
			cookies[good++] = cookies[j];
		}
		n = good;
		link = n ? kmulti_link(prog, syms, cookies, n, false) : NULL;
	}
	if (link) {
		err = pp_probes_keep_link(p, link);
		p->attached += n;
	}
cleanup:
	free(syms);
	free(cookies);
	free(idx);
	return err;
}

/* PR's return, under BACKEND with program PROG. */
static int attach_return(struct pp_probes *p, struct bpf_program *prog, struct pp_probe *pr,
			 __u32 index, enum pp_backend backend)
{
	const char *sym = pr->target;
	__u64 cookie = cookie_of(p, pr, index);
	struct bpf_link *link;

	switch (kind_of(backend)) {
	case PP_ATTACH_KPROBE:
		return attach_kprobe(p, prog, pr, index, true);
	case PP_ATTACH_TRAMPOLINE:
		link = bpf_program__attach_trace(prog);
		break;
	case PP_ATTACH_MULTI:
		link = kmulti_link(prog, &sym, &cookie, 1, true);
		break;
	default:
		return -EINVAL;
	}
	return link ? pp_probes_keep_link(p, link) : -errno;
}

/*
 * The copy points' returns (after the entries: a return without its entry
 * does nothing). A return refused leaves its copies unjoined: said with -v.
 */
static int attach_returns(struct pp_probes *p, struct pp_probe_list *l, enum pp_backend backend)
{
	for (int k = 0; k < p->ncopies; k++) {
		struct pp_probe *pr = &l->v[p->copies[k]];
		int err = attach_return(p, return_prog(p->skel, backend, k), pr, p->copies[k],
					backend);

		if (err == -ENOMEM)
			return err;
		if (err)
			pp_debug("%s: its return did not attach: %s\n", pr->name, strerror(-err));
	}
	return 0;
}

/*
 * Without the cache: every object; kmem_cache_alloc_node, where the kernel
 * has it (before 6.1), hands out most skbs (__alloc_skb()).
 */
static int attach_kmem_any(struct pp_probes *p)
{
	struct bpf_program *alloc = p->skel->progs.pp_tp_kmem_alloc_any;
	struct bpf_link *link = bpf_program__attach(p->skel->progs.pp_tp_kmem_free_any);
	int err = link ? pp_probes_keep_link(p, link) : -errno;

	if (!err) {
		link = bpf_program__attach(alloc);
		err = link ? pp_probes_keep_link(p, link) : -errno;
	}
	/* Gone since 6.1 (kmem_cache_alloc took the node): none is no error. */
	link = err ? NULL : bpf_program__attach_raw_tracepoint(alloc, "kmem_cache_alloc_node");
	return link ? pp_probes_keep_link(p, link) : err;
}

/*
 * The end of a receive call, where the kernel has its tracepoint: without
 * it a read is confirmed by the thread's next copy only (bpf/reads.bpf.h).
 */
static int attach_recv_done(struct pp_probes *p)
{
	struct bpf_link *link;

	if (!p->set->recv_done)
		return 0;
	link = bpf_program__attach(p->skel->progs.pp_tp_recv_done);
	return link ? pp_probes_keep_link(p, link) : -errno;
}

/* The free tracepoints; the slab's too where no function probe sees frees. */
static int attach_free_tps(struct pp_probes *p, enum pp_backend backend)
{
	struct bpf_program *progs[] = {
		p->set->consume_at ? p->skel->progs.pp_tp_consume_at : p->skel->progs.pp_tp_consume,
		p->set->no_reasons ? p->skel->progs.pp_tp_kfree_noreason
				   : p->skel->progs.pp_tp_kfree,
		p->skel->progs.pp_tp_kmem_free, p->skel->progs.pp_tp_kmem_alloc};
	size_t n = kmem_hooks(p, backend) ? 4 : 2;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		struct bpf_link *link = bpf_program__attach(progs[i]);

		err = link ? pp_probes_keep_link(p, link) : -errno;
		/* The two skb tracepoints are list entries; the slab's are not. */
		p->attached += link != NULL && i < 2;
	}
	if (!err && kmem_any_hooks(p, backend))
		err = attach_kmem_any(p);
	return err ? err : attach_recv_done(p);
}

/* The programs that record other programs' verdicts, for this kernel (verdicts.h). */
static struct pp_verdict_progs verdict_progs(const struct pp_probes *p)
{
	struct probes *s = p->skel;
	int args = p->set->xdp_generic_args;

	return (struct pp_verdict_progs){
		.tc = s->progs.pp_verdict_tc,
		.xdp = args == 3 ? s->progs.pp_xdp_generic3
				 : (args == 4 ? s->progs.pp_xdp_generic4 : NULL),
		.xdp_map = s->maps.xdp_probe_map,
		.frame = !p->set->l2 ? NULL
				     : (p->set->no_fetch ? s->progs.pp_verdict_frame_nofetch
							 : s->progs.pp_verdict_frame),
	};
}

/*
 * The filter where the probes mark: pp_kmark's, for packets from their IP
 * header on (mark_point()); the XDP frames', from the Ethernet header.
 */
static int load_marking(struct pp_probes *p)
{
	struct pp_verdict_progs v = verdict_progs(p);
	struct pp_splice edits[2];
	size_t n = 0;

	if (p->set->l3)
		edits[n++] = (struct pp_splice){bpf_program__name(kmark(p)), PP_SPLICE_SUBPROG,
						p->set->l3, p->set->l3_cnt};
	if (p->verdicts.frames)
		edits[n++] = (struct pp_splice){bpf_program__name(v.frame), PP_SPLICE_SUBPROG,
						p->set->l2, p->set->l2_cnt};
	return pp_splice_load(p->skel->skeleton, edits, n);
}

/*
 * Without bpf cookies, pp_kmark learns its probe index from rodata, and
 * kretprobes would have none: no copy returns under the kprobe backends.
 */
static void set_no_cookie(struct pp_probes *p, const struct pp_probe_list *l,
			  enum pp_backend backend)
{
	p->cfg.no_cookie = p->set->no_cookie;
	if (!p->set->no_cookie)
		return;
	if (kind_of(backend) != PP_ATTACH_TRAMPOLINE)
		p->no_loop = true;
	for (size_t i = 0; i < l->n; i++) {
		if (!mark_point(p, &l->v[i]))
			continue;
		if (!strcmp(l->v[i].target, "ip6_output"))
			p->cfg.mark_probe6 = (__u32)i;
		else
			p->cfg.mark_probe4 = (__u32)i;
	}
}

/* The raw tracepoint program for this kernel's xdp redirect arguments, or NULL. */
static struct bpf_program *redirect_prog(const struct pp_probes *p)
{
	int args = p->set->xdp_redirect_args;

	return args == 8 ? p->skel->progs.pp_xdp_redirect7
			 : (args == 7 ? p->skel->progs.pp_xdp_redirect6 : NULL);
}

/* With the frames, where a redirected frame's END learns its target (pp_frame_redirected()). */
static void choose_redirect(struct pp_probes *p)
{
	struct bpf_program *prog = redirect_prog(p);

	p->cfg.frame_redirect = p->verdicts.frames && prog;
	if (prog)
		bpf_program__set_autoload(prog, p->cfg.frame_redirect);
}

/* The four xdp redirect tracepoints that the kernel has (5.10 fires _map ones for a map's). */
static int attach_redirect(struct pp_probes *p)
{
	static const char *const tps[] = {"xdp_redirect", "xdp_redirect_err", "xdp_redirect_map",
					  "xdp_redirect_map_err"};
	struct bpf_program *prog = redirect_prog(p);

	for (size_t i = 0; p->cfg.frame_redirect && i < ARRAY_SIZE(tps); i++) {
		struct bpf_link *link = bpf_program__attach_raw_tracepoint(prog, tps[i]);

		if (!link)
			pp_debug("%s: not attached: %s\n", tps[i], strerror(errno));
		else if (pp_probes_keep_link(p, link))
			return -ENOMEM;
	}
	return 0;
}

static int open_load(struct pp_probes *p, const struct pp_maps *maps, struct pp_probe_list *l)
{
	enum pp_backend backend = p->set->backend;
	int consume = find_probe(l, PP_FREE_CONSUME), kfree = find_probe(l, PP_FREE_KFREE);
	int err;

	p->no_loop = p->set->no_loop;
	p->cfg = p->set->cfg;
	if (pp_backends[backend].slab_frees && !p->set->no_slab)
		pp_slab_learn(&p->cfg.skb_cache, &p->cfg.fclone_cache);
	err = pp_splice_register();
	if (err)
		return err;
	p->skel = probes__open();
	if (!p->skel)
		return -errno;
	if (consume < 0 || kfree < 0)
		return -ENOENT;
	p->cfg.consume_probe = (__u32)consume;
	p->cfg.kfree_probe = (__u32)kfree;
	p->cfg.fclone_note = kmem_any_hooks(p, backend);
	p->cfg.reasm_hook = reasm_prog(p, backend) != NULL;
	set_no_cookie(p, l, backend);
	err = pp_maps_share(maps, p->skel->obj);
	if (!err)
		err = choose_programs(p, l, backend);
	if (!err && p->set->verdicts) {
		struct pp_verdict_progs v = verdict_progs(p);

		pp_verdicts_find(&p->verdicts, (__u32)l->n, v.xdp || v.frame);
		err = pp_verdicts_prepare(&p->verdicts, &v, p->set->verdict_anchor,
					  p->set->frame_anchor);
		p->cfg.frames = p->verdicts.frames;
		choose_redirect(p);
	}
	if (err)
		return err;
	p->skel->rodata->pp_cfg = p->cfg;
	return load_marking(p);
}

int pp_probes_load(struct pp_probes *p, const struct pp_maps *maps, struct pp_probe_list *l,
		   char *err, size_t errlen)
{
	int ret = open_load(p, maps, l);

	if (ret)
		snprintf(err, errlen, "cannot load the probe programs: %s", strerror(-ret));
	return ret;
}

int pp_probes_attach(struct pp_probes *p, struct pp_probe_list *l, char *err, size_t errlen)
{
	enum pp_backend backend = p->set->backend;
	int ret = attach_free_tps(p, backend);

	if (!ret && p->set->send_calls)
		ret = pp_send_calls_attach(p) < 0 ? -ENOMEM : 0;
	if (!ret)
		ret = pp_sock_reads_attach(p) < 0 ? -ENOMEM : 0;
	for (int pos = 1; !ret && kind_of(backend) == PP_ATTACH_MULTI && pos <= PP_MAX_ARGPOS;
	     pos++)
		ret = attach_kmulti_pos(p, l, backend, pos);
	if (!ret)
		ret = attach_singles(p, l, backend);
	if (!ret)
		ret = attach_returns(p, l, backend);
	if (!ret)
		ret = attach_reasm(p, backend);
	/* Before the frames' fexits, whose held ENDs they release. */
	if (!ret)
		ret = attach_redirect(p);
	if (!ret && p->set->verdicts) {
		struct pp_verdict_progs v = verdict_progs(p);

		pp_verdicts_attach(&p->verdicts, &v);
	}
	if (ret)
		snprintf(err, errlen, "cannot attach the probes: %s", strerror(-ret));
	return ret;
}

size_t pp_probes_verdicts_rescan(struct pp_probes *p)
{
	struct pp_verdict_progs v = verdict_progs(p);

	return p->set->verdicts && p->skel ? pp_verdicts_rescan(&p->verdicts, &v) : 0;
}

__u64 pp_probes_skipped(const struct pp_probes *p)
{
	__u64 n = p->skel ? pp_object_skipped(p->skel->obj) : 0;

	for (size_t i = 0; i < p->nprog_fds; i++)
		n += pp_prog_skipped(p->prog_fds[i]);
	return n;
}

void pp_probes_destroy(struct pp_probes *p)
{
	pp_links_destroy(p->links, p->nlinks);
	pp_verdicts_close(&p->verdicts);
	for (size_t i = 0; i < p->nfds; i++)
		close(p->fds[i]);
	for (size_t i = 0; i < p->nprog_fds; i++)
		close(p->prog_fds[i]);
	free(p->links);
	free(p->fds);
	free(p->prog_fds);
	probes__destroy(p->skel);
	*p = (struct pp_probes){.set = p->set};
}
