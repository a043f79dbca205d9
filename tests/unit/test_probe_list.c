// SPDX-License-Identifier: GPL-2.0
/* probe_list: kp_func.list syntax, errors, duplicates, file lookup. No root, no BTF. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "suites.h"
#include "base/compat.h"
#include "probes/life_points.h"
#include "pktpath.h"
#include "probes/probe_list.h"

static char tmpdir[64];
static char oldcwd[PATH_MAX];

/* Each test gets a fresh directory and is put back where it started. */
static void tmp_setup(void)
{
	strcpy(tmpdir, "/tmp/pp_probe_list.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	ck_assert_ptr_nonnull(getcwd(oldcwd, sizeof(oldcwd)));
}

static void tmp_teardown(void)
{
	char cmd[128];

	ck_assert_int_eq(chdir(oldcwd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

static int add(struct pp_probe_list *l, const char *line, char *err, size_t len)
{
	return pp_probe_list_add(l, line, "t:1", err, len);
}

START_TEST(test_func_line)
{
	struct pp_probe_list l = {0};
	char err[256] = "";

	ck_assert_int_eq(add(&l, "ip_rcv", err, sizeof(err)), 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.v[0].name, "ip_rcv");
	ck_assert_str_eq(l.v[0].target, "ip_rcv");
	ck_assert_ptr_null(l.v[0].category);
	ck_assert_int_eq(l.v[0].kind, PP_PROBE_FUNC);
	ck_assert_int_eq(l.v[0].argpos, -1);
	ck_assert_uint_eq(l.v[0].btf_id, 0);
	ck_assert_int_eq(l.v[0].skip, PP_SKIP_NONE);
	ck_assert_str_eq(err, "");
	pp_probe_list_free(&l);
}
END_TEST

START_TEST(test_tp_line)
{
	struct pp_probe_list l = {0};
	char err[256];

	ck_assert_int_eq(add(&l, "tp:net:netif_receive_skb", err, sizeof(err)), 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.v[0].name, "tp:net:netif_receive_skb");
	ck_assert_str_eq(l.v[0].category, "net");
	ck_assert_str_eq(l.v[0].target, "netif_receive_skb");
	ck_assert_int_eq(l.v[0].kind, PP_PROBE_TP);
	ck_assert_int_eq(l.v[0].argpos, -1);
	ck_assert_int_eq(l.v[0].skip, PP_SKIP_NONE);
	pp_probe_list_free(&l);
}
END_TEST

/* Whitespace, comments and line ends around good entries. */
static const struct {
	const char *line;
	const char *name; /* NULL: the line adds nothing */
} good_lines[] = {
	{"", NULL},
	{"   \t ", NULL},
	{"\n", NULL},
	{"# comment", NULL},
	{"   # indented comment", NULL},
	{"#ip_rcv", NULL},
	{"ip_rcv\n", "ip_rcv"},
	{"ip_rcv\r\n", "ip_rcv"},
	{"  \tip_rcv  ", "ip_rcv"},
	{"ip_rcv# no space", "ip_rcv"},
	{"ip_rcv   # trailing comment # and more", "ip_rcv"},
	{"_x", "_x"},
	{"X9", "X9"},
	{"ip6_rcv_finish_core.isra.0", "ip6_rcv_finish_core.isra.0"},
	{" tp:skb:kfree_skb # end of life", "tp:skb:kfree_skb"},
	{"tp:net2_x:Name_9", "tp:net2_x:Name_9"},
};

START_TEST(test_good_lines)
{
	struct pp_probe_list l = {0};
	const char *want = good_lines[_i].name;
	char err[256];

	ck_assert_int_eq(add(&l, good_lines[_i].line, err, sizeof(err)), 0);
	ck_assert_uint_eq(l.n, want ? 1 : 0);
	if (want)
		ck_assert_str_eq(l.v[0].name, want);
	pp_probe_list_free(&l);
}
END_TEST

static const char *const bad_lines[] = {
	"ip rcv",
	"1ip_rcv",
	"ip-rcv",
	"ip_rcv()",
	".isra",
	"tp:net",
	"tp:",
	"tp::x",
	"tp:net:",
	"tp:Net:x",
	"tp:net:x:y",
	"tp:net:foo-bar",
	"tp:net:foo.bar",
	"tp:net :x",
	"tp:net: x",
	"tp:net:a b",
	"kprobe:ip_rcv",
	"ip_rcv+0x10",
	"tp/net/x",
	"\"ip_rcv\"",
	"ip_rcv;tcp_rcv",
	"ipv4:ip_rcv",
	"tp:n\xc3\xa9t:x",
	"\xc3\xa9t",
	"ip_rcv\tx",
};

START_TEST(test_bad_lines)
{
	struct pp_probe_list l = {0};
	char err[256] = "", want[256];
	const char *s = bad_lines[_i];
	size_t len = strlen(s);

	/*
	 * The message quotes the trimmed text, control bytes and bytes above
	 * 0x7e as '?': "ip_rcv?x", "??t" (no C1 control reaches a terminal).
	 */
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	snprintf(want, sizeof(want), "t:1: not a function name or tp:CATEGORY:NAME: \"%.*s\"",
		 (int)len, s);
	for (char *c = strchr(want, '"'); c && *c; c++)
		*c = *c == '\t' || (unsigned char)*c > 0x7e ? '?' : *c;
	ck_assert_int_eq(add(&l, s, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, want);
	ck_assert_uint_eq(l.n, 0);
	pp_probe_list_free(&l);
}
END_TEST

START_TEST(test_error_message)
{
	struct pp_probe_list l = {0};
	char err[256];

	ck_assert_int_eq(
		pp_probe_list_add(&l, "  ip rcv  # oops", "kp_func.list:12", err, sizeof(err)),
		-EINVAL);
	ck_assert_str_eq(err,
			 "kp_func.list:12: not a function name or tp:CATEGORY:NAME: \"ip rcv\"");
	ck_assert_int_eq(pp_probe_list_add(&l, "a b", "--probe", err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "--probe: not a function name or tp:CATEGORY:NAME: \"a b\"");
	/* A short or missing buffer is cut, never overrun. */
	ck_assert_int_eq(pp_probe_list_add(&l, "a b", "--probe", err, 8), -EINVAL);
	ck_assert_str_eq(err, "--probe");
	ck_assert_int_eq(pp_probe_list_add(&l, "a b", "--probe", NULL, 0), -EINVAL);
	pp_probe_list_free(&l);
}
END_TEST

START_TEST(test_name_length)
{
	struct pp_probe_list l = {0};
	char line[PP_PROBE_NAME_MAX + 2], err[256];

	memset(line, 'a', PP_PROBE_NAME_MAX);
	line[PP_PROBE_NAME_MAX] = '\0';
	ck_assert_int_eq(add(&l, line, err, sizeof(err)), 0);
	ck_assert_uint_eq(strlen(l.v[0].name), PP_PROBE_NAME_MAX);
	strcat(line, "b");
	ck_assert_int_eq(add(&l, line, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "t:1: longer than 127 characters"));
	ck_assert_uint_eq(l.n, 1);
	pp_probe_list_free(&l);
}
END_TEST

START_TEST(test_duplicates)
{
	struct pp_probe_list l = {0};
	char err[256];

	ck_assert_int_eq(add(&l, "ip_rcv", err, sizeof(err)), 0);
	ck_assert_int_eq(add(&l, "tp:net:netif_rx", err, sizeof(err)), 0);
	ck_assert_int_eq(add(&l, "tcp_v4_rcv", err, sizeof(err)), 0);
	ck_assert_int_eq(add(&l, "  ip_rcv  # again", err, sizeof(err)), 0);
	ck_assert_int_eq(add(&l, "tp:net:netif_rx", err, sizeof(err)), 0);
	/* Same tracepoint NAME in another category is another entry. */
	ck_assert_int_eq(add(&l, "tp:skb:netif_rx", err, sizeof(err)), 0);
	ck_assert_uint_eq(l.n, 4);
	ck_assert_str_eq(l.v[0].name, "ip_rcv");
	ck_assert_str_eq(l.v[1].name, "tp:net:netif_rx");
	ck_assert_str_eq(l.v[2].name, "tcp_v4_rcv");
	ck_assert_str_eq(l.v[3].name, "tp:skb:netif_rx");
	pp_probe_list_free(&l);
}
END_TEST

/* "tracepoint-only" after a tracepoint: kept for the tracepoint backend (plan.c skips it). */
START_TEST(test_tp_only)
{
	static const char *const bad[] = {
		"ip_rcv tracepoint-only", "tracepoint-only",	     "tp:net:a tracepoint-onlyx",
		"tp:net:a tracepoint",	  "tp:net:atracepoint-only", "tp:net:a tracepoint-only x"};
	struct pp_probe_list l = {0};
	char err[256];

	ck_assert_int_eq(add(&l, "tp:net:netif_rx tracepoint-only", err, sizeof(err)), 0);
	ck_assert_int_eq(add(&l, " tp:net:a\t tracepoint-only  # why", err, sizeof(err)), 0);
	ck_assert_int_eq(add(&l, "tp:net:b", err, sizeof(err)), 0);
	ck_assert_int_eq(add(&l, "ip_rcv", err, sizeof(err)), 0);
	ck_assert_uint_eq(l.n, 4);
	ck_assert_str_eq(l.v[0].name, "tp:net:netif_rx");
	ck_assert_str_eq(l.v[0].target, "netif_rx");
	ck_assert_int_eq(l.v[0].kind, PP_PROBE_TP);
	ck_assert_str_eq(l.v[1].name, "tp:net:a");
	ck_assert(l.v[0].tp_backend_only && l.v[1].tp_backend_only);
	ck_assert(!l.v[2].tp_backend_only && !l.v[3].tp_backend_only);
	/* A duplicate without the word (--probe NAME) lifts it; one with it adds nothing. */
	ck_assert_int_eq(add(&l, "tp:net:netif_rx tracepoint-only", err, sizeof(err)), 0);
	ck_assert(l.v[0].tp_backend_only);
	ck_assert_int_eq(add(&l, "tp:net:netif_rx", err, sizeof(err)), 0);
	ck_assert(!l.v[0].tp_backend_only);
	ck_assert_int_eq(add(&l, "tp:net:b tracepoint-only", err, sizeof(err)), 0);
	ck_assert(!l.v[2].tp_backend_only);
	ck_assert_uint_eq(l.n, 4);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		ck_assert_msg(add(&l, bad[i], err, sizeof(err)) == -EINVAL, "%s", bad[i]);
	ck_assert_uint_eq(l.n, 4);
	ck_assert_int_eq(add(&l, "ip_rcv tracepoint-only", err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "t:1: tracepoint-only follows a tp:CATEGORY:NAME, not \"ip_rcv\"");
	pp_probe_list_free(&l);
}
END_TEST

/*
 * The shipped lists: on the function backends the short one leaves the
 * backlog's tracepoint to netif_receive_skb (docs/PERFORMANCE.md: two
 * programs fewer per forwarded packet); the full one keeps every line everywhere.
 */
START_TEST(test_tp_only_shipped)
{
	static const char *const files[] = {PP_SOURCE_DIR "/kp_func.min.list",
					    PP_SOURCE_DIR "/kp_func.list"};
	char err[256] = "";

	for (size_t f = 0; f < ARRAY_SIZE(files); f++) {
		struct pp_probe_list l = {0};
		size_t n = 0;

		ck_assert_int_eq(pp_probe_list_load(&l, files[f], err, sizeof(err)), 0);
		for (size_t i = 0; i < l.n; i++) {
			if (!l.v[i].tp_backend_only)
				continue;
			n++;
			ck_assert_str_eq(l.v[i].name, "tp:net:netif_rx");
		}
		ck_assert_uint_eq(n, (size_t)(f == 0));
		pp_probe_list_free(&l);
	}
}
END_TEST

/* Probe indexes must stay below PP_MAX_PROBES; PP_MAX_PROBES comes from pktpath.h. */
START_TEST(test_too_many)
{
	struct pp_probe_list l = {0};
	char line[32], err[256];
	int i;

	for (i = 0; i < 8192; i++) {
		snprintf(line, sizeof(line), "f%d", i);
		ck_assert_int_eq(add(&l, line, err, sizeof(err)), 0);
	}
	ck_assert_int_eq(add(&l, "f0", err, sizeof(err)), 0); /* a duplicate still passes */
	ck_assert_int_eq(add(&l, "one_more", err, sizeof(err)), -E2BIG);
	ck_assert_str_eq(err, "t:1: more than 8192 probe points");
	ck_assert_uint_eq(l.n, 8192);
	pp_probe_list_free(&l);
	ck_assert_uint_eq(l.n, 0);
	ck_assert_ptr_null(l.v);
}
END_TEST

START_TEST(test_load_file)
{
	struct pp_probe_list l = {0};
	char path[128], err[256] = "";

	snprintf(path, sizeof(path), "%s/list", tmpdir);
	write_file(path, "# header\n"
			 "\n"
			 "ip_rcv\n"
			 "   tcp_v4_rcv   # tcp\n"
			 "tp:net:netif_receive_skb\n"
			 "ip_rcv\n"
			 "\t\n"
			 "consume_skb"); /* no newline at the end */
	ck_assert_int_eq(pp_probe_list_load(&l, path, err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(l.n, 4);
	ck_assert_str_eq(l.v[0].name, "ip_rcv");
	ck_assert_str_eq(l.v[1].name, "tcp_v4_rcv");
	ck_assert_str_eq(l.v[2].target, "netif_receive_skb");
	ck_assert_str_eq(l.v[3].name, "consume_skb");
	/* Loading appends, like --probe after the list; duplicates still drop. */
	ck_assert_int_eq(pp_probe_list_add(&l, "ip_output", "--probe", err, sizeof(err)), 0);
	ck_assert_int_eq(pp_probe_list_load(&l, path, err, sizeof(err)), 0);
	ck_assert_uint_eq(l.n, 5);
	pp_probe_list_free(&l);
}
END_TEST

START_TEST(test_load_bad_line)
{
	struct pp_probe_list l = {0};
	char path[128], err[256], want[256];

	snprintf(path, sizeof(path), "%s/kp_func.list", tmpdir);
	write_file(path, "ip_rcv\n# ok\n\nip rcv  # the bad one\ntcp_v4_rcv\n");
	ck_assert_int_eq(pp_probe_list_load(&l, path, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:4: not a function name or tp:CATEGORY:NAME: \"ip rcv\"",
		 path);
	ck_assert_str_eq(err, want);
	pp_probe_list_free(&l);
}
END_TEST

START_TEST(test_load_missing)
{
	struct pp_probe_list l = {0};
	char path[128], err[256], want[256];

	snprintf(path, sizeof(path), "%s/no_such.list", tmpdir);
	ck_assert_int_eq(pp_probe_list_load(&l, path, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "%s: %s", path, strerror(ENOENT));
	ck_assert_str_eq(err, want);
	ck_assert_uint_eq(l.n, 0);
	/* A directory opens but cannot be read. */
	ck_assert_int_lt(pp_probe_list_load(&l, tmpdir, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, tmpdir));
	pp_probe_list_free(&l);
}
END_TEST

START_TEST(test_locate)
{
	char data[128], cwd[128], want[256], file[256];

	snprintf(data, sizeof(data), "%s/share", tmpdir);
	snprintf(cwd, sizeof(cwd), "%s/cwd", tmpdir);
	ck_assert_int_eq(mkdir(data, 0755), 0);
	ck_assert_int_eq(mkdir(cwd, 0755), 0);
	ck_assert_int_eq(chdir(cwd), 0);

	/* Nothing anywhere. */
	ck_assert_ptr_null(pp_probe_list_locate(NULL, PP_PROBE_LIST_FILE, data));
	ck_assert_ptr_null(pp_probe_list_locate(NULL, PP_PROBE_LIST_FILE, NULL));
	/* An explicit path wins even when it does not exist. */
	ck_assert_str_eq(pp_probe_list_locate("/nonexistent/x.list", PP_PROBE_LIST_FILE, data),
			 "/nonexistent/x.list");

	snprintf(file, sizeof(file), "%s/kp_func.list", data);
	write_file(file, "ip_rcv\n");
	snprintf(want, sizeof(want), "%s/kp_func.list", data);
	ck_assert_str_eq(pp_probe_list_locate(NULL, PP_PROBE_LIST_FILE, data), want);

	write_file("kp_func.list", "tcp_v4_rcv\n");
	ck_assert_str_eq(pp_probe_list_locate(NULL, PP_PROBE_LIST_FILE, data), "kp_func.list");
	ck_assert_str_eq(pp_probe_list_locate("mine.list", PP_PROBE_LIST_FILE, data), "mine.list");
	ck_assert_str_eq(pp_probe_list_locate(NULL, PP_PROBE_LIST_FILE, NULL), "kp_func.list");
	/* --detail short looks for its own file, never for the full one. */
	ck_assert_ptr_null(pp_probe_list_locate(NULL, PP_PROBE_SHORT_FILE, data));
	write_file("kp_func.min.list", "ip_rcv\n");
	ck_assert_str_eq(pp_probe_list_locate(NULL, PP_PROBE_SHORT_FILE, data), "kp_func.min.list");
	ck_assert_int_eq(unlink("kp_func.min.list"), 0);

	ck_assert_int_eq(unlink("kp_func.list"), 0);
	ck_assert_int_eq(unlink(file), 0);
	ck_assert_ptr_null(pp_probe_list_locate(NULL, PP_PROBE_LIST_FILE, data));
}
END_TEST

static void add3(struct pp_probe_list *l)
{
	char err[256];

	ck_assert_int_eq(add(l, "ip_rcv", err, sizeof(err)), 0);
	ck_assert_int_eq(add(l, "foo", err, sizeof(err)), 0);
	ck_assert_int_eq(add(l, "tp:x:y", err, sizeof(err)), 0);
}

START_TEST(test_nskipped)
{
	struct pp_probe_list l = {0};

	add3(&l);
	ck_assert_uint_eq(pp_probe_list_nskipped(&l), 0);
	l.v[1].skip = PP_SKIP_NO_KSYM;
	l.v[2].skip = PP_SKIP_FUNC_NO_SKB;
	ck_assert_uint_eq(pp_probe_list_nskipped(&l), 2);
	pp_probe_list_free(&l);
}
END_TEST

/*
 * The life points are in the default list (attached unless asked otherwise),
 * and only their kinds: the tracepoint backend sees where TCP takes an skb,
 * where its reader copies it out, and where transmits and receives start.
 */
START_TEST(test_life_points)
{
	struct pp_probe_list l = {0};
	size_t takes = 0, starts = 0, reads = 0, queues = 0, copies = 0;
	char err[256] = "";

	ck_assert_int_eq(pp_probe_list_load(&l, PP_SOURCE_DIR "/kp_func.list", err, sizeof(err)),
			 0);
	for (size_t i = 0; i < l.n; i++) {
		__u32 bits = pp_life_point_bits(l.v[i].name);

		ck_assert_uint_eq(bits & ~(PP_COOKIE_TAKES | PP_COOKIE_STARTS | PP_COOKIE_QUEUES |
					   PP_COOKIE_READS),
				  0);
		ck_assert_msg(bits != (PP_COOKIE_TAKES | PP_COOKIE_STARTS), "%s", l.v[i].name);
		takes += !!(bits & PP_COOKIE_TAKES);
		queues += !!(bits & PP_COOKIE_QUEUES);
		starts += !!(bits & PP_COOKIE_STARTS);
		reads += pp_life_point_reads(l.v[i].name);
		/* A read is a take; a copy that ends a read skb is a read. */
		ck_assert(!pp_life_point_reads(l.v[i].name) || (bits & PP_COOKIE_TAKES));
		ck_assert(!(bits & PP_COOKIE_READS) || pp_life_point_reads(l.v[i].name));
		copies += !!(bits & PP_COOKIE_READS);
	}
	/* The copy tracepoint and skb_copy_datagram_iter(), not skb_consume_udp(). */
	ck_assert_uint_eq(copies, 2);
	ck_assert_uint_eq(pp_life_point_bits("skb_consume_udp"), PP_COOKIE_TAKES);
	ck_assert_uint_eq(takes, 5);
	ck_assert_uint_eq(queues, 1); /* tp:qdisc:qdisc_enqueue */
	ck_assert_uint_eq(starts, 12);
	ck_assert_uint_eq(reads, 3);
	ck_assert_uint_eq(pp_life_point_bits("tp:tcp:tcp_probe"), PP_COOKIE_TAKES);
	ck_assert_uint_eq(pp_life_point_bits("tp:net:net_dev_queue"), PP_COOKIE_STARTS);
	ck_assert_uint_eq(pp_life_point_bits("ip_rcv"), 0);
	ck_assert_uint_eq(pp_life_point_bits(NULL), 0);
	ck_assert(pp_life_point_reads("tp:skb:skb_copy_datagram_iovec"));
	ck_assert(!pp_life_point_reads("tp:tcp:tcp_probe"));
	ck_assert(!pp_life_point_reads(NULL));
	pp_probe_list_free(&l);
}
END_TEST

START_TEST(test_free_empty)
{
	struct pp_probe_list l = {0};
	char err[64];

	pp_probe_list_free(&l);
	pp_probe_list_free(NULL);
	/* Reusable after free. */
	ck_assert_int_eq(add(&l, "ip_rcv", err, sizeof(err)), 0);
	pp_probe_list_free(&l);
	ck_assert_uint_eq(l.n, 0);
}
END_TEST

Suite *probe_list_suite(void)
{
	Suite *s = suite_create("probe_list");
	TCase *tc = tcase_create("parse");
	TCase *files = tcase_create("files");

	tcase_add_test(tc, test_func_line);
	tcase_add_test(tc, test_tp_line);
	tcase_add_loop_test(tc, test_good_lines, 0, sizeof(good_lines) / sizeof(good_lines[0]));
	tcase_add_loop_test(tc, test_bad_lines, 0, sizeof(bad_lines) / sizeof(bad_lines[0]));
	tcase_add_test(tc, test_error_message);
	tcase_add_test(tc, test_name_length);
	tcase_add_test(tc, test_duplicates);
	tcase_add_test(tc, test_tp_only);
	tcase_add_test(tc, test_tp_only_shipped);
	tcase_add_test(tc, test_too_many);
	tcase_add_test(tc, test_nskipped);
	tcase_add_test(tc, test_free_empty);
	tcase_add_test(tc, test_life_points);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(files, tmp_setup, tmp_teardown);
	tcase_add_test(files, test_load_file);
	tcase_add_test(files, test_load_bad_line);
	tcase_add_test(files, test_load_missing);
	tcase_add_test(files, test_locate);
	suite_add_tcase(s, files);
	return s;
}
