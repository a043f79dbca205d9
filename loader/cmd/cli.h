/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command line -> struct pp_env, for pktpath and each of its commands
 * (`pktpath report` too): one option table, one parser, one usage
 * generator. No side effects: Check tests call it.
 */
#ifndef PP_CLI_H
#define PP_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "output/exports.h"
#include "probes/settings.h"

#define PP_MAX_IFACES 64
#define PP_MAX_EXTRA  256
#define PP_AGENT_RATE 100 /* --agent with a filter: new paths a second, unless --max-rate */

/*
 * pktpath's exit status, every command's (report's too): 0 done, 1 a
 * failure while working (or --check: this kernel cannot trace), 2 bad usage
 * or input, refused before anything is attached.
 */
enum pp_exit {
	PP_EXIT_OK = 0,
	PP_EXIT_FAIL = 1,
	PP_EXIT_USAGE = 2,
};

enum pp_action {
	PP_ACT_TRACE,
	PP_ACT_LIST_PROBES,
	PP_ACT_TEST_PCAP,
	PP_ACT_CHECK,
	PP_ACT_HELP,
	PP_ACT_VERSION,
};

struct pp_env {
	enum pp_action action;
	char *filter; /* malloc()ed; "" matches everything */
	const char *ifaces[PP_MAX_IFACES];
	int nifaces;
	const char *funcs;		  /* --funcs, NULL: search */
	const char *detail;		  /* --detail: "short" (NULL) or "full" */
	const char *probes[PP_MAX_EXTRA]; /* --probe lines */
	int nprobes;
	const char *stacks[PP_MAX_EXTRA]; /* --stack: probe points whose hops carry a stack */
	int nstacks;
	const char *probe_regex; /* --probe-regex: skb functions in BTF that match */
	bool all_netns;		 /* --all-netns */
	const char *netns[16];	 /* --netns: the scope's namespaces (PP_SCOPE_MAX) */
	int nnetns;
	const char *containers[16]; /* --container: the scope's containers */
	int ncontainers;
	const char
		*cgroup;  /* --cgroup: the cgroup v2 directory whose sockets' packets are marked */
	const char *unit; /* --unit: a systemd unit, its cgroup as --cgroup */
	unsigned int pid; /* --pid: that of process PID; 0: none */
	bool pid_only;	  /* --pid-only: only PID's own sockets, not its cgroup's */
	char **command;	  /* -- COMMAND [ARGS]: run it, trace its packets; NULL: none */
	const char *user; /* -u: the command's user; NULL: pktpath's */
	const char *host_name; /* --host-name: JSON's host.name; NULL: gethostname() */
	bool all_skb_funcs;    /* --all-skb-funcs */
	bool send_calls;       /* --send-calls: the syscall tracepoints */
	bool verdicts;	       /* --verdicts: fexit on other TC and XDP programs */
	enum pp_backend backend;
	/* The output format by name: a row of output_formats.c ("text"; --json: "json"). */
	const char *format;
	bool summary;		     /* --summary: distinct paths at exit */
	bool packets;		     /* --packets: with --summary, each packet too */
	double interval;	     /* --interval: seconds between summaries, 0: at exit only */
	unsigned long long count;    /* 0: no limit */
	double duration;	     /* seconds, 0: no limit */
	double packet_timeout;	     /* seconds */
	unsigned int max_packets;    /* skb_map entries */
	unsigned long long max_rate; /* --max-rate: new paths a second at most, 0: all */
	double cpu_budget;	     /* --cpu-budget: percent of one CPU, 0: none */
	unsigned int ring_size;	     /* bytes */
	const char *test_pcap;
	const char *tc_script; /* --tc-script DIR */
	/* The export files (--pcapng FILE, --perfetto FILE), by enum pp_export_kind; NULL: none. */
	const char *exports[PP_EXPORTS];
	unsigned int snaplen;	  /* --snaplen: bytes kept per packet in --pcapng, 0: all */
	bool no_follow;		  /* --no-follow: no interface attached after start */
	bool no_inner;		  /* --no-inner: the filter sees the outer headers only */
	const char *metrics;	  /* --metrics [ADDR:]PORT */
	bool agent;		  /* --agent: every drop counted, no packet followed */
	unsigned int metrics_top; /* --metrics-top: paths, drop places with series; 0: default */
	double metrics_idle; /* --metrics-idle: seconds before an idle series goes; 0: default */
	int verbose;
	/*
	 * `pktpath report FILE...`: its rows (verb "report") write here, and to
	 * summary, format, exports and snaplen above.
	 */
	bool report;
	char **files; /* the saved --json files, pointers into argv */
	int nfiles;
	double window, tolerance; /* --window, --clock-tolerance (seconds), -1: not given */
};

