// SPDX-License-Identifier: GPL-2.0
/* The command line -> struct pp_env, as the rows of cli_options.c say. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "cmd/cli.h"
#include "output/output.h"
#include "probes/plan.h"
#include "pktpath.h"

#define PP_DEF_MAX_PACKETS 16384
#define PP_DEF_RING_SIZE   (8u << 20)
#define PP_OPT_BASE	   256 /* getopt_long's value for row I: PP_OPT_BASE + I */

/* One parse: what the rows write to, and who chose the mode. */
struct parse {
	struct pp_env *env;
	FILE *err;
	const char *verb; /* the rows': NULL, or "report" */
	const char *name; /* before each error: "pktpath", "pktpath report" */
	char mode_by[40]; /* the option or command that set env->action */
};

/* Digits only: no sign, no space, no suffix, no overflow. */
static int parse_ull(const char *s, unsigned long long min, unsigned long long max,
		     unsigned long long *out)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || *end || *out < min || *out > max)
		return -EINVAL;
	return 0;
}

/* Seconds above 0 (or from 0: ZERO), in [MIN, MAX]: no sign, no inf, no nan. */
static int parse_seconds(const char *s, double min, double max, bool zero, double *out)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*out = strtod(s, &end);
	if (errno || *end || !isfinite(*out) || *out < 0 || (*out == 0 && !zero) || *out < min ||
	    *out > max)
		return -EINVAL;
	return 0;
}

/* BYTES with an optional K or M suffix; a power of two, 4 KiB .. 1 GiB. */
static int parse_size(const char *s, unsigned int *out)
{
	unsigned long long v, mult = 1;
	char buf[32];
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n + 1);
	if (buf[n - 1] == 'K' || buf[n - 1] == 'k' || buf[n - 1] == 'M' || buf[n - 1] == 'm') {
		mult = (buf[n - 1] == 'K' || buf[n - 1] == 'k') ? 1024 : 1024 * 1024;
		buf[n - 1] = 0;
	}
	if (parse_ull(buf, 1, 1ULL << 30, &v) || v * mult > (1ULL << 30) || v * mult < 4096)
		return -EINVAL;
	v *= mult;
	if (v & (v - 1))
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

static int parse_backend(const char *s, enum pp_backend *b)
{
	for (size_t i = 0; i < PP_BACKEND_COUNT; i++) {
		if (!strcmp(s, pp_backends[i].name)) {
			*b = (enum pp_backend)i;
			return 0;
		}
	}
	return -EINVAL;
}

static char *join_args(int n, char **args)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < n; i++)
		len += strlen(args[i]) + 1;
	s = calloc(1, len);
	for (int i = 0; s && i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, args[i]);
	}
	return s;
}

static int bad(const struct parse *p, const char *fmt, const char *what)
{
	fprintf(p->err, "%s: ", p->name);
	fprintf(p->err, fmt, what);
	fputs("\n", p->err);
	return PP_EXIT_USAGE;
}

/* An unknown backend: the error, then the names it could have been. */
static int bad_backend(const struct parse *p, const char *fmt, const char *what)
{
	char names[128];

	pp_backend_list(names, sizeof(names), ", ");
	fprintf(p->err, "%s: ", p->name);
	fprintf(p->err, fmt, what);
	fprintf(p->err, " (%s)\n", names);
	return PP_EXIT_USAGE;
}

/*
 * --list-probes, --test-pcap and --check (and their commands) each do one
 * thing instead of tracing: two of them are an error, not the last one
 * winning. --help and --version win over any.
 */
static int set_mode(struct parse *p, enum pp_action act, const char *by)
{
	struct pp_env *env = p->env;

	if (env->action == PP_ACT_HELP || env->action == PP_ACT_VERSION || env->action == act)
		return 0;
	if (env->action != PP_ACT_TRACE) {
		fprintf(p->err, "pktpath: %s and %s are different modes: give one of them\n",
			p->mode_by, by);
		return PP_EXIT_USAGE;
	}
	env->action = act;
	snprintf(p->mode_by, sizeof(p->mode_by), "%s", by);
	return 0;
}

