// SPDX-License-Identifier: GPL-2.0
/*
 * The three rewrites of splice.h on hand-made programs with their BTF func
 * and line info, as libbpf hands them over (no kernel needed), and the
 * probe templates of the real probe object: each fentry and tp_btf
 * template holds the immediate that its copies get patched, exactly once.
 */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include "suites.h"
#include "pktpath.h"
#include "bpfobj/splice.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MOV(d, k)                                                                                  \
	((struct bpf_insn){.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = (d), .imm = (k)})
#define CALL(off)                                                                                  \
	((struct bpf_insn){.code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL, .imm = (off)})
#define EXIT() ((struct bpf_insn){.code = BPF_JMP | BPF_EXIT})
#define MAGIC  0x5eadf117

/* main: 0..3, calls sub: 4..6, which holds the magic move at 4. */
static const struct bpf_insn prog[] = {
	MOV(1, 1), CALL(2), MOV(0, 0), EXIT(), MOV(0, MAGIC), MOV(0, 0), EXIT(),
};
static const struct bpf_func_info funcs[] = {{0, 11}, {4, 12}};
static const struct bpf_line_info lines[] = {
	{0, 1, 100, 1}, {1, 1, 101, 2}, {4, 1, 200, 3}, {5, 1, 201, 4}, {6, 1, 202, 5},
};
static const struct bpf_insn filter[] = {MOV(2, 7), MOV(3, 8), MOV(0, 1)};

static void with_info(struct bpf_prog_load_opts *o, const struct bpf_func_info *f, __u32 nf,
		      const struct bpf_line_info *l, __u32 nl)
{
	o->func_info = f;
	o->func_info_cnt = nf;
	o->func_info_rec_size = sizeof(*f);
	o->line_info = l;
	o->line_info_cnt = nl;
	o->line_info_rec_size = sizeof(*l);
}

static bool same_insns(const struct bpf_insn *a, const struct bpf_insn *b, size_t n)
{
	return !memcmp(a, b, n * sizeof(*a));
}

START_TEST(test_prepend)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o);
	const struct bpf_func_info *f;
	const struct bpf_line_info *l;
	struct pp_spliced out;

	with_info(&o, funcs, LEN(funcs), lines, LEN(lines));
	ck_assert_int_eq(pp_splice_prepend(prog, LEN(prog), &o, filter, LEN(filter), &out), 0);
	ck_assert_uint_eq(out.cnt, LEN(filter) + LEN(prog));
	ck_assert(same_insns(out.insns, filter, LEN(filter)));
	ck_assert(same_insns(out.insns + LEN(filter), prog, LEN(prog)));
	/* The main function and its first line begin with the filter; the rest move by 3. */
	f = out.func_info;
	ck_assert_uint_eq(f[0].insn_off, 0);
	ck_assert_uint_eq(f[1].insn_off, 7);
	ck_assert_uint_eq(f[1].type_id, 12);
	l = out.line_info;
	ck_assert_uint_eq(out.line_info_cnt, LEN(lines));
	for (size_t i = 0; i < LEN(lines); i++) {
		ck_assert_uint_eq(l[i].insn_off, i ? lines[i].insn_off + 3 : 0);
		ck_assert_uint_eq(l[i].line_col, lines[i].line_col);
	}
	/* libbpf's own arrays are left as they were. */
	ck_assert_uint_eq(funcs[1].insn_off, 4);
	ck_assert_uint_eq(lines[4].insn_off, 6);
	pp_spliced_free(&out);
	ck_assert_ptr_null(out.insns);
}
END_TEST

/* A program without BTF info gets none. */
START_TEST(test_prepend_no_info)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o);
	struct pp_spliced out;

	ck_assert_int_eq(pp_splice_prepend(prog, 4, &o, filter, LEN(filter), &out), 0);
	ck_assert_uint_eq(out.cnt, 7);
	ck_assert_ptr_null(out.func_info);
	ck_assert_ptr_null(out.line_info);
	ck_assert_uint_eq(out.line_info_cnt, 0);
	pp_spliced_free(&out);
}
END_TEST

START_TEST(test_subprog)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o);
	const struct bpf_line_info *l;
	struct pp_spliced out;

	with_info(&o, funcs, LEN(funcs), lines, LEN(lines));
	ck_assert_int_eq(pp_splice_subprog(prog, LEN(prog), &o, MAGIC, filter, LEN(filter), &out),
			 0);
	ck_assert_uint_eq(out.cnt, 4 + LEN(filter));
	ck_assert(same_insns(out.insns, prog, 4));
	ck_assert(same_insns(out.insns + 4, filter, LEN(filter)));
	/* func info still fits: the new body starts where the old one did. */
	ck_assert_ptr_null(out.func_info);
	/* Lines of the old body after its first instruction are gone. */
	l = out.line_info;
	ck_assert_uint_eq(out.line_info_cnt, 3);
	ck_assert_uint_eq(l[0].insn_off, 0);
	ck_assert_uint_eq(l[1].insn_off, 1);
	ck_assert_uint_eq(l[2].insn_off, 4);
	ck_assert_uint_eq(l[2].line_off, 200);
	pp_spliced_free(&out);
}
END_TEST

