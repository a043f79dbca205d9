// SPDX-License-Identifier: GPL-2.0
/*
 * pktpath: open -> configure -> load -> attach -> trace -> detach. Every
 * check that bad input can fail runs before anything is attached, and exits
 * with status 2.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/capability.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "probes/attacher.h"
#include "cmd/check_kernel.h"
#include "filter/classifier.h"
#include "base/compat.h"
#include "cmd/cli.h"
#include "paths/drop_reason.h"
#include "probes/end_points.h"
#include "output/exports.h"
#include "kernel/ftrace_funcs.h"
#include "probes/kfacts.h"
#include "kernel/ksyms.h"
#include "probes/stacks.h"
#include "bpfobj/maps.h"
#include "output/metrics_http.h"
#include "output/metrics_listen.h"
#include "probes/module_btf.h"
#include "names/netns_names.h"
#include "names/netns_scope.h"
#include "probes/plan.h"
#include "kernel/privs.h"
#include "probes/probe_btf.h"
#include "probes/probe_list.h"
#include "probes/send_calls.h"
#include "cmd/report.h"
#include "base/safe_file.h"
#include "tc/tc_attach.h"
#include "tc/tc_follow.h"
#include "tc/tc_scope.h"
#include "tc/tc_script.h"
#include "filter/test_pcap.h"
#include "cmd/trace.h"
#include "base/log.h"

#ifndef PKTPATH_VERSION
#define PKTPATH_VERSION "dev"
#endif
#ifndef PKTPATH_DATADIR
#define PKTPATH_DATADIR "/usr/local/share/pktpath"
#endif

static volatile sig_atomic_t stop;

struct app {
	struct pp_env env;
	struct btf *btf;
	struct pp_probe_list list;
	struct pp_modules modules;
	const char *list_path; /* where the list came from, NULL: command line only */
	struct pp_tc tc;
	/* --netns, --container: the scope's namespaces, and the classifier there. */
	struct pp_scope_ns scope_ns[PP_SCOPE_MAX * 2];
	size_t nscope;
	struct pp_scope scope;
	struct pp_follow follow; /* interfaces that come and go, if following */
	bool following;
	bool no_tcx;	     /* PKTPATH_NO_TCX */
	struct pp_maps maps; /* shared by the classifier, the probes and the loop */
	struct pp_cls cls;
	struct pp_filter l3;	      /* the filter for marking in probes */
	struct pp_attacher *attacher; /* the probes: new -> prepare -> load -> attach -> destroy */
	struct pp_tc_script script;
	struct pp_exports exports; /* --pcapng, --perfetto */
	struct pp_drop_reasons *reasons;
	struct pp_ksyms *ksyms;
	struct pp_stacks stacks;
	const char **names;
	struct pp_kfacts facts; /* what the plan (plan.h) decides on */
	enum pp_backend backend;
	struct pp_netns_cache *netns; /* namespaces by name */
	struct pp_ns_told told;	      /* the namespaces the text has described */
	double start_ms;	      /* main() entered */
	double start_real;	      /* the same, seconds since the epoch */
	char host[256];		      /* JSON's host.name */
	char boot_id[40];	      /* and host.boot_id, "" if unreadable */
	int metrics_fd;		      /* --metrics: the listening socket */
	struct pp_metrics *metrics;
	struct pp_http *http;
	struct utsname uts;
	char err[512];
};

/* CLOCK_MONOTONIC in ms, for the -v timings of attach and detach. */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * A closed stdout ends the run cleanly instead of killing it. Ctrl-C and
 * SIGTERM end pktpath even where its parent ignores them (a shell without
 * job control starts "cmd &" with SIGINT ignored), as they did when the
 * handler was installed from the start.
 */
static void early_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal}, dfl = {.sa_handler = SIG_DFL};

	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGINT, &dfl, NULL);
	sigaction(SIGTERM, &dfl, NULL);
}

