// SPDX-License-Identifier: GPL-2.0
/*
 * From the plan to the trace: the probes attached, then the classifier;
 * the export files put in place, privileges dropped, --metrics started,
 * the ready line, the ring loop; and at the end the probes detached.
 */
#include <stdio.h>
#include <string.h>
#include <linux/capability.h>
#include "cmd/app.h"
#include "kernel/privs.h"
#include "metrics/metrics.h"
#include "metrics/metrics_http.h"
#include "probes/attacher.h"
#include "probes/plan.h"
#include "tc/tc_attach.h"
#include "base/log.h"

/* Which other programs' verdicts are recorded, and which cannot be. */
/* stdout's buffer while a command shares it (pp_app_attach_run()). */
static char pp_line_buf[1 << 20];

static void say_verdicts(const struct pp_verdicts *vs)
{
	char names[256] = "";
	size_t at = 0;

	for (size_t i = 0; i < vs->n && at < sizeof(names); i++)
		if (vs->v[i].on)
			at += (size_t)snprintf(names + at, sizeof(names) - at, "%s%s",
					       at ? ", " : "",
					       vs->v[i].label + strlen(PP_VERDICT_PREFIX));
	if (vs->attached)
		pp_info("recording the verdicts of %zu BPF program%s of others: %s\n", vs->attached,
			vs->attached == 1 ? "" : "s", names);
	if (vs->no_btf)
		pp_info("%zu TC program%s without BTF: %s verdicts are not recorded (-v names "
			"them)\n",
			vs->no_btf, vs->no_btf == 1 ? "" : "s", vs->no_btf == 1 ? "its" : "their");
}

/*
 * -v: the time of the attacher's load and attach: open and load the probe
 * object (for fentry and tracepoints, also one program load per probe point)
 * and create every link. Not in it: the setup before it (BTF, probe list,
 * classifier load: "setup", from main()), nor the TC attach after it.
 */
static int attach_probes(struct pp_app *a)
{
	double t0 = pp_app_now_ms();
	int ret;

	ret = pp_attacher_load(a->attacher, &a->maps, &a->list, a->err, sizeof(a->err));
	if (!ret)
		ret = pp_attacher_attach(a->attacher, &a->list, a->err, sizeof(a->err));
	if (!ret)
		say_verdicts(pp_attacher_verdicts(a->attacher));
	if (!ret)
		pp_debug("attached %zu probes in %.1f ms (backend %s; setup %.1f ms)\n",
			 pp_attacher_attached(a->attacher), pp_app_now_ms() - t0,
			 pp_backend_name(a->backend), t0 - a->start_ms);
	return ret;
}

/*
 * Everything is attached: from here on pktpath reads, formats and, at the
 * end, detaches. Keep only what detaching needs (privs.h), for good.
 */
int pp_app_drop_privileges(struct pp_app *a, __u64 keep)
{
	char names[128];

	if (pp_privs_drop(keep, a->err, sizeof(a->err)) ||
	    pp_privs_seccomp(a->err, sizeof(a->err))) {
		pp_warn("%s\n", a->err);
		return -1;
	}
	pp_debug("capabilities kept while tracing: %s\n",
		 pp_privs_names(keep, names, sizeof(names)));
	return 0;
}

static int drop_privileges(struct pp_app *a)
{
	/* Removing clsact filters needs CAP_NET_ADMIN; so do the attaches to come. */
	bool scope_clsact = pp_scope_tc_clsact(&a->scope) > 0;
	__u64 keep = pp_privs_keep(!a->env.tc_script &&
				   (pp_tc_clsact_count(&a->tc) || a->following || scope_clsact)) |
		     pp_privs_keep_bpf(a->maps.state_map);

	/* Removing them means entering their namespaces again (setns(2)). */
	if (scope_clsact)
		keep |= 1ULL << CAP_SYS_ADMIN;
	/* Removing -- COMMAND's cgroup: the cgroup root's directory is read-only (0555). */
	if (a->env.command)
		keep |= 1ULL << CAP_DAC_OVERRIDE;
	/*
	 * A cgroup scope names the process of each packet's socket from the
	 * fds in /proc/PID/fd (names/sock_owner.h): reading another process's
	 * needs it where that one has capabilities pktpath no longer has (the
	 * seccomp filter still refuses ptrace(2) and writes to other processes).
	 */
	if (a->cgroup.id)
		keep |= 1ULL << CAP_SYS_PTRACE;
	/* --verdicts: programs loaded later are found by id and get an fexit (verdicts.h). */
	if (a->attacher->set.verdicts)
		keep |= 1ULL << CAP_SYS_ADMIN | 1ULL << CAP_BPF | 1ULL << CAP_PERFMON;
	return pp_app_drop_privileges(a, keep);
}

