// SPDX-License-Identifier: GPL-2.0
/*
 * probe_btf, drop_reason, ksyms: what the kernel exposes about itself.
 * Synthetic BTF and kallsyms files run everywhere; the host tests read
 * /sys/kernel/btf/vmlinux (no root needed) and say SKIP without it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "suites.h"
#include "probes/probe_btf.h"
#include "paths/drop_reason.h"
#include "kernel/ksyms.h"
#include "kernel/btf_index.h"
#include "probes/module_btf.h"
#include "probes/probe_list.h"
#include "pktpath.h" /* after probe_btf.h, which brings __u32 */

/* ---- synthetic BTF ---------------------------------------------------- */

struct fake {
	struct btf *btf;
	int i, skb, skb_ptr, const_skb_ptr, typedef_skb_ptr, skb_pp, void_ptr;
};

/* A FUNC named @name whose parameters have the type ids in @params (0 ends). */
static int add_func(struct btf *btf, const char *name, const int *params)
{
	int proto = btf__add_func_proto(btf, 0);

	ck_assert_int_gt(proto, 0);
	for (; *params; params++)
		ck_assert_int_eq(btf__add_func_param(btf, "p", *params), 0);
	return btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto);
}

/* typedef void (*btf_trace_NAME)(void *__data, params...) */
static int add_tp(struct fake *f, const char *name, const int *params)
{
	char tname[128];
	int proto = btf__add_func_proto(f->btf, 0);

	ck_assert_int_gt(proto, 0);
	ck_assert_int_eq(btf__add_func_param(f->btf, "__data", f->void_ptr), 0);
	for (; *params; params++)
		ck_assert_int_eq(btf__add_func_param(f->btf, "p", *params), 0);
	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	return btf__add_typedef(f->btf, tname, btf__add_ptr(f->btf, proto));
}

static void fake_types(struct fake *f)
{
	f->btf = btf__new_empty();
	ck_assert_ptr_nonnull(f->btf);
	f->i = btf__add_int(f->btf, "int", 4, BTF_INT_SIGNED);
	f->skb = btf__add_struct(f->btf, "sk_buff", 8);
	f->skb_ptr = btf__add_ptr(f->btf, f->skb);
	f->const_skb_ptr = btf__add_ptr(f->btf, btf__add_const(f->btf, f->skb));
	f->typedef_skb_ptr = btf__add_typedef(f->btf, "skb_t", f->skb_ptr);
	f->skb_pp = btf__add_ptr(f->btf, f->skb_ptr);
	f->void_ptr = btf__add_ptr(f->btf, 0);
	ck_assert_int_gt(f->void_ptr, 0);
}

/* The fake kernel every synthetic test resolves against. */
static void fake_kernel(struct fake *f)
{
	fake_types(f);
	add_func(f->btf, "first", (int[]){f->skb_ptr, 0});
	add_func(f->btf, "third", (int[]){f->i, f->i, f->skb_ptr, f->skb_ptr, 0});
	add_func(f->btf, "fifth", (int[]){f->i, f->i, f->i, f->i, f->skb_ptr, 0});
	add_func(f->btf, "sixth", (int[]){f->i, f->i, f->i, f->i, f->i, f->skb_ptr, 0});
	add_func(f->btf, "const_skb", (int[]){f->i, f->const_skb_ptr, 0});
	add_func(f->btf, "typedef_skb", (int[]){f->typedef_skb_ptr, 0});
	add_func(f->btf, "skb_pp", (int[]){f->skb_pp, f->i, 0});
	add_func(f->btf, "no_args", (int[]){0});
	add_func(f->btf, "__bpf_trace_first", (int[]){f->void_ptr, f->skb_ptr, 0});
	add_tp(f, "tp_first", (int[]){f->skb_ptr, f->i, 0});
	add_tp(f, "tp_third", (int[]){f->i, f->i, f->skb_ptr, 0});
	add_tp(f, "tp_none", (int[]){f->i, 0});
	/* A typedef named like a tracepoint but not one: a plain int. */
	btf__add_typedef(f->btf, "btf_trace_tp_odd", f->i);
}

static struct pp_probe *resolve_one(struct pp_probe_list *l, const struct btf *btf,
				    const char *line)
{
	char err[256];

	pp_probe_list_free(l);
	ck_assert_int_eq(pp_probe_list_add(l, line, "test", err, sizeof(err)), 0);
	ck_assert_int_eq(pp_probe_list_resolve(l, btf), 0);
	return &l->v[0];
}

