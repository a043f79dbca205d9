// SPDX-License-Identifier: GPL-2.0
/*
 * --metrics' busiest TOP (loader/metrics/metrics_rank.c) and slowest steps
 * (metrics_steps.c) on synthetic packets: which paths have series, and the
 * counter rules a Prometheus needs (a series never goes down while it
 * exists; the series add up to every packet).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metrics/metrics.h"
#include "output/path_id.h"
#include "suites.h"

#define NAMES 10000
#define SEC   1000000000ULL

static const struct pp_mbuild build = {"1.2.3", "tracepoint", "6.1.0", 1};
static char pnames[NAMES][16];
static const char *pv[NAMES];

static struct pp_out out(void)
{
	for (int i = 0; i < NAMES; i++) {
		snprintf(pnames[i], sizeof(pnames[i]), "f%05d", i);
		pv[i] = pnames[i];
	}
	return (struct pp_out){.probe_names = pv, .nprobes = NAMES};
}

struct pkt {
	struct pp_packet p;
	struct pp_hop hops[3];
};

/* Path I: f00000 > fI > f00001, DT1 then DT2 ns; FATE. */
static struct pp_packet *pkt(struct pkt *k, __u32 i, __u64 dt1, __u64 dt2, enum pp_fate fate)
{
	const __u32 probes[] = {0, i, 1};
	const __u64 ts[] = {1000, 1000 + dt1, 1000 + dt1 + dt2};

	memset(k, 0, sizeof(*k));
	k->p = (struct pp_packet){.id = 1, .hops = k->hops, .nhops = 3, .fate = fate};
	for (size_t h = 0; h < 3; h++)
		k->hops[h] = (struct pp_hop){
			.type = h == 2 ? PP_REC_END : PP_REC_HOP, .probe = probes[h], .ts = ts[h]};
	if (fate == PP_FATE_DROPPED)
		k->p.reason = k->hops[2].reason = i; /* a drop place per path */
	return &k->p;
}

static void add(struct pp_metrics *m, const struct pp_out *o, __u32 i, __u64 now)
{
	struct pkt k;

	pp_metrics_add(m, o, pkt(&k, i, 1000, 1000, PP_FATE_DROPPED), now);
}

static bool exported(struct pp_metrics *m, const struct pp_out *o, __u32 i)
{
	struct pkt k;
	__u64 id = pp_path_id(o, pkt(&k, i, 1, 1, PP_FATE_DROPPED));
	const struct pp_mpath *v = m->paths.top.v;

	for (size_t j = 0; j < m->paths.top.n; j++)
		if (v[j].h.id == id)
			return true;
	return false;
}

/* The rendered values of NAME{LABEL="..."} (first label only), summed; *n series. */
static __u64 total(const char *t, const char *name, size_t *n)
{
	char key[96];
	__u64 sum = 0;

	snprintf(key, sizeof(key), "\n%s{", name);
	*n = 0;
	for (const char *l = strstr(t, key); l; l = strstr(l + 1, key)) {
		sum += strtoull(strchr(l, '}') + 1, NULL, 10);
		(*n)++;
	}
	return sum;
}

/* A busy path that comes after TOP rare ones has its series within MARGIN + 1 packets. */
START_TEST(test_busy_after_rare)
{
	struct pp_metrics *m = pp_metrics_new(4, 600, &build);
	struct pp_out o = out();
	int k = 0;

	for (__u32 i = 10; i < 14; i++)
		add(m, &o, i, SEC);
	while (!exported(m, &o, 99) && k < 100) {
		add(m, &o, 99, SEC);
		k++;
	}
	ck_assert_int_eq(k, PP_METRICS_MARGIN + 1);
	ck_assert_uint_eq(m->paths.top.n, 4);
	ck_assert_uint_eq(m->paths.swaps, 1);
	ck_assert_uint_eq(m->drops.swaps, 1); /* the drop place too */
	pp_metrics_free(m);
}
END_TEST

/* 5000 paths of one packet each, among 4 busy ones, take none of their places. */
START_TEST(test_churn_keeps_busy)
{
	struct pp_metrics *m = pp_metrics_new(4, 600, &build);
	struct pp_out o = out();

	for (int r = 0; r < 5; r++)
		for (__u32 i = 10; i < 14; i++)
			add(m, &o, i, SEC);
	for (__u32 i = 100; i < 5100; i++) {
		add(m, &o, i, SEC);
		add(m, &o, 10 + i % 4, SEC);
	}
	for (__u32 i = 10; i < 14; i++)
		ck_assert(exported(m, &o, i));
	ck_assert_uint_eq(m->paths.swaps, 0);
	ck_assert_uint_eq(m->other_path.h.count, 5000);
	pp_metrics_free(m);
}
END_TEST

static size_t samples(const char *t)
{
	size_t n = 0;

	for (const char *l = t; *l; l = strchr(l, '\n') + 1)
		n += *l != '#';
	return n;
}

/* Every id once, in the top or among the candidates. */
static void check_unique(const struct pp_mrank *r)
{
	const struct pp_mtable *t[] = {&r->top, &r->cand};
	__u64 ids[64];
	size_t n = 0;

	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < t[k]->n; i++) {
			__u64 id =
				((const struct pp_mhead *)((const char *)t[k]->v + i * t[k]->size))
					->id;

			for (size_t j = 0; j < n; j++)
				ck_assert_uint_ne(ids[j], id);
			ck_assert_uint_lt(n, 64);
			ids[n++] = id;
		}
}

