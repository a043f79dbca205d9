// SPDX-License-Identifier: GPL-2.0
/*
 * Splicing (splice.h). The rewrites are plain functions on instruction
 * arrays, so that a unit test checks them without a kernel; the load runs
 * them from libbpf's prog_prepare_load_fn callback, which comes after
 * libbpf has relocated the C code (map fds, CO-RE) and before the kernel
 * sees it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "pktpath.h"
#include "bpfobj/splice.h"

/* insn_off is the first field of bpf_func_info and bpf_line_info. */
static __u32 *info_off(const void *info, __u32 rec_size, __u32 i)
{
	return (__u32 *)((const char *)info + (size_t)i * rec_size);
}

static struct bpf_insn *join(const struct bpf_insn *a, size_t na, const struct bpf_insn *b,
			     size_t nb)
{
	struct bpf_insn *all = malloc((na + nb) * sizeof(*all));

	if (!all)
		return NULL;
	memcpy(all, a, na * sizeof(*all));
	memcpy(all + na, b, nb * sizeof(*all));
	return all;
}

/* A copy of CNT records with every insn_off but the first moved BY. */
static void *shift_info(const void *info, __u32 cnt, __u32 rec_size, __u32 by)
{
	char *copy = malloc((size_t)cnt * rec_size);

	if (!copy)
		return NULL;
	memcpy(copy, info, (size_t)cnt * rec_size);
	for (__u32 i = 1; i < cnt; i++)
		*info_off(copy, rec_size, i) += by;
	return copy;
}

void pp_spliced_free(struct pp_spliced *s)
{
	free(s->insns);
	free(s->func_info);
	free(s->line_info);
	memset(s, 0, sizeof(*s));
}

int pp_splice_prepend(const struct bpf_insn *prog, size_t n, const struct bpf_prog_load_opts *o,
		      const struct bpf_insn *add, size_t cnt, struct pp_spliced *out)
{
	bool fi = o->func_info && o->func_info_cnt, li = o->line_info && o->line_info_cnt;

	memset(out, 0, sizeof(*out));
	out->insns = join(add, cnt, prog, n);
	out->cnt = cnt + n;
	if (fi)
		out->func_info =
			shift_info(o->func_info, o->func_info_cnt, o->func_info_rec_size, cnt);
	if (li)
		out->line_info =
			shift_info(o->line_info, o->line_info_cnt, o->line_info_rec_size, cnt);
	out->line_info_cnt = li ? o->line_info_cnt : 0;
	if (!out->insns || (fi && !out->func_info) || (li && !out->line_info)) {
		pp_spliced_free(out);
		return -ENOMEM;
	}
	return 0;
}

static bool is_mov_imm(const struct bpf_insn *insn, __s32 magic)
{
	return insn->code == (BPF_ALU64 | BPF_MOV | BPF_K) && insn->imm == magic;
}

static long find_imm(const struct bpf_insn *v, size_t n, __s32 magic)
{
	for (size_t i = 0; i < n; i++)
		if (is_mov_imm(&v[i], magic))
			return (long)i;
	return -1;
}

/* The start of the function holding instruction AT: the last func_info at or before it. */
static long func_start(const struct bpf_prog_load_opts *o, long at, bool *last)
{
	long start = -1;

	*last = true;
	for (__u32 i = 0; i < o->func_info_cnt; i++) {
		__u32 off = *info_off(o->func_info, o->func_info_rec_size, i);

		if ((long)off <= at)
			start = off;
		else
			*last = false;
	}
	return start;
}

/* The line info records up to CUT, the subprogram's first instruction. */
static int keep_line_info(const struct bpf_prog_load_opts *o, long cut, struct pp_spliced *out)
{
	__u32 size = o->line_info_rec_size;
	char *copy;

	if (!o->line_info || !o->line_info_cnt)
		return 0;
	copy = malloc((size_t)o->line_info_cnt * size);
	if (!copy)
		return -ENOMEM;
	for (__u32 i = 0; i < o->line_info_cnt; i++) {
		const __u32 *rec = info_off(o->line_info, size, i);

		if (*rec <= (__u32)cut)
			memcpy(copy + (size_t)out->line_info_cnt++ * size, rec, size);
	}
	out->line_info = copy;
	return 0;
}

int pp_splice_subprog(const struct bpf_insn *prog, size_t n, const struct bpf_prog_load_opts *o,
		      __s32 magic, const struct bpf_insn *add, size_t cnt, struct pp_spliced *out)
{
	long at = find_imm(prog, n, magic), cut;
	bool last;

	memset(out, 0, sizeof(*out));
	cut = at < 0 ? -1 : func_start(o, at, &last);
	/* Not the main function (0), and nothing after it to keep. */
	if (cut <= 0 || !last)
		return -EINVAL;
	out->insns = join(prog, (size_t)cut, add, cnt);
	out->cnt = (size_t)cut + cnt;
	if (!out->insns || keep_line_info(o, cut, out)) {
		pp_spliced_free(out);
		return -ENOMEM;
	}
	return 0;
}