/* How a row of the option table stores its argument in struct pp_env. */
enum pp_opt_kind {
	PP_OPT_FLAG,	 /* bool: true */
	PP_OPT_COUNT,	 /* int: one more each time */
	PP_OPT_FORMAT,	 /* const char *: the option's name, an output format's (output.h) */
	PP_OPT_STR,	 /* const char *: the argument */
	PP_OPT_FILTER,	 /* char *: a copy of the argument */
	PP_OPT_LIST,	 /* const char *[max], its int count at .count: appended */
	PP_OPT_ULL,	 /* unsigned long long: digits, in [min, max] */
	PP_OPT_UINT,	 /* unsigned int: digits, in [min, max] */
	PP_OPT_SECONDS,	 /* double: above 0, in [min, max] */
	PP_OPT_SECONDS0, /* double: 0 or above, in [min, max] */
	PP_OPT_SIZE,	 /* unsigned int: a power of two, 4K to 1024M, K or M suffix */
	PP_OPT_BACKEND,	 /* enum pp_backend, by name */
	PP_OPT_MODE,	 /* action: instead of tracing (the argument, if any, at .field) */
	PP_OPT_ACTION,	 /* action: --help or --version, which win over any mode */
};

/*
 * One option, one row: the parser and --help are made from it; the man
 * page's option list and the bash completion are checked against it
 * (tests/unit/test_cli.c), in the same order.
 */
struct pp_cli_opt {
	const char *name;    /* long name, without "--" */
	char short_name;     /* 0: none */
	const char *metavar; /* the argument in --help; NULL: takes none */
	enum pp_opt_kind kind;
	size_t field;	       /* offsetof(struct pp_env, ...) */
	size_t count;	       /* PP_OPT_LIST: offsetof its count */
	double min, max;       /* numbers; PP_OPT_LIST: max entries (min unused) */
	enum pp_action action; /* PP_OPT_MODE, PP_OPT_ACTION */
	const char *bad;       /* the error for a bad argument; %s: the argument */
	const char *help;      /* --help text, "\n" between its lines */
	const char *verb;      /* NULL: pktpath's own; "report": pktpath report's */
};

/*
 * A command, bpftool-style: WORDS as the first argument that is not an
 * option stand for OPTION (with its argument, METAVAR, after them).
 */
struct pp_cli_verb {
	const char *words;   /* "check", "filter test" */
	const char *option;  /* long name of the mode option it stands for */
	const char *metavar; /* NULL: none */
};

extern const struct pp_cli_opt pp_cli_opts[];
extern const size_t pp_cli_nopts;
extern const struct pp_cli_verb pp_cli_verbs[];
extern const size_t pp_cli_nverbs;

const struct pp_cli_opt *pp_cli_opt_find(const char *name);

/*
 * Parse ARGV into ENV. Returns 0, or 2 (bad usage) after writing one line to
 * ERR. ENV holds pointers into ARGV; free it with pp_env_free().
 */
int pp_cli_parse(struct pp_env *env, int argc, char **argv, FILE *err);
void pp_env_free(struct pp_env *env);
void pp_cli_usage(FILE *f);
void pp_cli_report_usage(FILE *f);

/* A backend's name, from its row (pp_backends[], probes/plan.h). */
const char *pp_backend_name(enum pp_backend b);
/* The names in the table's order, LAST_SEP before the last one: "auto, ... or tracepoint". */
void pp_backend_list(char *buf, size_t len, const char *last_sep);

#endif