static int add_ptr(struct parse *p, const struct pp_cli_opt *o, const char *arg)
{
	const char **arr = (const char **)((char *)p->env + o->field);
	int *n = (int *)((char *)p->env + o->count);

	if (*n >= (int)o->max)
		return bad(p, o->bad, arg);
	arr[(*n)++] = arg;
	return 0;
}

/* A number option: whole (ULL, UINT) or seconds. */
static int set_number(struct parse *p, const struct pp_cli_opt *o, const char *arg)
{
	void *at = (char *)p->env + o->field;
	unsigned long long v;

	if (o->kind == PP_OPT_SECONDS || o->kind == PP_OPT_SECONDS0)
		return parse_seconds(arg, o->min, o->max, o->kind == PP_OPT_SECONDS0, at)
			       ? bad(p, o->bad, arg)
			       : 0;
	if (parse_ull(arg, (unsigned long long)o->min, (unsigned long long)o->max, &v))
		return bad(p, o->bad, arg);
	if (o->kind == PP_OPT_ULL)
		*(unsigned long long *)at = v;
	else
		*(unsigned int *)at = (unsigned int)v;
	return 0;
}

/* A filter option: a copy of ARG, in place of the one an earlier option gave. */
static int set_filter(struct parse *p, char **at, const char *arg)
{
	free(*at);
	*at = strdup(arg);
	return *at ? 0 : bad(p, "%s", "out of memory");
}

/* Row O with argument ARG (NULL if it takes none), given as BY. */
static int apply(struct parse *p, const struct pp_cli_opt *o, const char *arg, const char *by)
{
	void *at = (char *)p->env + o->field;

	switch (o->kind) {
	case PP_OPT_FLAG:
		*(bool *)at = true;
		return 0;
	case PP_OPT_COUNT:
		(*(int *)at)++;
		return 0;
	case PP_OPT_FORMAT:
		*(const char **)at = o->name;
		return 0;
	case PP_OPT_STR:
		*(const char **)at = arg;
		return 0;
	case PP_OPT_FILTER:
		return set_filter(p, at, arg);
	case PP_OPT_LIST:
		return add_ptr(p, o, arg);
	case PP_OPT_ULL:
	case PP_OPT_UINT:
	case PP_OPT_SECONDS:
	case PP_OPT_SECONDS0:
		return set_number(p, o, arg);
	case PP_OPT_SIZE:
		return parse_size(arg, at) ? bad(p, o->bad, arg) : 0;
	case PP_OPT_BACKEND:
		return parse_backend(arg, at) ? bad_backend(p, o->bad, arg) : 0;
	case PP_OPT_MODE:
		if (o->metavar)
			*(const char **)at = arg;
		return set_mode(p, o->action, by);
	case PP_OPT_ACTION:
		p->env->action = o->action;
		return 0;
	}
	return bad(p, "%s", "unknown option (see --help)");
}

/* How many of V's words ARGV[I...] has in order: all, or fewer. */
static size_t verb_words(const struct pp_cli_verb *v, int argc, char **argv, int i, size_t *nwords)
{
	const char *w = v->words;
	size_t seen = 0, len;

	*nwords = 0;
	for (; *w; w += len + (w[len] == ' ')) {
		len = strcspn(w, " ");
		(*nwords)++;
		if (seen + 1 == *nwords && i + (int)seen < argc && strlen(argv[i + seen]) == len &&
		    !strncmp(argv[i + seen], w, len))
			seen++;
	}
	return seen;
}

/*
 * A command at ARGV[*I]: 1 if that word is none (it starts the filter),
 * 0 once applied with *I past it, 2 after an error. A command's first word
 * without the rest is an error, not a filter: "filter" alone is a typo.
 */
