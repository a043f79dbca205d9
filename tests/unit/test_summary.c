// SPDX-License-Identifier: GPL-2.0
/* loader/output/summary.c and output_summary.c on synthetic packets. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "output/output_summary.h"
#include "metrics/metrics.h"
#include "output/path_id.h"
#include "suites.h"
#include "output/summary.h"

#define NS_A 4026531840U
#define NS_R 4026532001U
#define LOC  0xffffffff81a2b3c4ULL
#define MAXH 8

static const char *const probe_names[] = {"tp:net:netif_receive_skb", "tp:net:net_dev_queue",
					  "tp:skb:kfree_skb", "tp:skb:consume_skb"};
enum { P_RCV, P_QUEUE, P_KFREE, P_CONSUME };

static const char *reason_name(__u32 reason, void *arg)
{
	(void)arg;
	return reason == 5 ? "NETFILTER_DROP" : reason == 2 ? "NO_SOCKET" : NULL;
}

static const char *sym_name(__u64 addr, void *arg)
{
	(void)arg;
	return addr == LOC ? "nf_hook_slow" : NULL;
}

/* A packet being built: hops in the order added, one skb. */
struct pkt {
	struct pp_packet p;
	struct pp_hop hops[MAXH];
};

static void pkt_start(struct pkt *k, __u64 id)
{
	memset(k, 0, sizeof(*k));
	k->p = (struct pp_packet){.id = id, .hops = k->hops, .fate = PP_FATE_CONSUMED};
}

static void pkt_hop(struct pkt *k, __u32 probe, __u64 ts, __u32 netns, __u32 ifindex,
		    const char *dev)
{
	struct pp_hop *h = &k->hops[k->p.nhops++];

	*h = (struct pp_hop){.type = PP_REC_HOP,
			     .probe = probe,
			     .id = k->p.id,
			     .ts = ts,
			     .netns = netns,
			     .ifindex = ifindex,
			     .skb = 0xffff888000007000ULL};
	snprintf(h->ifname, sizeof(h->ifname), "%s", dev);
}

/* The last hop becomes the END with this fate. */
static void pkt_end(struct pkt *k, enum pp_fate fate, __u32 reason, __u64 loc)
{
	struct pp_hop *h = &k->hops[k->p.nhops - 1];

	h->type = PP_REC_END;
	h->fate = fate;
	h->reason = reason;
	h->location = loc;
	k->p.fate = fate;
	k->p.reason = reason;
	k->p.location = loc;
}

/* rcv on a-eth0 -> queue on r-eth1 (another namespace) -> consume; steps d1, d2 ns. */
static void forwarded(struct pkt *k, __u64 id, __u64 t0, __u64 d1, __u64 d2)
{
	pkt_start(k, id);
	pkt_hop(k, P_RCV, t0, NS_A, 2, "a-eth0");
	pkt_hop(k, P_QUEUE, t0 + d1, NS_R, 3, "r-eth1");
	pkt_hop(k, P_CONSUME, t0 + d1 + d2, NS_R, 3, "r-eth1");
	pkt_end(k, PP_FATE_CONSUMED, 0, 0);
}

/* rcv on a-eth0, then dropped there. */
static void dropped(struct pkt *k, __u64 id, __u32 reason, __u64 loc, __u32 ifindex)
{
	pkt_start(k, id);
	pkt_hop(k, P_RCV, 1000, NS_A, ifindex, "a-eth0");
	pkt_hop(k, P_KFREE, 1000 + 4000, NS_A, ifindex, "a-eth0");
	pkt_end(k, PP_FATE_DROPPED, reason, loc);
}

