// SPDX-License-Identifier: GPL-2.0
/*
 * Every answer comes from trying the real thing (a load, an attach, a map)
 * or reading the kernel's own lists. Nothing stays attached.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <bpf/btf.h>
#include "base/compat.h"
#include "kernel/ftrace_funcs.h"
#include "probes/kfacts.h"
#include "probes/plan.h"
#include "kernel/kfeatures.h"
#include "kernel/ksyms.h"
#include "probes/probe_list.h"

#define PP_CHECK_FUNC "consume_skb" /* every kernel has it */

static bool mounted(const char *path, long magic)
{
	struct statfs st;

	return statfs(path, &st) == 0 && st.f_type == magic;
}

static bool has_caps(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2] = {0};
	int want[] = {CAP_BPF, CAP_PERFMON, CAP_NET_ADMIN};

	if (syscall(SYS_capget, &h, d))
		return false;
	if (d[0].effective & (1U << CAP_SYS_ADMIN) && d[0].effective & (1U << CAP_NET_ADMIN))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		if (!(d[want[i] / 32].effective & (1U << (want[i] % 32))))
			return false;
	return true;
}

/* kfree_skb carries a drop reason: the enum exists and the tracepoint has it. */
static bool drop_reasons(const struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, "btf_trace_kfree_skb", BTF_KIND_TYPEDEF);
	const struct btf_type *t;

	if (id < 0 || btf__find_by_name_kind(btf, "skb_drop_reason", BTF_KIND_ENUM) < 0)
		return false;
	t = btf__type_by_id(btf, btf__resolve_type(btf, id));
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	return t && btf_is_func_proto(t) && btf_vlen(t) >= 4; /* ctx, skb, location, reason */
}

/*
 * The slab tracepoint NAME passes its kmem_cache as the third argument
 * (Linux 6.1's kmem_cache_free(call_site, ptr, s)): the tracepoint backend
 * learns the sk_buff caches from it. 5.10's pass (call_site, ptr) and
 * (call_site, ptr, bytes_req, ...).
 */
static bool slab_cache_arg(const struct btf *btf, const char *name)
{
	char tname[64];
	const struct btf_param *p;
	const struct btf_type *t;
	int id;

	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	id = btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF);
	t = id < 0 ? NULL : btf__type_by_id(btf, btf__resolve_type(btf, id));
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < 4) /* ctx, call_site, ptr, s */
		return false;
	p = btf_params(t);
	t = btf__type_by_id(btf, btf__resolve_type(btf, p[3].type));
	t = t && btf_is_ptr(t) ? btf__type_by_id(btf, btf__resolve_type(btf, t->type)) : NULL;
	return t && btf_is_struct(t) &&
	       !strcmp(btf__name_by_offset(btf, t->name_off), "kmem_cache");
}

void pp_kfacts_programs(struct pp_kfacts *k, const struct btf *btf)
{
	k->fetch = pp_kfeatures_has_atomic_fetch();
	k->cookie = pp_kfeatures_has_attach_cookie();
	k->loop = pp_kfeatures_has_bpf_loop();
	k->reasons = btf && drop_reasons(btf);
	k->slab = btf && slab_cache_arg(btf, "kmem_cache_free") &&
		  slab_cache_arg(btf, "kmem_cache_alloc");
}

void pp_kfacts_check(struct pp_kfacts *k, const struct btf *btf)
{
	int func = btf ? btf__find_by_name_kind(btf, PP_CHECK_FUNC, BTF_KIND_FUNC) : -1;
	int tp = btf ? btf__find_by_name_kind(btf, "btf_trace_consume_skb", BTF_KIND_TYPEDEF) : -1;

	k->caps = has_caps();
	k->btf = btf != NULL;
	k->ringbuf = pp_kfeatures_has_ringbuf();
	k->tcx = pp_kfeatures_has_tcx();
	k->clsact = pp_kfeatures_has_clsact();
	k->kprobe = pp_kfeatures_has_kprobe(PP_CHECK_FUNC);
	k->kmulti = pp_kfeatures_has_kprobe_multi(PP_CHECK_FUNC);
	k->fentry = func > 0 && pp_kfeatures_has_fentry((__u32)func);
	k->tp_btf = tp > 0 && pp_kfeatures_has_tp_btf((__u32)tp);
	k->maker = pp_kfeatures_has_sock_maker();
	pp_kfacts_programs(k, btf);
	k->tracefs = mounted("/sys/kernel/tracing", TRACEFS_MAGIC);
	k->bpffs = mounted("/sys/fs/bpf", BPF_FS_MAGIC);
}

/* Tries the attach of KIND on F: what the rows of that kind read. */
static void try_kind(struct pp_kfacts *k, enum pp_attach_kind kind, const struct pp_probe *f)
{
	switch (kind) {
	case PP_ATTACH_MULTI:
		k->kmulti = pp_kfeatures_has_kprobe_multi(f->target);
		break;
	case PP_ATTACH_KPROBE:
		k->kprobe = pp_kfeatures_has_kprobe(f->target);
		break;
	case PP_ATTACH_TRAMPOLINE:
		k->fentry = pp_kfeatures_has_fentry(f->btf_id);
		break;
	default:
		break;
	}
}

void pp_kfacts_backend(struct pp_kfacts *k, enum pp_backend want, const struct pp_probe *f)
{
	enum pp_backend next;

	if (!f)
		return;
	if (want != PP_BACKEND_AUTO) {
		try_kind(k, pp_backends[want].attach, f);
		return;
	}
	/* Auto takes the first that works (pp_plan_backend()): a later one is not tried. */
	for (int rank = 1; (next = pp_backend_auto_at(rank)) != PP_BACKEND_AUTO; rank++) {
		const struct pp_backend_row *b = &pp_backends[next];

		if (!b->has)
			continue;
		try_kind(k, b->attach, f);
		if (b->has(k))
			return;
	}
}

void pp_kfacts_marking(struct pp_kfacts *k, enum pp_backend backend)
{
	/* Only a trampoline backend asks: the kprobe kinds have kprobes, tracepoint never marks. */
	if (pp_backends[backend].attach == PP_ATTACH_TRAMPOLINE)
		k->mark_kprobe = pp_kfeatures_has_kprobe("ip_output");
}

void pp_kfacts_symbols(struct pp_kfacts *k, struct pp_names *ftrace, struct pp_ksyms **ksyms)
{
	bool traceable = pp_ftrace_funcs_load(ftrace) == 0 && ftrace->n;

	k->ftrace = traceable ? ftrace : NULL;
	k->ksyms = pp_ksyms_load(ksyms, NULL) == 0 ? *ksyms : NULL;
}
