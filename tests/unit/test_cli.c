// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "suites.h"
#include "cmd/cli.h"
#include "probes/plan.h"
#include "paths/fate.h"
#include "output/output.h"
#include "metrics/metrics.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

/* Parse ARGV (NULL-terminated); the first line of stderr goes to MSG. */
static int parse(struct pp_env *env, char **argv, char *msg, size_t len)
{
	FILE *err = fmemopen(msg, len, "w");
	int argc = 0, ret;

	while (argv[argc])
		argc++;
	ret = pp_cli_parse(env, argc, argv, err);
	fclose(err);
	return ret;
}

START_TEST(test_filter_from_args)
{
	char *argv[] = {"pktpath", "-c", "5", "icmp", "and", "src", "198.18.0.1", NULL};
	struct pp_env env;
	char msg[256] = "";

	ck_assert_int_eq(parse(&env, argv, msg, sizeof(msg)), 0);
	ck_assert_str_eq(env.filter, "icmp and src 198.18.0.1");
	ck_assert_uint_eq(env.count, 5);
	ck_assert_int_eq(env.action, PP_ACT_TRACE);
	ck_assert(env.packet_timeout == 1.0);
	pp_env_free(&env);
}
END_TEST

START_TEST(test_defaults_and_options)
{
	char *argv[] = {"pktpath",     "-f",	    "udp",	    "-i",     "eth0",	     "-i",
			"eth1",	       "--backend", "kprobe-multi", "--json", "--duration",  "2.5",
			"--ring-size", "64K",	    "--probe",	    "ip_rcv", "--all-netns", NULL};
	struct pp_env env;
	char msg[256] = "";

	ck_assert_int_eq(parse(&env, argv, msg, sizeof(msg)), 0);
	ck_assert(env.all_netns);
	ck_assert_str_eq(env.filter, "udp");
	ck_assert_int_eq(env.nifaces, 2);
	ck_assert_str_eq(env.ifaces[1], "eth1");
	ck_assert_int_eq(env.backend, PP_BACKEND_KPROBE_MULTI);
	ck_assert_str_eq(env.format, "json");
	ck_assert(env.duration == 2.5);
	ck_assert_uint_eq(env.ring_size, 65536);
	ck_assert_str_eq(env.probes[0], "ip_rcv");
	pp_env_free(&env);
}
END_TEST

static void expect_usage(char **argv, const char *words)
{
	struct pp_env env;
	char msg[256] = "";

	ck_assert_int_eq(parse(&env, argv, msg, sizeof(msg)), 2);
	ck_assert_msg(strstr(msg, words), "\"%s\" lacks \"%s\"", msg, words);
	ck_assert_msg(strchr(msg, '\n') == strrchr(msg, '\n'), "more than one line: %s", msg);
	pp_env_free(&env);
}

START_TEST(test_bad_numbers)
{
	char *c1[] = {"pktpath", "-c", "12abc", NULL};
	char *c2[] = {"pktpath", "-c", "-1", NULL};
	char *c3[] = {"pktpath", "-c", "0", NULL};
	char *d1[] = {"pktpath", "--duration", "1e99", NULL};
	char *d2[] = {"pktpath", "--duration", "nan", NULL};
	char *t0[] = {"pktpath", "--packet-timeout", "0", NULL};
	char *r1[] = {"pktpath", "--ring-size", "3000", NULL};
	char *r2[] = {"pktpath", "--ring-size", "2G", NULL};
	char *m0[] = {"pktpath", "--max-packets", "99999999999", NULL};

	expect_usage(c1, "12abc");
	expect_usage(c2, "-c wants");
	expect_usage(c3, "-c wants");
	expect_usage(d1, "--duration");
	expect_usage(d2, "--duration");
	expect_usage(t0, "--packet-timeout");
	expect_usage(r1, "power of two");
	expect_usage(r2, "--ring-size");
	expect_usage(m0, "--max-packets");
}
END_TEST

START_TEST(test_conflicts_and_unknown)
{
	char *both[] = {"pktpath", "-f", "icmp", "udp", NULL};
	char *pcap[] = {"pktpath", "--test-pcap", "x.pcap", "-c", "3", NULL};
	char *list[] = {"pktpath", "--list-probes", "--duration", "3", NULL};
	char *backend[] = {"pktpath", "--backend", "ebpf", NULL};
	char *opt[] = {"pktpath", "--frobnicate", NULL};
	char *missing[] = {"pktpath", "-i", NULL};
	char *detail[] = {"pktpath", "--detail", "most", NULL};
	char *detail_funcs[] = {"pktpath", "--detail", "full", "--funcs", "x.list", NULL};

	expect_usage(detail, "--detail wants short or full: \"most\"");
	expect_usage(detail_funcs, "--detail and --funcs both");
	expect_usage(both, "either with --filter or as arguments");
	expect_usage(pcap, "--test-pcap traces nothing");
	expect_usage(list, "--list-probes attaches nothing");
	expect_usage(backend, "unknown backend \"ebpf\"");
	expect_usage(opt, "--frobnicate");
	expect_usage(missing, "-i");
}
END_TEST