/*
 * Until the first attach, Ctrl-C, SIGTERM and SIGHUP keep their default
 * action and end pktpath at once: nothing in the kernel outlives the
 * process then, and libpcap compiling a huge filter, or the verifier
 * checking one, never looks at a flag. From the first attach on they only
 * set the flag, so that pktpath detaches what it attached before it exits.
 */
static void catch_stop_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pp_vwarn(fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	return PP_EXIT_USAGE;
}

static bool has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1U << (cap % 32));
}

/* Root, or CAP_BPF + CAP_PERFMON + CAP_NET_ADMIN (CAP_SYS_ADMIN covers the first two). */
static int check_caps(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2] = {0};
	bool bpf, perf;

	if (syscall(SYS_capget, &h, d))
		return usage_error("cannot read this process's capabilities: %s", strerror(errno));
	bpf = has_cap(d, CAP_BPF) || has_cap(d, CAP_SYS_ADMIN);
	perf = has_cap(d, CAP_PERFMON) || has_cap(d, CAP_SYS_ADMIN);
	if (!bpf || !perf || !has_cap(d, CAP_NET_ADMIN))
		return usage_error("needs root, or CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN");
	return 0;
}

/* Skip what a probe by name cannot reach, so that --list-probes agrees with the attach. */
static void check_attachable(struct app *a)
{
	struct pp_names ftrace;

	pp_kfacts_symbols(&a->facts, &ftrace, &a->ksyms);
	pp_plan_reach_all(&a->list, &a->facts);
	a->facts.ftrace = NULL;
	pp_names_free(&ftrace);
}

struct add_ctx {
	struct pp_probe_list *l;
	char *err;
	size_t errlen;
};

static int add_btf_func(const char *name, int argpos, void *arg)
{
	struct add_ctx *c = arg;

	(void)argpos;
	return pp_probe_list_add(c->l, name, "--probe-regex", c->err, c->errlen);
}

/* --probe-regex and --all-skb-funcs: functions taking an skb, from BTF. */
static int add_skb_funcs(struct app *a)
{
	struct add_ctx c = {&a->list, a->err, sizeof(a->err)};
	const char *re = a->env.all_skb_funcs ? NULL : a->env.probe_regex;
	int n;

	if (!a->env.all_skb_funcs && !a->env.probe_regex)
		return 0;
	n = pp_btf_skb_funcs(a->btf, re, add_btf_func, &c);
	if (n == -EINVAL && !a->err[0])
		return usage_error("--probe-regex: bad regular expression \"%s\"", re);
	if (n < 0)
		return usage_error("%s", a->err);
	if (n == 0)
		return usage_error("--probe-regex \"%s\": no kernel function taking an skb "
				   "matches",
				   re);
	return 0;
}

#define PP_STACK_ENTRIES 4096 /* distinct stacks kept with --stack: 1 MiB */

/* --stack NAME: its probe point's hops carry the kernel stack. */
static int mark_stacks(struct app *a)
{
	for (int i = 0; i < a->env.nstacks; i++) {
		size_t j;

		for (j = 0; j < a->list.n && strcmp(a->list.v[j].name, a->env.stacks[i]); j++)
			;
		if (j == a->list.n)
			return usage_error("--stack %s: not a probe point of the list (add it "
					   "with --probe %s)",
					   a->env.stacks[i], a->env.stacks[i]);
		a->list.v[j].stack = true;
	}
	return 0;
}

static bool detail_full(const struct app *a)
{
	return a->env.detail && !strcmp(a->env.detail, "full");
}

/* The list --detail names: the short one unless "full". */
static const char *detail_file(const struct app *a)
{
	return detail_full(a) ? PP_PROBE_LIST_FILE : PP_PROBE_SHORT_FILE;
}