/* Counts, order by count, per-step and end-to-end latencies. */
START_TEST(test_group)
{
	struct pp_summary *s = pp_summary_new(16, 16);
	const struct pp_sum_path *v[16];
	struct pkt k;

	ck_assert_ptr_nonnull(s);
	for (int i = 0; i < 100; i++) {
		forwarded(&k, i, 1000000ULL * i, 1000 + i, 50000);
		ck_assert_int_eq(pp_summary_add(s, &k.p), 0);
	}
	for (int i = 0; i < 30; i++) {
		dropped(&k, 1000 + i, 5, LOC, 2);
		ck_assert_int_eq(pp_summary_add(s, &k.p), 0);
	}
	/* The same hops, another reason: another path. */
	for (int i = 0; i < 120; i++) {
		dropped(&k, 2000 + i, 2, 0, 2);
		ck_assert_int_eq(pp_summary_add(s, &k.p), 0);
	}
	ck_assert_uint_eq(s->packets, 250);
	ck_assert_uint_eq(s->npaths, 3);
	pp_summary_sorted_paths(s, v);
	ck_assert_uint_eq(v[0]->count, 120);
	ck_assert_uint_eq(v[0]->reason, 2);
	ck_assert_uint_eq(v[1]->count, 100);
	ck_assert_int_eq(v[1]->fate, PP_FATE_CONSUMED);
	ck_assert_uint_eq(v[1]->nsteps, 3);
	ck_assert_uint_eq(v[1]->steps[1].netns, NS_R);
	ck_assert_str_eq(v[1]->steps[1].ifname, "r-eth1");
	/* Step 1: 1000..1099 ns; step 2: 50000 ns each; e2e the sum. */
	ck_assert_uint_eq(v[1]->delta[1].count, 100);
	ck_assert_uint_eq(v[1]->delta[1].max, 1099);
	ck_assert_uint_eq(v[1]->delta[1].min, 1000);
	ck_assert_uint_le(pp_hist_quantile(&v[1]->delta[1], 0.5), 1049 + 11);
	ck_assert_uint_ge(pp_hist_quantile(&v[1]->delta[1], 0.5), 1049 - 11);
	ck_assert_uint_eq(pp_hist_quantile(&v[1]->delta[2], 0.99), 50000);
	ck_assert_uint_eq(v[1]->e2e.max, 51099);
	ck_assert_uint_eq(v[2]->count, 30);
	ck_assert_uint_eq(v[2]->location, LOC);
	pp_summary_free(s);
}
END_TEST

/* The device or namespace of a hop is part of the path. */
START_TEST(test_device_matters)
{
	struct pp_summary *s = pp_summary_new(16, 16);
	struct pkt k;

	dropped(&k, 1, 5, LOC, 2);
	pp_summary_add(s, &k.p);
	dropped(&k, 2, 5, LOC, 4);
	pp_summary_add(s, &k.p);
	dropped(&k, 3, 5, LOC, 2);
	k.hops[1].netns = NS_R;
	pp_summary_add(s, &k.p);
	ck_assert_uint_eq(s->npaths, 3);
	/* Drops: one place per device and namespace. */
	ck_assert_uint_eq(s->dropped, 3);
	ck_assert_uint_eq(s->ndrops, 3);
	pp_summary_free(s);
}
END_TEST

/* A ping reply: the original dropped, a clone read; which skb a hop is on counts. */
static void with_copy(struct pkt *k, struct pp_skbref *refs, __u64 copy_skb)
{
	pkt_start(k, 50);
	pkt_hop(k, P_RCV, 100, NS_A, 2, "a-eth0");
	pkt_hop(k, P_KFREE, 200, NS_A, 2, "a-eth0");
	k->hops[1].type = PP_REC_END;
	pkt_hop(k, P_CONSUME, 300, NS_A, 0, "");
	k->hops[2].skb = copy_skb;
	pkt_end(k, PP_FATE_CONSUMED, 0, 0);
	refs[0] = (struct pp_skbref){.skb = k->hops[0].skb, .ended = true};
	refs[1] = (struct pp_skbref){.skb = 0xffff888000009000ULL, .copy = true, .ended = true};
	k->p.skbs = refs;
	k->p.nskbs = 2;
}

static char *render(const struct pp_summary *s, bool json);

