// SPDX-License-Identifier: GPL-2.0
/* Resolve probe points against kernel BTF: skb argument position, skip reason. */
#include <errno.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h> /* before pktpath.h, which uses __u32 */
#include "base/compat.h"
#include "pktpath.h"
#include "kernel/btf_index.h"
#include "probes/probe_btf.h"

#define TP_TYPEDEF_PREFIX "btf_trace_"
#define MAX_TYPE_CHAIN	  32 /* modifiers and typedefs we follow before giving up */

/* Follow typedef/const/volatile/restrict/type_tag to the type they qualify. */
static const struct btf_type *skip_mods(const struct btf *btf, __u32 id, __u32 *res_id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int depth;

	for (depth = 0; t && depth < MAX_TYPE_CHAIN; depth++) {
		if (!btf_is_mod(t) && !btf_is_typedef(t))
			break;
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	if (res_id)
		*res_id = id;
	return t;
}

/* Is @id a (qualified) pointer to (const) struct sk_buff? */
static bool is_skb_ptr(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = skip_mods(btf, id, NULL);
	const char *name;

	if (!t || !btf_is_ptr(t))
		return false;
	t = skip_mods(btf, t->type, NULL);
	if (!t || !(btf_is_struct(t) || btf_is_fwd(t)))
		return false;
	name = btf__name_by_offset(btf, t->name_off);
	return name && !strcmp(name, "sk_buff");
}

/* Is @id a (qualified) void *? Tracepoint prototypes start with one. */
static bool is_void_ptr(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = skip_mods(btf, id, NULL);
	__u32 pointee;

	if (!t || !btf_is_ptr(t))
		return false;
	skip_mods(btf, t->type, &pointee);
	return pointee == 0;
}

/* 0-based index of the first skb parameter of a FUNC_PROTO from @from on, or -1. */
static int proto_skb_index(const struct btf *btf, const struct btf_type *proto, int from)
{
	const struct btf_param *p = btf_params(proto);
	int i, n = btf_vlen(proto);

	for (i = from; i < n; i++) {
		if (is_skb_ptr(btf, p[i].type))
			return i;
	}
	return -1;
}

int pp_btf_func_skb_argpos(const struct btf *btf, __u32 func_id)
{
	const struct btf_type *t = btf__type_by_id(btf, func_id);

	if (!t || !btf_is_func(t))
		return -EINVAL;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return -EINVAL;
	return proto_skb_index(btf, t, 0) + 1;
}

int pp_btf_func_nargs(const struct btf *btf, __u32 func_id)
{
	const struct btf_type *t = btf__type_by_id(btf, func_id);

	if (!t || !btf_is_func(t))
		return -EINVAL;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) ? btf_vlen(t) : -EINVAL;
}

/* NAME's id of KIND, through the index X if there is one. */
static int find_type(const struct btf *btf, const struct pp_btf_index *x, const char *name,
		     __u32 kind)
{
	return x ? pp_btf_index_find(x, name, kind) : btf__find_by_name_kind(btf, name, kind);
}

void pp_probe_resolve_func(struct pp_probe *p, const struct btf *btf, int id)
{
	int pos;

	if (id <= 0) {
		p->skip = PP_SKIP_FUNC_NO_BTF;
		return;
	}
	p->btf_id = id;
	pos = pp_btf_func_skb_argpos(btf, id);
	if (pos <= 0) {
		p->skip = PP_SKIP_FUNC_NO_SKB;
		return;
	}
	/* kprobe.multi and fentry programs are built for the first five registers. */
	if (pos > PP_MAX_ARGPOS) {
		p->skip = PP_SKIP_FUNC_ARGPOS;
		return;
	}
	p->argpos = pos;
}

static void resolve_func(struct pp_probe *p, const struct btf *btf, const struct pp_btf_index *x)
{
	pp_probe_resolve_func(p, btf, find_type(btf, x, p->target, BTF_KIND_FUNC));
}

/*
 * A tracepoint NAME has "typedef void (*btf_trace_NAME)(void *__data, args...)"
 * in BTF; a tp_btf program sees args... as ctx[0], ctx[1], ...
 */