static const struct {
	const char *line;
	int argpos;
	enum pp_skip skip;
} fake_cases[] = {
	{"first", 1, PP_SKIP_NONE},
	{"third", 3, PP_SKIP_NONE},
	{"fifth", 5, PP_SKIP_NONE},
	{"sixth", -1, PP_SKIP_FUNC_ARGPOS},
	{"const_skb", 2, PP_SKIP_NONE},
	{"typedef_skb", 1, PP_SKIP_NONE},
	{"skb_pp", -1, PP_SKIP_FUNC_NO_SKB},
	{"no_args", -1, PP_SKIP_FUNC_NO_SKB},
	{"missing", -1, PP_SKIP_FUNC_NO_BTF},
	{"sk_buff", -1, PP_SKIP_FUNC_NO_BTF}, /* a struct, not a FUNC */
	{"tp:x:tp_first", 0, PP_SKIP_NONE},
	{"tp:x:tp_third", 2, PP_SKIP_NONE},
	{"tp:x:tp_none", -1, PP_SKIP_TP_NO_SKB},
	{"tp:x:tp_odd", -1, PP_SKIP_TP_NO_BTF},
	{"tp:x:first", -1, PP_SKIP_TP_NO_BTF}, /* a function is not a tracepoint */
};

START_TEST(test_fake_resolve)
{
	struct pp_probe_list l = {0};
	struct pp_probe *p;
	struct fake f;

	fake_kernel(&f);
	p = resolve_one(&l, f.btf, fake_cases[_i].line);
	ck_assert_int_eq(p->argpos, fake_cases[_i].argpos);
	ck_assert_int_eq(p->skip, fake_cases[_i].skip);
	/* Found in BTF: the id is kept, even when skipped for its arguments. */
	if (!fake_cases[_i].skip || strstr(pp_skip_name(fake_cases[_i].skip), "argument"))
		ck_assert_uint_gt(p->btf_id, 0);
	else
		ck_assert_uint_eq(p->btf_id, 0);
	pp_probe_list_free(&l);
	btf__free(f.btf);
}
END_TEST

/* Resolving again (e.g. against other BTF) starts each entry afresh. */
START_TEST(test_fake_reresolve)
{
	struct pp_probe_list l = {0};
	struct pp_probe *p;
	struct fake f, empty;

	fake_kernel(&f);
	fake_types(&empty);
	p = resolve_one(&l, f.btf, "third");
	ck_assert_int_eq(p->argpos, 3);
	ck_assert_int_eq(pp_probe_list_resolve(&l, empty.btf), 0);
	ck_assert_int_eq(p->argpos, -1);
	ck_assert_uint_eq(p->btf_id, 0);
	ck_assert_int_eq(p->skip, PP_SKIP_FUNC_NO_BTF);
	ck_assert_int_eq(pp_probe_list_resolve(&l, f.btf), 0);
	ck_assert_int_eq(p->argpos, 3);
	ck_assert_int_eq(p->skip, PP_SKIP_NONE);
	ck_assert_int_eq(pp_probe_list_resolve(&l, NULL), -EINVAL);
	pp_probe_list_free(&l);
	btf__free(f.btf);
	btf__free(empty.btf);
}
END_TEST

static int collect(const char *name, int argpos, void *ctx)
{
	char *out = ctx;

	sprintf(out + strlen(out), "%s:%d ", name, argpos);
	return 0;
}

START_TEST(test_fake_skb_funcs)
{
	char out[512] = "";
	struct fake f;

	fake_kernel(&f);
	/* In BTF order; sixth is past the fifth, tracing glue is left out. */
	ck_assert_int_eq(pp_btf_skb_funcs(f.btf, NULL, collect, out), 5);
	ck_assert_str_eq(out, "first:1 third:3 fifth:5 const_skb:2 typedef_skb:1 ");
	out[0] = '\0';
	ck_assert_int_eq(pp_btf_skb_funcs(f.btf, "^f", collect, out), 2);
	ck_assert_str_eq(out, "first:1 fifth:5 ");
	ck_assert_int_eq(pp_btf_skb_funcs(f.btf, "(", collect, out), -EINVAL);
	ck_assert_int_eq(pp_btf_skb_funcs(f.btf, "^nothing$", collect, out), 0);
	ck_assert_int_eq(pp_btf_func_skb_argpos(f.btf, f.skb), -EINVAL);
	btf__free(f.btf);
}
END_TEST

