// SPDX-License-Identifier: GPL-2.0
/*
 * frag_map's choices (include/frag_pick.h), as the classifier makes them at
 * each TC hop: every skb below is noted when it crosses a hook, and a new
 * fragment is given the source pp_frag_pick_parent() names before it is
 * noted in turn. The skbs are numbers; a datagram of 3960 payload bytes.
 */
#include <string.h>
#include "suites.h"
#include "frag_pick.h"
#include "free_fate.h"

/* A new fragment SKB [FIRST, END) joins: its source, then its note. */
static __u64 join(struct pp_frag_val *f, __u64 skb, __u32 first, __u32 end, bool *cut)
{
	__u64 seen, parent = pp_frag_pick_parent(f, first, cut, &seen);

	pp_frag_put(f, skb, first, end, 0);
	return parent;
}

static void expect_join(struct pp_frag_val *f, __u64 skb, __u32 first, __u32 end, __u64 parent,
			bool cut)
{
	bool got_cut = !cut;

	ck_assert_msg(join(f, skb, first, end, &got_cut) == parent,
		      "skb %llu [%u, %u): source not skb %llu", (unsigned long long)skb, first, end,
		      (unsigned long long)parent);
	ck_assert_msg(got_cut == cut, "skb %llu: cut %d", (unsigned long long)skb, got_cut);
}

/*
 * a -> r1 (MTU 1000) -> r2 (MTU 600) -> b, the sender cutting at 1500:
 * each fragment's source is the skb whose bytes it carries, at every level.
 */
START_TEST(test_two_routers)
{
	struct pp_frag_val f;

	memset(&f, 0, sizeof(f));
	/* a-eth0: the sender's first fragment (head of the frag_list)... */
	pp_frag_put(&f, 1, 0, 1480, 0);
	/* ...and its later ones, from the frag_list: no range holds them. */
	expect_join(&f, 2, 1480, 2960, 1, false);
	expect_join(&f, 3, 2960, 3960, 1, false);
	/* r1 cuts skb 1 into 976 + 504 bytes: skb 1 ends segmented. */
	expect_join(&f, 11, 0, 976, 1, true);
	expect_join(&f, 12, 976, 1480, 1, false);
	/* r2 cuts r1's first fragment: its source is skb 11, not 1. */
	expect_join(&f, 21, 0, 576, 11, true);
	expect_join(&f, 22, 576, 976, 11, false);
	/* r1 cuts skb 2; r2 cuts r1's [1480, 2456) (not 2, nor 1). */
	expect_join(&f, 13, 1480, 2456, 2, true);
	expect_join(&f, 14, 2456, 2960, 2, false);
	expect_join(&f, 23, 1480, 2056, 13, true);
	expect_join(&f, 24, 2056, 2456, 13, false);
	/* Slots were reused by now (11 notes), the first fragment's kept. */
	expect_join(&f, 25, 0, 200, 21, true);
}
END_TEST

/*
 * A fragment with the range of a noted one is that one seen again: it
 * takes its slot. A joined copy with its own skb and the same range is
 * named after the tightest range holding its first byte other than its own
 * (which it has not been noted with yet).
 */
START_TEST(test_same_range)
{
	struct pp_frag_val f;
	bool cut;
	__u64 seen;

	memset(&f, 0, sizeof(f));
	pp_frag_put(&f, 1, 0, 1480, 0);
	pp_frag_put(&f, 2, 1480, 2960, 0);
	ck_assert_uint_eq(f.n, 2);
	pp_frag_put(&f, 2, 1480, 2960, 0); /* skb 2 at the next hook */
	pp_frag_put(&f, 7, 1480, 2960, 0); /* the same bytes in another skb */
	ck_assert_uint_eq(f.slot[1].skb, 7);
	ck_assert_uint_eq(f.slot[2].seq, 0);
	ck_assert_uint_eq(pp_frag_pick_parent(&f, 1500, &cut, &seen), 7);
	ck_assert(!cut);
}
END_TEST

/* Equal ranges that hold the first byte: the newest. */
START_TEST(test_tie_newest)
{
	struct pp_frag_val f;
	bool cut;
	__u64 seen;

	memset(&f, 0, sizeof(f));
	pp_frag_put(&f, 1, 0, 1000, 0);
	pp_frag_put(&f, 2, 500, 1500, 0);
	ck_assert_uint_eq(pp_frag_pick_parent(&f, 600, &cut, &seen), 2);
	pp_frag_put(&f, 1, 0, 1000, 0); /* skb 1 seen again: now the newest */
	ck_assert_uint_eq(pp_frag_pick_parent(&f, 600, &cut, &seen), 1);
	ck_assert(!cut);
	ck_assert_uint_eq(pp_frag_pick_parent(&f, 500, &cut, &seen), 1);
	ck_assert(!cut);
	ck_assert_uint_eq(pp_frag_pick_parent(&f, 1000, &cut, &seen), 2);
	ck_assert(!cut);
	ck_assert_uint_eq(pp_frag_pick_parent(&f, 0, &cut, &seen), 1);
	ck_assert(cut);
}
END_TEST