START_TEST(test_copies)
{
	char *text, *json;
	struct pp_summary *s = pp_summary_new(16, 16);
	struct pp_skbref refs[2];
	struct pkt k;

	with_copy(&k, refs, 0xffff888000009000ULL);
	pp_summary_add(s, &k.p);
	pp_summary_add(s, &k.p);
	/* The same hops, all on the original: another path. */
	with_copy(&k, refs, k.hops[0].skb);
	pp_summary_add(s, &k.p);
	ck_assert_uint_eq(s->npaths, 2);
	ck_assert_uint_eq(s->paths[0].count, 2);
	ck_assert_uint_eq(s->paths[0].steps[0].copy, 0);
	ck_assert_uint_eq(s->paths[0].steps[2].copy, 1);
	ck_assert_uint_eq(s->paths[1].steps[2].copy, 0);
	text = render(s, false);
	ck_assert_ptr_nonnull(strstr(text, "   3 tp:skb:consume_skb [copy 1]      "));
	json = render(s, true);
	ck_assert_ptr_nonnull(
		strstr(json, "{\"func\":\"tp:skb:consume_skb\",\"netns\":4026531840,\"copy\":1,"));
	free(text);
	free(json);
	pp_summary_free(s);
}
END_TEST

/* Past the limit, packets of new paths go to "other": memory stays put. */
START_TEST(test_cap)
{
	struct pp_summary *s = pp_summary_new(4, 2);
	const struct pp_sum_drop *d[2];
	struct pkt k;

	for (__u32 i = 0; i < 10000; i++) {
		dropped(&k, i, 5, LOC, 2 + i % 50);
		ck_assert_int_eq(pp_summary_add(s, &k.p), 0);
	}
	ck_assert_uint_eq(s->npaths, 4);
	ck_assert_uint_eq(s->other_paths, 10000 - 4 * 200);
	ck_assert_uint_eq(s->other_e2e.count, s->other_paths);
	for (size_t i = 0; i < s->npaths; i++)
		ck_assert_uint_eq(s->paths[i].count, 200);
	ck_assert_uint_eq(s->ndrops, 2);
	ck_assert_uint_eq(s->other_drops, 10000 - 2 * 200);
	pp_summary_sorted_drops(s, d);
	ck_assert_uint_eq(d[0]->count, 200);
	ck_assert_uint_eq(d[0]->ifindex, 2);
	ck_assert_uint_eq(d[1]->ifindex, 3);
	pp_summary_free(s);
	ck_assert_ptr_null(pp_summary_new(0, 1));
	ck_assert_ptr_null(pp_summary_new(1, 0));
}
END_TEST

/* The drop table: largest first, the hop of the drop names the device. */
START_TEST(test_drop_table)
{
	struct pp_summary *s = pp_summary_new(16, 16);
	const struct pp_sum_drop *d[16];
	struct pkt k;

	for (int i = 0; i < 7; i++) {
		dropped(&k, i, 5, LOC, 2);
		pp_summary_add(s, &k.p);
	}
	for (int i = 0; i < 9; i++) {
		dropped(&k, 100 + i, 2, 0, 3);
		pp_summary_add(s, &k.p);
	}
	forwarded(&k, 200, 0, 10, 10);
	pp_summary_add(s, &k.p);
	ck_assert_uint_eq(s->dropped, 16);
	ck_assert_uint_eq(s->ndrops, 2);
	pp_summary_sorted_drops(s, d);
	ck_assert_uint_eq(d[0]->count, 9);
	ck_assert_uint_eq(d[0]->reason, 2);
	ck_assert_uint_eq(d[0]->ifindex, 3);
	ck_assert_uint_eq(d[1]->count, 7);
	ck_assert_uint_eq(d[1]->location, LOC);
	ck_assert_str_eq(d[1]->ifname, "a-eth0");
	pp_summary_free(s);
}
END_TEST

/*
 * --verdicts: a drop after another program's drop verdict is that program's
 * drop place, apart from the same drop without one; the report names it.
 */
