// SPDX-License-Identifier: GPL-2.0
/*
 * pktpath: open -> configure -> load -> attach -> trace -> detach. Every
 * check that bad input can fail runs before anything is attached, and exits
 * with status 2. This file says which steps each command runs; the steps
 * are in app_*.c (app.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <bpf/btf.h>
#include "cmd/app.h"
#include "cmd/check_kernel.h"
#include "cmd/report.h"
#include "filter/test_pcap.h"
#include "names/netns_names.h"
#include "base/safe_file.h"
#include "base/log.h"

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
		return pp_app_usage_error("cannot read this process's capabilities: %s",
					  strerror(errno));
	bpf = has_cap(d, CAP_BPF) || has_cap(d, CAP_SYS_ADMIN);
	perf = has_cap(d, CAP_PERFMON) || has_cap(d, CAP_SYS_ADMIN);
	if (!bpf || !perf || !has_cap(d, CAP_NET_ADMIN))
		return pp_app_usage_error("needs root, or CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN");
	return 0;
}

/* Everything depends on it: CO-RE, argument positions, drop reason names. */
static int load_btf(struct pp_app *a)
{
	a->btf = btf__load_vmlinux_btf();
	if (!a->btf)
		return pp_app_usage_error("no usable kernel BTF (/sys/kernel/btf/vmlinux): %s",
					  strerror(errno));
	return 0;
}

/* --agent: the metrics' port, BTF and the kernel's facts, then the counter. */
static int run_agent(struct pp_app *a)
{
	int ret = pp_app_trace_files(a);

	if (!ret)
		ret = load_btf(a);
	if (ret)
		return ret;
	pp_kfacts_programs(&a->facts, a->btf);
	return pp_app_agent_run(a);
}

/* --test-pcap: the filter run in the kernel, which takes the capabilities. */
static int run_test_pcap(struct pp_app *a)
{
	int ret = check_caps();

	return ret ? ret
		   : pp_test_pcap(a->env.filter, !a->env.no_inner, a->env.test_pcap, stdout,
				  stderr);
}

/*
 * Tracing and --list-probes: what the probes need (tracing's scope and
 * files, BTF, the kernel's facts, tracing's filter and interfaces), then
 * the probes loaded and planned.
 */
static int load_probes(struct pp_app *a)
{
	bool trace = a->env.action == PP_ACT_TRACE;
	int ret = trace ? pp_app_marking_scope(a) : 0;

	if (!ret && trace)
		ret = pp_app_trace_files(a);
	if (!ret)
		ret = load_btf(a);
	if (!ret)
		pp_kfacts_programs(&a->facts, a->btf);
	if (!ret && trace)
		ret = pp_app_marking_prepare(a);
	if (!ret)
		ret = pp_app_probes_load(a);
	if (!ret)
		ret = pp_app_probes_plan(a);
	return ret;
}

static int run(struct pp_app *a)
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
		return run_test_pcap(a);
	default:
		break;
	}
	ret = check_caps();
	/* Before anything is opened or loaded: it holds none of it (hook_progs.h). */
	if (!ret && a->env.action == PP_ACT_TRACE && pp_hook_reader_start(&a->hooks.reader))
		pp_debug("no reader of the programs at TC and XDP hooks: drops there name none\n");
	if (!ret && a->env.agent && !a->env.filter[0])
		return run_agent(a);
	if (!ret)
		ret = load_probes(a);
	if (ret)
		return ret;
	if (a->env.action == PP_ACT_LIST_PROBES)
		return pp_app_list_probes(a);
	/*
	 * The first scan while every capability is there: /proc/PID/ns/net of
	 * a process with more capabilities than pktpath keeps is refused
	 * (ptrace_may_access()); the rescans name what they can then.
	 */
	if (!a->netns)
		a->netns = pp_netns_cache_new("/");
	return pp_app_attach_run(a);
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
	struct pp_app a = {.start_ms = pp_app_now_ms(), .metrics_fd = -1, .hooks.reader.fd = -1};
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
	pp_app_signals_early();
	ret = run(&a);
	pp_app_free(&a);
	return ret;
}