/*
 * More fragments than slots (a 64 KB datagram is 45 of 1480 bytes): the
 * first fragment's slot is never taken, so the sender's last ones still
 * name it, and a router's cut of a late one still finds its source.
 */
START_TEST(test_many_fragments)
{
	struct pp_frag_val f;
	bool cut;
	__u64 seen;

	memset(&f, 0, sizeof(f));
	pp_frag_put(&f, 100, 0, 1480, 0);
	for (__u64 i = 1; i < 45; i++)
		expect_join(&f, 100 + i, (__u32)i * 1480, (__u32)(i + 1) * 1480, 100, false);
	ck_assert_uint_eq(f.slot[0].skb, 100);
	expect_join(&f, 200, 44 * 1480, 44 * 1480 + 976, 144, true);
	/* The oldest went: skb 101's range is no longer known. */
	ck_assert_uint_eq(pp_frag_pick_parent(&f, 1480, &cut, &seen), 100);
	ck_assert(!cut);
}
END_TEST

/* The first fragment is the widest range from byte 0, whenever it is noted. */
START_TEST(test_head_protected)
{
	struct pp_frag_val f;
	bool cut;
	__u64 seen;

	memset(&f, 0, sizeof(f));
	pp_frag_put(&f, 5, 1480, 2960, 0); /* the first seen is a later fragment */
	pp_frag_put(&f, 1, 0, 1480, 0);
	pp_frag_put(&f, 11, 0, 976, 0);
	ck_assert_uint_eq(f.slot[0].skb, 1);
	for (__u64 i = 0; i < 20; i++)
		pp_frag_put(&f, 1000 + i, 3000 + (__u32)i * 8, 3008 + (__u32)i * 8, 0);
	ck_assert_uint_eq(f.slot[0].skb, 1);
	ck_assert_uint_eq(pp_frag_pick_parent(&f, 2960, &cut, &seen), 1);
	ck_assert_uint_eq(pp_frag_pick_parent(&f, 100, &cut, &seen), 1);
	ck_assert(!cut);
	memset(&f, 0, sizeof(f));
	ck_assert_uint_eq(pp_frag_pick_parent(&f, 0, &cut, &seen), 0);
}
END_TEST

/*
 * The source is named with the time it was last noted, alive: a sender's
 * first fragment is freed before its third joins, and a tap's clone of the
 * second may take its address. The time tells the two lives apart.
 */
START_TEST(test_parent_seen)
{
	struct pp_frag_val f;
	bool cut;
	__u64 seen;

	memset(&f, 0, sizeof(f));
	pp_frag_put(&f, 1, 0, 1480, 100);    /* a-eth0 egress */
	pp_frag_put(&f, 1, 0, 1480, 150);    /* the same skb at b-eth0 ingress */
	pp_frag_put(&f, 2, 1480, 2960, 200); /* the second fragment */
	ck_assert_uint_eq(pp_frag_pick_parent(&f, 2960, &cut, &seen), 1);
	ck_assert_uint_eq(seen, 150);
	/* A router's cut of the second: its source and that note's time. */
	ck_assert_uint_eq(pp_frag_pick_parent(&f, 1480, &cut, &seen), 2);
	ck_assert(cut);
	ck_assert_uint_eq(seen, 200);
}
END_TEST

/*
 * Reassembly's end (include/free_fate.h): a reassembled datagram's other
 * fragments, freed by kfree_skb() from its frag_list, went on in it. 5.10's
 * tracepoint has no reason and 6.1's says NOT_SPECIFIED (the VM's fragments
 * scenario saw them "dropped" before); a real drop elsewhere stays one, and
 * with a specific reason only SKB_CONSUMED at such a place is a merge.
 */
START_TEST(test_kfree_fate)
{
	ck_assert_uint_eq(pp_kfree_fate(false, false, true), PP_FATE_MERGED);
	ck_assert_uint_eq(pp_kfree_fate(false, false, false), PP_FATE_DROPPED);
	ck_assert_uint_eq(pp_kfree_fate(true, true, true), PP_FATE_MERGED);
	ck_assert_uint_eq(pp_kfree_fate(true, true, false), PP_FATE_CONSUMED);
	ck_assert_uint_eq(pp_kfree_fate(true, false, true), PP_FATE_DROPPED);
	ck_assert_uint_eq(pp_kfree_fate(true, false, false), PP_FATE_DROPPED);
}
END_TEST

Suite *frag_suite(void)
{
	Suite *s = suite_create("frag");
	TCase *tc = tcase_create("pick");

	tcase_add_test(tc, test_two_routers);
	tcase_add_test(tc, test_same_range);
	tcase_add_test(tc, test_tie_newest);
	tcase_add_test(tc, test_many_fragments);
	tcase_add_test(tc, test_head_protected);
	tcase_add_test(tc, test_parent_seen);
	suite_add_tcase(s, tc);
	tc = tcase_create("kfree");
	tcase_add_test(tc, test_kfree_fate);
	suite_add_tcase(s, tc);
	return s;
}