static int take_verb(struct parse *p, int argc, char **argv, int *i)
{
	for (size_t k = 0; k < pp_cli_nverbs; k++) {
		const struct pp_cli_verb *v = &pp_cli_verbs[k];
		const char *m = v->metavar ? v->metavar : "";
		size_t n, seen = verb_words(v, argc, argv, *i, &n);
		int at = *i + (int)seen;

		if (!seen)
			continue;
		if (seen < n || (v->metavar && at >= argc)) {
			fprintf(p->err,
				"pktpath: \"%s\" is a command: %s%s%s (a filter that starts "
				"with that word goes after --)\n",
				argv[*i], v->words, v->metavar ? " " : "", m);
			return PP_EXIT_USAGE;
		}
		*i = at + (v->metavar ? 1 : 0);
		return apply(p, pp_cli_opt_find(v->option), v->metavar ? argv[at] : NULL, v->words);
	}
	return 1;
}

/* Two exports to one file: pktpath's and report's check. */
static bool same_exports(const struct pp_env *env)
{
	for (size_t i = 0; i < PP_EXPORTS; i++)
		for (size_t j = 0; j < i; j++)
			if (env->exports[i] && env->exports[j] &&
			    !strcmp(env->exports[i], env->exports[j]))
				return true;
	return false;
}

/* Some export file is asked for. */
static bool any_export(const struct pp_env *env)
{
	for (size_t i = 0; i < PP_EXPORTS; i++)
		if (env->exports[i])
			return true;
	return false;
}

/* Some export file that writes the packets' bytes (its row's flag) is asked for. */
static bool any_export_of_bytes(const struct pp_env *env)
{
	for (size_t i = 0; i < PP_EXPORTS; i++)
		if (env->exports[i] && pp_export_ops_of((enum pp_export_kind)i)->bytes)
			return true;
	return false;
}

/*
 * The export options as their rows name them, in BUF: "--pcapng and
 * --perfetto" (LAST before the last one); with BYTES, those whose files
 * hold the packets' bytes only.
 */
static const char *export_options(char *buf, size_t len, const char *last, bool bytes)
{
	size_t m = 0, i = 0;

	for (size_t k = 0; k < PP_EXPORTS; k++)
		m += !bytes || pp_export_ops_of((enum pp_export_kind)k)->bytes;
	buf[0] = 0;
	for (size_t k = 0; k < PP_EXPORTS; k++) {
		const struct pp_export_ops *ops = pp_export_ops_of((enum pp_export_kind)k);

		if (bytes && !ops->bytes)
			continue;
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 !i ? "" : (i == m - 1 ? last : ", "), ops->option);
		i++;
	}
	return buf;
}

/* The export files and --snaplen, the bytes they keep. */
static int check_exports(const struct parse *p)
{
	const struct pp_env *env = p->env;
	char x[128];

	if (any_export(env) && env->action != PP_ACT_TRACE)
		return bad(p, "%s are for tracing: not with --test-pcap, --list-probes or --check",
			   export_options(x, sizeof(x), " and ", false));
	if (env->snaplen && !any_export_of_bytes(env) && !pp_out_format(env->format)->machine)
		return bad(p, "--snaplen is for %s or --json",
			   export_options(x, sizeof(x), " or ", true));
	if (same_exports(env))
		return bad(p, "%s need two different files",
			   export_options(x, sizeof(x), " and ", false));
	return 0;
}

/* --summary and --metrics, and the options that tune them. */
static int check_summary(const struct parse *p)
{
	const struct pp_env *env = p->env;

	if (env->interval && !env->summary)
		return bad(p, "%s", "--interval goes with --summary");
	if (env->packets && !env->summary && !env->metrics)
		return bad(p, "%s", "--packets goes with --summary or --metrics");
	if ((env->metrics_top || env->metrics_idle) && !env->metrics)
		return bad(p, "%s", "--metrics-top and --metrics-idle go with --metrics");
	if (env->metrics && env->action != PP_ACT_TRACE)
		return bad(p, "%s",
			   "--metrics is for tracing: not with --test-pcap, --list-probes or "
			   "--check");
	if (env->summary && (env->action == PP_ACT_TEST_PCAP || env->action == PP_ACT_LIST_PROBES ||
			     env->action == PP_ACT_CHECK))
		return bad(
			p, "%s",
			"--summary is for tracing: not with --test-pcap, --list-probes or --check");
	return 0;
}

