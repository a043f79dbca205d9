// SPDX-License-Identifier: GPL-2.0
/* plan: skip reasons, the backend policy, reach and backend skips. No root, no kernel. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "suites.h"
#include "base/compat.h"
#include "kernel/ftrace_funcs.h"
#include "kernel/ksyms.h"
#include "probes/end_points.h"
#include "probes/plan.h"
#include "probes/probe_list.h"
#include "bpf_settings.h" /* the skeleton's rodata */
#include "probes.skel.h"

/* A list of LINES, each resolved by hand: functions at argpos 1, tracepoints at 0. */
static void make_list(struct pp_probe_list *l, const char *const *lines, size_t n)
{
	char err[256];

	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(pp_probe_list_add(l, lines[i], "test", err, sizeof(err)), 0);
		l->v[i].argpos = l->v[i].kind == PP_PROBE_FUNC ? 1 : 0;
	}
}

START_TEST(test_skip_names)
{
	ck_assert_ptr_null(pp_skip_name(PP_SKIP_NONE));
	ck_assert_ptr_null(pp_skip_name(PP_SKIP_COUNT));
	ck_assert_ptr_null(pp_skip_name((enum pp_skip) - 1));
	for (int i = 1; i < PP_SKIP_COUNT; i++) {
		const char *name = pp_skip_name((enum pp_skip)i);

		ck_assert_msg(name && *name, "reason %d has no name", i);
		for (int j = 1; j < i; j++)
			ck_assert_str_ne(name, pp_skip_name((enum pp_skip)j));
	}
	/* The text --list-probes has always printed: scripts may match it. */
	ck_assert_str_eq(pp_skip_name(PP_SKIP_BACKEND),
			 "a function, and the backend is tracepoint");
	ck_assert_str_eq(pp_skip_name(PP_SKIP_FUNC_NO_BTF),
			 "not in BTF: unknown, inlined or notrace");
}
END_TEST

static const struct {
	enum pp_backend want;
	bool funcs, kmulti, kprobe, fentry;
	int ret;
	enum pp_backend got;
	const char *why; /* a part of it; NULL: none */
} backend_cases[] = {
	{PP_BACKEND_AUTO, true, true, true, true, 0, PP_BACKEND_KPROBE_MULTI, NULL},
	{PP_BACKEND_AUTO, true, false, true, true, 0, PP_BACKEND_KPROBE, NULL},
	/* fentry is never auto's choice */
	{PP_BACKEND_AUTO, true, false, false, true, 0, PP_BACKEND_TRACEPOINT, "no kprobes"},
	{PP_BACKEND_AUTO, false, false, false, false, 0, PP_BACKEND_AUTO, NULL},
	{PP_BACKEND_KPROBE_MULTI, true, true, false, false, 0, PP_BACKEND_KPROBE_MULTI, NULL},
	{PP_BACKEND_KPROBE_MULTI, true, false, true, true, -EOPNOTSUPP, PP_BACKEND_KPROBE_MULTI,
	 "CONFIG_FPROBE"},
	{PP_BACKEND_KPROBE, true, true, false, true, -EOPNOTSUPP, PP_BACKEND_KPROBE,
	 "CONFIG_KPROBES"},
	{PP_BACKEND_KPROBE, true, false, true, false, 0, PP_BACKEND_KPROBE, NULL},
	{PP_BACKEND_FENTRY, true, true, true, false, -EOPNOTSUPP, PP_BACKEND_FENTRY, "fentry"},
	{PP_BACKEND_FENTRY, true, false, false, true, 0, PP_BACKEND_FENTRY, NULL},
	/* no function to attach: whatever was asked for will do */
	{PP_BACKEND_FENTRY, false, false, false, false, 0, PP_BACKEND_FENTRY, NULL},
	{PP_BACKEND_TRACEPOINT, true, false, false, false, 0, PP_BACKEND_TRACEPOINT, NULL},
};

