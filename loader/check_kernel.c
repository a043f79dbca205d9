// SPDX-License-Identifier: GPL-2.0
/*
 * Every answer comes from trying the real thing (a load, an attach, a map),
 * on consume_skb, which every kernel has. Nothing stays attached.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <bpf/btf.h>
#include "check_kernel.h"
#include "compat.h"
#include "kfeatures.h"

#define PP_PROBE_FUNC "consume_skb"

struct facts {
	bool btf, ringbuf, tcx, clsact, kprobe, kmulti, fentry, tp_btf, cookie, reasons;
	bool tracefs, bpffs, caps;
};

static void row(FILE *out, const char *what, bool yes, const char *meaning)
{
	fprintf(out, "%-30s %-4s %s\n", what, yes ? "yes" : "no", meaning);
}

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

static void gather(struct facts *f, const struct btf *btf)
{
	int func = btf ? btf__find_by_name_kind(btf, PP_PROBE_FUNC, BTF_KIND_FUNC) : -1;
	int tp = btf ? btf__find_by_name_kind(btf, "btf_trace_consume_skb", BTF_KIND_TYPEDEF) : -1;

	f->caps = has_caps();
	f->btf = btf != NULL;
	f->ringbuf = pp_has_ringbuf();
	f->tcx = pp_has_tcx();
	f->clsact = pp_has_clsact();
	f->kprobe = pp_has_kprobe(PP_PROBE_FUNC);
	f->kmulti = pp_has_kprobe_multi(PP_PROBE_FUNC);
	f->fentry = func > 0 && pp_has_fentry((__u32)func);
	f->tp_btf = tp > 0 && pp_has_tp_btf((__u32)tp);
	f->cookie = pp_has_attach_cookie();
	f->reasons = btf && drop_reasons(btf);
	f->tracefs = mounted("/sys/kernel/tracing", TRACEFS_MAGIC);
	f->bpffs = mounted("/sys/fs/bpf", BPF_FS_MAGIC);
}

static const char *auto_backend(const struct facts *f)
{
	if (f->kmulti)
		return "kprobe-multi, with tracepoints alongside";
	if (f->kprobe)
		return "kprobe, with tracepoints alongside";
	return "tracepoints only: the function lines of kp_func.list are skipped";
}

static void report(FILE *out, const struct facts *f)
{
	row(out, "capabilities", f->caps, "CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN (or root)");
	row(out, "BTF (/sys/kernel/btf/vmlinux)", f->btf, "CO-RE, skb argument positions");
	row(out, "ring buffer", f->ringbuf, "records to user space");
	row(out, "tp_btf", f->tp_btf, "the tracepoint backend; ends of packets");
	row(out, "tcx", f->tcx, "the classifier on tcx links: nothing survives a crash");
	row(out, "clsact", f->clsact,
	    f->tcx ? "the fallback (not needed here)" : "the classifier on clsact filters");
	row(out, "kprobe", f->kprobe, "--backend kprobe");
	row(out, "kprobe.multi", f->kmulti, "--backend kprobe-multi: fast attach of many");
	row(out, "fentry", f->fentry, "--backend fentry");
	row(out, "bpf cookies", f->cookie, "probe index of kprobe and kprobe.multi hops");
	row(out, "drop reasons in kfree_skb", f->reasons, "why a packet was dropped");
	row(out, "tracefs mounted", f->tracefs, "not needed: pktpath uses perf kprobes");
	row(out, "bpffs mounted", f->bpffs, "not needed by pktpath");
}

int pp_check(FILE *out)
{
	struct btf *btf = btf__load_vmlinux_btf();
	struct facts f = {0};
	bool ok;

	gather(&f, btf);
	btf__free(btf);
	report(out, &f);
	ok = f.caps && f.btf && f.ringbuf && f.tp_btf && (f.tcx || f.clsact);
	if (ok)
		fprintf(out, "\npktpath can trace here; --backend auto will use %s.\n",
			auto_backend(&f));
	else
		fprintf(out, "\npktpath cannot trace here: it needs the capabilities, BTF, a "
			     "ring buffer, tp_btf and tcx or clsact.\n");
	return ok ? 0 : 1;
}