START_TEST(test_drop_judged)
{
	static const char *const names[] = {"tp:net:netif_receive_skb", "tp:skb:kfree_skb",
					    "bpf:fw#7", "bpf:xfw#8"};
	struct pp_out o = {.probe_names = names, .nprobes = 4, .reason_name = reason_name};
	struct pp_summary *s = pp_summary_new(16, 16);
	const struct pp_sum_drop *d[16];
	char *buf = NULL;
	size_t len = 0;
	struct pkt k;

	for (int i = 0; i < 3; i++) {
		pkt_start(&k, i);
		pkt_hop(&k, 0, 1000, NS_A, 2, "a-eth0");
		pkt_hop(&k, i ? 3 : 2, 2000, NS_A, 2, "a-eth0");
		k.hops[1].flags = PP_HOP_VERDICT | (i ? PP_HOP_XDP : 0);
		k.hops[1].reason = i ? 1 : 2; /* XDP_DROP, TC_ACT_SHOT */
		pkt_hop(&k, 1, 3000, NS_A, 2, "a-eth0");
		pkt_end(&k, PP_FATE_DROPPED, 2, 0);
		pp_summary_add(s, &k.p);
	}
	dropped(&k, 9, 2, 0, 2);
	pp_summary_add(s, &k.p);
	ck_assert_uint_eq(s->ndrops, 3);
	pp_summary_sorted_drops(s, d);
	ck_assert_uint_eq(d[0]->count, 2);
	ck_assert(d[0]->judge == 4 && d[0]->verdict == 1 && d[0]->judge_xdp);
	o.f = open_memstream(&buf, &len);
	pp_out_summary_text(&o, s, &(struct pp_sum_when){.elapsed = 1, .final = true});
	fclose(o.f);
	ck_assert_ptr_nonnull(strstr(buf, "by BPF program xfw#8 returned XDP_DROP\n"));
	ck_assert_ptr_nonnull(strstr(buf, "by BPF program fw#7 returned TC_ACT_SHOT\n"));
	free(buf);
	pp_summary_free(s);
}
END_TEST

static struct pp_out sum_out(void)
{
	return (struct pp_out){.probe_names = probe_names,
			       .nprobes = 4,
			       .reason_name = reason_name,
			       .sym_name = sym_name};
}

static char *render_when(const struct pp_summary *s, bool json, const struct pp_sum_when *when)
{
	struct pp_out o = sum_out();
	char *buf = NULL;
	size_t len = 0;

	o.f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(o.f);
	if (json)
		pp_out_summary_json(&o, s, when);
	else
		pp_out_summary_text(&o, s, when);
	fclose(o.f);
	return buf;
}

/* The report at exit of a live run of 2.5 s. */
static char *render(const struct pp_summary *s, bool json)
{
	struct pp_sum_when when = {.elapsed = 2.5, .final = true};

	return render_when(s, json, &when);
}