START_TEST(test_backend)
{
	struct pp_kfacts k = {.kmulti = backend_cases[_i].kmulti,
			      .kprobe = backend_cases[_i].kprobe,
			      .fentry = backend_cases[_i].fentry};
	enum pp_backend got;
	const char *why = "unset";

	ck_assert_int_eq(
		pp_plan_backend(backend_cases[_i].want, backend_cases[_i].funcs, &k, &got, &why),
		backend_cases[_i].ret);
	ck_assert_int_eq(got, backend_cases[_i].got);
	if (backend_cases[_i].why)
		ck_assert_ptr_nonnull(strstr(why, backend_cases[_i].why));
	else
		ck_assert_ptr_null(why);
}
END_TEST

/*
 * The backend rows: every name distinct; a row that --check shows has the
 * fact it shows and a place of its own among those rows; the ranks run
 * 1..n without a gap (check_kernel.c prints them in that order).
 */
START_TEST(test_backend_rows)
{
	int ranks = 0;

	for (size_t i = 0; i < PP_BACKEND_COUNT; i++) {
		const struct pp_backend_row *b = &pp_backends[i];

		ck_assert_ptr_nonnull(b->name);
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(b->name, pp_backends[j].name);
		ck_assert(!b->check == !b->has);
		ck_assert(!b->has == !b->lacks);
		ck_assert(!b->check == !b->gives);
		ck_assert(!b->check == !b->check_rank);
		ranks += b->check != NULL;
		for (size_t j = 0; b->check && j < i; j++)
			ck_assert_int_ne(b->check_rank, pp_backends[j].check_rank);
	}
	for (size_t i = 0; i < PP_BACKEND_COUNT; i++)
		ck_assert_int_le(pp_backends[i].check_rank, ranks);
}
END_TEST

/*
 * Auto's order: ranks 1..n without a gap; only the last row may need no
 * fact, and it says why auto fell back to it. A backend that reaches
 * functions names its entry program; one that does not has none.
 */
START_TEST(test_backend_auto_rows)
{
	int ranks = 0, last = 0;

	for (size_t i = 0; i < PP_BACKEND_COUNT; i++)
		ranks += pp_backends[i].auto_rank != 0;
	for (size_t i = 0; i < PP_BACKEND_COUNT; i++) {
		const struct pp_backend_row *b = &pp_backends[i];

		ck_assert_int_le(b->auto_rank, ranks);
		for (size_t j = 0; b->auto_rank && j < i; j++)
			ck_assert_int_ne(b->auto_rank, pp_backends[j].auto_rank);
		if (b->auto_rank && !b->has)
			last = b->auto_rank;
		ck_assert(!b->fallback == (b->has || !b->auto_rank));
		ck_assert(!b->entry == (b->attach == PP_ATTACH_NONE));
		ck_assert(!b->ret == (b->attach == PP_ATTACH_NONE));
		ck_assert(!b->entry_nocookie || b->attach == PP_ATTACH_KPROBE);
	}
	ck_assert_int_eq(last, ranks);
}
END_TEST

/* PROG is named NAME (a printf format of N) in S, of KIND; under a trampoline, EXIT or entry. */
static void assert_prog(struct probes *s, const char *fmt, int n, enum pp_attach_kind kind,
			bool ret)
{
	char name[32];
	struct bpf_program *prog;
	enum bpf_attach_type at;

	snprintf(name, sizeof(name), fmt, n);
	prog = bpf_object__find_program_by_name(s->obj, name);
	ck_assert_msg(prog, "no program %s in bpf/probes.bpf.c", name);
	at = bpf_program__expected_attach_type(prog);
	switch (kind) {
	case PP_ATTACH_MULTI:
		ck_assert_int_eq(bpf_program__type(prog), BPF_PROG_TYPE_KPROBE);
		ck_assert_int_eq(at, BPF_TRACE_KPROBE_MULTI);
		break;
	case PP_ATTACH_KPROBE:
		ck_assert_int_eq(bpf_program__type(prog), BPF_PROG_TYPE_KPROBE);
		ck_assert_int_ne(at, BPF_TRACE_KPROBE_MULTI);
		break;
	default:
		ck_assert_int_eq(bpf_program__type(prog), BPF_PROG_TYPE_TRACING);
		ck_assert_int_eq(at, ret ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY);
	}
}

/*
 * Every program a row names is in the probe object, of the row's attach
 * kind: an entry per skb position, a return (under a trampoline, one per
 * copy point). attach.c finds them by these names only.
 */