/* The scope: -- COMMAND's cgroup (run as -u), or --cgroup, --unit or --pid's. */
static int check_scope(const struct parse *p)
{
	const struct pp_env *env = p->env;

	if (env->user && !env->command)
		return bad(p, "%s", "-u goes with -- COMMAND: the user the command runs as");
	if (env->command && !env->command[0])
		return bad(p, "%s",
			   "-- wants a command after it: pktpath [OPTIONS] -- COMMAND [ARGS]");
	if (env->command && (env->cgroup || env->unit || env->pid || env->tc_script || env->agent))
		return bad(p, "%s",
			   "-- COMMAND traces the command's own cgroup: not with --cgroup, --unit, "
			   "--pid, --tc-script or --agent");
	if (env->command && env->action != PP_ACT_TRACE)
		return bad(p, "%s",
			   "-- COMMAND is for tracing: not with --test-pcap, --list-probes or "
			   "--check");
	if (env->pid_only && !env->pid)
		return bad(p, "%s",
			   "--pid-only goes with --pid: the process whose sockets are kept");
	if (!!env->cgroup + !!env->unit + !!env->pid > 1)
		return bad(p, "%s", "--cgroup, --unit and --pid each name the cgroup: one of them");
	if ((env->cgroup || env->unit || env->pid) && env->action != PP_ACT_TRACE)
		return bad(p, "%s",
			   "--cgroup, --unit and --pid are for tracing: not with --test-pcap, "
			   "--list-probes or --check");
	return 0;
}

/* Options that do not go together, or not with the mode: the first found is the error. */
static int check_conflicts(const struct parse *p)
{
	const struct pp_env *env = p->env;
	int ret;

	if (env->action == PP_ACT_TEST_PCAP && (env->count || env->duration || env->nifaces))
		return bad(p, "%s",
			   "--test-pcap traces nothing: -c, --duration and -i do not apply");
	if (env->tc_script && env->action != PP_ACT_TRACE)
		return bad(p, "%s",
			   "--tc-script is for tracing: not with --test-pcap, --list-probes "
			   "or --check");
	ret = check_exports(p);
	if (!ret)
		ret = check_summary(p);
	if (ret)
		return ret;
	if (env->detail && strcmp(env->detail, "short") && strcmp(env->detail, "full"))
		return bad(p, "--detail wants short or full: \"%s\"", env->detail);
	if (env->detail && env->funcs)
		return bad(p, "%s", "--detail and --funcs both choose the probe list: one of them");
	ret = check_scope(p);
	if (ret)
		return ret;
	if (env->action == PP_ACT_LIST_PROBES && (env->count || env->duration))
		return bad(p, "%s",
			   "--list-probes attaches nothing: -c and --duration do not apply");
	return 0;
}

/*
 * --agent counts every drop; with a filter it also follows the matching
 * packets' paths for --metrics, sampled (--max-rate, PP_AGENT_RATE by
 * default). What prints or saves packets does not apply.
 */
static int check_agent(const struct parse *p)
{
	struct pp_env *env = p->env;

	if (!env->agent)
		return 0;
	if (env->action != PP_ACT_TRACE)
		return bad(
			p, "%s",
			"--agent is for tracing: not with --test-pcap, --list-probes or --check");
	if (env->summary || env->packets || any_export(env) || env->count || env->nstacks ||
	    env->tc_script || pp_out_format(env->format)->machine)
		return bad(p, "%s",
			   "--agent prints no packet: --summary, --packets, --json, -c, --stack, "
			   "--tc-script and the exports do not apply");
	if (env->filter[0] && !env->metrics)
		return bad(p, "%s",
			   "--agent with a filter follows paths for --metrics: give --metrics");
	if (env->filter[0]) {
		if (!env->max_rate && !env->cpu_budget)
			env->max_rate = PP_AGENT_RATE;
		return 0;
	}
	if (env->max_rate || env->cpu_budget || env->nnetns || env->ncontainers || env->cgroup ||
	    env->unit || env->pid || env->nifaces || env->funcs || env->detail || env->nprobes ||
	    env->probe_regex || env->all_skb_funcs || env->send_calls || env->verdicts ||
	    env->backend != PP_BACKEND_AUTO)
		return bad(p, "%s",
			   "--agent without a filter attaches one program, at skb:kfree_skb: "
			   "--max-rate, --cpu-budget, -i, --netns, --container, --cgroup, --unit, "
			   "--pid, "
			   "--backend and the probe list's options are for paths (give a filter)");
	return 0;
}