START_TEST(test_output)
{
	struct pp_summary *s = pp_summary_new(16, 16);
	struct pp_out o = sum_out();
	char *text, *json, want[256];
	__u64 id1, id2;
	struct pkt k;

	for (int i = 0; i < 3; i++) {
		forwarded(&k, i, 0, 2000, 500);
		pp_summary_add(s, &k.p);
	}
	id1 = pp_path_id(&o, &k.p); /* --metrics' path label */
	dropped(&k, 9, 5, LOC, 2);
	pp_summary_add(s, &k.p);
	id2 = pp_path_id(&o, &k.p);
	ck_assert_uint_ne(id1, id2);
	text = render(s, false);
	ck_assert_ptr_nonnull(strstr(text, "pktpath summary at exit, after 2.5 s: 4 packets, "
					   "2 distinct paths\n"));
	snprintf(want, sizeof(want),
		 "path 1: 3 packets (75.0%%), consumed; path id %012llx\n"
		 "  end to end (us): p50 2.500 p90 2.500 p99 2.500 max 2.500\n",
		 (unsigned long long)id1);
	ck_assert_ptr_nonnull(strstr(text, want));
	/* The slow step starred; namespace and device shown where they change. */
	ck_assert_ptr_nonnull(strstr(text, "   1 tp:net:netif_receive_skb         4026531840 "
					   "a-eth0\n"
					   "*  2 tp:net:net_dev_queue             4026532001 "
					   "r-eth1             2.000    2.000    2.000    2.000\n"
					   "   3 tp:skb:consume_skb                             "
					   "                0.500    0.500    0.500    0.500\n"));
	snprintf(want, sizeof(want),
		 "path 2: 1 packets (25.0%%), dropped: NETFILTER_DROP at nf_hook_slow; "
		 "path id %012llx\n",
		 (unsigned long long)id2);
	ck_assert_ptr_nonnull(strstr(text, want));
	ck_assert_ptr_nonnull(strstr(text, "drops: 1 packets (25.0%), by reason and place\n"));
	ck_assert_ptr_nonnull(strstr(text, "         1  25.0%  NETFILTER_DROP           "
					   "nf_hook_slow                 4026531840 a-eth0\n"));
	json = render(s, true);
	ck_assert_ptr_nonnull(strchr(json, '\n'));
	ck_assert_str_eq(strchr(json, '\n'), "\n");
	snprintf(want, sizeof(want),
		 "{\"path_summary\":{\"final\":true,\"elapsed_s\":2.500,\"packets\":4,"
		 "\"distinct\":2,\"dropped\":1,\"paths\":[{\"id\":\"%012llx\",\"count\":3,"
		 "\"share\":0.7500,\"fate\":{\"kind\":\"consumed\"},\"latency_ns\":{\"p50\":2500,",
		 (unsigned long long)id1);
	ck_assert_ptr_nonnull(strstr(json, want));
	ck_assert_ptr_nonnull(strstr(json, "{\"func\":\"tp:net:net_dev_queue\",\"netns\":"
					   "4026532001,\"ifname\":\"r-eth1\",\"ifindex\":3,"
					   "\"latency_ns\":{\"p50\":2000,\"p90\":2000,\"p99\":2000,"
					   "\"max\":2000}}"));
	ck_assert_ptr_nonnull(
		strstr(json, "\"drops\":[{\"count\":1,\"share\":0.2500,\"reason\":"
			     "\"NETFILTER_DROP\",\"reason_code\":5,\"func\":"
			     "\"nf_hook_slow\",\"location\":\"0xffffffff81a2b3c4\","
			     "\"netns\":4026531840,\"ifname\":\"a-eth0\",\"ifindex\":2}]}}"));
	free(text);
	free(json);
	pp_summary_free(s);
}
END_TEST

/*
 * `pktpath report FILE` sums up a recording, not a run at its exit: the
 * header names the file and what its time is; its JSON line is the live
 * run's.
 */
START_TEST(test_report_header)
{
	struct pp_summary *s = pp_summary_new(16, 16);
	struct pp_sum_when when = {.elapsed = 5.0, .final = true, .file = "run.jsonl"};
	char *text, *json, *live;
	struct pkt k;

	forwarded(&k, 0, 0, 2000, 500);
	pp_summary_add(s, &k.p);
	text = render_when(s, false, &when);
	ck_assert_str_eq(strtok(text, "\n"), "pktpath summary of run.jsonl, 5.0 s recorded: "
					     "1 packets, 1 distinct paths");
	free(text);
	when.span = true;
	text = render_when(s, false, &when);
	ck_assert_str_eq(strtok(text, "\n"),
			 "pktpath summary of run.jsonl, its packets within 5.0 s: "
			 "1 packets, 1 distinct paths");
	free(text);
	when.untimed = true;
	text = render_when(s, false, &when);
	ck_assert_str_eq(strtok(text, "\n"),
			 "pktpath summary of run.jsonl: 1 packets, 1 distinct paths");
	free(text);
	when = (struct pp_sum_when){.elapsed = 5.0, .final = true, .file = "run.jsonl"};
	json = render_when(s, true, &when);
	when.file = NULL;
	live = render_when(s, true, &when);
	ck_assert_str_eq(json, live);
	free(json);
	free(live);
	pp_summary_free(s);
}
END_TEST

Suite *summary_suite(void)
{
	Suite *s = suite_create("summary");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_group);
	tcase_add_test(tc, test_device_matters);
	tcase_add_test(tc, test_copies);
	tcase_add_test(tc, test_cap);
	tcase_add_test(tc, test_drop_table);
	tcase_add_test(tc, test_drop_judged);
	tcase_add_test(tc, test_output);
	tcase_add_test(tc, test_report_header);
	suite_add_tcase(s, tc);
	return s;
}
