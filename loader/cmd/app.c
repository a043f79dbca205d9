// SPDX-License-Identifier: GPL-2.0
/*
 * What a trace run's steps share (app.h): the stop flag and the signals
 * that set it, the clock of -v's timings, bad input's message; and the
 * end of every run, whatever step it reached.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "cmd/app.h"
#include "names/netns_names.h"
#include "metrics/metrics.h"
#include "metrics/metrics_http.h"
#include "paths/drop_reason.h"
#include "kernel/ksyms.h"
#include "base/log.h"

volatile sig_atomic_t pp_app_stop;
volatile sig_atomic_t pp_app_command_pid;

/* CLOCK_MONOTONIC in ms, for the -v timings of attach and detach. */
double pp_app_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * While -- COMMAND runs, the first Ctrl-C is the command's (the terminal
 * sent it both): its end ends the run. SIGTERM goes on to it.
 */
static void on_signal(int sig)
{
	pid_t cmd = (pid_t)pp_app_command_pid;

	if (cmd && sig == SIGINT) {
		pp_app_command_pid = 0;
		return;
	}
	if (cmd && sig == SIGTERM)
		kill(cmd, SIGTERM);
	pp_app_stop = 1;
}

/*
 * A closed stdout ends the run cleanly instead of killing it. Ctrl-C and
 * SIGTERM end pktpath even where its parent ignores them (a shell without
 * job control starts "cmd &" with SIGINT ignored), as they did when the
 * handler was installed from the start.
 */
void pp_app_signals_early(void)
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
void pp_app_signals_catch(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int pp_app_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pp_vwarn(fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	return PP_EXIT_USAGE;
}

void pp_app_free(struct pp_app *a)
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
	pp_app_attach_destroy(a);
	pp_command_free(&a->command);
	pp_app_agent_free(a);
	pp_cls_destroy(&a->cls);
	pp_maps_destroy(&a->maps);
	pp_filter_free(&a->l3);
	pp_filter_free(&a->l2);
	pp_probe_list_free(&a->list);
	pp_drop_reasons_free(a->reasons);
	pp_ksyms_free(a->ksyms);
	pp_modules_free(&a->modules);
	btf__free(a->btf);
	free(a->names);
	pp_netns_cache_free(a->netns);
	pp_hook_reader_stop(&a->hooks.reader);
	pp_ns_told_free(&a->told);
	pp_env_free(&a->env);
}
