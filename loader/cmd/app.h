/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace run's state, from the command line to the detach, shared by the
 * files that do one step each: app_probes.c (the probe list and the plan),
 * app_list_probes.c (--list-probes), app_marking.c (the scope, the filter
 * and the classifier), app_trace.c (the output files and the ring loop's
 * output), app_attach.c (attach, drop privileges, trace, detach),
 * app_agent.c (--agent: the drop counter instead of all of these); app.c
 * holds what they share and frees it all, main.c says which steps run.
 */
#ifndef PP_APP_H
#define PP_APP_H

#include <signal.h>
#include <sys/utsname.h>
#include "cmd/hook_cache.h"
#include "cmd/cli.h"
#include "filter/classifier.h"
#include "kernel/cgroup_scope.h"
#include "cmd/command.h"
#include "output/drop_places.h"
#include "output/exports.h"
#include "output/output.h"
#include "probes/drop_count.h"
#include "probes/kfacts.h"
#include "probes/module_btf.h"
#include "probes/probe_list.h"
#include "probes/stacks.h"
#include "tc/tc_follow.h"
#include "tc/tc_scope.h"
#include "tc/tc_script.h"

#ifndef PKTPATH_VERSION
#define PKTPATH_VERSION "dev"
#endif
#ifndef PKTPATH_DATADIR
#define PKTPATH_DATADIR "/usr/local/share/pktpath"
#endif

struct btf;
struct pp_attacher;
struct pp_drop_reasons;
struct pp_ksyms;
struct pp_netns_cache;
struct pp_metrics;
struct pp_http;
struct pp_out;

struct pp_app {
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
	struct pp_cgroup_scope cgroup; /* --cgroup, --pid, -- COMMAND's; id 0: none */
	struct pp_command command;     /* -- COMMAND */
	struct pp_follow follow;       /* interfaces that come and go, if following */
	bool following;
	bool no_tcx;	     /* PKTPATH_NO_TCX */
	struct pp_maps maps; /* shared by the classifier, the probes and the loop */
	struct pp_cls cls;
	struct pp_filter l3;	      /* the filter for marking in probes */
	struct pp_filter l2;	      /* --verdicts: the filter for XDP's frames */
	struct pp_attacher *attacher; /* the probes: new -> prepare -> load -> attach -> destroy */
	struct pp_tc_script script;
	struct pp_exports exports; /* --pcapng, --perfetto */
	struct pp_drop_reasons *reasons;
	struct pp_ksyms *ksyms;
	struct pp_stacks stacks;
	const char **names;	  /* the probes' by index, room for --verdicts' rescans */
	struct pp_out *trace_out; /* the trace loop's output, while it runs */
	struct pp_kfacts facts;	  /* what the plan (plan.h) decides on */
	enum pp_backend backend;
	struct pp_netns_cache *netns; /* namespaces by name */
	struct pp_ns_told told;	      /* the namespaces the text has described */
	struct pp_hook_cache hooks;   /* the programs at a TC or XDP drop's hook */
	double start_ms;	      /* main() entered */
	double start_real;	      /* the same, seconds since the epoch */
	char host[256];		      /* JSON's host.name */
	char boot_id[40];	      /* and host.boot_id, "" if unreadable */
	int metrics_fd;		      /* --metrics: the listening socket */
	struct pp_metrics *metrics;
	struct pp_http *http;
	struct pp_drop_count drops; /* --agent: the counter */
	struct pp_agent {
		struct pp_out out; /* the drops' names */
		struct pp_drop_places places;
		__u32 not_specified; /* SKB_DROP_REASON_NOT_SPECIFIED's value */
	} agent;
	struct utsname uts;
	char err[512];
};

/* Set by Ctrl-C, SIGTERM, SIGHUP (once caught) and a closed stdout: the run ends. */
extern volatile sig_atomic_t pp_app_stop;
/* The pid of -- COMMAND while it runs and has had no Ctrl-C; 0 otherwise. */
extern volatile sig_atomic_t pp_app_command_pid;

/* app.c */
/* CLOCK_MONOTONIC in ms, for the -v timings of attach and detach. */
double pp_app_now_ms(void);
/* Says FMT on stderr (one line) and returns PP_EXIT_USAGE: bad input. */
int pp_app_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pp_app_signals_early(void);
void pp_app_signals_catch(void);
/* Everything made or attached, undone; A's memory freed. */
void pp_app_free(struct pp_app *a);

/* app_probes.c: the probe list, the kernel's facts for it, the backend. */
bool pp_app_probes_full(const struct pp_app *a);
int pp_app_probes_load(struct pp_app *a);
int pp_app_probes_plan(struct pp_app *a);

/* app_list_probes.c */
int pp_app_list_probes(const struct pp_app *a);

/* app_marking.c: where and how packets are marked. */
int pp_app_marking_scope(struct pp_app *a);
int pp_app_marking_prepare(struct pp_app *a);
int pp_app_marking_attach(struct pp_app *a);
void pp_app_marking_probes(struct pp_app *a);
/* --verdicts: the filter for the frames XDP programs take before any skb. */
void pp_app_marking_frames(struct pp_app *a);

/* app_trace.c: what the run writes, and the loop that writes it. */
int pp_app_trace_files(struct pp_app *a);
/* OUT's names: drop reasons (loaded here), kernel symbols, namespaces. */
void pp_app_out_names(struct pp_app *a, struct pp_out *out);
int pp_app_trace(struct pp_app *a);

/* app_attach.c: attach, drop privileges, trace; detach. */
int pp_app_attach_run(struct pp_app *a);
void pp_app_attach_destroy(struct pp_app *a);
/* Every capability but KEEP dropped for good, and the seccomp filter: 0 or -1 (said). */
int pp_app_drop_privileges(struct pp_app *a, __u64 keep);
/* --metrics, if given: the table and its HTTP thread. 0 or -1 (said). */
int pp_app_metrics_start(struct pp_app *a);

/*
 * app_agent.c: --agent's drop counter. Without a filter, a run of its own
 * (pp_app_agent_run()); with one, started beside the trace, whose loop
 * reads it (pp_app_agent_read()) into --metrics each second.
 */
int pp_app_agent_run(struct pp_app *a);
int pp_app_agent_start(struct pp_app *a);
void pp_app_agent_read(struct pp_app *a, __u64 now);
void pp_app_agent_free(struct pp_app *a);

#endif /* PP_APP_H */