struct seen {
	char id[16];
	__u64 v;
};

/* Each path series in T that was in *PREV (N) has not gone down; T's become *PREV. */
static void check_monotonic(const char *t, struct seen *prev, size_t *n)
{
	struct seen now[64];
	size_t k = 0;
	const char *key = "\npktpath_path_packets_total{path=\"";

	for (const char *l = strstr(t, key); l && k < 64; l = strstr(l + 1, key), k++) {
		ck_assert_int_eq(sscanf(l + strlen(key), "%15[^\"]\"} %llu", now[k].id,
					(unsigned long long *)&now[k].v),
				 2);
		for (size_t j = 0; j < *n; j++)
			if (!strcmp(prev[j].id, now[k].id))
				ck_assert_uint_ge(now[k].v, prev[j].v);
	}
	memcpy(prev, now, k * sizeof(*now));
	*n = k;
}

/* Busy paths that change, rare ones, windows and idle series: the counters' rules hold. */
START_TEST(test_counter_rules)
{
	enum { TOP = 4, PKTS = 6000 };
	struct pp_metrics *m = pp_metrics_new(TOP, 20, &build);
	struct pp_mhealth h = {0};
	struct pp_out o = out();
	struct seen prev[64];
	size_t nprev = 0, n;
	unsigned int rnd = 1;
	__u64 now = SEC;

	for (int i = 0; i < PKTS; i++) {
		__u32 busy = (i < PKTS / 2 ? 20 : 40) + i % 3;
		char *t;
		size_t len;

		rnd = rnd * 1103515245 + 12345;
		add(m, &o, i % 4 ? busy : 1000 + (rnd >> 8) % 5000, now);
		if (i % 100 == 99)
			pp_metrics_health(m, &h, now += SEC);
		t = pp_metrics_render(m, NULL, &len);
		check_monotonic(t, prev, &nprev);
		check_unique(&m->paths);
		check_unique(&m->drops);
		ck_assert_uint_eq(total(t, "pktpath_path_packets_total", &n), i + 1);
		ck_assert_uint_le(n, TOP + 1);
		ck_assert_uint_eq(total(t, "pktpath_drops_total", &n), i + 1);
		ck_assert_uint_le(n, TOP + 1);
		ck_assert_uint_le(samples(t), pp_metrics_max_series(TOP) - 6); /* no process */
		free(t);
	}
	for (__u32 i = 40; i < 43; i++) /* the second busy set took the places */
		ck_assert(exported(m, &o, i));
	ck_assert_uint_gt(m->paths.swaps, 0);
	pp_metrics_free(m);
}
END_TEST

/* A candidate that finds a place freed by an idle one leaves the candidates. */
START_TEST(test_idle_room)
{
	struct pp_metrics *m = pp_metrics_new(1, 10, &build);
	struct pp_mhealth h = {0};
	struct pp_out o = out();

	add(m, &o, 10, 1 * SEC);
	add(m, &o, 11, 5 * SEC); /* a candidate: 1 packet is not twice 1 */
	ck_assert(!exported(m, &o, 11));
	pp_metrics_health(m, &h, 12 * SEC); /* 10 goes, 11 stays a candidate */
	ck_assert_uint_eq(m->paths.top.n, 0);
	ck_assert_uint_eq(m->paths.cand.n, 1);
	add(m, &o, 11, 13 * SEC);
	ck_assert(exported(m, &o, 11));
	check_unique(&m->paths);
	ck_assert_uint_eq(m->paths.cand.n, 0);
	ck_assert_uint_eq(m->other_path.h.count, 2); /* 10's packet, 11's first */
	pp_metrics_free(m);
}
END_TEST

/* The slowest step only: 1 us then 50 us, the second is the one. */
START_TEST(test_slowest_step)
{
	struct pp_metrics *m = pp_metrics_new(4, 600, &build);
	struct pp_out o = out();
	struct pkt k;
	size_t len;
	char *t;

	pp_metrics_add(m, &o, pkt(&k, 7, 1000, 50000, PP_FATE_CONSUMED), SEC);
	pp_metrics_add(m, &o, pkt(&k, 7, 1000, 50000, PP_FATE_CONSUMED), SEC);
	t = pp_metrics_render(m, NULL, &len);
	ck_assert_ptr_nonnull(strstr(t, "# TYPE pktpath_path_step_seconds summary\n"));
	ck_assert_ptr_nonnull(strstr(t, ",step=\"f00007 > f00001\"} 0.0001\n"));
	ck_assert_ptr_nonnull(strstr(t, ",step=\"f00007 > f00001\"} 2\n"));
	ck_assert_ptr_null(strstr(t, "step=\"f00000 > f00007\""));
	free(t);
	pp_metrics_free(m);
}
END_TEST

Suite *metrics_rank_suite(void)
{
	Suite *s = suite_create("metrics_rank");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_busy_after_rare);
	tcase_add_test(tc, test_churn_keeps_busy);
	tcase_add_test(tc, test_counter_rules);
	tcase_add_test(tc, test_idle_room);
	tcase_add_test(tc, test_slowest_step);
	suite_add_tcase(s, tc);
	return s;
}