/* Two modes are an error, whichever comes first; --help wins over any. */
START_TEST(test_modes)
{
	char *list_check[] = {"pktpath", "--list-probes", "--check", NULL};
	char *check_pcap[] = {"pktpath", "--check", "--test-pcap", "x.pcap", NULL};
	char *twice[] = {"pktpath", "--check", "--check", NULL};
	char *help[] = {"pktpath", "--check", "--help", "--list-probes", NULL};
	char msg[256];
	struct pp_env env;

	expect_usage(list_check, "--list-probes and --check are different modes");
	expect_usage(check_pcap, "--check and --test-pcap are different modes");
	ck_assert_int_eq(parse(&env, twice, msg, sizeof(msg)), 0);
	ck_assert_int_eq(env.action, PP_ACT_CHECK);
	pp_env_free(&env);
	ck_assert_int_eq(parse(&env, help, msg, sizeof(msg)), 0);
	ck_assert_int_eq(env.action, PP_ACT_HELP);
	pp_env_free(&env);
}
END_TEST

/* --summary and the options that go with it. */
START_TEST(test_summary_options)
{
	char *ok[] = {"pktpath", "--summary", "--interval", "2.5", "--packets", "udp", NULL};
	char *iv0[] = {"pktpath", "--summary", "--interval", "0.01", NULL};
	char *alone[] = {"pktpath", "--interval", "5", NULL};
	char *pk[] = {"pktpath", "--packets", NULL};
	char *lp[] = {"pktpath", "--summary", "--list-probes", NULL};
	struct pp_env env;
	char msg[256] = "";

	ck_assert_int_eq(parse(&env, ok, msg, sizeof(msg)), 0);
	ck_assert(env.summary);
	ck_assert(env.packets);
	ck_assert(env.interval == 2.5);
	ck_assert_str_eq(env.filter, "udp");
	pp_env_free(&env);
	expect_usage(iv0, "--interval wants seconds");
	expect_usage(alone, "goes with --summary");
	expect_usage(pk, "goes with --summary");
	expect_usage(lp, "--summary is for tracing");
}
END_TEST

/* --agent counts drops; a filter adds sampled paths for --metrics; nothing is printed per packet.
 */
