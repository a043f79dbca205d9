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

/* Whether FD is a TC (or, with XDP, an XDP) program of someone else's: its info in INFO. */
static bool judges_packets(int fd, bool xdp, struct bpf_prog_info *info, struct bpf_func_info *fi)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	info->nr_func_info = 1;
	info->func_info_rec_size = sizeof(*fi);
	info->func_info = (__u64)(unsigned long)fi;
	if (bpf_obj_get_info_by_fd(fd, info, &len))
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

/* Whether a TC program's fexit can attach: it has BTF, its main function named in V. */
static bool has_btf(const struct bpf_prog_info *info, const struct bpf_func_info *fi,
		    struct pp_verdict_prog *v)
{
	if (info->btf_id && info->nr_func_info &&
	    func_name(info->btf_id, fi->type_id, v->func, sizeof(v->func)))
		return true;
	pp_debug("BPF program %s (id %u): no BTF, its verdicts are not recorded\n", info->name,
		 info->id);
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
	} else if (!xdp && !has_btf(info, fi, v)) {
		vs->no_btf++;
	} else {
		v->id = info->id;
		v->btf_func = xdp ? 0 : fi->type_id;
		v->xdp = xdp;
		v->fd = fd;
		snprintf(v->label, sizeof(v->label), PP_VERDICT_PREFIX "%s#%u", info->name,
			 info->id);
		vs->n++;
		return;
	}
	close(fd);
}

void pp_verdicts_find(struct pp_verdicts *vs, __u32 first, bool xdp)
{
	struct bpf_prog_info info;
	struct bpf_func_info fi;
	__u32 id = 0;
	int fd;

	vs->first = first;
	while (!bpf_prog_get_next_id(id, &id)) {
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue; /* unloaded since */
		if (judges_packets(fd, xdp, &info, &fi))
			keep(vs, fd, &info, &fi);
		else
			close(fd);
	}
	if (vs->over)
		pp_warn("%zu BPF programs past the first %zu: their verdicts are not recorded\n",
			vs->over, vs->n);
}

/* The first TC program of VS, or NULL. */
static const struct pp_verdict_prog *first_tc(const struct pp_verdicts *vs)
{
	for (size_t i = 0; i < vs->n; i++)
		if (!vs->v[i].xdp)
			return &vs->v[i];
	return NULL;
}

static bool any_xdp(const struct pp_verdicts *vs)
{
	for (size_t i = 0; i < vs->n; i++)
		if (vs->v[i].xdp)
			return true;
	return false;
}

int pp_verdicts_prepare(const struct pp_verdicts *vs, const struct pp_verdict_progs *p)
{
	const struct pp_verdict_prog *tc = first_tc(vs);

	if (p->xdp)
		bpf_program__set_autoload(p->xdp, any_xdp(vs));
	bpf_program__set_autoload(p->tc, tc != NULL);
	return tc ? bpf_program__set_attach_target(p->tc, tc->fd, tc->func) : 0;
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

/* The fexit on bpf_prog_run_generic_xdp() attached, then the XDP programs' probe indexes by id. */
static int attach_xdp(struct pp_verdicts *vs, const struct pp_verdict_progs *p)
{
	int fd = bpf_map__fd(p->xdp_map);
	int link = bpf_raw_tracepoint_open(NULL, bpf_program__fd(p->xdp));

	if (link < 0)
		return -errno;
	vs->links[vs->nlinks++] = link;
	for (size_t i = 0; i < vs->n; i++) {
		__u32 index = vs->first + (__u32)i;

		vs->v[i].on |= vs->v[i].xdp && !bpf_map_update_elem(fd, &vs->v[i].id, &index, 0);
		vs->attached += vs->v[i].xdp && vs->v[i].on;
	}
	return 0;
}

void pp_verdicts_attach(struct pp_verdicts *vs, const struct pp_verdict_progs *p)
{
	int err;

	for (size_t i = 0; i < vs->n; i++) {
		if (vs->v[i].xdp)
			continue;
		err = attach_one(vs, p->tc, &vs->v[i], vs->first + (__u32)i);
		if (err)
			pp_debug("%s: fexit not attached: %s\n", vs->v[i].label, strerror(-err));
		vs->v[i].on = !err;
		vs->attached += !err;
	}
	err = p->xdp && any_xdp(vs) ? attach_xdp(vs, p) : 0;
	if (err)
		pp_debug("bpf_prog_run_generic_xdp: fexit not attached: %s\n", strerror(-err));
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
