/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Splicing: the ways pktpath rewrites a compiled program before the kernel
 * sees it. The classifier gets the filter put in front of it (prepend), the
 * probe that marks sent packets gets it in place of a placeholder
 * subprogram (subprog), and each fentry and tp_btf copy of a template gets
 * its probe index in place of a magic immediate (imm).
 */
#ifndef PP_SPLICE_H
#define PP_SPLICE_H

#include <stddef.h>
#include <linux/types.h>
#include <linux/bpf.h>

struct bpf_insn;
struct bpf_object_skeleton;
struct bpf_prog_load_opts;
struct bpf_program;

/* A program's instructions after a splice, and the BTF info that goes with them. */
struct pp_spliced {
	struct bpf_insn *insns;
	size_t cnt;
	void *func_info; /* NULL: the program's own is still right */
	void *line_info; /* NULL: the same */
	__u32 line_info_cnt;
};

/*
 * PROG (N instructions, its func and line info in O) with ADD put in front.
 * eBPF jumps and calls are relative, so the program keeps working when
 * shifted; its func and line info past the first record shift with it (the
 * first stays at 0: the main function and its first line now begin with
 * ADD). 0 or -ENOMEM.
 */
int pp_splice_prepend(const struct bpf_insn *prog, size_t n, const struct bpf_prog_load_opts *o,
		      const struct bpf_insn *add, size_t cnt, struct pp_spliced *out);

/*
 * PROG with its last subprogram, the one that holds the MAGIC immediate
 * (a "rX = MAGIC" move), replaced by ADD. libbpf appends subprograms after
 * the relocated body and func info says where each begins. Line info past
 * the subprogram's first instruction goes (the kernel wants line info where
 * every function starts). -EINVAL if MAGIC is not in a last subprogram.
 */
int pp_splice_subprog(const struct bpf_insn *prog, size_t n, const struct bpf_prog_load_opts *o,
		      __s32 magic, const struct bpf_insn *add, size_t cnt, struct pp_spliced *out);

/* The one "rX = MAGIC" of INSNS becomes "rX = VALUE"; -EINVAL unless exactly one. */
int pp_splice_imm(struct bpf_insn *insns, size_t n, __s32 magic, __s32 value);

/*
 * Load a copy of TMPL (loaded: its instructions relocated) as TYPE, named
 * NAME, with its PP_PROBE_MAGIC immediate set to VALUE: the copy's fd, or
 * -errno.
 */
int pp_splice_load_copy(const struct bpf_program *tmpl, __s32 value, enum bpf_prog_type type,
			const char *name, const struct bpf_prog_load_opts *o);

void pp_spliced_free(struct pp_spliced *s);

/* What to splice into one program of an object at its load. */
enum pp_splice_kind {
	PP_SPLICE_PREPEND,
	PP_SPLICE_SUBPROG, /* over the subprogram holding PP_FILTER_MAGIC */
};

struct pp_splice {
	const char *prog; /* the program's name */
	enum pp_splice_kind kind;
	const struct bpf_insn *insns;
	size_t cnt;
};

/*
 * The sections whose programs are spliced at load ("pktpath_cls",
 * "pktpath_kmark", "pktpath_frame"), made known to libbpf: before an object that has them
 * is opened. Once per process, later calls return at once.
 */
int pp_splice_register(void);

/*
 * Load the skeleton's object with EDITS (N of them) made, after libbpf has
 * relocated the code (map fds, CO-RE) and before the kernel sees it. A
 * program of the sections above without an edit fails the load (-ENOENT).
 * The skeleton's load result, or the first edit's -errno.
 */
int pp_splice_load(struct bpf_object_skeleton *skel, const struct pp_splice *edits, size_t n);

#endif
