// SPDX-License-Identifier: GPL-2.0
/*
 * --list-probes: every probe point of the list with its argument and
 * backend or why it is skipped, and every hook attached besides the list.
 */
#include <stdio.h>
#include <bpf/btf.h>
#include "cmd/app.h"
#include "probes/attacher.h"
#include "probes/end_points.h"
#include "probes/plan.h"
#include "probes/send_calls.h"

static const char *probe_backend(const struct pp_app *a, const struct pp_probe *pr)
{
	if (pr->skip)
		return pp_skip_name(pr->skip);
	return pr->kind == PP_PROBE_TP ? "tracepoint" : pp_backend_name(a->backend);
}

/*
 * The reads' two hooks, as pp_sock_reads_attach() and attach_recv_done()
 * attach them, or why this backend leaves them out.
 */
static void list_reads_hooks(const struct pp_app *a)
{
	struct pp_reads_plan r = pp_attacher_reads(a->btf, a->backend, &a->facts);

	if (r.skip) {
		printf("%-36s -      skipped: %s\n", "tp:sock:sock_recv_length",
		       pp_skip_name(r.skip));
		if (r.cg_ingress)
			printf("%-36s -      skipped: %s\n", "cgroup_skb:ingress",
			       pp_skip_name(r.skip));
		return;
	}
	if (!r.recv_done)
		return;
	printf("%-36s -      built in: raw tracepoint at the end of every receive call of"
	       " every process (reads), some 90 ns each\n",
	       "tp:sock:sock_recv_length");
	if (r.cg_ingress)
		printf("%-36s -      built in: on the root cgroup v2 (a link, beside any other"
		       " program), every skb delivered to a socket (reads), some 75 ns each;"
		       " always allows: never changes a verdict\n",
		       "cgroup_skb:ingress");
}

/* --verdicts' hooks (probes/verdicts.h), where this kernel has BPF trampolines. */
static void list_verdict_hooks(const struct pp_app *a)
{
	const char *state = a->env.verdicts ? "besides the list, --verdicts"
					    : "besides the list, off (--verdicts)";

	if (!pp_attacher_verdicts_possible(a->btf, &a->facts))
		return;
	printf("%-36s -      %s: fexit on every TC program with BTF loaded at the start, every"
	       " packet each sees (a trampoline around the program)\n",
	       "bpf:NAME#ID", state);
	if (btf__find_by_name_kind(a->btf, "bpf_prog_run_generic_xdp", BTF_KIND_FUNC) > 0)
		printf("%-36s -      %s: fexit, every packet of XDP's generic mode\n",
		       "bpf_prog_run_generic_xdp", state);
}

/*
 * The hooks attached besides the list, and what each costs work that has
 * nothing to do with the packets tracked (bench/host_cost.sh measures it):
 * nothing pktpath attaches goes unnamed here.
 */
static void list_builtin_hooks(const struct pp_app *a)
{
	const char *cost = "perf-event tracepoint, every send call of every process,"
			   " some 200-300 ns each; all syscalls take the slow path";
	const char *state = a->env.send_calls ? "besides the list, --send-calls"
					      : "besides the list, off (--send-calls)";

	if (pp_backends[a->backend].slab_frees && a->facts.slab) {
		printf("%-36s -      built in: raw tracepoint on every slab allocation"
		       " of the host (sk_buff reuse), an empty program's cost\n",
		       "tp:kmem:kmem_cache_alloc");
		printf("%-36s -      built in: raw tracepoint on every slab free of the host"
		       " (sk_buff frees no skb tracepoint sees), an empty program's cost\n",
		       "tp:kmem:kmem_cache_free");
	} else if (pp_backends[a->backend].slab_frees) {
		printf("%-36s -      built in: raw tracepoints on every slab allocation and free of"
		       " the host; their objects looked up while packets are in flight (the"
		       " tracepoints pass no cache: --check)\n",
		       "tp:kmem:kmem_cache_*");
	}
	list_reads_hooks(a);
	list_verdict_hooks(a);
	if (pp_attacher_reasm(a->btf, a->backend))
		printf("%-36s -      built in: at the entry of every IP reassembly (no hop): the"
		       " first fragment it consumes ends merged, not consumed (consume_skb's"
		       " tracepoint has no location before Linux 6.3)\n",
		       PP_REASM_POINT);
	for (size_t i = 0; i < PP_SEND_CALLS; i++) {
		char enter[40], leave[40];

		snprintf(enter, sizeof(enter), "tp:syscalls:sys_enter_%s", pp_send_calls[i]);
		snprintf(leave, sizeof(leave), "tp:syscalls:sys_exit_%s", pp_send_calls[i]);
		printf("%-36s -      %s: %s\n", enter, state, cost);
		printf("%-36s -      %s: %s\n", leave, state, cost);
	}
}

int pp_app_list_probes(const struct pp_app *a)
{
	if (a->env.funcs || !a->list_path)
		printf("# list: %s\n", a->list_path ? a->list_path : "none (--probe only)");
	else if (pp_app_probes_full(a))
		printf("# list: %s (--detail full: every step; short: %s, one step per "
		       "layer, about a third of the probes a packet crosses)\n",
		       a->list_path, PP_PROBE_SHORT_FILE);
	else
		printf("# list: %s (--detail short: one step per layer; full: %s, about "
		       "three times the probes a packet crosses)\n",
		       a->list_path, PP_PROBE_LIST_FILE);
	for (size_t i = 0; i < a->list.n; i++) {
		const struct pp_probe *pr = &a->list.v[i];

		if (pr->skip)
			printf("%-36s -      skipped: %s\n", pr->name, pp_skip_name(pr->skip));
		else
			printf("%-36s arg %d  %s\n", pr->name, pr->argpos, probe_backend(a, pr));
	}
	list_builtin_hooks(a);
	return PP_EXIT_OK;
}