/*
 * --metrics: the HTTP thread starts once privileges are dropped, so that
 * it has no more capabilities than the reader and runs under its seccomp
 * filter (both are per thread, and inherited by threads created after).
 */
int pp_app_metrics_start(struct pp_app *a)
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
	/* --agent: drops are the kernel's counts, not the followed packets'. */
	a->metrics->kernel_drops = a->env.agent;
	a->http = pp_http_start(a->metrics_fd, a->metrics, a->err, sizeof(a->err));
	if (!a->http) {
		pp_warn("%s\n", a->err);
		return -1;
	}
	a->metrics_fd = -1; /* the server's now */
	return 0;
}

/* Before the follower starts: from then on its thread owns a->tc. */
static void print_ready(struct pp_app *a)
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
static int new_attacher(struct pp_app *a)
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
	s->verdicts = a->env.verdicts;
	s->verdict_anchor = pp_cls_prog_fd(&a->cls, 0);
	s->frame_anchor = pp_cls_frame_anchor_fd(&a->cls);
	s->all_netns = a->env.all_netns;
	s->stop = &pp_app_stop;
	for (size_t i = 0; i < a->scope.n && i < PP_SCOPE_MAX; i++)
		s->cfg.scope_netns[s->cfg.scope_n++] = a->scope.v[i].ns.inode;
	pp_attacher_prepare(a->attacher, a->btf, a->ksyms, &a->facts);
	if (a->env.verdicts && !s->verdicts)
		pp_warn("--verdicts: this kernel has no BPF trampolines (fentry): other BPF "
			"programs' verdicts are not recorded\n");
	pp_app_marking_probes(a);
	pp_app_marking_frames(a);
	return 0;
}

/*
 * -- COMMAND: pktpath's exit status is the command's, once the run went
 * well; a command that still runs (pktpath stopped first) leaves RET.
 */
static int command_status(struct pp_app *a, int ret)
{
	int status;

	if (!a->env.command || ret != PP_EXIT_OK)
		return ret;
	status = pp_command_exit_status(&a->command);
	if (status < 0)
		pp_warn("-- %s: still running (pid %d)\n", a->env.command[0], (int)a->command.pid);
	return status < 0 ? ret : status;
}

/* -- COMMAND: forked, held until pp_command_go(). */
static int fork_command(struct pp_app *a)
{
	int ret;

	if (!a->env.command)
		return 0;
	/*
	 * The command writes to pktpath's stdout too: each line of ours goes
	 * out in one write (up to 1 MiB), never cut by one of its. The buffer
	 * is given: glibc's setvbuf() keeps a NULL buffer's size at the file's
	 * block size (4 KiB), and a JSON line with many hops is longer.
	 */
	setvbuf(stdout, pp_line_buf, _IOLBF, sizeof(pp_line_buf));
	ret = pp_command_fork(&a->command);
	if (ret) {
		pp_warn("-- %s: cannot start it: %s\n", a->env.command[0], strerror(-ret));
		return PP_EXIT_FAIL;
	}
	return 0;
}

int pp_app_attach_run(struct pp_app *a)
{
	if (new_attacher(a))
		return PP_EXIT_FAIL;
	pp_app_signals_catch();
	if (attach_probes(a) || (!pp_app_stop && pp_app_marking_attach(a)) ||
	    (!pp_app_stop && a->env.agent && pp_app_agent_start(a))) {
		pp_warn("%s\n", a->err);
		return PP_EXIT_FAIL;
	}
	if (pp_app_stop) /* interrupted while attaching: pp_app_free() detaches what was done */
		return PP_EXIT_OK;
	/* The last moment a file may be renamed: the directory may need a capability. */
	if (pp_exports_publish(&a->exports, a->err, sizeof(a->err))) {
		pp_warn("%s\n", a->err);
		return PP_EXIT_FAIL;
	}
	/* Forked while pktpath may still exec and write its cgroup's files. */
	if (fork_command(a) || drop_privileges(a) || pp_app_metrics_start(a))
		return PP_EXIT_FAIL;
	print_ready(a);
	if (a->following && pp_follow_start(&a->follow, a->err, sizeof(a->err))) {
		pp_warn("%s\n", a->err);
		return PP_EXIT_FAIL;
	}
	if (a->env.command) {
		pp_app_command_pid = a->command.pid;
		pp_command_go(&a->command);
	}
	return command_status(a, pp_app_trace(a));
}

/* -v: the time of pp_attacher_destroy(): every link destroyed, every fd and the object closed. */
void pp_app_attach_destroy(struct pp_app *a)
{
	size_t n = pp_attacher_attached(a->attacher);
	double t0 = pp_app_now_ms();

	pp_attacher_destroy(a->attacher);
	a->attacher = NULL;
	if (n)
		pp_debug("detached %zu probes in %.1f ms\n", n, pp_app_now_ms() - t0);
}
