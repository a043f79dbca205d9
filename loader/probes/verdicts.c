// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "pktpath.h"
#include "probes/verdicts.h"
#include "bpfobj/splice.h"
#include "base/log.h"

#define PP_CLS_PREFIX "pp_cls_" /* pktpath's classifiers, this run's and others' */

/* FD's info into INFO, with its first function's (the main one) into FI: 0 or -errno. */
static int prog_info(int fd, struct bpf_prog_info *info, struct bpf_func_info *fi)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	info->nr_func_info = 1;
	info->func_info_rec_size = sizeof(*fi);
	info->func_info = (__u64)(unsigned long)fi;
	return bpf_obj_get_info_by_fd(fd, info, &len);
}

/* Whether FD is a TC (or, with XDP, an XDP) program of someone else's: its info in INFO. */
static bool judges_packets(int fd, bool xdp, struct bpf_prog_info *info, struct bpf_func_info *fi)
{
	if (prog_info(fd, info, fi))
		return false;
	if (info->type != BPF_PROG_TYPE_SCHED_CLS && info->type != BPF_PROG_TYPE_SCHED_ACT &&
	    !(xdp && info->type == BPF_PROG_TYPE_XDP))
		return false;
	return strncmp(info->name, PP_CLS_PREFIX, strlen(PP_CLS_PREFIX)) != 0;
}

/* The name of function FUNC of BTF object BTF_ID into BUF; false if not found. */
static bool func_name(__u32 btf_id, __u32 func, char *buf, size_t len)
{
	struct btf *btf = btf__load_from_kernel_by_id(btf_id);
	const struct btf_type *t = btf ? btf__type_by_id(btf, func) : NULL;
	bool ok = t && btf_is_func(t);

	if (ok)
		snprintf(buf, len, "%s", btf__name_by_offset(btf, t->name_off));
	btf__free(btf);
	return ok;
}

/*
 * Whether an fexit can attach to the program: it has BTF, its main function
 * named in V. An XDP program without has its generic mode's verdicts
 * (XDP), not its frames'.
 */
static bool has_btf(const struct bpf_prog_info *info, const struct bpf_func_info *fi,
		    struct pp_verdict_prog *v, bool xdp)
{
	v->func[0] = 0;
	if (info->btf_id && info->nr_func_info &&
	    func_name(info->btf_id, fi->type_id, v->func, sizeof(v->func)))
		return true;
	pp_debug("BPF program %s (id %u): no BTF, its %s not recorded\n", info->name, info->id,
		 xdp ? "frames are" : "verdicts are");
	return false;
}

/*
 * Program FD (INFO, FI) into VS: kept (its fd with it), or counted as not
 * traced: past PP_VERDICT_MAX, or past the probe indexes (PP_MAX_PROBES).
 */
static void keep(struct pp_verdicts *vs, int fd, const struct bpf_prog_info *info,
		 const struct bpf_func_info *fi)
{
	struct pp_verdict_prog *v = &vs->v[vs->n];
	bool xdp = info->type == BPF_PROG_TYPE_XDP;

	if (vs->n == PP_VERDICT_MAX || vs->first + vs->n >= PP_MAX_PROBES) {
		vs->over++;
	} else if (!has_btf(info, fi, v, xdp) && !xdp) {
		vs->no_btf++;
	} else {
		v->id = info->id;
		v->btf_func = v->func[0] ? fi->type_id : 0;
		v->xdp = xdp;
		v->fd = fd;
		snprintf(v->label, sizeof(v->label), PP_VERDICT_PREFIX "%s#%u", info->name,
			 info->id);
		vs->n++;
		return;
	}
	close(fd);
}

/* The programs past VS->seen into VS, those of others that judge packets kept. */
static void look(struct pp_verdicts *vs)
{
	struct bpf_prog_info info;
	struct bpf_func_info fi;
	__u32 id = vs->seen;
	int fd;

	while (!bpf_prog_get_next_id(id, &id)) {
		vs->seen = id;
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue; /* unloaded since */
		if (judges_packets(fd, vs->with_xdp, &info, &fi))
			keep(vs, fd, &info, &fi);
		else
			close(fd);
	}
}

void pp_verdicts_find(struct pp_verdicts *vs, __u32 first, bool xdp)
{
	vs->first = first;
	vs->with_xdp = xdp;
	look(vs);
	if (vs->over)
		pp_warn("%zu BPF programs past the first %zu: their verdicts are not recorded\n",
			vs->over, vs->n);
}

/* The first TC program of VS (XDP: the first XDP program with BTF), or NULL. */
static const struct pp_verdict_prog *first_of(const struct pp_verdicts *vs, bool xdp)
{
	for (size_t i = 0; i < vs->n; i++)
		if (vs->v[i].xdp == xdp && vs->v[i].btf_func)
			return &vs->v[i];
	return NULL;
}

/* ANCHOR's main function into V: the template's target when no other TC program is loaded. */
static bool anchor_prog(int anchor, struct pp_verdict_prog *v)
{
	struct bpf_prog_info info;
	struct bpf_func_info fi;

	if (anchor < 0 || prog_info(anchor, &info, &fi) || !has_btf(&info, &fi, v, false))
		return false;
	v->fd = anchor;
	return true;
}