/* Probe list: --funcs or --detail's, --probe lines, BTF matches, the end points. */
static int load_list(struct app *a)
{
	const char *file = detail_file(a);
	const char *path = pp_probe_list_locate(a->env.funcs, file, PKTPATH_DATADIR);
	bool extra = a->env.nprobes || a->env.probe_regex || a->env.all_skb_funcs;
	int ret = 0;

	if (!path && !extra)
		return usage_error("no probe list: no ./%s nor %s/%s (--funcs FILE)", file,
				   PKTPATH_DATADIR, file);
	a->list_path = path;
	if (path)
		ret = pp_probe_list_load(&a->list, path, a->err, sizeof(a->err));
	for (int i = 0; !ret && i < a->env.nprobes; i++)
		ret = pp_probe_list_add(&a->list, a->env.probes[i], "--probe", a->err,
					sizeof(a->err));
	if (ret)
		return usage_error("%s", a->err);
	ret = add_skb_funcs(a);
	if (ret)
		return ret;
	if (pp_end_points_add(&a->list, a->err, sizeof(a->err)))
		return usage_error("%s", a->err);
	pp_probe_list_resolve(&a->list, a->btf);
	pp_modules_resolve(&a->modules, &a->list, a->btf);
	check_attachable(a);
	return mark_stacks(a);
}

#define PP_WARN_NAMES 40 /* names in the skipped warning; -v lists all */

/* One warning, wrapped under 100 columns; -v gives each line's reason. */
static void warn_skipped(const struct pp_probe_list *l)
{
	size_t n = 0, shown = 0, col;

	for (size_t i = 0; i < l->n; i++)
		n += pp_skip_is_news(&l->v[i]);
	if (!n)
		return;
	col = (size_t)pp_warn("skipped %zu of %zu probe points this kernel "
			      "cannot probe:",
			      n, l->n);
	for (size_t i = 0; i < l->n && (pp_log_debug_on() || shown < PP_WARN_NAMES); i++) {
		if (!pp_skip_is_news(&l->v[i]))
			continue;
		shown++;
		if (pp_log_debug_on()) {
			fprintf(stderr, "\n  %s: %s", l->v[i].name, pp_skip_name(l->v[i].skip));
			continue;
		}
		if (col + strlen(l->v[i].name) + 1 > 99)
			col = (size_t)fprintf(stderr, "\n ");
		col += (size_t)fprintf(stderr, " %s", l->v[i].name);
	}
	if (shown < n)
		fprintf(stderr, "\n  and %zu more (-v lists them)", n - shown);
	fputs("\n", stderr);
}

static int plan(struct app *a)
{
	const struct pp_probe *f = pp_plan_first_func(&a->list);
	const char *why;

	pp_kfacts_backend(&a->facts, a->env.backend, f);
	if (pp_plan_backend(a->env.backend, f != NULL, &a->facts, &a->backend, &why))
		return usage_error("--backend %s: %s", pp_backend_name(a->env.backend), why);
	pp_plan_backend_skips(&a->list, a->backend, a->btf);
	if (a->env.action == PP_ACT_TRACE && !pp_probes_planned(&a->list))
		return usage_error("nothing to trace: none of the %zu probe points of %s can be "
				   "probed here (--list-probes tells why)",
				   a->list.n - 2, a->list_path ? a->list_path : "the command line");
	if (a->env.action == PP_ACT_TRACE)
		warn_skipped(&a->list);
	if (why)
		pp_warn("%s\n", why);
	return 0;
}

static const char *probe_backend(const struct app *a, const struct pp_probe *pr)
{
	if (pr->skip)
		return pp_skip_name(pr->skip);
	return pr->kind == PP_PROBE_TP ? "tracepoint" : pp_backend_name(a->backend);
}

/* The reads' two hooks, as pp_sock_reads_attach() and attach_recv_done() attach them. */
static void list_reads_hooks(const struct app *a)
{
	struct pp_reads_plan r = pp_attacher_reads(a->btf, &a->facts);

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

/*
 * The hooks attached besides the list, and what each costs work that has
 * nothing to do with the packets tracked (bench/host_cost.sh measures it):
 * nothing pktpath attaches goes unnamed here.
 */
static void list_builtin_hooks(const struct app *a)
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
	for (size_t i = 0; i < PP_SEND_CALLS; i++) {
		char enter[40], leave[40];

		snprintf(enter, sizeof(enter), "tp:syscalls:sys_enter_%s", pp_send_calls[i]);
		snprintf(leave, sizeof(leave), "tp:syscalls:sys_exit_%s", pp_send_calls[i]);
		printf("%-36s -      %s: %s\n", enter, state, cost);
		printf("%-36s -      %s: %s\n", leave, state, cost);
	}
}