START_TEST(test_backend_programs)
{
	struct probes *s = probes__open();

	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < PP_BACKEND_COUNT; i++) {
		const struct pp_backend_row *b = &pp_backends[i];
		int rets = b->attach == PP_ATTACH_TRAMPOLINE ? PP_COPY_POINTS : 1;

		for (int pos = 1; b->entry && pos <= PP_MAX_ARGPOS; pos++) {
			assert_prog(s, b->entry, pos, b->attach, false);
			if (b->entry_nocookie)
				assert_prog(s, b->entry_nocookie, pos, b->attach, false);
		}
		for (int k = 0; b->ret && k < rets; k++)
			assert_prog(s, b->ret, k, b->attach, true);
	}
	probes__destroy(s);
}
END_TEST

static const char *const reach_lines[] = {
	"traced_once", "notrace_fn", "not_in_kallsyms", "static_twice", "tp:net:net_dev_queue",
};

/* ftrace lists every function but notrace_fn; kallsyms lacks not_in_kallsyms. */
static char *ftrace_v[] = {"not_in_kallsyms", "static_twice", "traced_once"}; /* sorted */
static const char kallsyms[] = "ffffffff81000100 T traced_once\n"
			       "ffffffff81000200 t notrace_fn\n"
			       "ffffffff81000300 t static_twice\n"
			       "ffffffff81000400 t static_twice\n";

static struct pp_ksyms *load_kallsyms(void)
{
	char path[] = "/tmp/pp_plan_kallsyms.XXXXXX";
	struct pp_ksyms *k;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, kallsyms, strlen(kallsyms)), (ssize_t)strlen(kallsyms));
	close(fd);
	ck_assert_int_eq(pp_ksyms_load(&k, path), 0);
	unlink(path);
	return k;
}

START_TEST(test_reach)
{
	struct pp_names ftrace = {.v = ftrace_v, .n = ARRAY_SIZE(ftrace_v)};
	struct pp_kfacts k = {.ftrace = &ftrace, .ksyms = load_kallsyms()};
	static const enum pp_skip want[] = {PP_SKIP_NONE, PP_SKIP_NOTRACE, PP_SKIP_NO_KSYM,
					    PP_SKIP_KSYM_DUP, PP_SKIP_NONE};
	struct pp_probe_list l;

	make_list(&l, reach_lines, ARRAY_SIZE(reach_lines));
	pp_plan_reach_all(&l, &k);
	for (size_t i = 0; i < l.n; i++)
		ck_assert_msg(l.v[i].skip == want[i], "%s: %s", l.v[i].name,
			      pp_skip_name(l.v[i].skip));
	ck_assert_ptr_eq(pp_plan_first_func(&l), &l.v[0]);
	pp_ksyms_free(k.ksyms);
	pp_probe_list_free(&l);
}
END_TEST

/* Lists that cannot be read tell nothing; a reason already given stays. */
START_TEST(test_reach_unknown)
{
	struct pp_kfacts k = {0};
	struct pp_probe_list l;

	make_list(&l, reach_lines, ARRAY_SIZE(reach_lines));
	l.v[0].skip = PP_SKIP_FUNC_NO_SKB;
	pp_plan_reach_all(&l, &k);
	ck_assert_int_eq(l.v[0].skip, PP_SKIP_FUNC_NO_SKB);
	for (size_t i = 1; i < l.n; i++)
		ck_assert_int_eq(l.v[i].skip, PP_SKIP_NONE);
	ck_assert_ptr_eq(pp_plan_first_func(&l), &l.v[1]);
	pp_probe_list_free(&l);
}
END_TEST

/* vmlinux-like BTF: "few" takes one argument, "many" seven. */
static struct btf *args_btf(__u32 *few, __u32 *many)
{
	struct btf *btf = btf__new_empty();
	int i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	int proto;

	ck_assert_int_gt(i32, 0);
	proto = btf__add_func_proto(btf, i32);
	ck_assert_int_eq(btf__add_func_param(btf, "a", i32), 0);
	*few = (__u32)btf__add_func(btf, "few", BTF_FUNC_GLOBAL, proto);
	proto = btf__add_func_proto(btf, i32);
	for (int i = 0; i < 7; i++)
		ck_assert_int_eq(btf__add_func_param(btf, "a", i32), 0);
	*many = (__u32)btf__add_func(btf, "many", BTF_FUNC_GLOBAL, proto);
	return btf;
}