START_TEST(test_agent_options)
{
	char *ok[] = {"pktpath", "--agent", "--metrics", "9464", "--duration", "5", NULL};
	char *paths[] = {"pktpath", "--agent", "--metrics", "9464", "udp", NULL};
	char *rate[] = {"pktpath", "--agent", "--metrics", "9464", "--max-rate", "7", "udp", NULL};
	char *filter[] = {"pktpath", "--agent", "udp", NULL};
	char *summary[] = {"pktpath", "--agent", "--summary", NULL};
	char *json[] = {"pktpath", "--agent", "--json", NULL};
	char *backend[] = {"pktpath", "--agent", "--backend", "kprobe", NULL};
	char *norate[] = {"pktpath", "--agent", "--max-rate", "7", NULL};
	char *list[] = {"pktpath", "--agent", "--list-probes", NULL};
	struct pp_env env;
	char msg[256] = "";

	ck_assert_int_eq(parse(&env, ok, msg, sizeof(msg)), 0);
	ck_assert(env.agent);
	ck_assert_str_eq(env.filter, "");
	ck_assert_uint_eq(env.max_rate, 0);
	pp_env_free(&env);
	ck_assert_int_eq(parse(&env, paths, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(env.max_rate, PP_AGENT_RATE);
	pp_env_free(&env);
	ck_assert_int_eq(parse(&env, rate, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(env.max_rate, 7);
	pp_env_free(&env);
	expect_usage(filter, "give --metrics");
	expect_usage(summary, "--agent prints no packet: --summary");
	expect_usage(json, "--agent prints no packet");
	expect_usage(backend, "are for paths (give a filter)");
	expect_usage(norate, "are for paths (give a filter)");
	expect_usage(list, "--agent is for tracing");
}
END_TEST

/* Parse ARGV, which must succeed, into ENV (free it). */
static void parse_ok(struct pp_env *env, char **argv)
{
	char msg[256] = "";

	ck_assert_msg(parse(env, argv, msg, sizeof(msg)) == 0, "%s: %s", argv[1], msg);
}

/* The commands are the mode options; a word before makes them filter words. */
START_TEST(test_verbs)
{
	char *check[] = {"pktpath", "-v", "check", NULL};
	char *probes[] = {"pktpath", "probes", "--probe-regex", "^tcp_v4_", NULL};
	char *ftest[] = {"pktpath", "filter", "test", "x.pcap", "-v", "tcp", "port", "80", NULL};
	char *dashes[] = {"pktpath", "--", "check", NULL};
	char *host[] = {"pktpath", "host", "check", NULL};
	char *after[] = {"pktpath", "-c", "3", "icmp", "check", NULL};
	char *again[] = {"pktpath", "check", "--check", "check", NULL};
	char *help[] = {"pktpath", "probes", "--help", "check", NULL};
	struct pp_env env;

	parse_ok(&env, check);
	ck_assert_int_eq(env.action, PP_ACT_CHECK);
	ck_assert_int_eq(env.verbose, 1);
	ck_assert_str_eq(env.filter, "");
	pp_env_free(&env);
	parse_ok(&env, probes);
	ck_assert_int_eq(env.action, PP_ACT_LIST_PROBES);
	ck_assert_str_eq(env.probe_regex, "^tcp_v4_");
	pp_env_free(&env);
	parse_ok(&env, ftest);
	ck_assert_int_eq(env.action, PP_ACT_TEST_PCAP);
	ck_assert_str_eq(env.test_pcap, "x.pcap");
	ck_assert_str_eq(env.filter, "tcp port 80");
	ck_assert_int_eq(env.verbose, 1);
	pp_env_free(&env);
	parse_ok(&env, dashes);
	ck_assert_int_eq(env.action, PP_ACT_TRACE);
	ck_assert_str_eq(env.filter, "");
	ck_assert_str_eq(env.command[0], "check");
	pp_env_free(&env);
	parse_ok(&env, host);
	ck_assert_int_eq(env.action, PP_ACT_TRACE);
	ck_assert_str_eq(env.filter, "host check");
	pp_env_free(&env);
	parse_ok(&env, after);
	ck_assert_int_eq(env.action, PP_ACT_TRACE);
	ck_assert_str_eq(env.filter, "icmp check");
	pp_env_free(&env);
	parse_ok(&env, again);
	ck_assert_int_eq(env.action, PP_ACT_CHECK);
	ck_assert_str_eq(env.filter, "");
	pp_env_free(&env);
	parse_ok(&env, help);
	ck_assert_int_eq(env.action, PP_ACT_HELP);
	pp_env_free(&env);
}
END_TEST

/* "--" ends pktpath's words: the rest is the command to run, as given. */
START_TEST(test_command)
{
	char *run[] = {"pktpath", "-c", "3", "udp", "--", "curl", "-s", "--", "x", NULL};
	char *none[] = {"pktpath", "udp", "--", NULL};
	char *pid[] = {"pktpath", "--pid", "5", "--", "curl", NULL};
	char *check[] = {"pktpath", "check", "--", "probes", NULL};
	char *user[] = {"pktpath", "-u", "nobody", "udp", NULL};
	char msg[256] = "";
	struct pp_env env;

	parse_ok(&env, run);
	ck_assert_str_eq(env.filter, "udp");
	ck_assert_uint_eq(env.count, 3);
	ck_assert_str_eq(env.command[0], "curl");
	ck_assert_str_eq(env.command[2], "--");
	ck_assert_str_eq(env.command[3], "x");
	ck_assert_ptr_null(env.command[4]);
	pp_env_free(&env);
	ck_assert_int_eq(parse(&env, none, msg, sizeof(msg)), 2);
	ck_assert_ptr_nonnull(strstr(msg, "-- wants a command"));
	pp_env_free(&env);
	ck_assert_int_eq(parse(&env, pid, msg, sizeof(msg)), 2);
	ck_assert_ptr_nonnull(strstr(msg, "not with --cgroup, --unit, --pid"));
	pp_env_free(&env);
	ck_assert_int_eq(parse(&env, check, msg, sizeof(msg)), 2);
	ck_assert_ptr_nonnull(strstr(msg, "-- COMMAND is for tracing"));
	pp_env_free(&env);
	ck_assert_int_eq(parse(&env, user, msg, sizeof(msg)), 2);
	ck_assert_ptr_nonnull(strstr(msg, "-u goes with -- COMMAND"));
	pp_env_free(&env);
}
END_TEST

/* tcpdump's own first words stay filters. */
START_TEST(test_filters_not_verbs)
{
	char *a[] = {"pktpath", "host", "1.2.3.4", NULL};
	char *b[] = {"pktpath", "icmp", NULL};
	char *c[] = {"pktpath", "-i", "eth0", "tcp", "port", "443", NULL};
	char *d[] = {"pktpath", "not", "udp", NULL};
	char **all[] = {a, b, c, d};
	const char *want[] = {"host 1.2.3.4", "icmp", "tcp port 443", "not udp"};
	struct pp_env env;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		parse_ok(&env, all[i]);
		ck_assert_int_eq(env.action, PP_ACT_TRACE);
		ck_assert_str_eq(env.filter, want[i]);
		pp_env_free(&env);
	}
}
END_TEST

/* Two modes, by command or option in any order, are exit 2; so is half a command. */
START_TEST(test_verb_conflicts)
{
	char *c1[] = {"pktpath", "check", "--list-probes", NULL};
	char *c2[] = {"pktpath", "--test-pcap", "x.pcap", "probes", NULL};
	char *c3[] = {"pktpath", "check", "probes", NULL};
	char *c4[] = {"pktpath", "probes", "filter", "test", "x.pcap", NULL};
	char *h1[] = {"pktpath", "filter", NULL};
	char *h2[] = {"pktpath", "filter", "host", "1.2.3.4", NULL};
	char *h3[] = {"pktpath", "-v", "filter", "test", NULL};
	char *n1[] = {"pktpath", "filter", "test", "x.pcap", "-c", "3", NULL};
	char *n2[] = {"pktpath", "probes", "--duration", "3", NULL};
	char *n3[] = {"pktpath", "check", "--summary", NULL};
	char *n4[] = {"pktpath", "check", "--tc-script", "/tmp/x", NULL};

	expect_usage(c1, "check and --list-probes are different modes");
	expect_usage(c2, "--test-pcap and probes are different modes");
	expect_usage(c3, "check and probes are different modes");
	expect_usage(c4, "probes and filter test are different modes");
	expect_usage(h1, "\"filter\" is a command: filter test FILE");
	expect_usage(h2, "goes after --");
	expect_usage(h3, "filter test FILE");
	expect_usage(n1, "--test-pcap traces nothing");
	expect_usage(n2, "--list-probes attaches nothing");
	expect_usage(n3, "--summary is for tracing");
	expect_usage(n4, "--tc-script is for tracing");
}
END_TEST

/* Every row parses as its kind says: a value in range lands in its field. */
START_TEST(test_rows_parse)
{
	char *argv[] = {"pktpath",
			"--snaplen",
			"128",
			"--pcapng",
			"a",
			"--max-packets",
			"4194304",
			"--packet-timeout",
			"3600",
			"-vv",
			"--stack",
			"ip_rcv",
			"--stack",
			"tp:net:net_dev_queue",
			"--no-follow",
			"--all-skb-funcs",
			"--send-calls",
			"--verdicts",
			"--funcs",
			"/dev/null",
			"--ring-size",
			"1M",
			"-c",
			"4611686018427387904",
			NULL};
	char *over[] = {"pktpath", "-c", "4611686018427387905", NULL};
	char *big[] = {"pktpath", "--max-packets", "4194305", NULL};
	char *snap[] = {"pktpath", "--snaplen", "129", "--pcapng", "a", NULL};
	struct pp_env env;

	parse_ok(&env, argv);
	ck_assert_uint_eq(env.snaplen, 128);
	ck_assert_uint_eq(env.max_packets, 4194304);
	ck_assert(env.packet_timeout == 3600);
	ck_assert_int_eq(env.verbose, 2);
	ck_assert_int_eq(env.nstacks, 2);
	ck_assert_str_eq(env.stacks[1], "tp:net:net_dev_queue");
	ck_assert(env.no_follow && env.all_skb_funcs && env.send_calls && env.verdicts);
	ck_assert_str_eq(env.funcs, "/dev/null");
	ck_assert_uint_eq(env.ring_size, 1 << 20);
	ck_assert_uint_eq(env.count, 1ULL << 62);
	pp_env_free(&env);
	expect_usage(over, "-c wants");
	expect_usage(big, "--max-packets wants");
	expect_usage(snap, "--snaplen wants 1 to 128");
}
END_TEST

/* The list options stop at their maximum with a clear line. */
START_TEST(test_list_limit)
{
	char *argv[2 + 2 * (PP_MAX_IFACES + 1) + 1] = {"pktpath"};
	int n = 1;

	for (int i = 0; i <= PP_MAX_IFACES; i++) {
		argv[n++] = "-i";
		argv[n++] = "eth0";
	}
	argv[n] = NULL;
	expect_usage(argv, "more than 64 interfaces");
}
END_TEST

/*
 * "--pcapng and --perfetto need two different files", its options from the
 * export rows in enum order: a new export is named there without a line here.
 */
static const char *same_files_words(char *buf, size_t len)
{
	size_t n = 0;

	ck_assert_str_eq(pp_export_ops_of(PP_EXPORT_PCAPNG)->option, "--pcapng");
	ck_assert_str_eq(pp_export_ops_of(PP_EXPORT_PERFETTO)->option, "--perfetto");
	for (size_t k = 0; k < PP_EXPORTS; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s",
				      !k ? "" : (k == PP_EXPORTS - 1 ? " and " : ", "),
				      pp_export_ops_of((enum pp_export_kind)k)->option);
	snprintf(buf + n, len - n, " need two different files");
	return buf;
}

/*
 * `pktpath report`: its rows, its files anywhere among its options, its
 * checks; a word "report" after an option is a filter word, not the command.
 */
START_TEST(test_report_command)
{
	char *one[] = {"pktpath", "report", "run.jsonl", "--json", NULL};
	char *two[] = {"pktpath", "report", "--window", "0.5", "a", "b", NULL};
	char *help[] = {"pktpath", "report", "--help", "--snaplen", "0", NULL};
	char *filt[] = {"pktpath", "-v", "report", NULL};
	char *none[] = {"pktpath", "report", "--json", NULL};
	char *snap[] = {"pktpath", "report", "--snaplen", "5", "x", NULL};
	char *join[] = {"pktpath", "report", "--summary", "a", "b", NULL};
	char *win[] = {"pktpath", "report", "--window", "1", "x", NULL};
	char *tol[] = {"pktpath", "report", "--clock-tolerance", "-1", "a", "b", NULL};
	char *same[] = {"pktpath", "report", "--pcapng", "o", "--perfetto", "o", "x", NULL};
	char *opt[] = {"pktpath", "report", "--count", "1", "x", NULL};
	struct pp_env env;
	char msg[256] = "", words[256];

	ck_assert_int_eq(parse(&env, one, msg, sizeof(msg)), 0);
	ck_assert(env.report && !strcmp(env.format, "json") &&
		  env.summary); /* no export: the summary */
	ck_assert_int_eq(env.nfiles, 1);
	ck_assert_str_eq(env.files[0], "run.jsonl");
	pp_env_free(&env);
	ck_assert_int_eq(parse(&env, two, msg, sizeof(msg)), 0);
	ck_assert(env.nfiles == 2 && env.window == 0.5 && env.tolerance == -1 && !env.summary);
	pp_env_free(&env);
	ck_assert_int_eq(parse(&env, help, msg, sizeof(msg)), 0);
	ck_assert(env.report && env.action == PP_ACT_HELP);
	pp_env_free(&env);
	ck_assert_int_eq(parse(&env, filt, msg, sizeof(msg)), 0);
	ck_assert(!env.report);
	ck_assert_str_eq(env.filter, "report");
	pp_env_free(&env);
	expect_usage(none, "pktpath report: which file?");
	expect_usage(snap, "pktpath report: --snaplen is for --pcapng");
	expect_usage(join, "read one file; with several, report joins them");
	expect_usage(win, "--window and --clock-tolerance join several files");
	expect_usage(tol, "--clock-tolerance wants seconds, from 0");
	expect_usage(same, same_files_words(words, sizeof(words)));
	/* pktpath's own options are not report's: getopt's line, then ours. */
	ck_assert_int_eq(parse(&env, opt, msg, sizeof(msg)), 2);
	ck_assert_msg(strstr(msg, "pktpath report: see pktpath report --help"), "%s", msg);
	pp_env_free(&env);
}
END_TEST

/* Whether rows A and B belong to one command: pktpath, or report. */
static bool same_verb(const struct pp_cli_opt *a, const struct pp_cli_opt *b)
{
	return !a->verb == !b->verb && (!a->verb || !strcmp(a->verb, b->verb));
}

/* The table is sound: unique names, help for each, commands name mode rows. */
START_TEST(test_table)
{
	for (size_t i = 0; i < pp_cli_nopts; i++) {
		const struct pp_cli_opt *o = &pp_cli_opts[i];
		bool no_arg = o->kind == PP_OPT_FLAG || o->kind == PP_OPT_COUNT ||
			      o->kind == PP_OPT_FORMAT || o->kind == PP_OPT_ACTION ||
			      o->kind == PP_OPT_MODE;

		ck_assert_msg(o->help && *o->help, "--%s has no help", o->name);
		ck_assert_msg(!o->metavar == no_arg || o->kind == PP_OPT_MODE,
			      "--%s: argument and kind disagree", o->name);
		ck_assert_msg(!o->verb || !strcmp(o->verb, "report"), "--%s: verb", o->name);
		if (!o->verb)
			ck_assert_ptr_eq(pp_cli_opt_find(o->name), o);
		for (size_t j = 0; j < i; j++) {
			if (!same_verb(o, &pp_cli_opts[j]))
				continue;
			ck_assert_msg(strcmp(o->name, pp_cli_opts[j].name), "--%s twice", o->name);
			ck_assert_msg(!o->short_name || o->short_name != pp_cli_opts[j].short_name,
				      "-%c twice", o->short_name);
		}
		if (o->kind >= PP_OPT_LIST && o->kind <= PP_OPT_BACKEND)
			ck_assert_msg(o->bad, "--%s has no error line", o->name);
	}
	for (size_t i = 0; i < pp_cli_nverbs; i++) {
		const struct pp_cli_opt *o = pp_cli_opt_find(pp_cli_verbs[i].option);

		ck_assert_msg(o && o->kind == PP_OPT_MODE, "%s: no mode", pp_cli_verbs[i].words);
		ck_assert(!o->metavar == !pp_cli_verbs[i].metavar);
	}
}
END_TEST

/* Each row is in --help: "  -c, --count N" then its text; lines fit in 100 columns (STYLE.md). */
START_TEST(test_usage_from_table)
{
	char *text = NULL, head[64];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	pp_cli_usage(f);
	pp_cli_report_usage(f);
	fclose(f);
	for (size_t i = 0; i < pp_cli_nopts; i++) {
		const struct pp_cli_opt *o = &pp_cli_opts[i];
		/* pktpath --help, then report --help: a report row after its "Usage:" */
		const char *part = o->verb ? strstr(text, "Usage: pktpath report") : text;

		snprintf(head, sizeof(head), "--%s%s%s", o->name, o->metavar ? " " : "",
			 o->metavar ? o->metavar : "");
		ck_assert_msg(strstr(part, head), "--help lacks %s", head);
	}
	for (char *l = text, *nl; (nl = strchr(l, '\n')); l = nl + 1)
		ck_assert_msg(nl - l <= 100, "--help line over 100 columns: %.*s", (int)(nl - l),
			      l);
	ck_assert(strstr(text, "  filter test FILE         the same as --test-pcap FILE\n"));
	/* --metrics-top's bound is pp_metrics_max_series()'s (a new fate adds a series). */
	snprintf(head, sizeof(head), "at most %zu N + %zu series",
		 pp_metrics_max_series(1) - pp_metrics_max_series(0), pp_metrics_max_series(0));
	ck_assert_msg(strstr(text, head), "--help lacks \"%s\"", head);
	free(text);
}
END_TEST

/* The file at PP_SOURCE_DIR/REL, NUL-terminated; free it. */
static char *slurp(const char *rel)
{
	char path[512], *text = NULL;
	size_t len = 0;
	FILE *in, *out = open_memstream(&text, &len);
	int c;

	snprintf(path, sizeof(path), "%s/%s", PP_SOURCE_DIR, rel);
	in = fopen(path, "r");
	ck_assert_msg(in, "cannot read %s", path);
	while ((c = fgetc(in)) != EOF)
		fputc(c, out);
	fclose(in);
	fclose(out);
	return text;
}

/* A row as the man page and the completion name it: "-c --count N". */
static void row_words(const struct pp_cli_opt *o, char *buf, size_t len)
{
	snprintf(buf, len, "%s%c%s--%s%s%s", o->short_name ? "-" : "",
		 o->short_name ? o->short_name : ' ', o->short_name ? " " : "", o->name,
		 o->metavar ? " " : "", o->metavar ? o->metavar : "");
	if (!o->short_name)
		memmove(buf, buf + 1, strlen(buf)); /* the ' ' placeholder */
}

/* LINE of roff without its macro, escapes, quotes and commas: "-c --count N". */
static void man_words(const char *line, char *buf, size_t len)
{
	size_t n = 0;
	const char *p = strchr(line, ' ');

	for (p = p ? p : ""; *p && *p != '\n' && n + 1 < len; p++) {
		if (p[0] == '\\' && p[1] == 'f' && p[2]) {
			p += 2;
			continue;
		}
		if (p[0] == '\\' && p[1] == '-')
			p++;
		if (*p == '"' || *p == ',' || (*p == ' ' && (n == 0 || buf[n - 1] == ' ')))
			continue;
		buf[n++] = *p;
	}
	while (n && buf[n - 1] == ' ')
		n--;
	buf[n] = 0;
}

/* pktpath's own rows come first: how many, all before the commands' rows. */
static size_t main_rows(void)
{
	size_t n = 0;

	while (n < pp_cli_nopts && !pp_cli_opts[n].verb)
		n++;
	for (size_t i = n; i < pp_cli_nopts; i++)
		ck_assert_msg(pp_cli_opts[i].verb, "--%s after the commands' rows",
			      pp_cli_opts[i].name);
	return n;
}

/* docs/pktpath.8's OPTIONS section has one .TP entry per row, in order, named as the row. */
START_TEST(test_man_page_agrees)
{
	char *man = slurp("docs/pktpath.8"), want[64], got[64];
	char *p = strstr(man, "\n.SH OPTIONS\n"), *end;
	size_t i = 0, nmain = main_rows();

	ck_assert(p);
	end = strstr(p + 1, "\n.SH ");
	ck_assert(end);
	*end = 0;
	for (; (p = strstr(p, "\n.TP\n")); p += 4, i++) {
		man_words(p + 5, got, sizeof(got));
		ck_assert_msg(i < nmain, "man page: \"%s\" is no option of the table", got);
		row_words(&pp_cli_opts[i], want, sizeof(want));
		ck_assert_msg(!strcmp(got, want),
			      "man page entry %zu is \"%s\", the table's \"%s\"", i + 1, got, want);
	}
	ck_assert_msg(i == nmain, "man page: %zu options, the table %zu", i, nmain);
	free(man);
}
END_TEST

/*
 * Formats and exports by name: an option that chooses a format is named as
 * a row of output_formats.c, and it is the one it sets; each export of
 * exports.c's table has its option (the row's .option), writing its slot.
 */
START_TEST(test_formats_exports_by_name)
{
	size_t formats = 0;

	for (size_t i = 0; i < pp_cli_nopts; i++) {
		const struct pp_cli_opt *o = &pp_cli_opts[i];

		if (o->kind != PP_OPT_FORMAT)
			continue;
		formats++;
		ck_assert_msg(pp_out_format(o->name), "--%s: no such output format", o->name);
		ck_assert_uint_eq(o->field, offsetof(struct pp_env, format));
	}
	ck_assert_uint_ge(formats, 2); /* --json, pktpath's and report's */
	for (size_t k = 0; k < PP_EXPORTS; k++) {
		const struct pp_export_ops *x = pp_export_ops_of((enum pp_export_kind)k);
		const struct pp_cli_opt *o;

		ck_assert(!strncmp(x->option, "--", 2));
		o = pp_cli_opt_find(x->option + 2);
		ck_assert_msg(o, "%s: no option", x->option);
		ck_assert_uint_eq(o->field, offsetof(struct pp_env, exports) + k * sizeof(char *));
	}
}
END_TEST

/*
 * docs/pktpath.8's --backend entry lists no backend that could go stale:
 * it names auto, and says where the list is (--help, from the table, and
 * --check); every bold word of it is one of those.
 */
START_TEST(test_man_page_backends)
{
	static const char *const bold[] = {"auto", "pktpath \\-\\-help", "pktpath \\-\\-check"};
	char *man = slurp("docs/pktpath.8");
	char *p = strstr(man, "\n.BI \\-\\-backend "), *end;
	size_t seen = 0;

	ck_assert(p);
	end = strstr(p + 1, "\n.TP\n");
	ck_assert(end);
	*end = 0;
	for (char *b = strstr(p, "\\fB"); b; b = strstr(b + 1, "\\fB")) {
		char *r = strstr(b, "\\fR");
		size_t i;

		ck_assert_msg(r, "man page: --backend: \\fB without \\fR");
		for (i = 0; i < 3 && ((size_t)(r - b - 3) != strlen(bold[i]) ||
				      strncmp(b + 3, bold[i], strlen(bold[i])));
		     i++)
			;
		ck_assert_msg(i < 3, "man page: --backend names %.*s (the list is --help's)",
			      (int)(r - b - 3), b + 3);
		seen |= 1U << i;
	}
	ck_assert_msg(seen == 7, "man page: --backend must name auto, --help and --check");
	free(man);
}
END_TEST

/*
 * Each fate of fate.c's table is documented once, in docs/json-schema.md's
 * "kind": its key, and its words where the text says more than the key
 * ("end not seen"); the man page's DESCRIPTION points there.
 */
START_TEST(test_fates_documented)
{
	char *schema = slurp("docs/json-schema.md"), *man = slurp("docs/pktpath.8");
	char *kind = strstr(schema, "| `kind` | string | always |"), *end;
	char want[80];

	ck_assert_ptr_nonnull(kind);
	end = strchr(kind, '\n');
	ck_assert_ptr_nonnull(end);
	*end = 0;
	for (size_t i = 0; i < pp_nfates; i++) {
		snprintf(want, sizeof(want), "`\"%s\"`", pp_fates[i].key);
		ck_assert_msg(strstr(kind, want), "docs/json-schema.md's kind lacks %s", want);
		if (!strcmp(pp_fates[i].total, pp_fates[i].key))
			continue;
		snprintf(want, sizeof(want), "\"%s\"", pp_fates[i].total);
		ck_assert_msg(strstr(kind, want), "docs/json-schema.md's kind lacks the words %s",
			      want);
	}
	/* The man page points to the list, where the package installs it. */
	ck_assert_ptr_nonnull(strstr(man, "\\fB/usr/share/doc/pktpath/json\\-schema.md.gz\\fR"));
	ck_assert_ptr_nonnull(strstr(man, "table \\fBfate\\fR, lists every fate"));
	free(schema);
	free(man);
}
END_TEST

/* docs/pktpath.8's REPORT section names each row of the report command, as roff writes it. */
START_TEST(test_man_page_report)
{
	char *man = slurp("docs/pktpath.8"), want[64];
	char *p = strstr(man, "\n.SH REPORT\n"), *end;

	ck_assert(p);
	end = strstr(p + 1, "\n.SH ");
	ck_assert(end);
	*end = 0;
	for (size_t i = main_rows(); i < pp_cli_nopts; i++) {
		const char *o = pp_cli_opts[i].name;
		size_t n = (size_t)snprintf(want, sizeof(want), "\\-\\-");

		for (; *o && n + 3 < sizeof(want); o++)
			n += (size_t)snprintf(want + n, sizeof(want) - n, *o == '-' ? "\\-" : "%c",
					      *o);
		if (strcmp(pp_cli_opts[i].name, "help"))
			ck_assert_msg(strstr(p, want), "man page: REPORT lacks %s", want);
	}
	free(man);
}
END_TEST

/* The commands' first words are offered as the first word, and the later ones after them. */
static void expect_verbs(const char *text)
{
	char firsts[256] = "", rest[256];

	for (size_t i = 0; i < pp_cli_nverbs; i++) {
		const char *w = pp_cli_verbs[i].words, *sp = strchr(w, ' ');
		size_t len = sp ? (size_t)(sp - w) : strlen(w);

		snprintf(firsts + strlen(firsts), sizeof(firsts) - strlen(firsts), "%s%.*s",
			 i ? " " : "", (int)len, w);
		snprintf(rest, sizeof(rest), "compgen -W \"%s\"", sp ? sp + 1 : "");
		ck_assert_msg(!sp || strstr(text, rest), "completion lacks %s", rest);
	}
	snprintf(rest, sizeof(rest), "compgen -W \"%s\"", firsts);
	ck_assert_msg(strstr(text, rest), "completion lacks %s", rest);
}

/* A directory with this code's --help and report's in files, a file f1 and a directory d1. */
struct comp {
	char dir[64];
};

static void comp_file(const struct comp *c, const char *name, void (*usage)(FILE *f))
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	f = fopen(path, "w");
	ck_assert(f);
	if (usage)
		usage(f);
	fclose(f);
}

static void comp_open(struct comp *c)
{
	char path[128];

	snprintf(c->dir, sizeof(c->dir), "/tmp/pp_comp_XXXXXX");
	ck_assert(mkdtemp(c->dir));
	comp_file(c, "help", pp_cli_usage);
	comp_file(c, "report", pp_cli_report_usage);
	comp_file(c, "f1", NULL);
	snprintf(path, sizeof(path), "%s/d1", c->dir);
	ck_assert(!mkdir(path, 0700));
}

static void comp_close(const struct comp *c)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", c->dir);
	ck_assert(!system(cmd));
}

/*
 * The completion of the command line WORDS (bash words; the last is the one
 * completed), run in bash in C's directory with a `pktpath` that prints this
 * code's --help: COMPREPLY, joined by spaces into OUT.
 */
static const char *comp_run(const struct comp *c, const char *words, char *out, size_t len)
{
	char cmd[1024];
	FILE *sh;

	snprintf(cmd, sizeof(cmd),
		 "cd %s && bash -c 'source %s/scripts/pktpath.bash-completion; "
		 "pktpath() { if [ \"$1\" = report ]; then cat report; else cat help; fi; }; "
		 "COMP_WORDS=(%s); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _pktpath; "
		 "echo \"${COMPREPLY[*]}\"'",
		 c->dir, PP_SOURCE_DIR, words);
	sh = popen(cmd, "r");
	ck_assert(sh);
	if (!fgets(out, (int)len, sh))
		out[0] = 0;
	pclose(sh);
	out[strcspn(out, "\n")] = 0;
	return out;
}

/* Whether the words of S include W. */
static bool has_word(const char *s, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = strstr(s, w); p; p = strstr(p + 1, w))
		if ((p == s || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return true;
	return false;
}

/* What completing the argument of row O (as OPT: --name or -c) offers, by its metavar. */
static void expect_arg(const struct comp *c, const struct pp_cli_opt *o, const char *opt)
{
	char words[128], got[512], want[256] = "";

	snprintf(words, sizeof(words), "pktpath %s%s \"\"", o->verb ? "report x " : "", opt);
	comp_run(c, words, got, sizeof(got));
	if (!strcmp(o->metavar, "FILE"))
		ck_assert_msg(has_word(got, "f1") && has_word(got, "d1"), "%s: files: %s", opt,
			      got);
	else if (!strcmp(o->metavar, "DIR"))
		ck_assert_msg(!strcmp(got, "d1"), "%s: directories: %s", opt, got);
	else if (!strcmp(o->metavar, "IFACE"))
		ck_assert_msg(has_word(got, "lo"), "%s: interfaces: %s", opt, got);
	else if (!strcmp(o->metavar, "NS"))
		ck_assert_msg(!has_word(got, "f1"), "%s: namespaces: %s", opt, got);
	else if (!strcmp(o->metavar, "LEVEL"))
		ck_assert_msg(!strcmp(got, "short full"), "%s: short and full: %s", opt, got);
	else if (o->kind == PP_OPT_BACKEND) {
		for (size_t b = 0; b < PP_BACKEND_COUNT; b++)
			snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s",
				 b ? " " : "", pp_backends[b].name);
		ck_assert_msg(!strcmp(got, want), "%s offers \"%s\", the table has \"%s\"", opt,
			      got, want);
	} else
		ck_assert_msg(!*got, "%s %s: nothing to offer, not %s", opt, o->metavar, got);
}

/*
 * "--" completes to the long options of VERB's rows, in the table's order;
 * an option's argument, and its short name's, as its metavar says.
 */
static void expect_options(const struct comp *c, const char *verb)
{
	char want[2048] = "", got[2048], opt[48];

	comp_run(c, verb ? "pktpath report x --" : "pktpath --", got, sizeof(got));
	for (size_t i = 0; i < pp_cli_nopts; i++) {
		const struct pp_cli_opt *o = &pp_cli_opts[i];

		if (!o->verb != !verb || (verb && strcmp(o->verb, verb)))
			continue;
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s--%s",
			 *want ? " " : "", o->name);
		if (!o->metavar)
			continue;
		snprintf(opt, sizeof(opt), "--%s", o->name);
		expect_arg(c, o, opt);
		snprintf(opt, sizeof(opt), "-%c", o->short_name);
		if (o->short_name)
			expect_arg(c, o, opt);
	}
	ck_assert_msg(!strcmp(got, want), "completion offers\n%s\nthe table has\n%s", got, want);
}