/* ---- synthetic drop reasons ------------------------------------------ */

START_TEST(test_fake_drop_reasons)
{
	struct pp_drop_reasons *r = NULL;
	struct fake f;
	int e;

	fake_types(&f);
	e = btf__add_enum(f.btf, "skb_drop_reason", 4);
	ck_assert_int_gt(e, 0);
	ck_assert_int_eq(btf__add_enum_value(f.btf, "SKB_NOT_DROPPED_YET", 0), 0);
	ck_assert_int_eq(btf__add_enum_value(f.btf, "SKB_CONSUMED", 1), 0);
	ck_assert_int_eq(btf__add_enum_value(f.btf, "SKB_DROP_REASON_NO_SOCKET", 3), 0);
	ck_assert_int_eq(btf__add_enum_value(f.btf, "SKB_DROP_REASON_ALIAS", 3), 0);
	ck_assert_int_eq(btf__add_enum_value(f.btf, "SKB_DROP_REASON_SUBSYS_MASK", 0xffff0000), 0);
	ck_assert_int_eq(pp_drop_reasons_load(&r, f.btf), 0);
	ck_assert_str_eq(pp_drop_reason_name(r, 0), "NOT_DROPPED_YET");
	ck_assert_str_eq(pp_drop_reason_name(r, 1), "CONSUMED");
	ck_assert_str_eq(pp_drop_reason_name(r, 3), "NO_SOCKET"); /* first name wins */
	ck_assert_str_eq(pp_drop_reason_name(r, 0xffff0000), "SUBSYS_MASK");
	ck_assert_str_eq(pp_drop_reason_name(r, 2), "2");
	ck_assert_int_eq(pp_drop_reason_value(r, "ALIAS"), 3);
	ck_assert_int_eq(pp_drop_reason_value(r, "NOPE"), -ENOENT);
	pp_drop_reasons_free(r);
	btf__free(f.btf);
}
END_TEST

/* Kernels before 5.17 have no enum: every reason is its number. */
START_TEST(test_no_drop_reason_enum)
{
	struct pp_drop_reasons *r = NULL;
	const char *a, *b, *c, *d;
	struct fake f;

	fake_types(&f);
	ck_assert_int_eq(pp_drop_reasons_load(&r, f.btf), 0);
	ck_assert_ptr_nonnull(r);
	a = pp_drop_reason_name(r, 3);
	b = pp_drop_reason_name(r, 77);
	c = pp_drop_reason_name(NULL, 4294967295u);
	d = pp_drop_reason_name(r, 0);
	/* Up to four fallback names are usable at once. */
	ck_assert_str_eq(a, "3");
	ck_assert_str_eq(b, "77");
	ck_assert_str_eq(c, "4294967295");
	ck_assert_str_eq(d, "0");
	pp_drop_reasons_free(r);
	ck_assert_int_eq(pp_drop_reasons_load(&r, NULL), -EINVAL);
	ck_assert_ptr_null(r);
	pp_drop_reasons_free(NULL);
	btf__free(f.btf);
}
END_TEST

/* ---- the host's BTF --------------------------------------------------- */

static struct btf *vmlinux;

/* Unchecked: loaded once in the runner, shared by the forked tests. */
static void vmlinux_setup(void)
{
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux)
		printf("SKIP: no vmlinux BTF (%s): host BTF tests pass without checking\n",
		       strerror(errno));
}

static void vmlinux_teardown(void)
{
	btf__free(vmlinux);
	vmlinux = NULL;
}

/* Checked against bpftool btf dump file /sys/kernel/btf/vmlinux on 6.18. */
static const struct {
	const char *line;
	int argpos;
} host_cases[] = {
	{"ip_rcv", 1},		       /* (skb, dev, pt, orig_dev) */
	{"__dev_queue_xmit", 1},       /* (skb, sb_dev) */
	{"ip_output", 3},	       /* (net, sk, skb) */
	{"ip_rcv_finish", 3},	       /* (net, sk, skb) */
	{"nf_hook_slow", 1},	       /* (skb, state, e, s) */
	{"dev_gro_receive", 2},	       /* (gro/napi, skb) */
	{"skb_copy_datagram_iter", 1}, /* (const struct sk_buff *skb, ...) */
	{"tp:net:netif_receive_skb", 0},
	{"tp:skb:kfree_skb", 0}, /* (skb, location, reason, rx_sk) */
	{"tp:net:net_dev_xmit", 0},
	{"tp:tcp:tcp_retransmit_skb", 1}, /* (sk, skb) */
	{"tp:qdisc:qdisc_dequeue", 3},	  /* (qdisc, txq, packets, skb) */
};