/* The rows of VERB (NULL: pktpath's own) are the ones its parse and usage read. */
static bool row_is(const struct pp_cli_opt *o, const char *verb)
{
	return !o->verb == !verb && (!verb || !strcmp(o->verb, verb));
}

/* getopt_long's tables from the rows of P's verb; NULL when out of memory. */
static struct option *getopt_tables(const struct parse *p, char **shorts)
{
	size_t n = 0;

	struct option *longs = calloc(pp_cli_nopts + 1, sizeof(*longs));
	char *s = *shorts = calloc(2 * pp_cli_nopts + 2, 1);

	if (!longs || !s) {
		free(longs);
		free(*shorts);
		return NULL;
	}
	/* pktpath's: stop at the first word, a command or the filter; report's files mix in. */
	if (!p->verb)
		*s++ = '+';
	for (size_t i = 0; i < pp_cli_nopts; i++) {
		const struct pp_cli_opt *o = &pp_cli_opts[i];
		int has_arg = o->metavar ? required_argument : no_argument;

		if (!row_is(o, p->verb))
			continue;
		longs[n++] = (struct option){o->name, has_arg, NULL, PP_OPT_BASE + (int)i};
		if (o->short_name)
			s += sprintf(s, "%c%s", o->short_name, o->metavar ? ":" : "");
	}
	return longs;
}

static const struct pp_cli_opt *row_of(const struct parse *p, int opt)
{
	for (size_t i = 0; opt < PP_OPT_BASE && i < pp_cli_nopts; i++)
		if (pp_cli_opts[i].short_name == opt && row_is(&pp_cli_opts[i], p->verb))
			return &pp_cli_opts[i];
	return &pp_cli_opts[opt - PP_OPT_BASE];
}

/*
 * Options and commands, up to the first other word: the filter, from
 * ARGV[optind] on. More options may follow a command; a second command is
 * a second mode (an error unless the same). "--" and what follows it are
 * not here: the command to run (command_split()).
 */
static int parse_args(struct parse *p, int argc, char **argv, const char *shorts,
		      const struct option *longs)
{
	char by[40];
	int opt, before, ret;

	optind = 0; /* 0, not 1: glibc forgets a half-read "-vx" of an earlier parse */
	opterr = 0;
	for (;;) {
		before = optind ? optind : 1;
		opt = getopt_long(argc, argv, shorts, longs, NULL);
		if (opt == -1) {
			if (optind >= argc || optind != before)
				return 0;
			ret = take_verb(p, argc, argv, &optind);
			if (ret == 1)
				return 0;
		} else if (opt == '?' || opt == ':') {
			return bad(p, "bad option \"%s\" (see --help)", argv[optind - 1]);
		} else {
			snprintf(by, sizeof(by), "--%s", row_of(p, opt)->name);
			ret = apply(p, row_of(p, opt), optarg, by);
		}
		if (ret)
			return ret;
	}
}

/*
 * report's options, its files mixed in (getopt moves them to the end).
 * getopt says what is wrong with an option itself, after ARGV[0]; --help
 * ends the parse: nothing after it is read.
 */