/*
 * scripts/pktpath.bash-completion, run in bash against this code's --help,
 * offers pktpath's options (and report's after "report") and their
 * arguments as the table says; the commands' words from its own text.
 */
START_TEST(test_completion_agrees)
{
	char *text = slurp("scripts/pktpath.bash-completion");
	struct comp c;

	comp_open(&c);
	expect_options(&c, NULL);
	expect_options(&c, "report");
	comp_close(&c);
	expect_verbs(text);
	free(text);
}
END_TEST

Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_filter_from_args);
	tcase_add_test(tc, test_defaults_and_options);
	tcase_add_test(tc, test_bad_numbers);
	tcase_add_test(tc, test_conflicts_and_unknown);
	tcase_add_test(tc, test_modes);
	tcase_add_test(tc, test_summary_options);
	tcase_add_test(tc, test_agent_options);
	tcase_add_test(tc, test_verbs);
	tcase_add_test(tc, test_filters_not_verbs);
	tcase_add_test(tc, test_command);
	tcase_add_test(tc, test_verb_conflicts);
	tcase_add_test(tc, test_rows_parse);
	tcase_add_test(tc, test_list_limit);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_formats_exports_by_name);
	tcase_add_test(tc, test_usage_from_table);
	tcase_add_test(tc, test_man_page_agrees);
	tcase_add_test(tc, test_man_page_report);
	tcase_add_test(tc, test_fates_documented);
	tcase_add_test(tc, test_man_page_backends);
	tcase_add_test(tc, test_report_command);
	tcase_add_test(tc, test_completion_agrees);
	suite_add_tcase(s, tc);
	return s;
}
