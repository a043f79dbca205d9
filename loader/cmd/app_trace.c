// SPDX-License-Identifier: GPL-2.0
/*
 * A trace run's output: the files it writes (checked before anything is
 * attached), and how the ring loop's packets are named and printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/stat.h>
#include "cmd/app.h"
#include "cmd/trace.h"
#include "names/netns_names.h"
#include "metrics/metrics_listen.h"
#include "paths/drop_reason.h"
#include "probes/attacher.h"
#include "kernel/ksyms.h"
#include "base/log.h"

static const char *reason_name(__u32 reason, void *arg)
{
	return arg ? pp_drop_reason_name(arg, reason) : NULL;
}

static const char *sym_name(__u64 addr, void *arg)
{
	return arg ? pp_ksym_name(arg, addr, NULL) : NULL;
}

static const struct pp_ns_name *netns_name(__u32 inode, void *arg)
{
	return pp_netns_cache_get(arg, inode);
}

/* Namespaces by name; without the cache (no memory) they print as inodes. */
static void name_netns(struct pp_app *a, struct pp_out *out)
{
	if (!a->netns)
		return;
	out->netns_name = netns_name;
	out->netns_arg = a->netns;
	out->told = &a->told;
	out->netns_inodes = pp_log_debug_on();
}

void pp_app_out_names(struct pp_app *a, struct pp_out *out)
{
	if (!a->reasons)
		pp_drop_reasons_load(&a->reasons, a->btf);
	out->reason_name = reason_name;
	/* Where kfree_skb gives no reason (before 5.17), 0 is none, not a name (drop_hint.h). */
	out->reason_arg = a->facts.reasons ? a->reasons : NULL;
	out->sym_name = sym_name;
	out->sym_arg = a->ksyms;
	/* The programs at a TC or XDP drop's hook: the hint, the summary, the metrics. */
	out->hook_progs = pp_hook_cache_get;
	out->hook_arg = &a->hooks;
	out->verdicts_off = !a->env.verdicts && pp_attacher_verdicts_possible(a->btf, &a->facts);
	name_netns(a, out);
}

/* if_name()'s ARG: pktpath's namespace, and who can enter the others. */
struct if_names {
	__u32 netns;
	struct pp_hook_cache *hooks;
};

/*
 * An interface by index as it is named now: pktpath's own namespace's by
 * if_indextoname(), another's by the hook reader, which can enter it.
 */
static const char *if_name(__u32 netns, __u32 ifindex, char *buf, void *arg)
{
	const struct if_names *n = arg;

	if (!netns)
		return NULL;
	if (netns == n->netns)
		return if_indextoname(ifindex, buf);
	return pp_hook_cache_get(netns, ifindex, PP_HOOK_IFNAME, buf, PP_IFNAMSIZ + 1, n->hooks) > 0
		       ? buf
		       : NULL;
}

/*
 * The wall-clock times printed hold while CLOCK_REALTIME - CLOCK_MONOTONIC
 * does: a step of the clock (or a suspend) while tracing moves them.
 */
static void clock_check(const struct pp_wallclock *c)
{
	__s64 d = pp_wallclock_moved(c);

	if (d)
		pp_warn("the wall clock moved by %+.6f s against CLOCK_MONOTONIC while "
			"tracing (stepped, or the host slept): wall-clock times of packets after "
			"that are off by up to that much\n",
			(double)d / 1e9);
}

/*
 * Which host writes the JSON lines: --host-name, else this host's name;
 * and which boot of it (packet ids and monotonic times restart with each).
 */
static void host_of(struct pp_app *a, struct pp_out *out)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	if (a->env.host_name)
		snprintf(a->host, sizeof(a->host), "%s", a->env.host_name);
	else if (gethostname(a->host, sizeof(a->host) - 1))
		snprintf(a->host, sizeof(a->host), "unknown");
	if (f) {
		if (!fgets(a->boot_id, sizeof(a->boot_id), f))
			a->boot_id[0] = 0;
		a->boot_id[strcspn(a->boot_id, "\n")] = 0;
		fclose(f);
	}
	out->host_name = a->host;
	out->boot_id = a->boot_id[0] ? a->boot_id : NULL;
}

/*
 * Where pktpath will write (safe_file.h), checked while nothing is
 * attached: a directory others could change is bad input, exit 2.
 */
int pp_app_trace_files(struct pp_app *a)
{
	if (a->env.tc_script &&
	    pp_tc_script_prepare(&a->script, a->env.tc_script, a->err, sizeof(a->err)))
		return pp_app_usage_error("--tc-script: %s", a->err);
	if (a->env.metrics) {
		a->metrics_fd = pp_metrics_listen(a->env.metrics, a->err, sizeof(a->err));
		if (a->metrics_fd < 0)
			return pp_app_usage_error("%s", a->err);
	}
	if (pp_exports_open(&a->exports, a->env.exports, a->env.snaplen, "pktpath " PKTPATH_VERSION,
			    a->err, sizeof(a->err)))
		return pp_app_usage_error("%s", a->err);
	return 0;
}