static int list_probes(const struct app *a)
{
	if (a->env.funcs || !a->list_path)
		printf("# list: %s\n", a->list_path ? a->list_path : "none (--probe only)");
	else if (detail_full(a))
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
static void name_netns(struct app *a, struct pp_out *out)
{
	if (!a->netns)
		return;
	out->netns_name = netns_name;
	out->netns_arg = a->netns;
	out->told = &a->told;
	out->netns_inodes = pp_log_debug_on();
}

/*
 * An interface of pktpath's own namespace by index (if_indextoname()), as
 * it is named now; other namespaces' are not reachable from here. ARG: the
 * inode of pktpath's namespace.
 */
static const char *if_name(__u32 netns, __u32 ifindex, char *buf, void *arg)
{
	return netns && netns == *(__u32 *)arg ? if_indextoname(ifindex, buf) : NULL;
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
static void host_of(struct app *a, struct pp_out *out)
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

static int trace(struct app *a)
{
	struct pp_out out = {.f = stdout,
			     .ops = pp_out_format(a->env.format),
			     .nprobes = a->list.n,
			     .reason_name = reason_name,
			     .sym_name = sym_name,
			     .if_name = if_name};
	struct stat ns;
	__u32 netns = stat("/proc/self/ns/net", &ns) ? 0 : (__u32)ns.st_ino;
	struct pp_trace_cfg cfg = {.out = &out,
				   .json = out.ops->machine,
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
				   .interfaces = a->tc.n};
	int ret;

	a->names = calloc(a->list.n, sizeof(*a->names));
	if (!a->names)
		return PP_EXIT_FAIL;
	for (size_t i = 0; i < a->list.n; i++)
		a->names[i] = a->list.v[i].name;
	out.probe_names = a->names;
	pp_drop_reasons_load(&a->reasons, a->btf);
	/* Where kfree_skb gives no reason (before 5.17), 0 is none, not a name (drop_hint.h). */
	out.reason_arg = a->facts.reasons ? a->reasons : NULL;
	out.sym_arg = a->ksyms;
	out.if_arg = &netns;
	/* --json --snaplen: what `pktpath report` needs for the exports, the same clocks. */
	out.head_bytes = out.ops->machine ? a->env.snaplen : 0;
	out.real_off = a->exports.clock.off;
	if (a->env.nstacks) {
		a->stacks.fd = a->maps.stack_map;
		a->stacks.ksyms = a->ksyms;
		out.stack = pp_stacks_frames;
		out.stack_arg = &a->stacks;
	}
	name_netns(a, &out);
	host_of(a, &out);
	a->exports.out = &out;
	pp_debug("wall-clock times: CLOCK_REALTIME - CLOCK_MONOTONIC "
		 "measured to +-%llu ns\n",
		 (unsigned long long)a->exports.clock.err_ns);
	ret = pp_trace_run(&a->maps, &cfg, &stop) ? PP_EXIT_FAIL : PP_EXIT_OK;
	clock_check(&a->exports.clock);
	if (pp_exports_close(&a->exports, stderr, a->err, sizeof(a->err))) {
		pp_warn("%s\n", a->err);
		ret = PP_EXIT_FAIL;
	}
	return ret;
}

/* Everything depends on it: CO-RE, argument positions, drop reason names. */
static int load_btf(struct app *a)
{
	a->btf = btf__load_vmlinux_btf();
	if (!a->btf)
		return usage_error("no usable kernel BTF (/sys/kernel/btf/vmlinux): %s",
				   strerror(errno));
	return 0;
}

/* The filter and the interfaces: loaded and resolved, nothing attached. */
static int prepare_marking(struct app *a)
{
	struct pp_maps_opts sizes = {.max_packets = a->env.max_packets,
				     .ring_size = a->env.ring_size,
				     .stacks = a->env.nstacks ? PP_STACK_ENTRIES : 0};
	struct pp_cls_opts o = {.expr = a->env.filter,
				.maps = &a->maps,
				.xlate_flags = a->env.no_inner ? 0 : PP_XLATE_INNER,
				.no_fetch = !a->facts.fetch};
	double t0 = now_ms();
	int ret;

	/* Listening first: an interface that comes after the list is still seen. */
	a->following = !a->env.tc_script && !a->env.no_follow && !a->nscope;
	if (a->following && pp_follow_open(&a->follow, &a->tc, a->err, sizeof(a->err))) {
		pp_warn("%s\n", a->err);
		return PP_EXIT_FAIL;
	}
	if (a->nscope)
		ret = pp_scope_tc_open(&a->scope, a->scope_ns, a->nscope, a->env.ifaces,
				       a->env.nifaces, a->err, sizeof(a->err));
	else
		ret = pp_tc_resolve(&a->tc, a->env.ifaces, a->env.nifaces, a->err, sizeof(a->err));
	if (ret)
		return usage_error("%s", a->err);
	ret = pp_maps_create(&a->maps, &sizes);
	if (ret) {
		pp_warn("cannot create the maps: %s\n", strerror(-ret));
		return PP_EXIT_FAIL;
	}
	ret = pp_cls_load(&a->cls, &o, a->err, sizeof(a->err));
	if (ret) {
		pp_warn("%s\n", a->err);
		return ret == -EINVAL || ret == -E2BIG ? PP_EXIT_USAGE : PP_EXIT_FAIL;
	}
	if (a->cls.outer_only)
		pp_warn("the filter fits the verifier's limits only without the "
			"inner view: it matches the outer headers only (as --no-inner)\n");
	pp_debug("filter: %zu classic instructions (%zu libpcap compile%s), %zu "
		 "eBPF; compiled and loaded in %.1f ms\n",
		 a->cls.filter.cbpf_len, a->cls.filter.chunks, a->cls.filter.chunks == 1 ? "" : "s",
		 a->cls.filter.cnt, now_ms() - t0);
	return 0;
}

/*
 * Where pktpath will write (safe_file.h), checked while nothing is
 * attached: a directory others could change is bad input, exit 2.
 */
static int check_outputs(struct app *a)
{
	if (a->env.tc_script &&
	    pp_tc_script_prepare(&a->script, a->env.tc_script, a->err, sizeof(a->err)))
		return usage_error("--tc-script: %s", a->err);
	if (a->env.metrics) {
		a->metrics_fd = pp_metrics_listen(a->env.metrics, a->err, sizeof(a->err));
		if (a->metrics_fd < 0)
			return usage_error("%s", a->err);
	}
	if (pp_exports_open(&a->exports, a->env.exports, a->env.snaplen, "pktpath " PKTPATH_VERSION,
			    a->err, sizeof(a->err)))
		return usage_error("%s", a->err);
	return 0;
}

/* The classifier on the interfaces, or the scripts that put it there. */
static int attach_marking(struct app *a)
{
	if (a->env.tc_script)
		return pp_tc_script_write(&a->script, &a->cls, &a->maps, &a->tc, a->err,
					  sizeof(a->err));
	if (a->nscope)
		return pp_scope_tc_attach(&a->scope, &a->cls, !a->no_tcx, a->err, sizeof(a->err));
	a->tc.tcx = !a->no_tcx;
	return pp_tc_attach(&a->tc, &a->cls, a->err, sizeof(a->err));
}

/*
 * Locally sent packets are marked where IP sends them (ip_output), so
 * their path starts at the socket side, not at TC, with the filter's IP
 * part (pp_attacher_marks()).
 */
static void prepare_probe_marking(struct app *a)
{
	if (!pp_attacher_marks(a->attacher))
		return;
	if (pp_filter_build_l3(&a->l3, a->env.filter, a->err, sizeof(a->err))) {
		pp_warn("packets this host sends are marked at TC only: %s\n", a->err);
		return;
	}
	a->attacher->set.l3 = a->l3.insns;
	a->attacher->set.l3_cnt = a->l3.cnt;
}

/*
 * -v: the time of the attacher's load and attach: open and load the probe
 * object (for fentry and tracepoints, also one program load per probe point)
 * and create every link. Not in it: the setup before it (BTF, probe list,
 * classifier load: "setup", from main()), nor the TC attach after it.
 */
static int attach_probes(struct app *a)
{
	double t0 = now_ms();
	int ret;

	ret = pp_attacher_load(a->attacher, &a->maps, &a->list, a->err, sizeof(a->err));
	if (!ret)
		ret = pp_attacher_attach(a->attacher, &a->list, a->err, sizeof(a->err));
	if (!ret)
		pp_debug("attached %zu probes in %.1f ms (backend %s; setup %.1f ms)\n",
			 pp_attacher_attached(a->attacher), now_ms() - t0,
			 pp_backend_name(a->backend), t0 - a->start_ms);
	return ret;
}

/*
 * Everything is attached: from here on pktpath reads, formats and, at the
 * end, detaches. Keep only what detaching needs (privs.h), for good.
 */
static int drop_privileges(struct app *a)
{
	/* Removing clsact filters needs CAP_NET_ADMIN; so do the attaches to come. */
	bool scope_clsact = pp_scope_tc_clsact(&a->scope) > 0;
	__u64 keep = pp_privs_keep(!a->env.tc_script &&
				   (pp_tc_clsact_count(&a->tc) || a->following || scope_clsact)) |
		     pp_privs_keep_bpf(a->maps.state_map);
	char names[128];

	/* Removing them means entering their namespaces again (setns(2)). */
	if (scope_clsact)
		keep |= 1ULL << CAP_SYS_ADMIN;

	if (pp_privs_drop(keep, a->err, sizeof(a->err)) ||
	    pp_privs_seccomp(a->err, sizeof(a->err))) {
		pp_warn("%s\n", a->err);
		return -1;
	}
	pp_debug("capabilities kept while tracing: %s\n",
		 pp_privs_names(keep, names, sizeof(names)));
	return 0;
}

/*
 * --metrics: the HTTP thread starts once privileges are dropped, so that
 * it has no more capabilities than the reader and runs under its seccomp
 * filter (both are per thread, and inherited by threads created after).
 */
static int start_metrics(struct app *a)
{
	struct pp_mbuild b = {.version = PKTPATH_VERSION,
			      .backend = pp_backend_name(a->backend),
			      .kernel = uname(&a->uts) ? "" : a->uts.release,
			      .start_time = a->start_real};
	size_t top = a->env.metrics_top ? a->env.metrics_top : PP_METRICS_DEF_TOP;
	double idle = a->env.metrics_idle ? a->env.metrics_idle : PP_METRICS_DEF_IDLE;

	if (!a->env.metrics)
		return 0;
	a->metrics = pp_metrics_new(top, idle, &b);
	if (!a->metrics) {
		pp_warn("--metrics: out of memory\n");
		return -1;
	}
	a->http = pp_http_start(a->metrics_fd, a->metrics, a->err, sizeof(a->err));
	if (!a->http) {
		pp_warn("%s\n", a->err);
		return -1;
	}
	a->metrics_fd = -1; /* the server's now */
	return 0;
}

/* Before the follower starts: from then on its thread owns a->tc. */
static void print_ready(struct app *a)
{
	char mode[64];

	if (a->env.tc_script)
		pp_info("packets are marked once %s/attach.sh has run\n", a->env.tc_script);
	size_t nif = a->tc.n + pp_scope_tc_ifaces(&a->scope);

	if (a->nscope) {
		pp_info("ready: backend %s, %zu probes, %zu interface%s in %zu network "
			"namespace%s (scope: hops elsewhere are not recorded)\n",
			pp_backend_name(a->backend), pp_attacher_attached(a->attacher), nif,
			nif == 1 ? "" : "s", a->scope.n, a->scope.n == 1 ? "" : "s");
		return;
	}
	pp_info("ready: backend %s, %zu probes, %zu interface%s (%s)\n",
		pp_backend_name(a->backend), pp_attacher_attached(a->attacher), nif,
		nif == 1 ? "" : "s",
		a->env.tc_script ? "tc script" : pp_tc_mode(&a->tc, mode, sizeof(mode)));
}

/*
 * The probes' settings from the options and the plan; the scope's
 * namespaces: hops elsewhere are not recorded.
 */
static int new_attacher(struct app *a)
{
	struct pp_probe_settings *s;

	a->attacher = pp_attacher_new();
	if (!a->attacher) {
		pp_warn("out of memory\n");
		return PP_EXIT_FAIL;
	}
	s = &a->attacher->set;
	s->backend = a->backend;
	s->send_calls = a->env.send_calls;
	s->all_netns = a->env.all_netns;
	s->stop = &stop;
	for (size_t i = 0; i < a->scope.n && i < PP_SCOPE_MAX; i++)
		s->scope[s->nscope++] = a->scope.v[i].ns.inode;
	pp_attacher_prepare(a->attacher, a->btf, a->ksyms, &a->facts);
	prepare_probe_marking(a);
	return 0;
}

static int attach_and_trace(struct app *a)
{
	if (new_attacher(a))
		return PP_EXIT_FAIL;
	catch_stop_signals();
	if (attach_probes(a) || (!stop && attach_marking(a))) {
		pp_warn("%s\n", a->err);
		return PP_EXIT_FAIL;
	}
	if (stop) /* interrupted while attaching: cleanup() detaches what was done */
		return PP_EXIT_OK;
	/* The last moment a file may be renamed: the directory may need a capability. */
	if (pp_exports_publish(&a->exports, a->err, sizeof(a->err))) {
		pp_warn("%s\n", a->err);
		return PP_EXIT_FAIL;
	}
	if (drop_privileges(a) || start_metrics(a))
		return PP_EXIT_FAIL;
	print_ready(a);
	if (a->following && pp_follow_start(&a->follow, a->err, sizeof(a->err))) {
		pp_warn("%s\n", a->err);
		return PP_EXIT_FAIL;
	}
	return trace(a);
}

/* -v: the time of pp_attacher_destroy(): every link destroyed, every fd and the object closed. */
static void detach_probes(struct app *a)
{
	size_t n = pp_attacher_attached(a->attacher);
	double t0 = now_ms();

	pp_attacher_destroy(a->attacher);
	a->attacher = NULL;
	if (n)
		pp_debug("detached %zu probes in %.1f ms\n", n, now_ms() - t0);
}

static void cleanup(struct app *a)
{
	pp_http_stop(a->http); /* no scrape reads the metrics past this */
	pp_metrics_free(a->metrics);
	if (a->metrics_fd >= 0)
		close(a->metrics_fd);
	pp_follow_close(&a->follow); /* its thread ends first: then the counts are final */
	if (a->following)
		pp_debug("interfaces while tracing: %lu came, %lu went, %lu "
			 "failed, %lu resyncs\n",
			 a->follow.added, a->follow.gone, a->follow.failed, a->follow.resyncs);
	pp_scope_tc_free(&a->scope);
	pp_tc_free(&a->tc);
	pp_tc_script_done(&a->script);
	pp_exports_discard(&a->exports);
	detach_probes(a);
	pp_cls_destroy(&a->cls);
	pp_maps_destroy(&a->maps);
	pp_filter_free(&a->l3);
	pp_probe_list_free(&a->list);
	pp_drop_reasons_free(a->reasons);
	pp_ksyms_free(a->ksyms);
	pp_modules_free(&a->modules);
	btf__free(a->btf);
	free(a->names);
	pp_netns_cache_free(a->netns);
	pp_ns_told_free(&a->told);
	pp_env_free(&a->env);
}

/*
 * --netns and --container: each argument's namespace, before anything is
 * made or attached. The names come from the cache's first scan, which then
 * serves the output too.
 */
static int resolve_scope(struct app *a)
{
	int n = a->env.nnetns + a->env.ncontainers;

	if (!n)
		return 0;
	if (n > PP_SCOPE_MAX)
		return usage_error("--netns and --container: at most %d namespaces in a scope",
				   PP_SCOPE_MAX);
	if (a->env.tc_script)
		return usage_error("--tc-script and --netns/--container: the scripts attach in "
				   "pktpath's own namespace only");
	a->netns = pp_netns_cache_new("/");
	for (int i = 0; i < n; i++) {
		bool ctr = i >= a->env.nnetns;
		const char *arg = ctr ? a->env.containers[i - a->env.nnetns] : a->env.netns[i];

		if (pp_scope_resolve(a->netns, "", arg, ctr, &a->scope_ns[a->nscope], a->err,
				     sizeof(a->err)))
			return usage_error("%s", a->err);
		a->nscope++;
	}
	return 0;
}

static int run(struct app *a)
{
	int ret;

	switch (a->env.action) {
	case PP_ACT_HELP:
		pp_cli_usage(stdout);
		return PP_EXIT_OK;
	case PP_ACT_VERSION:
		printf("pktpath %s\n", PKTPATH_VERSION);
		return PP_EXIT_OK;
	case PP_ACT_CHECK:
		return pp_check(stdout);
	case PP_ACT_TEST_PCAP:
		ret = check_caps();
		return ret ? ret
			   : pp_test_pcap(a->env.filter, !a->env.no_inner, a->env.test_pcap, stdout,
					  stderr);
	default:
		break;
	}
	ret = check_caps();
	if (!ret && a->env.action == PP_ACT_TRACE)
		ret = resolve_scope(a);
	if (!ret && a->env.action == PP_ACT_TRACE)
		ret = check_outputs(a);
	if (!ret)
		ret = load_btf(a);
	if (!ret)
		pp_kfacts_programs(&a->facts, a->btf);
	if (!ret && a->env.action == PP_ACT_TRACE)
		ret = prepare_marking(a);
	if (!ret)
		ret = load_list(a);
	if (!ret)
		ret = plan(a);
	if (ret)
		return ret;
	if (a->env.action == PP_ACT_LIST_PROBES)
		return list_probes(a);
	/*
	 * The first scan while every capability is there: /proc/PID/ns/net of
	 * a process with more capabilities than pktpath keeps is refused
	 * (ptrace_may_access()); the rescans name what they can then.
	 */
	if (!a->netns)
		a->netns = pp_netns_cache_new("/");
	return attach_and_trace(a);
}

/*
 * A single kprobe or fentry probe holds two fds (program or perf event, and
 * link): --all-skb-funcs needs thousands, past the usual soft limit of 1024.
 */
static void raise_fd_limit(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

int main(int argc, char **argv)
{
	struct app a = {.start_ms = now_ms(), .metrics_fd = -1};
	struct timespec rt;
	int ret;

	clock_gettime(CLOCK_REALTIME, &rt);
	a.start_real = (double)rt.tv_sec + (double)rt.tv_nsec / 1e9;

	/* The environment is read here only: the rest of pktpath takes values. */
	pp_safe_file_set_trusted_uid(pp_safe_file_invoking_uid(getenv("SUDO_UID")));
	/* PKTPATH_NO_TCX=1 takes clsact where tcx exists too (tests, old tools). */
	a.no_tcx = getenv("PKTPATH_NO_TCX") != NULL;
	ret = pp_cli_parse(&a.env, argc, argv, stderr);
	if (ret) {
		pp_env_free(&a.env);
		return ret;
	}
	/* A command of its own: no BPF, no root. */
	if (a.env.report && a.env.action == PP_ACT_HELP)
		pp_cli_report_usage(stdout);
	else if (a.env.report)
		ret = pp_report_main(&a.env);
	if (a.env.report)
		return ret;
	pp_log_setup(a.env.verbose, NULL);
	raise_fd_limit();
	pp_log_libbpf();
	early_signals();
	ret = run(&a);
	cleanup(&a);
	return ret;
}