int pp_splice_imm(struct bpf_insn *insns, size_t n, __s32 magic, __s32 value)
{
	int found = 0;

	for (size_t i = 0; i < n; i++) {
		if (is_mov_imm(&insns[i], magic)) {
			insns[i].imm = value;
			found++;
		}
	}
	return found == 1 ? 0 : -EINVAL;
}

int pp_splice_load_copy(const struct bpf_program *tmpl, __s32 value, enum bpf_prog_type type,
			const char *name, const struct bpf_prog_load_opts *o)
{
	size_t n = bpf_program__insn_cnt(tmpl);
	struct bpf_insn *insns = malloc(n * sizeof(*insns));
	int fd, err;

	if (!insns)
		return -ENOMEM;
	memcpy(insns, bpf_program__insns(tmpl), n * sizeof(*insns));
	err = pp_splice_imm(insns, n, (__s32)PP_PROBE_MAGIC, value);
	fd = err ? -1 : bpf_prog_load(type, name, "GPL", insns, n, o);
	if (fd < 0 && !err)
		err = -errno;
	free(insns);
	return fd < 0 ? err : fd;
}

/* One pp_splice_load(): its edits, and the BTF info libbpf uses until it returns. */
struct splice_run {
	const struct pp_splice *edits;
	size_t n;
	void **keep;
	size_t nkeep, cap;
};

/*
 * libbpf 1.1 corrupts its handler table when a handler is unregistered and
 * another registered, so each section's handler is registered once per
 * process, and its cookie, which cannot change after that, points here: at
 * the load in progress. The only state of this file; set by
 * pp_splice_load() alone, for the length of one load.
 */
static struct splice_run *loading;

static const struct pp_splice *find_edit(const struct splice_run *run, const char *prog)
{
	for (size_t i = 0; run && i < run->n; i++)
		if (!strcmp(run->edits[i].prog, prog))
			return &run->edits[i];
	return NULL;
}

static int splice_one(struct bpf_program *prog, const struct pp_splice *e,
		      struct bpf_prog_load_opts *o, struct pp_spliced *out)
{
	const struct bpf_insn *insns = bpf_program__insns(prog);
	size_t n = bpf_program__insn_cnt(prog);

	if (e->kind == PP_SPLICE_PREPEND)
		return pp_splice_prepend(insns, n, o, e->insns, e->cnt, out);
	return pp_splice_subprog(insns, n, o, PP_FILTER_MAGIC, e->insns, e->cnt, out);
}

static int prepare_load(struct bpf_program *prog, struct bpf_prog_load_opts *o, long cookie)
{
	struct splice_run *run = *(struct splice_run **)cookie;
	const struct pp_splice *e = find_edit(run, bpf_program__name(prog));
	struct pp_spliced out;
	int err;

	if (!e)
		return -ENOENT;
	if (run->nkeep + 2 > run->cap)
		return -E2BIG;
	err = splice_one(prog, e, o, &out);
	if (err)
		return err;
	err = bpf_program__set_insns(prog, out.insns, out.cnt);
	run->keep[run->nkeep++] = out.func_info;
	run->keep[run->nkeep++] = out.line_info;
	free(out.insns);
	if (err)
		return err;
	if (out.func_info)
		o->func_info = out.func_info;
	if (out.line_info) {
		o->line_info = out.line_info;
		o->line_info_cnt = out.line_info_cnt;
	}
	return 0;
}

static const struct {
	const char *name;
	enum bpf_prog_type type;
	enum bpf_attach_type attach;
} sections[] = {
	{"pktpath_cls", BPF_PROG_TYPE_SCHED_CLS, 0}, /* the classifier: PP_SPLICE_PREPEND */
	{"pktpath_kmark", BPF_PROG_TYPE_KPROBE, 0},  /* pp_kmark: PP_SPLICE_SUBPROG */
	/* pp_verdict_frame: PP_SPLICE_SUBPROG, its target set by the loader */
	{"pktpath_frame", BPF_PROG_TYPE_TRACING, BPF_TRACE_FEXIT},
};

int pp_splice_register(void)
{
	LIBBPF_OPTS(libbpf_prog_handler_opts, h, .cookie = (long)&loading,
		    .prog_prepare_load_fn = prepare_load);
	static size_t registered;

	for (; registered < sizeof(sections) / sizeof(sections[0]); registered++) {
		int id = libbpf_register_prog_handler(sections[registered].name,
						      sections[registered].type,
						      sections[registered].attach, &h);

		if (id < 0)
			return id;
	}
	return 0;
}

int pp_splice_load(struct bpf_object_skeleton *skel, const struct pp_splice *edits, size_t n)
{
	struct splice_run run = {.edits = edits, .n = n, .cap = 2 * n};
	int err;

	run.keep = calloc(run.cap + 1, sizeof(*run.keep));
	if (!run.keep)
		return -ENOMEM;
	loading = &run;
	err = bpf_object__load_skeleton(skel);
	loading = NULL;
	for (size_t i = 0; i < run.nkeep; i++)
		free(run.keep[i]);
	free(run.keep);
	return err;
}
