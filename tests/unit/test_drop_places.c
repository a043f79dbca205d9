// SPDX-License-Identifier: GPL-2.0
/* loader/output/drop_places.c (--agent's counts) and their metrics: no BPF. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/drop_places.h"
#include "metrics/metrics.h"
#include "suites.h"

#define NOT_SPECIFIED 2
#define NF_DROP	      5
#define LOC	      0xffffffff81a2b3c4ULL

static struct pp_drop_key key(__u32 reason, const char *dev)
{
	struct pp_drop_key k = {.location = LOC, .reason = reason, .ifindex = 3, .netns = 7};

	snprintf(k.ifname, sizeof(k.ifname), "%s", dev);
	return k;
}

/* The kernel's totals only grow: each read adds what came since, per place. */
START_TEST(test_delta)
{
	struct pp_drop_places t;
	struct pp_drop_key a = key(NF_DROP, "eth0"), b = key(NF_DROP, "eth1");

	ck_assert_int_eq(pp_drop_places_init(&t), 0);
	ck_assert_uint_eq(pp_drop_places_delta(&t, &a, 10), 10);
	ck_assert_uint_eq(pp_drop_places_delta(&t, &b, 3), 3);
	ck_assert_uint_eq(pp_drop_places_delta(&t, &a, 10), 0);
	ck_assert_uint_eq(pp_drop_places_delta(&t, &a, 25), 15);
	ck_assert_uint_eq(pp_drop_places_delta(&t, &b, 4), 1);
	ck_assert_uint_eq(t.n, 2);
	pp_drop_places_free(&t);
}
END_TEST

/* As many places as the kernel has, each its own; more has nowhere to go. */
START_TEST(test_many_places)
{
	struct pp_drop_places t;
	struct pp_drop_key k = key(NF_DROP, "eth0");
	__u64 sum = 0;

	ck_assert_int_eq(pp_drop_places_init(&t), 0);
	for (__u32 i = 0; i < PP_DROP_PLACES; i++) {
		k.ifindex = i;
		sum += pp_drop_places_delta(&t, &k, i + 1);
	}
	ck_assert_uint_eq(sum, (__u64)PP_DROP_PLACES * (PP_DROP_PLACES + 1) / 2);
	k.ifindex = 17;
	ck_assert_uint_eq(pp_drop_places_delta(&t, &k, 20), 2);
	k.ifindex = PP_DROP_PLACES;
	ck_assert_uint_eq(pp_drop_places_delta(&t, &k, 5), 0);
	pp_drop_places_free(&t);
}
END_TEST

/* A merge's free is no drop unless the reason says one (include/free_fate.h). */
START_TEST(test_counts)
{
	struct pp_drop_key k = key(NF_DROP, "eth0"), ns = key(NOT_SPECIFIED, "eth0"),
			   none = key(0, "eth0");

	ck_assert(pp_drop_place_counts(&k, false, true, NOT_SPECIFIED));
	ck_assert(pp_drop_place_counts(&k, true, true, NOT_SPECIFIED));
	ck_assert(pp_drop_place_counts(&ns, false, true, NOT_SPECIFIED));
	ck_assert(!pp_drop_place_counts(&ns, true, true, NOT_SPECIFIED));
	ck_assert(pp_drop_place_counts(&none, false, false, 0));
	ck_assert(!pp_drop_place_counts(&none, true, false, 0));
}
END_TEST

START_TEST(test_print)
{
	struct pp_drop_row rows[] = {{3, "NO_SOCKET", "udp_queue_rcv_skb", "", "lo"},
				     {40, "NETFILTER_DROP", "nf_hook_slow", "web", "eth0"}};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	pp_drop_places_print(f, rows, 2, 1, 2.04);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "44 drops in 2.0 s, by place:\n"));
	ck_assert(strstr(buf, "NETFILTER_DROP") < strstr(buf, "NO_SOCKET"));
	ck_assert_ptr_nonnull(strstr(buf, "udp_queue_rcv_skb            lo               -\n"));
	ck_assert_ptr_nonnull(strstr(buf, "1  (past the kernel's 4096 places: not placed)"));
	free(buf);
}
END_TEST

static const char *reason_name(__u32 reason, void *arg)
{
	(void)arg;
	return reason == NF_DROP ? "NETFILTER_DROP" : NULL;
}

static const char *sym_name(__u64 addr, void *arg)
{
	(void)arg;
	return addr == LOC ? "nf_hook_slow" : NULL;
}

/* The kernel's counts, in bulk, are the drops' series: each drop once. */
START_TEST(test_metrics)
{
	static const struct pp_mbuild b = {"1", "tracepoint", "6.18", 1.0};
	struct pp_out o = {.reason_name = reason_name, .sym_name = sym_name};
	struct pp_metrics *m = pp_metrics_new(1, 900, &b);
	struct pp_drop_key k = key(NF_DROP, "eth0"), other = key(77, "eth1");
	struct pp_mdrop d, e;
	size_t len;
	char *t;

	ck_assert_ptr_nonnull(m);
	pp_metrics_drop_place(&o, &k, &d);
	pp_metrics_add_drops(m, &d, 100000, 1000);
	pp_metrics_add_drops(m, &d, 23, 2000);
	pp_metrics_drop_place(&o, &other, &e);
	pp_metrics_add_drops(m, &e, 4, 3000); /* --metrics-top 1: "other" */
	pp_metrics_add_drops(m, NULL, 2, 3000);
	t = pp_metrics_render(m, NULL, &len);
	ck_assert_ptr_nonnull(strstr(t, "pktpath_drops_total{reason=\"NETFILTER_DROP\","
					"function=\"nf_hook_slow\",hook=\"\",netns=\"7\","
					"device=\"eth0\",bpf_programs=\"\"} 100023\n"));
	ck_assert_ptr_nonnull(strstr(t, "pktpath_drops_total{reason=\"other\",function=\"other\","
					"hook=\"other\",netns=\"other\",device=\"other\","
					"bpf_programs=\"other\"} 6\n"));
	free(t);
	pp_metrics_free(m);
}
END_TEST

Suite *drop_places_suite(void)
{
	Suite *s = suite_create("drop_places");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_delta);
	tcase_add_test(tc, test_many_places);
	tcase_add_test(tc, test_counts);
	tcase_add_test(tc, test_print);
	tcase_add_test(tc, test_metrics);
	suite_add_tcase(s, tc);
	return s;
}
