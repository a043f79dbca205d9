// SPDX-License-Identifier: GPL-2.0
/*
 * Gather (kfacts.h) -> decide (plan.h) -> report: the answers come from
 * trying the real thing on consume_skb; the verdict and the backend are the
 * plan's, the ones a run would take.
 */
#include <stdbool.h>
#include <bpf/btf.h>
#include "cmd/check_kernel.h"
#include "probes/kfacts.h"
#include "probes/plan.h"
#include "probes/probe_btf.h"

static void row(FILE *out, const char *what, bool yes, const char *meaning)
{
	fprintf(out, "%-30s %-4s %s\n", what, yes ? "yes" : "no", meaning);
}

/* A facility pktpath works around: what it gives, or what its absence costs. */
static void row2(FILE *out, const char *what, bool yes, const char *gives, const char *without)
{
	row(out, what, yes, yes ? gives : without);
}

/* What --backend auto takes for the functions of the list, in BUF of LEN if needed. */
static const char *auto_backend(const struct pp_kfacts *k, char *buf, size_t len)
{
	enum pp_backend b;
	const char *why;

	pp_plan_backend(PP_BACKEND_AUTO, true, k, &b, &why);
	if (pp_backends[b].attach == PP_ATTACH_NONE)
		return "tracepoints only: the function lines of kp_func.list are skipped";
	snprintf(buf, len, "%s, with tracepoints alongside", pp_backends[b].name);
	return buf;
}

/* A row per backend that needs a fact (pp_backends[]), in their check_rank order. */
static void backend_rows(FILE *out, const struct pp_kfacts *f)
{
	for (int rank = 1; rank <= PP_BACKEND_COUNT; rank++)
		for (size_t i = 0; i < PP_BACKEND_COUNT; i++)
			if (pp_backends[i].check && pp_backends[i].check_rank == rank)
				row(out, pp_backends[i].check, pp_backends[i].has(f),
				    pp_backends[i].gives);
}

/* CONSUME_AT: consume_skb's tracepoint says where it was called (Linux 6.3+). */
static void report(FILE *out, const struct pp_kfacts *f, bool consume_at)
{
	row(out, "capabilities", f->caps, "CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN (or root)");
	row(out, "BTF (/sys/kernel/btf/vmlinux)", f->btf, "CO-RE, skb argument positions");
	row(out, "ring buffer", f->ringbuf, "records to user space");
	row(out, "tp_btf", f->tp_btf, "the tracepoint backend; ends of packets");
	row(out, "tcx", f->tcx, "the classifier on tcx links: nothing survives a crash");
	row(out, "clsact", f->clsact,
	    f->tcx ? "the fallback (not needed here)" : "the classifier on clsact filters");
	backend_rows(out, f);
	row2(out, "bpf cookies", f->cookie, "probe index of kprobe and kprobe.multi hops",
	     "kprobe: a program loaded per probe point (slower attach)");
	row2(out, "drop reasons in kfree_skb", f->reasons, "why a packet was dropped",
	     "drops show where, not why (the kernel gives no reason)");
	row2(out, "atomic fetch", f->fetch, "packet ids in order",
	     "packet ids from per-CPU counters (large, not in order)");
	row2(out, "bpf_loop", f->loop, "copies (skb_copy, pskb_copy, GSO segments) followed",
	     "kprobe, fentry: copies (skb_copy, pskb_copy, GSO segments) not followed;"
	     " delivered packets not ended at the reader");
	row2(out, "slab tracepoints with cache", f->slab,
	     "tracepoint backend: frees no skb tracepoint sees",
	     "tracepoint backend: every slab object looked up while packets are in flight");
	row2(out, "cgroup sock programs' task", f->maker,
	     "a cgroup scope names a sender gone before /proc is read, and takes a "
	     "server started later from its first SYN",
	     "a cgroup scope may not name a short-lived sender; a server started after "
	     "pktpath joins at its first answer");
	row2(out, "other BPF programs' verdicts", f->fentry,
	     "--verdicts: a TC or generic XDP program's verdict on a tracked packet is a hop "
	     "(fexit on each TC program with BTF)",
	     "a drop at a TC or XDP hook names the programs attached there, not which one "
	     "decided (fexit on BPF programs would)");
	row(out, "tracefs mounted", f->tracefs, "not needed: pktpath uses perf kprobes");
	row(out, "bpffs mounted", f->bpffs, "not needed by pktpath");
	row2(out, "consume_skb's caller", consume_at,
	     "a packet veth copies for its XDP program ends \"went on past XDP\"; with "
	     "--verdicts the copy joins it with the program's verdict",
	     "a packet veth copies for its XDP program ends consumed at the copy; with "
	     "--verdicts the copy, if the program did not pass it, is a packet of its own");
	row2(out, "XDP drops before an skb", f->fentry,
	     "--verdicts: a frame an XDP program with BTF drops, sends back or redirects "
	     "is a packet of its own (fexit on the program)",
	     "not seen: a frame an XDP program drops, sends back or redirects never "
	     "reaches pktpath's hooks (the program's own counters tell)");
}

int pp_check(FILE *out)
{
	struct btf *btf = btf__load_vmlinux_btf();
	struct pp_kfacts f = {0};
	char buf[64];
	bool ok, consume_at;

	pp_kfacts_check(&f, btf);
	consume_at = btf && pp_btf_tp_nargs(btf, "consume_skb") >= 2;
	btf__free(btf);
	report(out, &f, consume_at);
	ok = pp_plan_can_trace(&f);
	if (ok)
		fprintf(out, "\npktpath can trace here; --backend auto will use %s.\n",
			auto_backend(&f, buf, sizeof(buf)));
	else
		fprintf(out, "\npktpath cannot trace here: it needs the capabilities, BTF, a "
			     "ring buffer, tp_btf and tcx or clsact.\n");
	return ok ? 0 : 1;
}