START_TEST(test_host_resolve)
{
	struct pp_probe_list l = {0};
	struct pp_probe *p;

	if (!vmlinux)
		return;
	p = resolve_one(&l, vmlinux, host_cases[_i].line);
	ck_assert_msg(!p->skip, "%s: %s", p->name, pp_skip_name(p->skip));
	ck_assert_int_eq(p->argpos, host_cases[_i].argpos);
	ck_assert_uint_gt(p->btf_id, 0);
	pp_probe_list_free(&l);
}
END_TEST

START_TEST(test_host_ids)
{
	struct pp_probe_list l = {0};
	struct pp_probe *p;

	if (!vmlinux)
		return;
	p = resolve_one(&l, vmlinux, "ip_rcv");
	ck_assert_int_eq(p->btf_id, btf__find_by_name_kind(vmlinux, "ip_rcv", BTF_KIND_FUNC));
	p = resolve_one(&l, vmlinux, "tp:skb:kfree_skb");
	ck_assert_int_eq(p->btf_id,
			 btf__find_by_name_kind(vmlinux, "btf_trace_kfree_skb", BTF_KIND_TYPEDEF));
	pp_probe_list_free(&l);
}
END_TEST

/*
 * The index finds what libbpf finds, the same id, for every named type of
 * every 53rd id (all kinds, duplicate names too), and nothing for a name
 * that is not there or a kind it does not have.
 */
START_TEST(test_host_btf_index)
{
	struct pp_btf_index *x;
	__u32 n = 0;

	if (!vmlinux)
		return;
	x = pp_btf_index_new(vmlinux);
	ck_assert_ptr_nonnull(x);
	for (__u32 id = 1; id < btf__type_cnt(vmlinux); id += 53) {
		const struct btf_type *t = btf__type_by_id(vmlinux, id);
		const char *name = btf__name_by_offset(vmlinux, t->name_off);

		if (!name || !*name)
			continue;
		ck_assert_int_eq(pp_btf_index_find(x, name, btf_kind(t)),
				 btf__find_by_name_kind(vmlinux, name, btf_kind(t)));
		n++;
	}
	ck_assert_uint_gt(n, 1000);
	ck_assert_int_eq(pp_btf_index_find(x, "pp_no_such_function_at_all", BTF_KIND_FUNC),
			 -ENOENT);
	ck_assert_int_eq(pp_btf_index_find(x, "sk_buff", BTF_KIND_FUNC), -ENOENT);
	ck_assert_int_gt(pp_btf_index_find(x, "sk_buff", BTF_KIND_STRUCT), 0);
	pp_btf_index_free(x);
}
END_TEST

static const struct {
	const char *line;
	enum pp_skip skip;
} host_skips[] = {
	{"pp_no_such_function_at_all", PP_SKIP_FUNC_NO_BTF},
	{"schedule", PP_SKIP_FUNC_NO_SKB},
	/* An rx_handler takes struct sk_buff **, which is not an skb argument. */
	{"br_handle_frame", PP_SKIP_FUNC_NO_SKB},
	{"tp:net:pp_no_such_tracepoint", PP_SKIP_TP_NO_BTF},
	{"tp:sched:sched_switch", PP_SKIP_TP_NO_SKB},
};

START_TEST(test_host_skips)
{
	struct pp_probe_list l = {0};
	struct pp_probe *p;

	if (!vmlinux)
		return;
	p = resolve_one(&l, vmlinux, host_skips[_i].line);
	ck_assert_int_eq(p->argpos, -1);
	ck_assert_int_eq(p->skip, host_skips[_i].skip);
	pp_probe_list_free(&l);
}
END_TEST