START_TEST(test_backend_skips)
{
	static const char *const lines[] = {"few", "many", "many_in_module", "gone",
					    "tp:net:net_dev_queue"};
	struct pp_probe_list l;
	__u32 few, many;
	struct btf *btf = args_btf(&few, &many);

	make_list(&l, lines, ARRAY_SIZE(lines));
	l.v[0].btf_id = few;
	l.v[1].btf_id = many;
	l.v[2].btf_id = few; /* an id of the module's BTF: not vmlinux's to look up */
	l.v[2].btf_obj_fd = 3;
	l.v[3].skip = PP_SKIP_FUNC_NO_BTF;

	pp_plan_backend_skips(&l, PP_BACKEND_FENTRY, btf);
	ck_assert_int_eq(l.v[0].skip, PP_SKIP_NONE);
	ck_assert_int_eq(l.v[1].skip, PP_SKIP_FENTRY_ARGS);
	ck_assert_int_eq(l.v[2].skip, PP_SKIP_NONE);
	ck_assert_int_eq(l.v[3].skip, PP_SKIP_FUNC_NO_BTF);
	ck_assert_int_eq(l.v[4].skip, PP_SKIP_NONE);

	/* kprobes take any number of arguments; a reason already given stays */
	l.v[1].skip = PP_SKIP_NONE;
	pp_plan_backend_skips(&l, PP_BACKEND_KPROBE, btf);
	ck_assert_int_eq(l.v[1].skip, PP_SKIP_NONE);
	ck_assert_int_eq(l.v[3].skip, PP_SKIP_FUNC_NO_BTF);

	pp_plan_backend_skips(&l, PP_BACKEND_TRACEPOINT, btf);
	for (size_t i = 0; i < 3; i++)
		ck_assert_int_eq(l.v[i].skip, PP_SKIP_BACKEND);
	ck_assert_int_eq(l.v[3].skip, PP_SKIP_FUNC_NO_BTF);
	ck_assert_int_eq(l.v[4].skip, PP_SKIP_NONE);
	ck_assert_ptr_null(pp_plan_first_func(&l));
	btf__free(btf);
	pp_probe_list_free(&l);
}
END_TEST

/* tracepoint-only: the tracepoint backend (or auto, no function) attaches it, no other. */
START_TEST(test_tp_backend_only)
{
	static const char *const lines[] = {"few", "tp:net:netif_rx tracepoint-only",
					    "tp:net:netif_receive_skb"};
	static const enum pp_backend funcs[] = {PP_BACKEND_KPROBE_MULTI, PP_BACKEND_KPROBE,
						PP_BACKEND_FENTRY};
	struct pp_probe_list l;
	__u32 few, many;
	struct btf *btf = args_btf(&few, &many);

	make_list(&l, lines, ARRAY_SIZE(lines));
	l.v[0].btf_id = few;
	for (size_t i = 0; i < ARRAY_SIZE(funcs); i++) {
		pp_plan_backend_skips(&l, funcs[i], btf);
		ck_assert_int_eq(l.v[0].skip, PP_SKIP_NONE);
		ck_assert_int_eq(l.v[1].skip, PP_SKIP_TP_BACKEND_ONLY);
		ck_assert_int_eq(l.v[2].skip, PP_SKIP_NONE);
		/* the list's choice, not this kernel's lack: no warning */
		ck_assert(!pp_skip_is_news(&l.v[1]));
		l.v[1].skip = PP_SKIP_NONE;
	}
	pp_plan_backend_skips(&l, PP_BACKEND_TRACEPOINT, btf);
	ck_assert_int_eq(l.v[0].skip, PP_SKIP_BACKEND);
	ck_assert_int_eq(l.v[1].skip, PP_SKIP_NONE);
	ck_assert_int_eq(l.v[2].skip, PP_SKIP_NONE);
	l.v[0].skip = PP_SKIP_NONE;
	pp_plan_backend_skips(&l, PP_BACKEND_AUTO, btf);
	ck_assert_int_eq(l.v[1].skip, PP_SKIP_NONE);
	/* a reason given before (this kernel lacks it) stays */
	l.v[1].skip = PP_SKIP_TP_NO_BTF;
	pp_plan_backend_skips(&l, PP_BACKEND_KPROBE, btf);
	ck_assert_int_eq(l.v[1].skip, PP_SKIP_TP_NO_BTF);
	ck_assert_str_eq(pp_skip_name(PP_SKIP_TP_BACKEND_ONLY),
			 "tracepoint backend only: another probe of the list shows this step");
	btf__free(btf);
	pp_probe_list_free(&l);
}
END_TEST

