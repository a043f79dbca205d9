// SPDX-License-Identifier: GPL-2.0
/* loader/metrics/ (--metrics) on synthetic packets: no BPF, no HTTP. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include "metrics/metrics.h"
#include "metrics/metrics_listen.h"
#include "suites.h"

#define NS_R 4026532001U
#define LOC  0xffffffff81a2b3c4ULL
#define MS   1000000ULL

static const char *const names[] = {"tp:net:netif_receive_skb", "tp:net:net_dev_queue",
				    "tp:skb:kfree_skb", "tp:skb:consume_skb"};
enum { P_RCV, P_QUEUE, P_KFREE, P_CONSUME };

static const struct pp_mbuild build = {"1.2.3", "tracepoint", "6.1.0", 1700000000.5};

static const char *reason_name(__u32 reason, void *arg)
{
	(void)arg;
	return reason == 5 ? "NETFILTER_DROP" : NULL;
}

static const char *sym_name(__u64 addr, void *arg)
{
	(void)arg;
	return addr == LOC ? "nf_hook_slow" : addr == LOC + 0x40 ? "ip_forward" : NULL;
}

static struct pp_out out(void)
{
	return (struct pp_out){.probe_names = names,
			       .nprobes = 4,
			       .reason_name = reason_name,
			       .sym_name = sym_name};
}

struct pkt {
	struct pp_packet p;
	struct pp_hop hops[4];
};

/* rcv -> queue -> END at LAST, the hops DT ns apart, on DEV of NS_R. */
static void pkt(struct pkt *k, __u32 last, enum pp_fate fate, __u64 dt, const char *dev)
{
	static const __u32 probes[] = {P_RCV, P_QUEUE, 0};

	memset(k, 0, sizeof(*k));
	k->p = (struct pp_packet){.id = 1, .hops = k->hops, .nhops = 3, .fate = fate};
	for (size_t i = 0; i < 3; i++) {
		k->hops[i] = (struct pp_hop){.type = i == 2 ? PP_REC_END : PP_REC_HOP,
					     .probe = i == 2 ? last : probes[i],
					     .ts = 1000 + i * dt,
					     .netns = NS_R,
					     .ifindex = 3};
		snprintf(k->hops[i].ifname, sizeof(k->hops[i].ifname), "%s", dev);
	}
	if (fate == PP_FATE_DROPPED) {
		k->p.reason = k->hops[2].reason = 5;
		k->p.location = k->hops[2].location = LOC;
		k->hops[2].fate = fate;
		k->hops[2].caller = 0x40; /* nf_hook_slow called by ip_forward */
		k->hops[2].flags = PP_HOP_NF_CALLER;
	}
}

/* The samples (lines that are not comments) of a render, and the text. */
static size_t render(struct pp_metrics *m, char **text)
{
	size_t len = 0, n = 0;

	*text = pp_metrics_render(m, NULL, &len);
	ck_assert_ptr_nonnull(*text);
	ck_assert_uint_eq(strlen(*text), len);
	for (const char *l = *text; *l; l = strchr(l, '\n') + 1)
		n += *l != '#';
	return n;
}