/* A real function whose skb comes sixth or later, if this kernel has one. */
START_TEST(test_host_argpos_past_fifth)
{
	struct pp_probe_list l = {0};
	__u32 id, cnt;
	struct pp_probe *p;

	if (!vmlinux)
		return;
	cnt = btf__type_cnt(vmlinux);
	for (id = 1; id < cnt; id++) {
		if (pp_btf_func_skb_argpos(vmlinux, id) > PP_MAX_ARGPOS)
			break;
	}
	if (id == cnt) {
		printf("SKIP: no function with its skb past the fifth argument\n");
		return;
	}
	p = resolve_one(&l, vmlinux,
			btf__name_by_offset(vmlinux, btf__type_by_id(vmlinux, id)->name_off));
	ck_assert_int_eq(p->skip, PP_SKIP_FUNC_ARGPOS);
	ck_assert_int_eq(p->argpos, -1);
	pp_probe_list_free(&l);
}
END_TEST

/* The shipped list parses anywhere; most of it resolves on the host. */
START_TEST(test_default_list)
{
	struct pp_probe_list l = {0};
	char err[256] = "";
	size_t skipped;

	ck_assert_int_eq(pp_probe_list_load(&l, PP_SOURCE_DIR "/kp_func.list", err, sizeof(err)),
			 0);
	ck_assert_str_eq(err, "");
	ck_assert_uint_ge(l.n, 80);
	if (!vmlinux)
		goto cleanup;
	ck_assert_int_eq(pp_probe_list_resolve(&l, vmlinux), 0);
	skipped = pp_probe_list_nskipped(&l);
	ck_assert_msg(l.n - skipped >= 70, "only %zu of %zu resolve", l.n - skipped, l.n);
cleanup:
	pp_probe_list_free(&l);
}
END_TEST

struct found {
	int count;
	int ip_rcv_pos;
	int other; /* names that do not start with ip_rcv */
	int glue;  /* tracing glue, which must be left out */
};

static int count_funcs(const char *name, int argpos, void *ctx)
{
	struct found *f = ctx;

	f->count++;
	if (!strcmp(name, "ip_rcv"))
		f->ip_rcv_pos = argpos;
	if (strncmp(name, "ip_rcv", 6))
		f->other++;
	if (!strncmp(name, "__bpf_trace_", 12) || !strncmp(name, "__probestub_", 12))
		f->glue++;
	ck_assert(argpos >= 1 && argpos <= PP_MAX_ARGPOS);
	return 0;
}

START_TEST(test_host_skb_funcs)
{
	struct found all = {0}, some = {0};
	int n;

	if (!vmlinux)
		return;
	n = pp_btf_skb_funcs(vmlinux, NULL, count_funcs, &all);
	ck_assert_int_eq(n, all.count);
	ck_assert_int_gt(n, 500);
	ck_assert_int_eq(all.ip_rcv_pos, 1);
	ck_assert_int_eq(all.glue, 0);
	n = pp_btf_skb_funcs(vmlinux, "^ip_rcv", count_funcs, &some);
	ck_assert_int_ge(n, 1);
	ck_assert_int_eq(some.ip_rcv_pos, 1);
	ck_assert_int_eq(some.other, 0);
	ck_assert_int_eq(pp_btf_skb_funcs(vmlinux, "[", count_funcs, &some), -EINVAL);
}
END_TEST

static int stop_after_one(const char *name, int argpos, void *ctx)
{
	(void)name;
	(void)argpos;
	return *(int *)ctx;
}

START_TEST(test_host_skb_funcs_stop)
{
	int ret = 1;

	if (!vmlinux)
		return;
	ck_assert_int_eq(pp_btf_skb_funcs(vmlinux, NULL, stop_after_one, &ret), 1);
	ret = -EINTR;
	ck_assert_int_eq(pp_btf_skb_funcs(vmlinux, NULL, stop_after_one, &ret), -EINTR);
}
END_TEST