static int parse_report_args(struct parse *p, int argc, char **argv, const char *shorts,
			     const struct option *longs)
{
	static char self[] = "pktpath report"; /* getopt's messages begin with argv[0] */
	const struct pp_cli_opt *o;
	int opt, ret;

	argv[0] = self;
	optind = 0;
	opterr = 1;
	while ((opt = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		if (opt == '?' || opt == ':')
			return bad(p, "%s", "see pktpath report --help");
		o = row_of(p, opt);
		ret = apply(p, o, optarg, o->name);
		if (ret || o->kind == PP_OPT_ACTION)
			return ret;
	}
	return 0;
}

/*
 * report's files: one is read, several are joined (report_hosts.h); what
 * the one-file report does is for one file. No export asked for: the
 * summary.
 */
static int take_files(struct parse *p, int argc, char **argv)
{
	struct pp_env *env = p->env;
	char x[128];

	if (env->action == PP_ACT_HELP)
		return 0;
	if (optind == argc)
		return bad(p, "%s", "which file? pktpath report FILE (--help)");
	env->files = argv + optind;
	env->nfiles = argc - optind;
	if (env->nfiles > 1 && (env->summary || any_export(env) || env->snaplen))
		return bad(p,
			   "--summary, %s and --snaplen read one file; with several, report "
			   "joins them",
			   export_options(x, sizeof(x), ", ", false));
	if (env->nfiles > 1)
		return 0;
	if (env->window >= 0 || env->tolerance >= 0)
		return bad(p, "%s", "--window and --clock-tolerance join several files");
	if (env->snaplen && !any_export_of_bytes(env))
		return bad(p, "--snaplen is for %s", export_options(x, sizeof(x), " or ", true));
	if (same_exports(env))
		return bad(p, "%s need two different files",
			   export_options(x, sizeof(x), " and ", false));
	if (!any_export(env))
		env->summary = true;
	return 0;
}

/* The words after the options (and command) are the filter. */
static int take_filter(struct parse *p, int argc, char **argv)
{
	struct pp_env *env = p->env;

	if (optind < argc) {
		if (env->filter)
			return bad(p, "%s", "give the filter either with --filter or as arguments");
		env->filter = join_args(argc - optind, argv + optind);
	} else if (!env->filter) {
		env->filter = strdup("");
	}
	return env->filter ? 0 : bad(p, "%s", "out of memory");
}

/*
 * "--" and what follows: the command to run (-- COMMAND [ARGS]), NULL-ended
 * as ARGV is. The words before it are parsed: returns their count.
 */
static int command_split(struct pp_env *env, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			env->command = argv + i + 1;
			return i;
		}
	}
	return argc;
}

/* pktpath's options, commands and filter. */
static int parse_main(struct parse *p, int argc, char **argv, const char *shorts,
		      const struct option *longs)
{
	int ret = parse_args(p, argc, argv, shorts, longs);

	if (!ret)
		ret = take_filter(p, argc, argv);
	if (!ret)
		ret = check_conflicts(p);
	if (!ret)
		ret = check_agent(p);
	return ret;
}

/* `pktpath report`, from ARGV[0] = "report" on: its options and files. */
static int parse_report(struct parse *p, int argc, char **argv, const char *shorts,
			const struct option *longs)
{
	int ret;

	p->env->window = -1;
	p->env->tolerance = -1;
	ret = parse_report_args(p, argc, argv, shorts, longs);
	return ret ? ret : take_files(p, argc, argv);
}

int pp_cli_parse(struct pp_env *env, int argc, char **argv, FILE *err)
{
	struct parse p = {.env = env, .err = err, .name = "pktpath"};
	struct option *longs;
	char *shorts;
	int ret;

	memset(env, 0, sizeof(*env));
	env->packet_timeout = 1.0;
	env->format = "text";
	env->max_packets = PP_DEF_MAX_PACKETS;
	env->ring_size = PP_DEF_RING_SIZE;
	/* A command of its own options: only as the first word. */
	env->report = argc > 1 && !strcmp(argv[1], "report");
	if (env->report) {
		p.verb = "report";
		p.name = "pktpath report";
	}
	longs = getopt_tables(&p, &shorts);
	if (!longs)
		return bad(&p, "%s", "out of memory");
	if (env->report)
		ret = parse_report(&p, argc - 1, argv + 1, shorts, longs);
	else
		ret = parse_main(&p, command_split(env, argc, argv), argv, shorts, longs);
	free(longs);
	free(shorts);
	return ret;
}

void pp_env_free(struct pp_env *env)
{
	free(env->filter);
	env->filter = NULL;
}