static const struct btf_type *tp_proto(const struct btf *btf, const struct pp_btf_index *x,
				       const char *name, __u32 *typedef_id)
{
	char tname[sizeof(TP_TYPEDEF_PREFIX) + PP_PROBE_NAME_MAX];
	const struct btf_type *t;
	int id;

	snprintf(tname, sizeof(tname), TP_TYPEDEF_PREFIX "%s", name);
	id = find_type(btf, x, tname, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return NULL;
	*typedef_id = id;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!t || !btf_is_ptr(t))
		return NULL;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t) || !btf_vlen(t) || !is_void_ptr(btf, btf_params(t)[0].type))
		return NULL;
	return t;
}

int pp_btf_tp_nargs(const struct btf *btf, const char *name)
{
	__u32 id;
	const struct btf_type *proto = tp_proto(btf, NULL, name, &id);

	return proto ? (int)btf_vlen(proto) - 1 : -EINVAL;
}

static void resolve_tp(struct pp_probe *p, const struct btf *btf, const struct pp_btf_index *x)
{
	const struct btf_type *proto;
	__u32 id = 0;
	int idx;

	proto = tp_proto(btf, x, p->target, &id);
	if (!proto) {
		p->skip = PP_SKIP_TP_NO_BTF;
		return;
	}
	p->btf_id = id;
	idx = proto_skb_index(btf, proto, 1);
	if (idx < 0) {
		p->skip = PP_SKIP_TP_NO_SKB;
		return;
	}
	p->argpos = idx - 1; /* past the void *__data */
}

int pp_probe_list_resolve(struct pp_probe_list *l, const struct btf *btf)
{
	struct pp_btf_index *x;

	if (!btf)
		return -EINVAL;
	/* Without memory for the index, each name is a walk of every type: slower, same. */
	x = pp_btf_index_new(btf);
	for (size_t i = 0; i < l->n; i++) {
		struct pp_probe *p = &l->v[i];

		p->argpos = -1;
		p->btf_id = 0;
		p->skip = PP_SKIP_NONE;
		if (p->kind == PP_PROBE_TP)
			resolve_tp(p, btf, x);
		else
			resolve_func(p, btf, x);
	}
	pp_btf_index_free(x);
	return 0;
}

/*
 * Functions that exist only to run tracepoint probes take the tracepoint's
 * skb too; probing them would duplicate (or, for __probestub_*, never see)
 * the tracepoint's hops.
 */
static bool is_tracing_glue(const char *name)
{
	static const char *const prefixes[] = {
		"__bpf_trace_", "__traceiter_",		  "__probestub_",
		"perf_trace_",	"trace_event_raw_event_",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++) {
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	}
	return false;
}

/* The skb position of function type @id if it is one we would list, else 0. */
static int walk_one(const struct btf *btf, __u32 id, const regex_t *re, const char **name)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int pos;

	if (!btf_is_func(t))
		return 0;
	*name = btf__name_by_offset(btf, t->name_off);
	if (!*name || is_tracing_glue(*name))
		return 0;
	pos = pp_btf_func_skb_argpos(btf, id);
	if (pos < 1 || pos > PP_MAX_ARGPOS)
		return 0;
	if (re && regexec(re, *name, 0, NULL, 0))
		return 0;
	return pos;
}

int pp_btf_skb_funcs(const struct btf *btf, const char *regex,
		     int (*cb)(const char *name, int argpos, void *ctx), void *ctx)
{
	__u32 id, cnt = btf__type_cnt(btf);
	const char *name = NULL;
	regex_t re;
	int err = 0, calls = 0, pos;

	if (regex && regcomp(&re, regex, REG_EXTENDED | REG_NOSUB))
		return -EINVAL;
	for (id = 1; id < cnt; id++) {
		pos = walk_one(btf, id, regex ? &re : NULL, &name);
		if (!pos)
			continue;
		calls++;
		err = cb(name, pos, ctx);
		if (err)
			break;
	}
	if (regex)
		regfree(&re);
	return err < 0 ? err : calls;
}