/* The value of SKB_DROP_REASON_@name, straight from BTF, or -1. */
static long long enum_value(const char *name)
{
	int id = btf__find_by_name_kind(vmlinux, "skb_drop_reason", BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;
	int i;

	ck_assert_int_gt(id, 0);
	t = btf__type_by_id(vmlinux, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++) {
		if (!strcmp(btf__name_by_offset(vmlinux, e[i].name_off), name))
			return (__u32)e[i].val;
	}
	return -1;
}

START_TEST(test_host_drop_reasons)
{
	static const char *const names[] = {"NETFILTER_DROP", "NO_SOCKET", "NOT_SPECIFIED"};
	struct pp_drop_reasons *r = NULL;
	char full[64];
	long long v;
	size_t i;

	if (!vmlinux)
		return;
	ck_assert_int_eq(pp_drop_reasons_load(&r, vmlinux), 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(full, sizeof(full), "SKB_DROP_REASON_%s", names[i]);
		v = enum_value(full);
		ck_assert_int_ge(v, 0);
		ck_assert_str_eq(pp_drop_reason_name(r, v), names[i]);
		ck_assert_int_eq(pp_drop_reason_value(r, names[i]), v);
	}
	ck_assert_str_eq(pp_drop_reason_name(r, enum_value("SKB_CONSUMED")), "CONSUMED");
	ck_assert_str_eq(pp_drop_reason_name(r, 0xfffe), "65534");
	pp_drop_reasons_free(r);
}
END_TEST

/* ---- ksyms ------------------------------------------------------------ */

static char ksyms_path[64];

static void write_ksyms(const char *text)
{
	int fd;
	FILE *f;

	strcpy(ksyms_path, "/tmp/pp_kallsyms.XXXXXX");
	fd = mkstemp(ksyms_path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

static int load_ksyms(struct pp_ksyms **k, const char *text)
{
	int err;

	write_ksyms(text);
	err = pp_ksyms_load(k, ksyms_path);
	unlink(ksyms_path);
	return err;
}

/*
 * Functions vmlinux's BTF lacks, found in modules' split BTF: the first
 * module that has one wins, its own type id and argument position taken;
 * a name only vmlinux has (a struct) is not a module's function.
 */
START_TEST(test_fake_modules)
{
	static const char *const lines[] = {"in_vmlinux", "mod_xmit", "both_mods",
					    "mod_no_skb", "sk_buff",  "nowhere"};
	struct pp_module mods[2] = {{.name = "mod_a", .fd = -1}, {.name = "mod_b", .fd = -1}};
	struct pp_modules m = {.v = mods, .n = 2, .cap = 2};
	struct pp_probe_list l;
	char err[256];
	struct fake f;
	int a_xmit, a_both, b_both, b_noskb;

	fake_types(&f);
	add_func(f.btf, "in_vmlinux", (int[]){f.skb_ptr, 0});
	for (int i = 0; i < 2; i++) {
		mods[i].btf = btf__new_empty_split(f.btf);
		ck_assert_ptr_nonnull(mods[i].btf);
	}
	a_xmit = add_func(mods[0].btf, "mod_xmit", (int[]){f.i, f.skb_ptr, 0});
	a_both = add_func(mods[0].btf, "both_mods", (int[]){f.skb_ptr, 0});
	b_both = add_func(mods[1].btf, "both_mods", (int[]){f.i, f.skb_ptr, 0});
	b_noskb = add_func(mods[1].btf, "mod_no_skb", (int[]){f.i, 0});
	ck_assert_int_gt(b_noskb, b_both);
	memset(&l, 0, sizeof(l));
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		ck_assert_int_eq(pp_probe_list_add(&l, lines[i], "test", err, sizeof(err)), 0);
	pp_probe_list_resolve(&l, f.btf);
	pp_modules_resolve_loaded(&m, &l, f.btf);
	ck_assert_int_eq(l.v[0].skip, PP_SKIP_NONE);
	ck_assert_int_eq(l.v[1].skip, PP_SKIP_NONE);
	ck_assert_int_eq(l.v[1].btf_id, a_xmit);
	ck_assert_int_eq(l.v[1].argpos, 2);
	ck_assert_int_eq(l.v[2].btf_id, a_both);
	ck_assert_int_eq(l.v[2].argpos, 1);
	ck_assert_int_eq(l.v[3].skip, PP_SKIP_FUNC_NO_SKB);
	ck_assert_int_eq(l.v[3].btf_id, b_noskb);
	ck_assert_int_eq(l.v[4].skip, PP_SKIP_FUNC_NO_BTF);
	ck_assert_int_eq(l.v[5].skip, PP_SKIP_FUNC_NO_BTF);
	pp_probe_list_free(&l);
	for (int i = 0; i < 2; i++)
		btf__free(mods[i].btf);
	btf__free(f.btf);
}
END_TEST

/* Out of order, with data symbols, aliases, a module, and a weak symbol. */
static const char fake_kallsyms[] = "ffffffff81000300 W weak_fn\n"
				    "ffffffff81000100 t foo\n"
				    "ffffffff81000000 T _stext\n"
				    "ffffffff81000200 D some_data\n"
				    "ffffffff81000100 t foo_alias\n"
				    "ffffffff81000250 r some_rodata\n"
				    "ffffffffc0000400 t veth_xmit\t[veth]\n"
				    "ffffffff81000400 t dup_fn\n"
				    "ffffffff81000480 t dup_fn\n"
				    "ffffffff80000000 A absolute\n"
				    "garbage line\n"
				    "\n";

START_TEST(test_ksyms_fake)
{
	struct pp_ksyms *k = NULL;
	__u64 off = 1;

	ck_assert_int_eq(load_ksyms(&k, fake_kallsyms), 0);
	ck_assert_ptr_null(pp_ksym_name(k, 0xffffffff80ffffffULL, NULL));
	ck_assert_str_eq(pp_ksym_name(k, 0xffffffff81000000ULL, &off), "_stext");
	ck_assert_uint_eq(off, 0);
	ck_assert_str_eq(pp_ksym_name(k, 0xffffffff81000150ULL, &off), "foo");
	ck_assert_uint_eq(off, 0x50);
	/* Data symbols do not count: 0x...260 is still in foo. */
	ck_assert_str_eq(pp_ksym_name(k, 0xffffffff81000260ULL, &off), "foo");
	ck_assert_uint_eq(off, 0x160);
	ck_assert_str_eq(pp_ksym_name(k, 0xffffffff81000300ULL, NULL), "weak_fn");
	ck_assert_str_eq(pp_ksym_name(k, 0xffffffffc0000404ULL, &off), "veth_xmit");
	ck_assert_uint_eq(off, 4);
	ck_assert_str_eq(pp_ksym_name(k, ~0ULL, NULL), "veth_xmit");
	ck_assert_int_eq(pp_ksym_count(k, "foo_alias"), 1);
	ck_assert_int_eq(pp_ksym_count(k, "veth_xmit"), 1);
	ck_assert_int_eq(pp_ksym_count(k, "dup_fn"), 2);
	ck_assert_int_eq(pp_ksym_count(k, "some_data"), 0); /* data, not text */
	ck_assert_int_eq(pp_ksym_count(k, "zzz"), 0);
	pp_ksyms_free(k);
	ck_assert_ptr_null(pp_ksym_name(NULL, 1, NULL));
	pp_ksyms_free(NULL);
}
END_TEST

/*
 * Ranges of functions, their compiler clones and split-off parts, as the
 * attacher asks for them (attacher.c); lines out of order, one indented.
 */
static const char range_kallsyms[] = "ffffffff81000500 t tpacket_rcv.cold\n"
				     "ffffffff81000100 T tpacket_rcv\n"
				     "ffffffff81000180 t clone_only.isra.0\n"
				     "ffffffff81000200 t two_clones.constprop.0\n"
				     "ffffffff81000280 t two_clones.constprop.1\n"
				     "ffffffff81000300 t both\n"
				     "ffffffff81000340 t both.part.0\n"
				     "ffffffff81000380 t both_longer\n"
				     "  ffffffff81000400 t dup\n"
				     "ffffffff81000440 t dup\n"
				     "ffffffff81000480 D data_after\n"
				     "ffffffff81000600 t last\n";

START_TEST(test_ksyms_range)
{
	struct pp_ksyms *k = NULL;
	__u64 lo = 1, hi = 1;

	ck_assert_int_eq(load_ksyms(&k, range_kallsyms), 0);
	ck_assert_int_eq(pp_ksym_range(k, "tpacket_rcv", &lo, &hi), 0);
	ck_assert_uint_eq(lo, 0xffffffff81000100ULL);
	ck_assert_uint_eq(hi, 0xffffffff81000180ULL);
	ck_assert_int_eq(pp_ksym_range(k, "tpacket_rcv.cold", &lo, &hi), 0);
	ck_assert_uint_eq(lo, 0xffffffff81000500ULL);
	ck_assert_uint_eq(hi, 0xffffffff81000600ULL);
	/* The one clone stands for the function. */
	ck_assert_int_eq(pp_ksym_range(k, "clone_only", &lo, &hi), 0);
	ck_assert_uint_eq(lo, 0xffffffff81000180ULL);
	ck_assert_uint_eq(hi, 0xffffffff81000200ULL);
	ck_assert_int_eq(pp_ksym_range(k, "two_clones", &lo, &hi), -ENOENT);
	/* The function itself wins over its part; a longer name is another function. */
	ck_assert_int_eq(pp_ksym_range(k, "both", &lo, &hi), 0);
	ck_assert_uint_eq(lo, 0xffffffff81000300ULL);
	ck_assert_uint_eq(hi, 0xffffffff81000340ULL);
	ck_assert_int_eq(pp_ksym_range(k, "dup", &lo, &hi), -ENOENT);
	ck_assert_int_eq(pp_ksym_count(k, "dup"), 2);
	/* Data symbols do not end a range; the last symbol has no end. */
	ck_assert_int_eq(pp_ksym_range(k, "dup.x", &lo, &hi), -ENOENT);
	ck_assert_int_eq(pp_ksym_range(k, "last", &lo, &hi), -ENOENT);
	ck_assert_int_eq(pp_ksym_range(k, "nothing", &lo, &hi), -ENOENT);
	ck_assert_int_eq(pp_ksym_count(k, "both"), 1);
	ck_assert_int_eq(pp_ksym_count(k, "both.part.0"), 1);
	ck_assert_int_eq(pp_ksym_count(k, "two_clones"), 0);
	ck_assert_str_eq(pp_ksym_name(k, 0xffffffff81000490ULL, NULL), "dup");
	pp_ksyms_free(k);
}
END_TEST

START_TEST(test_ksyms_errors)
{
	struct pp_ksyms *k = (void *)1;

	/* What a reader without CAP_SYSLOG sees. */
	ck_assert_int_eq(load_ksyms(&k, "0000000000000000 T _stext\n0000000000000000 t foo\n"),
			 -EPERM);
	ck_assert_ptr_null(k);
	ck_assert_int_eq(load_ksyms(&k, "ffffffff81000200 D some_data\n"), -ENOENT);
	ck_assert_int_eq(load_ksyms(&k, ""), -ENOENT);
	ck_assert_int_eq(pp_ksyms_load(&k, "/nonexistent/kallsyms"), -ENOENT);
	ck_assert_ptr_null(k);
}
END_TEST

START_TEST(test_ksyms_host)
{
	struct pp_ksyms *k = NULL;
	int err;

	err = pp_ksyms_load(&k, NULL);
	if (err == -EPERM || err == -EACCES) {
		printf("SKIP: /proc/kallsyms addresses hidden (not root)\n");
		return;
	}
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(pp_ksym_count(k, "ip_rcv"), 1);
	ck_assert_int_eq(pp_ksym_count(k, "pp_no_such_function"), 0);
	pp_ksyms_free(k);
}
END_TEST

Suite *probe_btf_suite(void)
{
	Suite *s = suite_create("probe_btf");
	TCase *fake = tcase_create("synthetic");
	TCase *host = tcase_create("host");
	TCase *ksyms = tcase_create("ksyms");

	tcase_add_loop_test(fake, test_fake_resolve, 0, sizeof(fake_cases) / sizeof(fake_cases[0]));
	tcase_add_test(fake, test_fake_reresolve);
	tcase_add_test(fake, test_fake_skb_funcs);
	tcase_add_test(fake, test_fake_drop_reasons);
	tcase_add_test(fake, test_no_drop_reason_enum);
	tcase_add_test(fake, test_fake_modules);
	suite_add_tcase(s, fake);

	tcase_add_unchecked_fixture(host, vmlinux_setup, vmlinux_teardown);
	tcase_set_timeout(host, 30);
	tcase_add_loop_test(host, test_host_resolve, 0, sizeof(host_cases) / sizeof(host_cases[0]));
	tcase_add_test(host, test_host_ids);
	tcase_add_test(host, test_host_btf_index);
	tcase_add_loop_test(host, test_host_skips, 0, sizeof(host_skips) / sizeof(host_skips[0]));
	tcase_add_test(host, test_host_argpos_past_fifth);
	tcase_add_test(host, test_default_list);
	tcase_add_test(host, test_host_skb_funcs);
	tcase_add_test(host, test_host_skb_funcs_stop);
	tcase_add_test(host, test_host_drop_reasons);
	suite_add_tcase(s, host);

	tcase_add_test(ksyms, test_ksyms_fake);
	tcase_add_test(ksyms, test_ksyms_range);
	tcase_add_test(ksyms, test_ksyms_errors);
	tcase_add_test(ksyms, test_ksyms_host);
	suite_add_tcase(s, ksyms);
	return s;
}
