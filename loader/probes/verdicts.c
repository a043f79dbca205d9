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

/* Whether FD is a TC program of someone else's: its info in INFO, its main function's in FI. */
static bool judges_packets(int fd, struct bpf_prog_info *info, struct bpf_func_info *fi)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	info->nr_func_info = 1;
	info->func_info_rec_size = sizeof(*fi);
	info->func_info = (__u64)(unsigned long)fi;
	if (bpf_obj_get_info_by_fd(fd, info, &len))
		return false;
	if (info->type != BPF_PROG_TYPE_SCHED_CLS && info->type != BPF_PROG_TYPE_SCHED_ACT)
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

/* Program FD (INFO, FI) into VS: kept (its fd with it), or counted as not traced. */
static void keep(struct pp_verdicts *vs, int fd, const struct bpf_prog_info *info,
		 const struct bpf_func_info *fi)
{
	struct pp_verdict_prog *v = &vs->v[vs->n];

	if (vs->n == PP_VERDICT_MAX) {
		vs->over++;
	} else if (!info->btf_id || !info->nr_func_info ||
		   !func_name(info->btf_id, fi->type_id, v->func, sizeof(v->func))) {
		pp_debug("BPF program %s (id %u): no BTF, its verdicts are not traced\n",
			 info->name, info->id);
		vs->no_btf++;
	} else {
		v->id = info->id;
		v->btf_func = fi->type_id;
		v->fd = fd;
		snprintf(v->label, sizeof(v->label), PP_VERDICT_PREFIX "%s#%u", info->name,
			 info->id);
		vs->n++;
		return;
	}
	close(fd);
}

int pp_verdicts_find(struct pp_verdicts *vs, __u32 first)
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
		if (judges_packets(fd, &info, &fi))
			keep(vs, fd, &info, &fi);
		else
			close(fd);
	}
	if (vs->first + vs->n > PP_MAX_PROBES)
		vs->n = vs->first < PP_MAX_PROBES ? PP_MAX_PROBES - vs->first : 0;
	if (vs->over)
		pp_warn("%zu TC programs past the first %d: their verdicts are not traced\n",
			vs->over, PP_VERDICT_MAX);
	return 0;
}

int pp_verdicts_prepare(struct pp_verdicts *vs, struct bpf_program *tmpl)
{
	bpf_program__set_autoload(tmpl, vs->n > 0);
	return vs->n ? bpf_program__set_attach_target(tmpl, vs->v[0].fd, vs->v[0].func) : 0;
}

/* A copy of TMPL on program V, probe index INDEX: 0 or -errno. */
static int attach_one(struct pp_verdicts *vs, const struct bpf_program *tmpl,
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

void pp_verdicts_attach(struct pp_verdicts *vs, const struct bpf_program *tmpl)
{
	for (size_t i = 0; i < vs->n; i++) {
		int err = attach_one(vs, tmpl, &vs->v[i], vs->first + (__u32)i);

		if (err)
			pp_debug("%s: fexit not attached: %s\n", vs->v[i].label, strerror(-err));
		else
			vs->attached++;
	}
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
