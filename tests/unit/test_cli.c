// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "suites.h"
#include "cli.h"

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
	ck_assert(env.json);
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
	expect_usage(alone, "go with --summary");
	expect_usage(pk, "go with --summary");
	expect_usage(lp, "--summary is for tracing");
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
	suite_add_tcase(s, tc);
	return s;
}