/* The warning names what this kernel cannot probe, not the plan's choices nor end points. */
START_TEST(test_news)
{
	static const char *const lines[] = {"ip_rcv", "kfree_skbmem", "tp:net:net_dev_queue"};
	struct pp_probe_list l;

	make_list(&l, lines, ARRAY_SIZE(lines));
	ck_assert(!pp_skip_is_news(&l.v[0]));
	l.v[0].skip = PP_SKIP_NOTRACE;
	ck_assert(pp_skip_is_news(&l.v[0]));
	l.v[0].skip = PP_SKIP_BACKEND;
	ck_assert(!pp_skip_is_news(&l.v[0]));
	l.v[0].skip = PP_SKIP_ATTACH_FAILED;
	ck_assert(pp_skip_is_news(&l.v[0]));
	l.v[1].skip = PP_SKIP_FUNC_NO_BTF; /* an end point: differs by version */
	ck_assert(!pp_skip_is_news(&l.v[1]));
	l.v[2].skip = PP_SKIP_TP_NO_BTF;
	ck_assert(pp_skip_is_news(&l.v[2]));
	pp_probe_list_free(&l);
}
END_TEST

START_TEST(test_marks_in_probes)
{
	struct pp_kfacts k = {0};

	ck_assert(pp_plan_marks_in_probes(PP_BACKEND_KPROBE, &k));
	ck_assert(pp_plan_marks_in_probes(PP_BACKEND_KPROBE_MULTI, &k));
	ck_assert(!pp_plan_marks_in_probes(PP_BACKEND_FENTRY, &k));
	ck_assert(!pp_plan_marks_in_probes(PP_BACKEND_TRACEPOINT, &k));
	k.mark_kprobe = true;
	ck_assert(pp_plan_marks_in_probes(PP_BACKEND_FENTRY, &k));
	ck_assert(!pp_plan_marks_in_probes(PP_BACKEND_TRACEPOINT, &k));
}
END_TEST

/* 5.10 has no bpf_loop(): the reads' two programs stay out, whatever BTF says. */
START_TEST(test_reads)
{
	const enum pp_backend tp = PP_BACKEND_TRACEPOINT;
	struct pp_kfacts k = {.loop = true};
	struct pp_reads_plan r = pp_plan_reads(tp, true, true, &k);

	ck_assert(pp_reads_recv_done(&r) && pp_reads_cg_ingress(&r) && !r.skip);
	r = pp_plan_reads(tp, true, false, &k); /* 6.2's kfunc missing: the tracepoint alone */
	ck_assert(pp_reads_recv_done(&r) && !pp_reads_cg_ingress(&r));
	r = pp_plan_reads(tp, false, true, &k); /* no sock_recv_length (before 6.3) */
	ck_assert(!pp_reads_recv_done(&r) && !pp_reads_cg_ingress(&r) && !r.skip);
	/* Auto with no function to attach: as the tracepoint backend. */
	r = pp_plan_reads(PP_BACKEND_AUTO, true, true, &k);
	ck_assert(pp_reads_recv_done(&r) && pp_reads_cg_ingress(&r));
	k.loop = false;
	r = pp_plan_reads(tp, true, true, &k);
	ck_assert(!pp_reads_recv_done(&r) && !pp_reads_cg_ingress(&r));
	r = pp_plan_reads(tp, false, false, &k);
	ck_assert(!pp_reads_recv_done(&r) && !pp_reads_cg_ingress(&r));
}
END_TEST

