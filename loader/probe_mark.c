// SPDX-License-Identifier: GPL-2.0
/*
 * libbpf appends a program's subprograms after its relocated body, and BTF
 * func_info says where each begins. pp_filter_l3() is the only subprogram
 * of pp_kmark, so it is the tail: cut it there and append the translation.
 * Its line info past its first instruction goes; the first must stay (the
 * kernel wants line info where every function starts).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "pktpath.h"
#include "probe_mark.h"

static struct {
	const struct bpf_insn *insns;
	size_t cnt;
	void *line_info;
	int handler_id;
} mark = {.handler_id = -1};

static long find_magic(const struct bpf_insn *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].code == (BPF_ALU64 | BPF_MOV | BPF_K) && v[i].imm == PP_FILTER_MAGIC)
			return (long)i;
	return -1;
}

/* The start of the function holding instruction AT: the last func_info at or before it. */
static long func_start(const struct bpf_prog_load_opts *o, long at, bool *last)
{
	long start = -1;

	*last = true;
	for (__u32 i = 0; i < o->func_info_cnt; i++) {
		__u32 off =
			*(const __u32 *)((const char *)o->func_info + i * o->func_info_rec_size);

		if ((long)off <= at)
			start = off;
		else
			*last = false;
	}
	return start;
}

static int keep_line_info(struct bpf_prog_load_opts *o, long cut)
{
	char *copy = malloc((size_t)o->line_info_cnt * o->line_info_rec_size);
	__u32 kept = 0;

	if (!copy)
		return -ENOMEM;
	for (__u32 i = 0; i < o->line_info_cnt; i++) {
		const char *rec = (const char *)o->line_info + i * o->line_info_rec_size;

		if (*(const __u32 *)rec <= (__u32)cut)
			memcpy(copy + kept++ * o->line_info_rec_size, rec, o->line_info_rec_size);
	}
	free(mark.line_info);
	mark.line_info = copy;
	o->line_info = copy;
	o->line_info_cnt = kept;
	return 0;
}

static int splice_subprog(struct bpf_program *prog, struct bpf_prog_load_opts *o, long cookie)
{
	const struct bpf_insn *old = bpf_program__insns(prog);
	long at = find_magic(old, bpf_program__insn_cnt(prog)), cut;
	struct bpf_insn *all;
	bool last;
	int err;

	(void)cookie;
	cut = at < 0 ? -1 : func_start(o, at, &last);
	if (cut <= 0 || !last || !mark.insns)
		return -EINVAL;
	all = malloc(((size_t)cut + mark.cnt) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	memcpy(all, old, (size_t)cut * sizeof(*all));
	memcpy(all + cut, mark.insns, mark.cnt * sizeof(*all));
	err = bpf_program__set_insns(prog, all, (size_t)cut + mark.cnt);
	free(all);
	return err ? err : keep_line_info(o, cut);
}

int pp_probe_mark_prepare(const struct bpf_insn *insns, size_t cnt)
{
	LIBBPF_OPTS(libbpf_prog_handler_opts, h, .prog_prepare_load_fn = splice_subprog);

	mark.insns = insns;
	mark.cnt = cnt;
	/* Once per process: see classifier.c on libbpf 1.1 and re-registration. */
	if (mark.handler_id < 0)
		mark.handler_id =
			libbpf_register_prog_handler("pktpath_kmark", BPF_PROG_TYPE_KPROBE, 0, &h);
	return mark.handler_id < 0 ? mark.handler_id : 0;
}

void pp_probe_mark_done(void)
{
	free(mark.line_info);
	mark.line_info = NULL;
	mark.insns = NULL;
}