/* --agent with a filter: the drop counter's read, each second. */
static void agent_tick(void *ctx, __u64 now)
{
	pp_app_agent_read(ctx, now);
}

static bool command_ended(void *ctx)
{
	bool ended = pp_command_ended(ctx);

	if (ended)
		pp_app_command_pid = 0;
	return ended;
}

/* The probes' names by index: the list's, then the other programs' (verdicts.h). */
static void name_verdicts(struct pp_app *a, struct pp_out *out)
{
	const struct pp_verdicts *vs = pp_attacher_verdicts(a->attacher);
	size_t n = a->list.n + vs->n;

	for (size_t i = out->nprobes; i < n; i++)
		a->names[i] = pp_verdicts_label(vs, (__u32)i);
	out->nprobes = n;
}

/* Room for every program --verdicts may record, found now or by a rescan. */
static int probe_names(struct pp_app *a, struct pp_out *out)
{
	a->names = calloc(a->list.n + PP_VERDICT_MAX, sizeof(*a->names));
	if (!a->names)
		return -1;
	for (size_t i = 0; i < a->list.n; i++)
		a->names[i] = a->list.v[i].name;
	out->probe_names = a->names;
	out->nprobes = a->list.n;
	name_verdicts(a, out);
	return 0;
}

/* --verdicts: TC and XDP programs loaded since, recorded and named too. */
static void rescan_verdicts(void *ctx)
{
	struct pp_app *a = ctx;
	const struct pp_verdicts *vs = pp_attacher_verdicts(a->attacher);
	size_t from = a->trace_out->nprobes - a->list.n;

	if (!pp_attacher_verdicts_rescan(a->attacher))
		return;
	name_verdicts(a, a->trace_out);
	for (size_t i = from; i < vs->n; i++)
		if (vs->v[i].on)
			pp_info("recording the verdicts of BPF program %s too (loaded since the "
				"start)\n",
				vs->v[i].label + strlen(PP_VERDICT_PREFIX));
}

static __u64 probes_skipped(void *ctx)
{
	struct pp_app *a = ctx;

	return pp_attacher_skipped(a->attacher);
}

/* What the trace loop takes from the options, and what it writes to OUT. */
static struct pp_trace_cfg trace_cfg(struct pp_app *a, struct pp_out *out)
{
	return (struct pp_trace_cfg){.out = out,
				     .summary = a->env.summary,
				     .packets = a->env.packets,
				     .interval = a->env.interval,
				     .count = a->env.count,
				     .duration = a->env.duration,
				     .packet_timeout = a->env.packet_timeout,
				     .also = pp_exports_packet,
				     .also_ctx = &a->exports,
				     .metrics = a->metrics,
				     .probes = pp_attacher_attached(a->attacher),
				     .interfaces = a->tc.n,
				     .max_rate = a->env.max_rate,
				     .cpu_budget = a->env.cpu_budget / 100,
				     .tick = a->env.agent ? agent_tick : NULL,
				     .tick_ctx = a,
				     .rescan = a->attacher->set.verdicts ? rescan_verdicts : NULL,
				     .rescan_ctx = a,
				     .skipped = probes_skipped,
				     .ended = a->env.command ? command_ended : NULL,
				     .ended_ctx = &a->command,
				     .pid_only = a->env.pid_only ? a->env.pid : 0};
}

int pp_app_trace(struct pp_app *a)
{
	struct pp_out out = {.f = stdout,
			     .ops = pp_out_format(a->env.format),
			     .nprobes = a->list.n,
			     .if_name = if_name};
	struct stat ns;
	struct if_names names = {.netns = stat("/proc/self/ns/net", &ns) ? 0 : (__u32)ns.st_ino,
				 .hooks = &a->hooks};
	struct pp_trace_cfg cfg = trace_cfg(a, &out);
	int ret;

	if (probe_names(a, &out))
		return PP_EXIT_FAIL;
	a->trace_out = &out;
	pp_app_out_names(a, &out);
	out.if_arg = &names;
	/* --json --snaplen: what `pktpath report` needs for the exports, the same clocks. */
	out.head_bytes = out.ops->machine ? a->env.snaplen : 0;
	out.real_off = a->exports.clock.off;
	if (a->env.nstacks) {
		a->stacks.fd = a->maps.stack_map;
		a->stacks.ksyms = a->ksyms;
		out.stack = pp_stacks_frames;
		out.stack_arg = &a->stacks;
	}
	host_of(a, &out);
	a->exports.out = &out;
	pp_debug("wall-clock times: CLOCK_REALTIME - CLOCK_MONOTONIC "
		 "measured to +-%llu ns\n",
		 (unsigned long long)a->exports.clock.err_ns);
	ret = pp_trace_run(&a->maps, &cfg, &pp_app_stop) ? PP_EXIT_FAIL : PP_EXIT_OK;
	a->trace_out = NULL;
	clock_check(&a->exports.clock);
	if (pp_exports_close(&a->exports, stderr, a->err, sizeof(a->err))) {
		pp_warn("%s\n", a->err);
		ret = PP_EXIT_FAIL;
	}
	return ret;
}