/*
 * The function backends see the reader's copy and the socket's free of a
 * read skb: the reads' hooks are the tracepoint backend's only, and
 * --list-probes says why they are absent: each would cost every datagram a
 * socket takes and every receive call a program (docs/PERFORMANCE.md).
 */
START_TEST(test_reads_function_backends)
{
	static const enum pp_backend fb[] = {PP_BACKEND_KPROBE_MULTI, PP_BACKEND_KPROBE,
					     PP_BACKEND_FENTRY};
	struct pp_kfacts k = {.loop = true};

	for (size_t i = 0; i < ARRAY_SIZE(fb); i++) {
		struct pp_reads_plan r = pp_plan_reads(fb[i], true, true, &k);

		ck_assert(!pp_reads_recv_done(&r) && !pp_reads_cg_ingress(&r));
		/* What the kernel has, for --list-probes' two lines. */
		ck_assert(r.recv_done && r.cg_ingress);
		ck_assert_int_eq(r.skip, PP_SKIP_READS_FREE_SEEN);
		/* A kernel without the tracepoint has nothing to explain. */
		r = pp_plan_reads(fb[i], false, true, &k);
		ck_assert(!r.recv_done && !r.skip);
	}
	ck_assert_str_eq(pp_skip_name(PP_SKIP_READS_FREE_SEEN),
			 "tracepoint backend only: the function probes see the reader's copy and "
			 "the socket's free");
}
END_TEST

/*
 * The reassembly hook (end_points.h): on every function backend where
 * consume_skb's tracepoint has no location and the kernel has the
 * function, with a program of the backend's kind; never on the
 * tracepoint backend, nor from Linux 6.3 on.
 */
START_TEST(test_reasm_point)
{
	static const char *const progs[] = {
		[PP_ATTACH_MULTI] = "pp_reasm_kmulti",
		[PP_ATTACH_KPROBE] = "pp_reasm_kprobe",
		[PP_ATTACH_TRAMPOLINE] = "pp_reasm_fentry",
	};
	struct probes *s = probes__open();

	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < PP_BACKEND_COUNT; i++) {
		enum pp_attach_kind kind = pp_backends[i].attach;

		ck_assert(pp_reasm_point_wanted(kind, false, true) == (kind != PP_ATTACH_NONE));
		ck_assert(!pp_reasm_point_wanted(kind, true, true));
		ck_assert(!pp_reasm_point_wanted(kind, false, false));
		if (kind != PP_ATTACH_NONE)
			assert_prog(s, progs[kind], 0, kind, false);
	}
	probes__destroy(s);
}
END_TEST

START_TEST(test_can_trace)
{
	const struct pp_kfacts all = {
		.caps = true, .btf = true, .ringbuf = true, .tp_btf = true, .tcx = true};
	struct pp_kfacts k = all;
	bool *need[] = {&k.caps, &k.btf, &k.ringbuf, &k.tp_btf};

	ck_assert(pp_plan_can_trace(&k));
	k.tcx = false;
	ck_assert(!pp_plan_can_trace(&k));
	k.clsact = true; /* either will do */
	ck_assert(pp_plan_can_trace(&k));
	for (size_t i = 0; i < ARRAY_SIZE(need); i++) {
		k = all;
		*need[i] = false;
		ck_assert_msg(!pp_plan_can_trace(&k), "fact %zu is needed", i);
	}
}
END_TEST

Suite *plan_suite(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("plan");

	tcase_add_test(tc, test_skip_names);
	tcase_add_loop_test(tc, test_backend, 0, ARRAY_SIZE(backend_cases));
	tcase_add_test(tc, test_backend_rows);
	tcase_add_test(tc, test_backend_auto_rows);
	tcase_add_test(tc, test_backend_programs);
	tcase_add_test(tc, test_reach);
	tcase_add_test(tc, test_reach_unknown);
	tcase_add_test(tc, test_backend_skips);
	tcase_add_test(tc, test_tp_backend_only);
	tcase_add_test(tc, test_news);
	tcase_add_test(tc, test_marks_in_probes);
	tcase_add_test(tc, test_reads);
	tcase_add_test(tc, test_reads_function_backends);
	tcase_add_test(tc, test_reasm_point);
	tcase_add_test(tc, test_can_trace);
	suite_add_tcase(s, tc);
	return s;
}