int pp_verdicts_prepare(struct pp_verdicts *vs, const struct pp_verdict_progs *p, int anchor,
			int frame_anchor)
{
	const struct pp_verdict_prog *tc = first_of(vs, false), *xdp = first_of(vs, true);
	struct pp_verdict_prog own = {0}, own_xdp = {0};
	int err;

	if (p->xdp)
		bpf_program__set_autoload(p->xdp, true);
	if (!tc && anchor_prog(anchor, &own))
		tc = &own;
	if (!xdp && anchor_prog(frame_anchor, &own_xdp))
		xdp = &own_xdp;
	vs->tmpl = tc != NULL;
	vs->frames = p->frame && xdp;
	bpf_program__set_autoload(p->tc, vs->tmpl);
	if (p->frame)
		bpf_program__set_autoload(p->frame, vs->frames);
	err = tc ? bpf_program__set_attach_target(p->tc, tc->fd, tc->func) : 0;
	if (!err && vs->frames)
		err = bpf_program__set_attach_target(p->frame, xdp->fd, xdp->func);
	return err;
}

/* A copy of TMPL on program V, probe index INDEX: 0 or -errno. */
static int attach_one(struct pp_verdicts *vs, struct bpf_program *tmpl,
		      const struct pp_verdict_prog *v, __u32 index)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_FEXIT,
		    .attach_prog_fd = (__u32)v->fd, .attach_btf_id = v->btf_func);
	int fd = pp_splice_load_copy(tmpl, (__s32)index, BPF_PROG_TYPE_TRACING, "pp_verdict", &o);
	int link;

	if (fd < 0)
		return fd;
	link = bpf_raw_tracepoint_open(NULL, fd);
	if (link < 0) {
		link = -errno;
		close(fd);
		return link;
	}
	vs->links[vs->nlinks++] = fd;
	vs->links[vs->nlinks++] = link;
	return 0;
}

/* An XDP program's: its generic mode's by id, its frames by a copy of the frame template. */
static void record_xdp(struct pp_verdicts *vs, const struct pp_verdict_progs *p,
		       struct pp_verdict_prog *v, __u32 index)
{
	int generic = vs->xdp_on ? 0 : -ENOENT, frames = -ENOENT;

	if (!generic && bpf_map_update_elem(bpf_map__fd(p->xdp_map), &v->id, &index, 0))
		generic = -errno;
	if (vs->frames && v->btf_func)
		frames = attach_one(vs, p->frame, v, index);
	if (generic)
		pp_debug("%s: generic mode's verdicts not recorded: %s\n", v->label,
			 strerror(-generic));
	if (frames)
		pp_debug("%s: frames not recorded: %s\n", v->label, strerror(-frames));
	v->on = !generic || !frames;
	vs->attached += v->on;
}

/* V[I]'s verdicts recorded: a template's copy on a TC program, an XDP program's index by id. */
static void record(struct pp_verdicts *vs, const struct pp_verdict_progs *p, size_t i)
{
	struct pp_verdict_prog *v = &vs->v[i];
	__u32 index = vs->first + (__u32)i;
	int err;

	if (v->xdp) {
		record_xdp(vs, p, v, index);
		return;
	}
	err = vs->tmpl ? attach_one(vs, p->tc, v, index) : -ENOENT;
	if (err)
		pp_debug("%s: verdicts not recorded: %s\n", v->label, strerror(-err));
	v->on = !err;
	vs->attached += !err;
}

/* The fexit on bpf_prog_run_generic_xdp(), for the XDP programs of now and later. */
static void attach_xdp(struct pp_verdicts *vs, const struct pp_verdict_progs *p)
{
	int link = p->xdp ? bpf_raw_tracepoint_open(NULL, bpf_program__fd(p->xdp)) : -ENOENT;

	if (link < 0) {
		pp_debug("bpf_prog_run_generic_xdp: fexit not attached: %s\n",
			 strerror(p->xdp ? errno : ENOENT));
		return;
	}
	vs->links[vs->nlinks++] = link;
	vs->xdp_on = true;
}

void pp_verdicts_attach(struct pp_verdicts *vs, const struct pp_verdict_progs *p)
{
	attach_xdp(vs, p);
	for (size_t i = 0; i < vs->n; i++)
		record(vs, p, i);
}

size_t pp_verdicts_rescan(struct pp_verdicts *vs, const struct pp_verdict_progs *p)
{
	size_t from = vs->n, before = vs->attached;

	look(vs);
	for (size_t i = from; i < vs->n; i++)
		record(vs, p, i);
	return vs->attached - before;
}

const char *pp_verdicts_label(const struct pp_verdicts *vs, __u32 i)
{
	return i >= vs->first && i - vs->first < vs->n ? vs->v[i - vs->first].label : NULL;
}

void pp_verdicts_close(struct pp_verdicts *vs)
{
	for (size_t i = 0; i < vs->nlinks; i++)
		close(vs->links[i]);
	for (size_t i = 0; i < vs->n; i++)
		close(vs->v[i].fd);
	*vs = (struct pp_verdicts){0};
}