START_TEST(test_counts_and_labels)
{
	struct pp_metrics *m = pp_metrics_new(10, 60, &build);
	struct pp_out o = out();
	struct pkt k;
	char *t;

	ck_assert_ptr_nonnull(m);
	for (int i = 0; i < 3; i++) {
		pkt(&k, P_CONSUME, PP_FATE_CONSUMED, 2000, "r-eth1"); /* 4 us end to end */
		pp_metrics_add(m, &o, &k.p, 1);
	}
	pkt(&k, P_KFREE, PP_FATE_DROPPED, 20 * MS, "we\"ird\\"); /* 40 ms */
	pp_metrics_add(m, &o, &k.p, 1);
	pp_metrics_add(m, &o, &k.p, 1);
	render(m, &t);
	ck_assert_ptr_nonnull(strstr(t, "pktpath_packets_total{fate=\"consumed\"} 3\n"));
	ck_assert_ptr_nonnull(strstr(t, "pktpath_packets_total{fate=\"dropped\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(t, "pktpath_packets_total{fate=\"unseen\"} 0\n"));
	/* The place as the packet blocks name it; the device's quote and backslash escaped. */
	ck_assert_ptr_nonnull(strstr(t, "pktpath_drops_total{reason=\"NETFILTER_DROP\","
					"function=\"nf_hook_slow\",hook=\"ipv4 forward\","
					"netns=\"4026532001\",device=\"we\\\"ird\\\\\","
					"bpf_programs=\"\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(t, "steps=\"tp:net:netif_receive_skb > tp:net:net_dev_queue"
					" > tp:skb:consume_skb\",fate=\"consumed\"} 1\n"));
	/* 4 us: not in the 2.5 us bucket, in the 5 us one, cumulative after. */
	ck_assert_ptr_nonnull(strstr(t, ",le=\"2.5e-06\"} 0\n"));
	ck_assert_ptr_nonnull(strstr(t, ",le=\"5e-06\"} 3\n"));
	ck_assert_ptr_nonnull(strstr(t, ",le=\"1\"} 3\n"));
	ck_assert_ptr_nonnull(strstr(t, ",le=\"0.01\"} 0\n")); /* the 40 ms drops */
	ck_assert_ptr_nonnull(strstr(t, ",le=\"0.1\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(t, ",le=\"+Inf\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(t, "pktpath_build_info{version=\"1.2.3\","
					"backend=\"tracepoint\",kernel=\"6.1.0\"} 1\n"));
	ck_assert_ptr_null(strstr(t, "path=\"other\"")); /* room for all */
	free(t);
	pp_metrics_free(m);
}
END_TEST

/* --verdicts: a drop another program decided is counted under that program alone. */
START_TEST(test_drop_decided)
{
	static const char *const vnames[] = {"tp:net:netif_receive_skb", "bpf:fw#7",
					     "tp:skb:kfree_skb", "tp:skb:consume_skb"};
	struct pp_metrics *m = pp_metrics_new(10, 60, &build);
	struct pp_out o = out();
	struct pkt k;
	char *t;

	o.probe_names = vnames;
	pkt(&k, P_KFREE, PP_FATE_DROPPED, 1000, "r-eth0");
	k.hops[1].flags = PP_HOP_VERDICT;
	k.hops[1].reason = 2; /* TC_ACT_SHOT */
	pp_metrics_add(m, &o, &k.p, 1);
	render(m, &t);
	ck_assert_ptr_nonnull(strstr(t, ",bpf_programs=\"fw#7 returned TC_ACT_SHOT\"} 1\n"));
	free(t);
	pp_metrics_free(m);
}
END_TEST

/* Every family has one HELP and one TYPE line, before its samples. */
START_TEST(test_families)
{
	struct pp_metrics *m = pp_metrics_new(10, 60, &build);
	struct pp_out o = out();
	size_t len;
	struct pkt k;
	char *t, *l;

	pkt(&k, P_CONSUME, PP_FATE_CONSUMED, 2000, "r-eth1");
	pp_metrics_add(m, &o, &k.p, 1);
	t = pp_metrics_render(m, "/proc/self", &len);
	ck_assert_ptr_nonnull(strstr(t, "# TYPE pktpath_packets_total counter\n"
					"pktpath_packets_total{"));
	ck_assert_ptr_nonnull(strstr(t, "# TYPE pktpath_path_duration_seconds histogram\n"));
	ck_assert_ptr_nonnull(strstr(t, "# TYPE process_resident_memory_bytes gauge\n"));
	ck_assert_ptr_nonnull(strstr(t, "\nprocess_open_fds "));
	ck_assert_ptr_nonnull(strstr(t, "\nprocess_start_time_seconds 1700000000.5\n"));
	/* A counter's name ends in _total: every TYPE counter line. */
	for (l = strstr(t, "# TYPE "); l; l = strstr(l + 1, "# TYPE ")) {
		char name[96], type[16];

		ck_assert_int_eq(sscanf(l, "# TYPE %95s %15s", name, type), 2);
		if (!strcmp(type, "counter"))
			ck_assert_msg(strlen(name) > 6 &&
					      !strcmp(name + strlen(name) - 6, "_total"),
				      "%s", name);
	}
	free(t);
	pp_metrics_free(m);
}
END_TEST

/* 10,000 distinct paths, top 100: the series stay under the bound, every packet counted. */
START_TEST(test_cardinality_bound)
{
	enum { N = 10000, TOP = 100 };
	static char pnames[N][16];
	static const char *pv[N];
	struct pp_metrics *m = pp_metrics_new(TOP, 600, &build);
	struct pp_out o = out();
	size_t series;
	struct pkt k;
	char *t;

	for (int i = 0; i < N; i++) {
		snprintf(pnames[i], sizeof(pnames[i]), "func%05d", i);
		pv[i] = pnames[i];
	}
	o.probe_names = pv;
	o.nprobes = N;
	for (__u32 i = 0; i < N; i++) {
		pkt(&k, i, PP_FATE_CONSUMED, 1000, "r-eth1");
		pp_metrics_add(m, &o, &k.p, 1);
	}
	series = render(m, &t);
	ck_assert_uint_le(series, pp_metrics_max_series(TOP) - 6); /* no process metrics here */
	ck_assert_uint_eq(m->paths.top.n, TOP);
	ck_assert_ptr_nonnull(strstr(t, "pktpath_path_packets_total{path=\"other\"} 9900\n"));
	ck_assert_ptr_nonnull(
		strstr(t, "pktpath_path_duration_seconds_count{path=\"other\"} 9900\n"));
	ck_assert_ptr_nonnull(strstr(t, "pktpath_packets_total{fate=\"consumed\"} 10000\n"));
	free(t);
	pp_metrics_free(m);
}
END_TEST

/*
 * 10,000 distinct drop places (each on a device of its own) that are also
 * 10,000 distinct paths, top 100: both tables stay at 100, under the bound.
 */
START_TEST(test_cardinality_bound_drops)
{
	enum { N = 10000, TOP = 100 };
	static char pnames[N][16];
	static const char *pv[N];
	struct pp_metrics *m = pp_metrics_new(TOP, 600, &build);
	struct pp_out o = out();
	char dev[16];
	size_t series;
	struct pkt k;
	char *t;

	for (int i = 0; i < N; i++) {
		snprintf(pnames[i], sizeof(pnames[i]), "func%05d", i);
		pv[i] = pnames[i];
	}
	o.probe_names = pv;
	o.nprobes = N;
	for (__u32 i = 0; i < N; i++) {
		snprintf(dev, sizeof(dev), "dev%05u", i);
		pkt(&k, i, PP_FATE_DROPPED, 1000, dev);
		pp_metrics_add(m, &o, &k.p, 1);
	}
	series = render(m, &t);
	ck_assert_uint_le(series, pp_metrics_max_series(TOP) - 6); /* no process metrics here */
	ck_assert_uint_eq(m->paths.top.n, TOP);
	ck_assert_uint_eq(m->drops.top.n, TOP);
	ck_assert_ptr_nonnull(strstr(t, "pktpath_path_packets_total{path=\"other\"} 9900\n"));
	ck_assert_ptr_nonnull(strstr(t, "device=\"other\",bpf_programs=\"other\"} 9900\n"));
	ck_assert_ptr_nonnull(strstr(t, "pktpath_packets_total{fate=\"dropped\"} 10000\n"));
	free(t);
	pp_metrics_free(m);
}
END_TEST

/* A path without packets for IDLE seconds loses its series, and its place. */
START_TEST(test_idle_eviction)
{
	struct pp_metrics *m = pp_metrics_new(1, 60, &build);
	struct pp_mhealth h = {0};
	struct pp_out o = out();
	struct pkt a, b;
	char *t;

	pkt(&a, P_CONSUME, PP_FATE_CONSUMED, 1000, "r-eth1");
	pkt(&b, P_KFREE, PP_FATE_DROPPED, 1000, "r-eth1");
	pp_metrics_add(m, &o, &a.p, 1 * MS);
	pp_metrics_add(m, &o, &b.p, 2 * MS); /* no room: other */
	pp_metrics_health(m, &h, 50000 * MS);
	ck_assert_uint_eq(m->paths.top.n, 1); /* 50 s: still there */
	pp_metrics_health(m, &h, 61000 * MS);
	ck_assert_uint_eq(m->paths.top.n, 0);
	ck_assert_uint_eq(m->drops.top.n, 0);
	pp_metrics_add(m, &o, &b.p, 62000 * MS); /* takes the place */
	render(m, &t);
	ck_assert_ptr_nonnull(strstr(t, "pktpath_metrics_series_evicted_total 2\n"));
	ck_assert_ptr_nonnull(strstr(t, "kfree_skb\",fate=\"dropped\"} 1\n"));
	ck_assert_ptr_null(strstr(t, "consume_skb\",fate=\"consumed\"} 1\n"));
	/* b's first packet, and a's that lost its series: "other" never goes down. */
	ck_assert_ptr_nonnull(strstr(t, "pktpath_path_packets_total{path=\"other\"} 2\n"));
	ck_assert(pp_metrics_alive(m, 62000 * MS));
	ck_assert(!pp_metrics_alive(m, 72000 * MS));
	free(t);
	pp_metrics_free(m);
}
END_TEST

/* Records lost per probe: only those that lost any, by name. */
START_TEST(test_health)
{
	struct pp_metrics *m = pp_metrics_new(5, 60, &build);
	struct pp_mlost lost[] = {{"tp:net:netif_receive_skb", 7}};
	struct pp_mhealth h = {.ring_lost = 7,
			       .map_full = 3,
			       .skipped = 5,
			       .tracked = 12,
			       .probes = 28,
			       .interfaces = 2,
			       .lost = lost,
			       .nlost = 1};
	char *t;

	ck_assert(!pp_metrics_alive(m, 1));
	pp_metrics_health(m, &h, 1);
	render(m, &t);
	ck_assert_ptr_nonnull(strstr(t, "pktpath_probe_records_lost_total{probe=\"tp:net:"
					"netif_receive_skb\"} 7\n"));
	ck_assert_ptr_nonnull(strstr(t, "pktpath_records_lost_total 7\n"));
	ck_assert_ptr_nonnull(strstr(t, "pktpath_packets_untracked_total 3\n"));
	ck_assert_ptr_nonnull(strstr(t, "pktpath_probe_runs_skipped_total 5\n"));
	ck_assert_ptr_nonnull(strstr(t, "pktpath_packets_tracked 12\n"));
	ck_assert_ptr_nonnull(strstr(t, "pktpath_probes_attached 28\n"));
	free(t);
	pp_metrics_free(m);
}
END_TEST

START_TEST(test_bad_limits)
{
	ck_assert_ptr_null(pp_metrics_new(0, 60, &build));
	ck_assert_ptr_null(pp_metrics_new(PP_METRICS_MAX_TOP + 1, 60, &build));
	ck_assert_ptr_null(pp_metrics_new(10, 0, &build));
}
END_TEST

START_TEST(test_parse_addr)
{
	static const char *const bad[] = {
		"0",	 "65536",  "x",		  "",	"localhost:80", "1.2.3.4:",
		"[::1]", "::1:80", "1.2.3.4:80x", ":80"};
	struct sockaddr_storage sa;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&sa;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&sa;
	socklen_t len;
	char err[128];

	ck_assert_int_eq(pp_metrics_parse_addr("9464", &sa, &len, err, sizeof(err)), 0);
	ck_assert_int_eq(sa.ss_family, AF_INET6);
	ck_assert(IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr));
	ck_assert_uint_eq(ntohs(s6->sin6_port), 9464);
	ck_assert_int_eq(pp_metrics_parse_addr("127.0.0.1:80", &sa, &len, err, sizeof(err)), 0);
	ck_assert_int_eq(sa.ss_family, AF_INET);
	ck_assert_uint_eq(ntohl(s4->sin_addr.s_addr), 0x7f000001);
	ck_assert_uint_eq(ntohs(s4->sin_port), 80);
	ck_assert_int_eq(pp_metrics_parse_addr("[::1]:9", &sa, &len, err, sizeof(err)), 0);
	ck_assert(IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		ck_assert_msg(pp_metrics_parse_addr(bad[i], &sa, &len, err, sizeof(err)) < 0, "%s",
			      bad[i]);
		ck_assert_ptr_nonnull(strstr(err, "--metrics"));
	}
}
END_TEST

Suite *metrics_suite(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_counts_and_labels);
	tcase_add_test(tc, test_drop_decided);
	tcase_add_test(tc, test_families);
	tcase_add_test(tc, test_cardinality_bound);
	tcase_add_test(tc, test_cardinality_bound_drops);
	tcase_add_test(tc, test_idle_eviction);
	tcase_add_test(tc, test_health);
	tcase_add_test(tc, test_bad_limits);
	tcase_add_test(tc, test_parse_addr);
	suite_add_tcase(s, tc);
	return s;
}