/* Only a last subprogram that holds the magic is replaced. */
START_TEST(test_subprog_refused)
{
	static const struct bpf_func_info three[] = {{0, 11}, {4, 12}, {6, 13}};
	static const struct bpf_insn in_main[] = {MOV(0, MAGIC), EXIT(), MOV(0, 0), EXIT()};
	static const struct bpf_func_info two[] = {{0, 11}, {2, 12}};
	LIBBPF_OPTS(bpf_prog_load_opts, o);
	struct pp_spliced out;

	with_info(&o, funcs, LEN(funcs), lines, LEN(lines));
	ck_assert_int_eq(pp_splice_subprog(prog, 4, &o, MAGIC, filter, LEN(filter), &out), -EINVAL);
	ck_assert_ptr_null(out.insns);
	ck_assert_int_eq(
		pp_splice_subprog(prog, LEN(prog), &o, MAGIC + 1, filter, LEN(filter), &out),
		-EINVAL);
	with_info(&o, three, LEN(three), lines, LEN(lines));
	ck_assert_int_eq(pp_splice_subprog(prog, LEN(prog), &o, MAGIC, filter, LEN(filter), &out),
			 -EINVAL);
	with_info(&o, two, LEN(two), NULL, 0);
	ck_assert_int_eq(
		pp_splice_subprog(in_main, LEN(in_main), &o, MAGIC, filter, LEN(filter), &out),
		-EINVAL);
}
END_TEST

START_TEST(test_imm)
{
	struct bpf_insn v[] = {
		MOV(1, MAGIC),
		{.code = BPF_JMP | BPF_JEQ | BPF_K, .imm = MAGIC},		 /* not a move */
		{.code = BPF_ALU | BPF_MOV | BPF_K, .dst_reg = 2, .imm = MAGIC}, /* 32-bit */
		EXIT(),
	};
	struct bpf_insn twice[] = {MOV(1, MAGIC), MOV(2, MAGIC), EXIT()};

	ck_assert_int_eq(pp_splice_imm(v, LEN(v), MAGIC, 42), 0);
	ck_assert_int_eq(v[0].imm, 42);
	ck_assert_int_eq(v[0].dst_reg, 1);
	ck_assert_int_eq(v[1].imm, MAGIC);
	ck_assert_int_eq(v[2].imm, MAGIC);
	/* Now none is left, and two are one too many. */
	ck_assert_int_eq(pp_splice_imm(v, LEN(v), MAGIC, 43), -EINVAL);
	ck_assert_int_eq(pp_splice_imm(twice, LEN(twice), MAGIC, 44), -EINVAL);
}
END_TEST

/* Each template that attach.c copies per probe point can be patched. */
START_TEST(test_probe_templates)
{
	struct bpf_object *obj;
	char name[32];

	ck_assert_int_eq(pp_splice_register(), 0);
	obj = bpf_object__open_file(PP_GEN_DIR "/probes.bpf.o", NULL);
	ck_assert_ptr_nonnull(obj);
	for (int i = 0; i < 2 * PP_MAX_ARGPOS; i++) {
		struct bpf_program *p;
		struct bpf_insn copy[4096];
		size_t n;

		snprintf(name, sizeof(name), i % 2 ? "pp_tp%d" : "pp_fentry%d", i / 2 + 1);
		p = bpf_object__find_program_by_name(obj, name);
		ck_assert_msg(p != NULL, "%s", name);
		n = bpf_program__insn_cnt(p);
		ck_assert_uint_le(n, LEN(copy));
		memcpy(copy, bpf_program__insns(p), n * sizeof(copy[0]));
		ck_assert_msg(pp_splice_imm(copy, n, (__s32)PP_PROBE_MAGIC, 7) == 0,
			      "%s: not exactly one PP_PROBE_MAGIC", name);
	}
	bpf_object__close(obj);
}
END_TEST

Suite *splice_suite(void)
{
	Suite *s = suite_create("splice");
	TCase *tc = tcase_create("rewrites");

	tcase_add_test(tc, test_prepend);
	tcase_add_test(tc, test_prepend_no_info);
	tcase_add_test(tc, test_subprog);
	tcase_add_test(tc, test_subprog_refused);
	tcase_add_test(tc, test_imm);
	tcase_add_test(tc, test_probe_templates);
	suite_add_tcase(s, tc);
	return s;
}
