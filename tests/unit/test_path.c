// SPDX-License-Identifier: GPL-2.0
/* Path assembly from synthetic ring-buffer records. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "paths/path.h"
#include "suites.h"

#define MAXH 16
#define MAXP 16

/* What the emit callback saw, copied: hops[] dies with the callback. */
struct seen {
	__u64 id;
	size_t nhops;
	enum pp_fate fate;
	bool has_mark;
	__u32 reason, lost;
	__u64 location;
	__u32 probe[MAXH];
	__u32 type[MAXH];
	size_t nskbs;
	__u64 skb[MAXH];
	bool ended[MAXH];
	enum pp_fate skb_fate[MAXH];
	__u64 parent[MAXH];
	__u32 join_probe[MAXH];
	bool tap[MAXH];
	size_t hop_skb[MAXH]; /* pp_skb_index() of each hop */
	bool lingered, by_tap;
};

struct collect {
	size_t n;
	struct seen p[MAXP];
};

static void collect_emit(const struct pp_packet *p, void *ctx)
{
	struct collect *c = ctx;
	struct seen *s;
	size_t i;

	ck_assert_uint_lt(c->n, MAXP);
	s = &c->p[c->n++];
	*s = (struct seen){.id = p->id,
			   .nhops = p->nhops,
			   .fate = p->fate,
			   .has_mark = p->mark != NULL,
			   .reason = p->reason,
			   .lost = p->lost,
			   .location = p->location,
			   .lingered = p->lingered,
			   .by_tap = p->by_tap};
	s->nskbs = p->nskbs;
	for (i = 0; i < p->nskbs && i < MAXH; i++) {
		s->skb[i] = p->skbs[i].skb;
		s->ended[i] = p->skbs[i].ended;
		s->skb_fate[i] = p->skbs[i].fate;
		s->parent[i] = p->skbs[i].parent;
		s->join_probe[i] = p->skbs[i].probe;
		s->tap[i] = p->skbs[i].tap;
	}
	for (i = 0; i < p->nhops && i < MAXH; i++) {
		s->probe[i] = p->hops[i].probe;
		s->type[i] = p->hops[i].type;
		s->hop_skb[i] = pp_skb_index(p->skbs, p->nskbs, p->hops[i].skb, p->hops[i].ts);
		if (i)
			ck_assert_uint_le(p->hops[i - 1].ts, p->hops[i].ts);
	}
}

static struct pp_hop hop(__u32 type, __u64 id, __u32 probe, __u64 ts, __u32 cpu)
{
	return (struct pp_hop){.type = type,
			       .id = id,
			       .probe = probe,
			       .ts = ts,
			       .cpu = cpu,
			       .skb = 0xffff888000001000ULL + id,
			       .len = 84,
			       .fate = type == PP_REC_END ? PP_FATE_CONSUMED : 0};
}

static struct pp_mark mark(__u64 id, __u64 ts)
{
	struct pp_mark m = {.hop = hop(PP_REC_MARK, id, PP_PROBE_TC_EGRESS, ts, 0)};

	m.cap_len = 14;
	return m;
}

static void add_hop(struct pp_paths *pp, struct pp_hop h, __u64 now)
{
	ck_assert_int_eq(pp_paths_add(pp, &h, sizeof(h), now), 0);
}

static void add_mark(struct pp_paths *pp, __u64 id, __u64 ts)
{
	struct pp_mark m = mark(id, ts);

	ck_assert_int_eq(pp_paths_add(pp, &m, sizeof(m), ts), 0);
}

/* A HOP_BYTES record is a hop in the path, its bytes kept beside it. */
static struct pp_packet bytes_seen;
static struct pp_hop_bytes bytes_kept;
static struct pp_hop bytes_hop;

static void bytes_emit(const struct pp_packet *p, void *ctx)
{
	(void)ctx;
	bytes_seen = *p;
	ck_assert_uint_eq(p->nbytes, 1);
	bytes_kept = p->bytes[0];
	bytes_hop = p->hops[1];
	ck_assert_ptr_eq(pp_packet_bytes(p, &p->hops[1]), &p->bytes[0]);
	ck_assert_ptr_null(pp_packet_bytes(p, &p->hops[0]));
	ck_assert_ptr_null(pp_packet_bytes(p, &p->hops[2]));
}

START_TEST(test_hop_bytes)
{
	struct pp_paths *pp = pp_paths_new(bytes_emit, NULL);
	struct pp_mark b = mark(1, 200);

	b.hop.type = PP_REC_HOP_BYTES;
	b.hop.probe = PP_PROBE_TC_INGRESS;
	b.cap_len = 3;
	memcpy(b.data, "\x01\x02\x03", 3);
	add_mark(pp, 1, 100);
	/* Shorter than struct pp_mark, as a MARK may be; still covering cap_len. */
	ck_assert_int_eq(pp_paths_add(pp, &b, offsetof(struct pp_mark, data) + 3, 200), 0);
	add_hop(pp, hop(PP_REC_END, 1, 2, 300, 0), 300);
	ck_assert_uint_eq(bytes_seen.nhops, 3);
	ck_assert_uint_eq(bytes_hop.type, PP_REC_HOP);
	ck_assert_uint_eq(bytes_hop.probe, PP_PROBE_TC_INGRESS);
	ck_assert_uint_eq(bytes_kept.cap_len, 3);
	ck_assert_mem_eq(bytes_kept.data, "\x01\x02\x03", 3);
	ck_assert_uint_eq(bytes_kept.ts, 200);
	/* cap_len past the record's end is refused. */
	b.cap_len = 4;
	ck_assert_int_eq(pp_paths_add(pp, &b, offsetof(struct pp_mark, data) + 3, 400), -EINVAL);
	pp_paths_free(pp);
}
END_TEST

START_TEST(test_sorted_across_cpus)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);

	add_mark(pp, 1, 100);
	add_hop(pp, hop(PP_REC_HOP, 1, 2, 300, 1), 101); /* CPU 1 reserved first */
	add_hop(pp, hop(PP_REC_HOP, 1, 1, 200, 0), 102);
	add_hop(pp, hop(PP_REC_HOP, 1, 3, 300, 0), 103); /* same ts: after probe 2 */
	add_hop(pp, hop(PP_REC_END, 1, 4, 400, 0), 104);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(c.p[0].nhops, 5);
	ck_assert_uint_eq(c.p[0].type[0], PP_REC_MARK);
	ck_assert_uint_eq(c.p[0].probe[0], PP_PROBE_TC_EGRESS);
	ck_assert_uint_eq(c.p[0].probe[1], 1);
	ck_assert_uint_eq(c.p[0].probe[2], 2);
	ck_assert_uint_eq(c.p[0].probe[3], 3);
	ck_assert_uint_eq(c.p[0].type[4], PP_REC_END);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_CONSUMED);
	ck_assert(c.p[0].has_mark);
	pp_paths_free(pp);
}
END_TEST

START_TEST(test_repeat_visit)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);

	add_mark(pp, 7, 10);
	add_hop(pp, hop(PP_REC_HOP, 7, 5, 20, 0), 20);
	add_hop(pp, hop(PP_REC_HOP, 7, 6, 30, 0), 30);
	add_hop(pp, hop(PP_REC_HOP, 7, 5, 40, 0), 40);
	add_hop(pp, hop(PP_REC_END, 7, 9, 50, 0), 50);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(c.p[0].nhops, 5);
	ck_assert_uint_eq(c.p[0].probe[1], 5);
	ck_assert_uint_eq(c.p[0].probe[2], 6);
	ck_assert_uint_eq(c.p[0].probe[3], 5);
	pp_paths_free(pp);
}
END_TEST

START_TEST(test_end_emits_once)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_paths_stats st;

	add_mark(pp, 3, 10);
	ck_assert_uint_eq(pp_paths_open(pp), 1);
	add_hop(pp, hop(PP_REC_END, 3, 9, 50, 0), 50);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(pp_paths_open(pp), 0);
	/* A record after END (a clone, a second free) is late, not a new packet. */
	add_hop(pp, hop(PP_REC_HOP, 3, 5, 60, 1), 60);
	add_hop(pp, hop(PP_REC_END, 3, 9, 70, 1), 70);
	ck_assert_uint_eq(pp_paths_open(pp), 0);
	ck_assert_uint_eq(pp_paths_expire(pp, 1000000, 10), 0);
	ck_assert_uint_eq(pp_paths_flush(pp), 0);
	ck_assert_uint_eq(c.n, 1);
	pp_paths_stats(pp, &st);
	ck_assert_uint_eq(st.late, 2);
	ck_assert_uint_eq(st.emitted, 1);
	ck_assert_uint_eq(st.records, 2);
	pp_paths_free(pp);
}
END_TEST

START_TEST(test_mark_lost)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_paths_stats st;

	add_hop(pp, hop(PP_REC_HOP, 11, 5, 20, 0), 20);
	ck_assert_uint_eq(pp_paths_open(pp), 1);
	add_hop(pp, hop(PP_REC_END, 11, 9, 30, 0), 30);
	ck_assert_uint_eq(c.n, 1);
	ck_assert(!c.p[0].has_mark);
	ck_assert_uint_eq(c.p[0].nhops, 2);
	pp_paths_stats(pp, &st);
	ck_assert_uint_eq(st.mark_lost, 1);
	pp_paths_free(pp);
}
END_TEST

START_TEST(test_mark_after_hops)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_paths_stats st;

	add_hop(pp, hop(PP_REC_HOP, 12, 5, 20, 1), 20);
	add_mark(pp, 12, 10);
	add_hop(pp, hop(PP_REC_END, 12, 9, 30, 0), 30);
	ck_assert_uint_eq(c.n, 1);
	ck_assert(c.p[0].has_mark);
	ck_assert_uint_eq(c.p[0].type[0], PP_REC_MARK);
	ck_assert_uint_eq(c.p[0].probe[1], 5);
	pp_paths_stats(pp, &st);
	ck_assert_uint_eq(st.mark_lost, 0);
	pp_paths_free(pp);
}
END_TEST

START_TEST(test_drop_fields)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_hop end = hop(PP_REC_END, 4, 9, 50, 0);

	end.fate = PP_FATE_DROPPED;
	end.reason = 5;
	end.location = 0xffffffff81234567ULL;
	end.lost = 3;
	add_mark(pp, 4, 10);
	add_hop(pp, end, 50);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_DROPPED);
	ck_assert_uint_eq(c.p[0].reason, 5);
	ck_assert_uint_eq(c.p[0].location, 0xffffffff81234567ULL);
	ck_assert_uint_eq(c.p[0].lost, 3);
	pp_paths_free(pp);
}
END_TEST

/* A clone inherits the id: the packet ends when the last of its skbs does. */
static struct pp_hop clone_hop(__u32 type, __u64 id, __u64 ts, __u64 skb)
{
	struct pp_hop h = hop(type, id, 8, ts, 1);

	h.skb = skb;
	return h;
}

/* Each hop's netns, with bit 32 for PP_HOP_NETNS_CARRIED, of the last packet emitted. */
static __u64 carried[MAXH];
static size_t carried_n;

static void carry_emit(const struct pp_packet *p, void *ctx)
{
	(void)ctx;
	carried_n = p->nhops;
	for (size_t i = 0; i < p->nhops && i < MAXH; i++)
		carried[i] = p->hops[i].netns |
			     ((__u64) !!(p->hops[i].flags & PP_HOP_NETNS_CARRIED) << 32);
}

#define SKB_A (0xffff888000001000ULL + 20)
#define SKB_B 0xffff8880000b0000ULL
#define SKB_C 0xffff8880000c0000ULL

/* The end of a received TCP segment reads no namespace: the skb's hop before gives it. */
START_TEST(test_netns_carried)
{
	struct pp_paths *pp = pp_paths_new(carry_emit, NULL);
	struct pp_hop rx = hop(PP_REC_HOP, 30, 5, 20, 0), probe = hop(PP_REC_HOP, 30, 6, 30, 0);
	struct pp_hop other = clone_hop(PP_REC_HOP, 30, 25, SKB_C),
		      end = hop(PP_REC_END, 30, 9, 40, 0);

	add_mark(pp, 30, 10);
	rx.netns = 4026532177U;
	other.netns = 4026531833U; /* another skb's namespace is not this one's */
	add_hop(pp, rx, 20);
	add_hop(pp, other, 25);
	add_hop(pp, probe, 30);
	add_hop(pp, clone_hop(PP_REC_END, 30, 35, SKB_C), 35);
	add_hop(pp, end, 40);
	ck_assert_uint_eq(carried_n, 6);
	ck_assert_uint_eq(carried[0], 0); /* the mark: nothing before it */
	ck_assert_uint_eq(carried[1], 4026532177U);
	ck_assert_uint_eq(carried[2], 4026531833U);
	ck_assert_uint_eq(carried[3], 4026532177U | (1ULL << 32));
	ck_assert_uint_eq(carried[4], 4026531833U | (1ULL << 32));
	ck_assert_uint_eq(carried[5], 4026532177U | (1ULL << 32));
	pp_paths_free(pp);
}
END_TEST

START_TEST(test_clone_closes_last)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_hop end_b = clone_hop(PP_REC_END, 20, 60, SKB_B);

	add_mark(pp, 20, 10);
	add_hop(pp, hop(PP_REC_HOP, 20, 5, 20, 0), 20);
	add_hop(pp, clone_hop(PP_REC_HOP, 20, 30, SKB_B), 30);
	add_hop(pp, hop(PP_REC_END, 20, 9, 40, 0), 40);
	ck_assert_uint_eq(c.n, 0);
	ck_assert_uint_eq(pp_paths_open(pp), 1);
	add_hop(pp, clone_hop(PP_REC_HOP, 20, 50, SKB_B), 50);
	end_b.fate = PP_FATE_DROPPED;
	end_b.reason = 7;
	end_b.lost = 2;
	add_hop(pp, end_b, 60);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(c.p[0].nhops, 6);
	/* One skb consumed makes the packet consumed; each keeps its own fate. */
	ck_assert_int_eq(c.p[0].fate, PP_FATE_CONSUMED);
	ck_assert_int_eq(c.p[0].skb_fate[0], PP_FATE_CONSUMED);
	ck_assert_int_eq(c.p[0].skb_fate[1], PP_FATE_DROPPED);
	ck_assert_uint_eq(c.p[0].lost, 2);
	ck_assert_uint_eq(c.p[0].nskbs, 2);
	ck_assert_uint_eq(c.p[0].skb[0], SKB_A);
	ck_assert_uint_eq(c.p[0].skb[1], SKB_B);
	ck_assert(c.p[0].ended[0] && c.p[0].ended[1]);
	pp_paths_free(pp);
}
END_TEST

START_TEST(test_clone_first_drop_wins)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_hop end_a = hop(PP_REC_END, 20, 9, 40, 0);

	add_mark(pp, 20, 10);
	add_hop(pp, clone_hop(PP_REC_HOP, 20, 30, SKB_B), 30);
	end_a.fate = PP_FATE_DROPPED;
	end_a.reason = 3;
	end_a.lost = 1;
	add_hop(pp, end_a, 40);
	/* An END for a skb never seen: ended at once, keeps nothing open. */
	end_a.fate = PP_FATE_MERGED;
	end_a.skb = SKB_C;
	end_a.lost = 0;
	add_hop(pp, end_a, 45);
	ck_assert_uint_eq(c.n, 0);
	end_a.fate = PP_FATE_DROPPED;
	end_a.reason = 5;
	end_a.skb = SKB_B;
	add_hop(pp, end_a, 50);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_DROPPED);
	ck_assert_uint_eq(c.p[0].reason, 3);
	ck_assert_uint_eq(c.p[0].lost, 1);
	ck_assert_uint_eq(c.p[0].nskbs, 3);
	pp_paths_free(pp);
}
END_TEST

/* On a timeout, skbs[] tells which skb_map entries are still there. */
START_TEST(test_clone_timeout)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);

	add_mark(pp, 20, 10);
	add_hop(pp, clone_hop(PP_REC_HOP, 20, 30, SKB_B), 30);
	add_hop(pp, clone_hop(PP_REC_END, 20, 40, SKB_B), 40);
	ck_assert_uint_eq(pp_paths_expire(pp, 200, 100), 1);
	/* The copy was consumed: the packet was delivered, though A's end went unseen. */
	ck_assert_int_eq(c.p[0].fate, PP_FATE_CONSUMED);
	ck_assert_int_eq(c.p[0].skb_fate[0], PP_FATE_UNSEEN);
	ck_assert_uint_eq(c.p[0].nskbs, 2);
	ck_assert(!c.p[0].ended[0] && c.p[0].ended[1]);
	pp_paths_free(pp);
}
END_TEST

/* A live skb with no consumed one: the packet's end was not seen. */
START_TEST(test_unseen_beats_drop)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_hop end_b = clone_hop(PP_REC_END, 20, 40, SKB_B);

	add_mark(pp, 20, 10);
	end_b.fate = PP_FATE_DROPPED;
	add_hop(pp, end_b, 40);
	ck_assert_uint_eq(pp_paths_expire(pp, 200, 100), 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_UNSEEN);
	pp_paths_free(pp);
}
END_TEST

/*
 * A COPY record: the skb joins with its parent and the probe that saw it.
 * The original's END says its data is still shared and nothing tracked is
 * live: the packet waits for the copy, which closes it.
 */
START_TEST(test_copy_after_shared_end)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_hop end_a = hop(PP_REC_END, 20, 9, 40, 0);
	struct pp_hop copy = clone_hop(PP_REC_COPY, 20, 50, SKB_B);

	add_mark(pp, 20, 10);
	end_a.fate = PP_FATE_DROPPED;
	end_a.flags = PP_HOP_SHARED;
	add_hop(pp, end_a, 40);
	ck_assert_uint_eq(c.n, 0);
	ck_assert_uint_eq(pp_paths_open(pp), 1);
	copy.probe = 11;
	copy.location = SKB_A;
	add_hop(pp, copy, 50);
	add_hop(pp, clone_hop(PP_REC_END, 20, 60, SKB_B), 60);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_CONSUMED);
	ck_assert_uint_eq(c.p[0].nskbs, 2);
	ck_assert_uint_eq(c.p[0].parent[1], SKB_A);
	ck_assert_uint_eq(c.p[0].join_probe[1], 11);
	ck_assert_int_eq(c.p[0].skb_fate[0], PP_FATE_DROPPED);
	ck_assert(!c.p[0].lingered);
	pp_paths_free(pp);
}
END_TEST

/* A shared END whose other holder never shows: closed by the timeout, with its fate. */
START_TEST(test_shared_end_lingers)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_hop end_a = hop(PP_REC_END, 20, 9, 40, 0);

	add_mark(pp, 20, 10);
	end_a.flags = PP_HOP_SHARED;
	add_hop(pp, end_a, 40);
	ck_assert_uint_eq(c.n, 0);
	ck_assert_uint_eq(pp_paths_expire(pp, 200, 100), 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_CONSUMED);
	ck_assert(c.p[0].lingered);
	pp_paths_free(pp);
}
END_TEST

/*
 * A sender's first fragment leaves the traced scope (its END says more
 * fragments follow, PP_HOP_FRAGS) before the next crosses its first hook:
 * the packet waits for that fragment's COPY, whose END (the last fragment,
 * no flag) closes it with both skbs.
 */
START_TEST(test_fragment_after_end)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_hop end_a = hop(PP_REC_END, 20, 9, 40, 0);
	struct pp_hop copy = clone_hop(PP_REC_COPY, 20, 50, SKB_B);
	struct pp_hop end_b = clone_hop(PP_REC_END, 20, 60, SKB_B);

	add_mark(pp, 20, 10);
	end_a.fate = end_b.fate = PP_FATE_LEFT;
	end_a.flags = PP_HOP_FRAGS;
	add_hop(pp, end_a, 40);
	ck_assert_uint_eq(c.n, 0);
	copy.location = SKB_A;
	add_hop(pp, copy, 50);
	add_hop(pp, end_b, 60);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_LEFT);
	ck_assert_uint_eq(c.p[0].nskbs, 2);
	ck_assert_uint_eq(c.p[0].parent[1], SKB_A);
	ck_assert(!c.p[0].lingered);
	pp_paths_free(pp);
}
END_TEST

/* A copy first seen at its own free: one step, not a COPY and an END. */
START_TEST(test_copy_at_end_is_one_hop)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_hop copy = clone_hop(PP_REC_COPY, 20, 30, SKB_B);
	struct pp_hop end_b = clone_hop(PP_REC_END, 20, 31, SKB_B);

	add_mark(pp, 20, 10);
	copy.probe = end_b.probe = 12;
	add_hop(pp, copy, 30);
	add_hop(pp, end_b, 31);
	add_hop(pp, hop(PP_REC_END, 20, 9, 40, 0), 40);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(c.p[0].nhops, 3);
	ck_assert_uint_eq(c.p[0].type[1], PP_REC_END);
	ck_assert_uint_eq(c.p[0].join_probe[1], 12);
	pp_paths_free(pp);
}
END_TEST

/* A copy, made at TS from the first skb. */
static struct pp_hop copy_of_a(__u64 ts, __u64 skb)
{
	struct pp_hop h = clone_hop(PP_REC_COPY, 20, ts, skb);

	h.location = SKB_A;
	return h;
}

/* An END at TS: FATE, and a tap's (PP_HOP_TAP) if TAP. */
static struct pp_hop end_of(__u64 ts, __u64 skb, enum pp_fate fate, bool tap)
{
	struct pp_hop h = clone_hop(PP_REC_END, 20, ts, skb);

	h.fate = fate;
	h.reason = fate == PP_FATE_DROPPED ? 13 : 0;
	h.flags = tap ? PP_HOP_TAP : 0;
	return h;
}

/*
 * tcpdump's copy consumed in its ring while nftables drops the packet: the
 * tap observes, the drop is the packet's fate.
 */
START_TEST(test_tap_never_decides)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);

	add_mark(pp, 20, 10);
	add_hop(pp, copy_of_a(20, SKB_B), 20);
	add_hop(pp, end_of(21, SKB_B, PP_FATE_CONSUMED, true), 21);
	add_hop(pp, hop(PP_REC_HOP, 20, 5, 30, 0), 30);
	add_hop(pp, end_of(40, SKB_A, PP_FATE_DROPPED, false), 40);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_DROPPED);
	ck_assert_uint_eq(c.p[0].reason, 13);
	ck_assert(!c.p[0].by_tap);
	ck_assert_uint_eq(c.p[0].nskbs, 2);
	ck_assert(!c.p[0].tap[0] && c.p[0].tap[1]);
	ck_assert_int_eq(c.p[0].skb_fate[1], PP_FATE_CONSUMED);
	pp_paths_free(pp);
}
END_TEST

/* A packet whose end went unseen stays so, whatever its tap's copy did. */
START_TEST(test_tap_no_end)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);

	add_mark(pp, 20, 10);
	add_hop(pp, copy_of_a(20, SKB_B), 20);
	add_hop(pp, end_of(21, SKB_B, PP_FATE_CONSUMED, true), 21);
	ck_assert_uint_eq(pp_paths_expire(pp, 200, 100), 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_UNSEEN);
	pp_paths_free(pp);
}
END_TEST

/* A frame that only a tap took (no protocol for it): its fate is the tap's, and says so. */
START_TEST(test_tap_only)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);

	add_mark(pp, 20, 10);
	add_hop(pp, end_of(40, SKB_A, PP_FATE_CONSUMED, true), 40);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_CONSUMED);
	ck_assert(c.p[0].by_tap);
	pp_paths_free(pp);
}
END_TEST

/*
 * tcpdump's clone of an ICMP error freed, then ping's clone at the same
 * address: two copies, each with its parent, hops and end, not one freed twice.
 */
START_TEST(test_address_two_lives)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);

	add_mark(pp, 20, 10);
	add_hop(pp, copy_of_a(20, SKB_B), 20);
	add_hop(pp, end_of(21, SKB_B, PP_FATE_CONSUMED, true), 21);
	add_hop(pp, copy_of_a(30, SKB_B), 30);
	add_hop(pp, clone_hop(PP_REC_HOP, 20, 35, SKB_B), 35);
	ck_assert_uint_eq(pp_paths_open(pp), 1);
	add_hop(pp, end_of(40, SKB_A, PP_FATE_DROPPED, false), 40);
	ck_assert_uint_eq(c.n, 0);
	add_hop(pp, end_of(50, SKB_B, PP_FATE_CONSUMED, false), 50);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(c.p[0].nskbs, 3);
	ck_assert_uint_eq(c.p[0].skb[1], SKB_B);
	ck_assert_uint_eq(c.p[0].skb[2], SKB_B);
	ck_assert_uint_eq(c.p[0].parent[1], SKB_A);
	ck_assert_uint_eq(c.p[0].parent[2], SKB_A);
	ck_assert(c.p[0].ended[1] && c.p[0].ended[2]);
	ck_assert(c.p[0].tap[1] && !c.p[0].tap[2]);
	/* ping's copy was consumed: the packet was delivered. */
	ck_assert_int_eq(c.p[0].fate, PP_FATE_CONSUMED);
	/* mark, B's first END (its COPY is one step with it), B's COPY, hop, A's END, B's END */
	ck_assert_uint_eq(c.p[0].nhops, 6);
	ck_assert_uint_eq(c.p[0].hop_skb[1], 1);
	ck_assert_uint_eq(c.p[0].hop_skb[2], 2);
	ck_assert_uint_eq(c.p[0].hop_skb[3], 2);
	ck_assert_uint_eq(c.p[0].hop_skb[4], 0);
	ck_assert_uint_eq(c.p[0].hop_skb[5], 2);
	pp_paths_free(pp);
}
END_TEST

/* A copy's END, consumed while another skb still holds its data (PP_HOP_SHARED). */
static struct pp_hop shared_end(__u64 ts, __u64 skb)
{
	struct pp_hop h = end_of(ts, skb, PP_FATE_CONSUMED, false);

	h.flags = PP_HOP_SHARED;
	return h;
}

/*
 * The first datagram to a neighbour not yet resolved: neigh_probe() clones
 * it for arp_solicit() and consumes the clone, seen only at its free (its
 * COPY and END from the free's probe); the datagram goes on once the
 * neighbour answers and is dropped (NO_SOCKET in the receiver). The clone
 * keeps its own end; the drop is the packet's.
 */
START_TEST(test_copy_aside_never_decides)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);

	add_mark(pp, 20, 10);
	add_hop(pp, copy_of_a(20, SKB_B), 20);
	add_hop(pp, shared_end(21, SKB_B), 21);
	add_hop(pp, hop(PP_REC_HOP, 20, 5, 30, 0), 30);
	ck_assert_uint_eq(c.n, 0);
	add_hop(pp, end_of(40, SKB_A, PP_FATE_DROPPED, false), 40);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_DROPPED);
	ck_assert_uint_eq(c.p[0].reason, 13);
	ck_assert(!c.p[0].by_tap);
	ck_assert_uint_eq(c.p[0].nskbs, 2);
	ck_assert_int_eq(c.p[0].skb_fate[1], PP_FATE_CONSUMED);
	ck_assert_uint_eq(c.p[0].parent[1], SKB_A);
	pp_paths_free(pp);
}
END_TEST

/* The datagram still waits (its neighbour never answered): its end was not seen. */
START_TEST(test_copy_aside_no_end)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);

	add_mark(pp, 20, 10);
	add_hop(pp, copy_of_a(20, SKB_B), 20);
	add_hop(pp, shared_end(21, SKB_B), 21);
	ck_assert_uint_eq(pp_paths_expire(pp, 200, 100), 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_UNSEEN);
	pp_paths_free(pp);
}
END_TEST

/*
 * A copy that went somewhere decides: joined at another probe than its
 * free's (ping's copy at its reader's copy, tp:skb:skb_copy_datagram_iovec),
 * with a hop of its own (a bridge's flood copy crossing a device), or freed
 * by its reader (PP_HOP_READ); so does the last holder of the data, seen
 * only at its free (a reader's free before Linux 6.3, no location). Its
 * consume is the packet delivered.
 */
START_TEST(test_copy_seen_decides)
{
	for (int k = 0; k < 4; k++) {
		struct collect c = {0};
		struct pp_paths *pp = pp_paths_new(collect_emit, &c);
		struct pp_hop copy = copy_of_a(20, SKB_B),
			      end = end_of(30, SKB_B, PP_FATE_CONSUMED, false);

		if (k == 0)
			copy.probe = 11;
		if (k == 2)
			end.flags = PP_HOP_READ;
		add_mark(pp, 20, 10);
		add_hop(pp, copy, 20);
		if (k == 1)
			add_hop(pp, clone_hop(PP_REC_HOP, 20, 25, SKB_B), 25);
		add_hop(pp, end_of(28, SKB_A, PP_FATE_DROPPED, false), 28);
		add_hop(pp, end, 30);
		ck_assert_uint_eq(c.n, 1);
		ck_assert_int_eq(c.p[0].fate, PP_FATE_CONSUMED);
		pp_paths_free(pp);
	}
}
END_TEST

/* Every skb that is no tap's seen only at its free (the original's records lost): they decide. */
START_TEST(test_copy_aside_alone)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_skbref r = {.copy = true, .ended = true, .probe = 8, .end_probe = 8};

	ck_assert(!pp_skb_aside(&r));
	r.end_flags = PP_HOP_SHARED;
	ck_assert(pp_skb_aside(&r));
	r.end_flags |= PP_HOP_READ;
	ck_assert(!pp_skb_aside(&r));
	add_hop(pp, copy_of_a(20, SKB_B), 20);
	add_hop(pp, shared_end(21, SKB_B), 21);
	ck_assert_uint_eq(pp_paths_expire(pp, 200, 100), 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_CONSUMED);
	pp_paths_free(pp);
}
END_TEST

/*
 * The second life's records from another CPU arrive before the first
 * life's END: the times say whose each is.
 */
START_TEST(test_address_lives_interleaved)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);

	add_mark(pp, 20, 10);
	add_hop(pp, copy_of_a(20, SKB_B), 20);
	add_hop(pp, copy_of_a(30, SKB_B), 30);
	add_hop(pp, end_of(25, SKB_B, PP_FATE_DROPPED, false), 31);
	add_hop(pp, end_of(40, SKB_A, PP_FATE_CONSUMED, false), 40);
	ck_assert_uint_eq(c.n, 0);
	add_hop(pp, end_of(50, SKB_B, PP_FATE_MERGED, false), 50);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(c.p[0].nskbs, 3);
	ck_assert_int_eq(c.p[0].skb_fate[1], PP_FATE_DROPPED);
	ck_assert_int_eq(c.p[0].skb_fate[2], PP_FATE_MERGED);
	pp_paths_free(pp);
}
END_TEST

/* A hop after its address's END, whose COPY is late: the start of another life. */
START_TEST(test_address_hop_after_end)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);

	add_mark(pp, 20, 10);
	add_hop(pp, copy_of_a(20, SKB_B), 20);
	add_hop(pp, end_of(25, SKB_B, PP_FATE_CONSUMED, true), 25);
	add_hop(pp, clone_hop(PP_REC_HOP, 20, 32, SKB_B), 32);
	add_hop(pp, copy_of_a(30, SKB_B), 33);
	add_hop(pp, end_of(40, SKB_A, PP_FATE_DROPPED, false), 40);
	ck_assert_uint_eq(c.n, 0);
	add_hop(pp, end_of(50, SKB_B, PP_FATE_CONSUMED, false), 50);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(c.p[0].nskbs, 3);
	ck_assert_uint_eq(c.p[0].parent[2], SKB_A);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_CONSUMED);
	pp_paths_free(pp);
}
END_TEST

/* Merged (GRO, TCP coalescing) only when nothing was consumed or dropped. */
START_TEST(test_merged)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_hop end_a = hop(PP_REC_END, 20, 9, 40, 0);

	add_mark(pp, 20, 10);
	end_a.fate = PP_FATE_MERGED;
	add_hop(pp, end_a, 40);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_MERGED);
	pp_paths_free(pp);
}
END_TEST

/*
 * GSO: the original, freed once cut up, ends segmented; its segments join
 * as copies made at the segmenting function. One segment delivered is the
 * packet delivered; with every segment dropped the packet is dropped, not
 * consumed by the free of the original.
 */
static void segmented(struct pp_paths *pp, enum pp_fate seg_b, enum pp_fate seg_c)
{
	struct pp_hop end_a = hop(PP_REC_END, 20, 9, 40, 0),
		      b = clone_hop(PP_REC_COPY, 20, 30, SKB_B),
		      c = clone_hop(PP_REC_COPY, 20, 31, SKB_C);

	add_mark(pp, 20, 10);
	b.location = c.location = SKB_A;
	b.probe = c.probe = 13;
	add_hop(pp, b, 30);
	add_hop(pp, c, 31);
	end_a.fate = PP_FATE_SEGMENTED;
	add_hop(pp, end_a, 40);
	b = clone_hop(PP_REC_END, 20, 50, SKB_B);
	b.fate = seg_b;
	add_hop(pp, b, 50);
	c = clone_hop(PP_REC_END, 20, 51, SKB_C);
	c.fate = seg_c;
	add_hop(pp, c, 51);
}

START_TEST(test_segmented)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);

	segmented(pp, PP_FATE_DROPPED, PP_FATE_CONSUMED);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_CONSUMED);
	ck_assert_uint_eq(c.p[0].nskbs, 3);
	ck_assert_int_eq(c.p[0].skb_fate[0], PP_FATE_SEGMENTED);
	ck_assert_uint_eq(c.p[0].parent[1], SKB_A);
	ck_assert_uint_eq(c.p[0].join_probe[2], 13);
	pp_paths_free(pp);
	memset(&c, 0, sizeof(c));
	pp = pp_paths_new(collect_emit, &c);
	segmented(pp, PP_FATE_DROPPED, PP_FATE_DROPPED);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_DROPPED);
	pp_paths_free(pp);
}
END_TEST

/* A fragment made at TS (a TC hook) from PARENT: a COPY record, as bpf/frag.bpf.h sends it. */
static struct pp_hop frag_of(__u64 ts, __u64 skb, __u64 parent)
{
	struct pp_hop h = clone_hop(PP_REC_COPY, 20, ts, skb);

	h.location = parent;
	h.probe = PP_PROBE_TC_EGRESS;
	return h;
}

/*
 * IP fragments, the records of test_fragments.sh's datagrams: the sender's
 * first fragment A is marked, its second B joins from A's frag_list; the
 * router cuts A into C and D, and B into E and a second life of A's address
 * (A was freed, segmented, before); the receiver merges C, D, E into the
 * second A, which is read. One packet: consumed; the router's originals
 * segmented, the receiver's fragments merged, each copy from the skb (the
 * life of its address) it was cut from.
 */
START_TEST(test_fragments)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	const __u64 skb_d = 0xffff8880000d0000ULL, skb_e = 0xffff8880000e0000ULL;

	add_mark(pp, 20, 10);
	add_hop(pp, frag_of(20, SKB_B, SKB_A), 20);
	add_hop(pp, frag_of(30, SKB_C, SKB_A), 30);
	add_hop(pp, frag_of(31, skb_d, SKB_A), 31);
	add_hop(pp, end_of(32, SKB_A, PP_FATE_SEGMENTED, false), 32);
	add_hop(pp, frag_of(40, skb_e, SKB_B), 40);
	add_hop(pp, frag_of(41, SKB_A, SKB_B), 41);
	add_hop(pp, end_of(42, SKB_B, PP_FATE_SEGMENTED, false), 42);
	add_hop(pp, end_of(50, SKB_C, PP_FATE_MERGED, false), 50);
	add_hop(pp, end_of(51, skb_e, PP_FATE_MERGED, false), 51);
	add_hop(pp, end_of(60, SKB_A, PP_FATE_CONSUMED, false), 60);
	ck_assert_uint_eq(c.n, 0); /* D not ended yet: the datagram's frag_list holds it */
	add_hop(pp, end_of(61, skb_d, PP_FATE_MERGED, false), 61);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_CONSUMED);
	ck_assert_uint_eq(c.p[0].nskbs, 6);
	ck_assert_uint_eq(c.p[0].skb[5], SKB_A);
	ck_assert_uint_eq(c.p[0].parent[5], SKB_B);
	ck_assert_uint_eq(c.p[0].parent[2], SKB_A);
	ck_assert_uint_eq(c.p[0].join_probe[3], PP_PROBE_TC_EGRESS);
	ck_assert_int_eq(c.p[0].skb_fate[0], PP_FATE_SEGMENTED);
	ck_assert_int_eq(c.p[0].skb_fate[1], PP_FATE_SEGMENTED);
	ck_assert_int_eq(c.p[0].skb_fate[2], PP_FATE_MERGED);
	ck_assert_int_eq(c.p[0].skb_fate[3], PP_FATE_MERGED);
	ck_assert_int_eq(c.p[0].skb_fate[4], PP_FATE_MERGED);
	ck_assert_int_eq(c.p[0].skb_fate[5], PP_FATE_CONSUMED);
	/* The second A's hops are its own, not the first A's. */
	ck_assert_uint_eq(c.p[0].hop_skb[c.p[0].nhops - 2], 5);
	pp_paths_free(pp);
}
END_TEST

START_TEST(test_expire)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);

	add_mark(pp, 1, 1000); /* arrives at 1000 */
	add_mark(pp, 2, 1500);
	ck_assert_uint_eq(pp_paths_expire(pp, 1100, 100), 0);
	add_hop(pp, hop(PP_REC_HOP, 1, 5, 1001, 0), 1600); /* 1 is fresh again */
	ck_assert_uint_eq(pp_paths_expire(pp, 1600, 100), 0);
	ck_assert_uint_eq(pp_paths_expire(pp, 1601, 100), 1);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(c.p[0].id, 2);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_UNSEEN);
	ck_assert_uint_eq(pp_paths_expire(pp, 1700, 100), 0);
	ck_assert_uint_eq(pp_paths_expire(pp, 1701, 100), 1);
	ck_assert_uint_eq(c.p[1].id, 1);
	ck_assert_uint_eq(c.p[1].nhops, 2);
	ck_assert_uint_eq(pp_paths_open(pp), 0);
	pp_paths_free(pp);
}
END_TEST

/* The packet a hold callback keeps open (a qdisc holds its skb), 0: none. */
static __u64 hold_id;

static bool hold_one(__u64 id, const struct pp_skbref *skbs, __u32 nskbs, void *ctx)
{
	(void)ctx;
	ck_assert_uint_ge(nskbs, 1);
	ck_assert(!skbs[0].ended);
	return id == hold_id;
}

START_TEST(test_hold)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_paths_stats st;
	__u64 late = 2101 + PP_HOLD_MAX_NS;

	pp_paths_set_hold(pp, hold_one);
	hold_id = 1;
	add_mark(pp, 1, 1000);
	add_mark(pp, 2, 1000);
	ck_assert_uint_eq(pp_paths_expire(pp, 1101, 100), 1); /* 2 closes, 1 is held */
	ck_assert_uint_eq(c.p[0].id, 2);
	ck_assert_uint_eq(pp_paths_expire(pp, 1202, 100), 0); /* held again */
	pp_paths_stats(pp, &st);
	ck_assert_uint_eq(st.held, 2);
	hold_id = 0; /* out of the queue, and nothing came since */
	ck_assert_uint_eq(pp_paths_expire(pp, 1303, 100), 1);
	ck_assert_uint_eq(c.p[1].id, 1);
	ck_assert_int_eq(c.p[1].fate, PP_FATE_UNSEEN);
	/* Held no longer than PP_HOLD_MAX_NS after the first hold. */
	hold_id = 3;
	add_mark(pp, 3, 2000);
	ck_assert_uint_eq(pp_paths_expire(pp, 2101, 100), 0);
	ck_assert_uint_eq(pp_paths_expire(pp, late, 100), 0);
	ck_assert_uint_eq(pp_paths_expire(pp, late + 101, 100), 1);
	ck_assert_uint_eq(c.p[2].id, 3);
	hold_id = 0;
	pp_paths_free(pp);
}
END_TEST

/*
 * The tracepoint backend's race for a read datagram: the reader's read END
 * (sock_recv_length) and the deferred free's END (consume_skb, on the CPU
 * that allocated it) both come, in either order, the second after the END
 * that ended the packet. With a grace the second joins the packet as the
 * same skb's second END: the read is shown, nothing is late, no new skb.
 */
static struct pp_hop read_end(__u64 id, __u64 ts)
{
	struct pp_hop h = hop(PP_REC_END, id, PP_PROBE_READ, ts, 1);

	memcpy(h.comm, "reader", 7);
	return h;
}

START_TEST(test_read_after_free_joins)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_paths_stats st;

	pp_paths_set_grace(pp, 100);
	add_mark(pp, 1, 10);
	add_hop(pp, hop(PP_REC_HOP, 1, 5, 20, 0), 20);
	add_hop(pp, hop(PP_REC_END, 1, 9, 30, 0), 30); /* consume_skb first */
	ck_assert_uint_eq(c.n, 0);		       /* ended, in its grace */
	ck_assert_uint_eq(pp_paths_expire(pp, 100, 1000), 0);
	add_hop(pp, read_end(1, 31), 101); /* the read, from the other CPU */
	ck_assert_uint_eq(pp_paths_expire(pp, 201, 1000), 0);
	ck_assert_uint_eq(pp_paths_expire(pp, 202, 1000), 1);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(c.p[0].nhops, 4);
	ck_assert_uint_eq(c.p[0].nskbs, 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_CONSUMED);
	ck_assert_uint_eq(c.p[0].probe[3], PP_PROBE_READ);
	ck_assert_uint_eq(c.p[0].hop_skb[3], 0);
	pp_paths_stats(pp, &st);
	ck_assert_uint_eq(st.late, 0);
	ck_assert_uint_eq(st.graced, 1);
	ck_assert_uint_eq(st.ends_joined, 1);
	pp_paths_free(pp);
}
END_TEST

/*
 * The copy veth made for XDP (PP_HOP_FRAME): its COPY, verdict and END come
 * right after the original's END ("xdp"), within the grace, and join the
 * packet; the copy's drop is the packet's fate, nothing is late.
 */
START_TEST(test_xdp_copy_joins)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_hop end_a = hop(PP_REC_END, 20, 9, 40, 0);
	struct pp_hop copy = clone_hop(PP_REC_COPY, 20, 41, SKB_B);
	struct pp_hop verdict = clone_hop(PP_REC_HOP, 20, 41, SKB_B);
	struct pp_hop end_b = clone_hop(PP_REC_END, 20, 41, SKB_B);
	struct pp_paths_stats st;

	pp_paths_set_grace(pp, 100);
	add_mark(pp, 20, 10);
	end_a.fate = PP_FATE_XDP;
	add_hop(pp, end_a, 40);
	copy.location = SKB_A;
	copy.parent_age = 1;
	copy.flags = PP_HOP_FRAME;
	verdict.flags = PP_HOP_FRAME | PP_HOP_VERDICT | PP_HOP_XDP;
	verdict.reason = 1; /* XDP_DROP */
	end_b.flags = PP_HOP_FRAME;
	end_b.fate = PP_FATE_DROPPED;
	add_hop(pp, copy, 41);
	add_hop(pp, verdict, 41);
	add_hop(pp, end_b, 41);
	ck_assert_uint_eq(pp_paths_expire(pp, 150, 1000), 1);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_DROPPED);
	ck_assert_uint_eq(c.p[0].nskbs, 2);
	ck_assert_uint_eq(c.p[0].parent[1], SKB_A);
	ck_assert_int_eq(c.p[0].skb_fate[0], PP_FATE_XDP);
	ck_assert_uint_eq(c.p[0].nhops, 5);
	pp_paths_stats(pp, &st);
	ck_assert_uint_eq(st.late, 0);
	pp_paths_free(pp);
}
END_TEST

START_TEST(test_free_after_read_joins)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_paths_stats st;

	pp_paths_set_grace(pp, 100);
	add_mark(pp, 2, 10);
	add_hop(pp, read_end(2, 40), 40);
	add_hop(pp, hop(PP_REC_END, 2, 9, 39, 0), 45); /* the free, reserved later */
	ck_assert_uint_eq(pp_paths_expire(pp, 140, 1000), 0);
	ck_assert_uint_eq(pp_paths_expire(pp, 146, 1000), 1);
	ck_assert_uint_eq(c.p[0].nskbs, 1);
	ck_assert_uint_eq(c.p[0].nhops, 3);
	ck_assert_int_eq(c.p[0].fate, PP_FATE_CONSUMED);
	ck_assert_uint_eq(c.p[0].probe[2], PP_PROBE_READ);
	pp_paths_stats(pp, &st);
	ck_assert_uint_eq(st.late, 0);
	ck_assert_uint_eq(st.ends_joined, 1);
	pp_paths_free(pp);
}
END_TEST

/* A read never joins a drop (two skbs' ends), nor a third END the same life. */
START_TEST(test_read_never_joins_drop)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_hop d = hop(PP_REC_END, 3, 9, 30, 0);

	pp_paths_set_grace(pp, 100);
	d.fate = PP_FATE_DROPPED;
	add_mark(pp, 3, 10);
	add_hop(pp, d, 30);
	add_hop(pp, read_end(3, 31), 31);
	ck_assert_uint_eq(pp_paths_flush(pp), 1);
	ck_assert_uint_eq(c.p[0].nskbs, 2);
	pp_paths_free(pp);
}
END_TEST

/* Past the grace a record is late, and the late callback names its packet. */
static __u64 late_id, late_ago;
static __u32 late_probe;

static void note_late(__u64 id, const struct pp_hop *h, __u64 ago_ns, void *ctx)
{
	(void)ctx;
	late_id = id;
	late_probe = h->probe;
	late_ago = ago_ns;
}

START_TEST(test_late_named)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_paths_stats st;

	pp_paths_set_grace(pp, 100);
	pp_paths_set_late(pp, note_late);
	add_mark(pp, 4, 10);
	add_hop(pp, hop(PP_REC_END, 4, 9, 30, 0), 30);
	ck_assert_uint_eq(pp_paths_open(pp), 1);
	ck_assert_uint_eq(pp_paths_expire(pp, 131, 100000), 1);
	ck_assert_uint_eq(pp_paths_open(pp), 0);
	add_hop(pp, read_end(4, 32), 500);
	pp_paths_stats(pp, &st);
	ck_assert_uint_eq(st.late, 1);
	ck_assert_uint_eq(late_id, 4);
	ck_assert_uint_eq(late_probe, PP_PROBE_READ);
	ck_assert_uint_eq(late_ago, 500 - 131);
	pp_paths_free(pp);
}
END_TEST

/* An ended packet that gets a new live skb in its grace waits for its end. */
START_TEST(test_grace_reopens)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_hop cp = hop(PP_REC_COPY, 5, 7, 25, 1);

	pp_paths_set_grace(pp, 100);
	cp.skb += 0x100;
	add_mark(pp, 5, 10);
	add_hop(pp, hop(PP_REC_END, 5, 9, 30, 0), 30);
	add_hop(pp, cp, 40); /* a copy made before the free, its record behind */
	ck_assert_uint_eq(pp_paths_expire(pp, 200, 1000), 0);
	cp.type = PP_REC_END;
	cp.fate = PP_FATE_CONSUMED;
	cp.ts = 300;
	add_hop(pp, cp, 300);
	ck_assert_uint_eq(pp_paths_expire(pp, 350, 1000), 0);
	ck_assert_uint_eq(pp_paths_expire(pp, 401, 1000), 1);
	ck_assert_uint_eq(c.p[0].nskbs, 2);
	pp_paths_free(pp);
}
END_TEST

START_TEST(test_tombstone_forgotten)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);

	add_mark(pp, 5, 10);
	add_hop(pp, hop(PP_REC_END, 5, 9, 20, 0), 20);
	ck_assert_uint_eq(pp_paths_expire(pp, 200, 100), 0);
	/* Past a timeout the closed id is forgotten: a record opens it anew. */
	add_hop(pp, hop(PP_REC_HOP, 5, 6, 300, 0), 300);
	ck_assert_uint_eq(pp_paths_open(pp), 1);
	ck_assert_uint_eq(pp_paths_flush(pp), 1);
	ck_assert_uint_eq(c.n, 2);
	ck_assert(!c.p[1].has_mark);
	ck_assert_int_eq(c.p[1].fate, PP_FATE_UNSEEN);
	pp_paths_free(pp);
}
END_TEST

START_TEST(test_free_drops_open)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);

	add_mark(pp, 1, 10);
	add_hop(pp, hop(PP_REC_HOP, 2, 5, 20, 0), 20);
	ck_assert_uint_eq(pp_paths_open(pp), 2);
	pp_paths_free(pp);
	pp_paths_free(NULL);
	ck_assert_uint_eq(c.n, 0);
	ck_assert_ptr_null(pp_paths_new(NULL, NULL));
}
END_TEST

START_TEST(test_bad_records)
{
	struct collect c = {0};
	struct pp_paths *pp = pp_paths_new(collect_emit, &c);
	struct pp_hop h[2] = {hop(PP_REC_HOP, 1, 5, 20, 0)};
	struct pp_mark m[2] = {mark(1, 10)};
	struct pp_paths_stats st;
	size_t hdr = offsetof(struct pp_mark, data);

	ck_assert_int_eq(pp_paths_add(pp, h, 0, 1), -EINVAL);
	ck_assert_int_eq(pp_paths_add(pp, h, 3, 1), -EINVAL);
	ck_assert_int_eq(pp_paths_add(pp, h, sizeof(h[0]) - 1, 1), -EINVAL);
	ck_assert_int_eq(pp_paths_add(pp, h, sizeof(h[0]) + 8, 1), -EINVAL);
	h[0].type = 99;
	ck_assert_int_eq(pp_paths_add(pp, h, sizeof(h[0]), 1), -EINVAL);
	h[0] = hop(PP_REC_END, 1, 5, 20, 0);
	h[0].fate = PP_FATE_NONE;
	ck_assert_int_eq(pp_paths_add(pp, h, sizeof(h[0]), 1), -EINVAL);
	ck_assert_int_eq(pp_paths_add(pp, m, sizeof(m[0]) + 8, 1), -EINVAL);
	ck_assert_int_eq(pp_paths_add(pp, m, hdr - 1, 1), -EINVAL);
	ck_assert_int_eq(pp_paths_add(pp, m, hdr + 13, 1), -EINVAL); /* cap_len 14 */
	m[0].cap_len = PP_HDR_BYTES + 1;
	ck_assert_int_eq(pp_paths_add(pp, m, sizeof(m[0]), 1), -EINVAL);
	/* A mark cut to its cap_len is fine. */
	m[0].cap_len = 14;
	ck_assert_int_eq(pp_paths_add(pp, m, hdr + 14, 1), 0);
	pp_paths_stats(pp, &st);
	ck_assert_uint_eq(st.bad, 10);
	ck_assert_uint_eq(st.records, 1);
	ck_assert_uint_eq(pp_paths_open(pp), 1);
	ck_assert_uint_eq(c.n, 0);
	pp_paths_free(pp);
}
END_TEST

/* Thousands of packets, interleaved, with hops out of order across CPUs. */
struct count {
	__u32 *emits;
	__u32 *nhops;
	__u32 bad_order;
};

static void count_emit(const struct pp_packet *p, void *ctx)
{
	struct count *c = ctx;
	size_t i;

	c->emits[p->id]++;
	c->nhops[p->id] = p->nhops;
	for (i = 1; i < p->nhops; i++)
		if (p->hops[i - 1].ts > p->hops[i].ts)
			c->bad_order++;
	if (!p->mark || p->hops[0].type != PP_REC_MARK || p->hops[p->nhops - 1].type != PP_REC_END)
		c->bad_order++;
}

#define NPKT	 5000
#define NROUNDS	 14
#define HOPS(id) (1 + (id) % 13)

START_TEST(test_many_interleaved)
{
	struct count c = {calloc(NPKT + 1, 4), calloc(NPKT + 1, 4), 0};
	struct pp_paths *pp = pp_paths_new(count_emit, &c);
	__u64 id, now = 0;
	__u32 r;

	for (id = 1; id <= NPKT; id++)
		add_mark(pp, id, id * 1000);
	ck_assert_uint_eq(pp_paths_open(pp), NPKT);
	/* Round r adds hop r of every packet still going; odd ids' ts run backwards. */
	for (r = 1; r <= NROUNDS; r++)
		for (id = 1; id <= NPKT; id++) {
			if (r < HOPS(id) + 1)
				add_hop(pp,
					hop(PP_REC_HOP, id, r, id * 1000 + (id & 1 ? 100 - r : r),
					    id & 1),
					++now);
			else if (r == HOPS(id) + 1)
				add_hop(pp, hop(PP_REC_END, id, 99, id * 1000 + 200, 0), ++now);
		}
	ck_assert_uint_eq(pp_paths_open(pp), 0);
	for (id = 1; id <= NPKT; id++) {
		ck_assert_uint_eq(c.emits[id], 1);
		ck_assert_uint_eq(c.nhops[id], HOPS(id) + 2);
	}
	ck_assert_uint_eq(c.bad_order, 0);
	pp_paths_free(pp);
	free(c.emits);
	free(c.nhops);
}
END_TEST

/* Many open at once, then expired in arrival order while new ones come. */
START_TEST(test_many_expire)
{
	struct count c = {calloc(NPKT + 1, 4), calloc(NPKT + 1, 4), 0};
	struct pp_paths *pp = pp_paths_new(count_emit, &c);
	size_t closed = 0;
	__u64 id;

	for (id = 1; id <= NPKT; id++) {
		add_mark(pp, id, id);
		add_hop(pp, hop(PP_REC_HOP, id, 1, id + 1, 0), id);
		closed += pp_paths_expire(pp, id, 1000);
	}
	/* Open at the end: arrivals 4000 .. 5000, not more than 1000 old. */
	ck_assert_uint_eq(closed, NPKT - 1001);
	ck_assert_uint_eq(pp_paths_open(pp), 1001);
	closed += pp_paths_flush(pp);
	ck_assert_uint_eq(closed, NPKT);
	for (id = 1; id <= NPKT; id++)
		ck_assert_uint_eq(c.emits[id], 1);
	pp_paths_free(pp);
	free(c.emits);
	free(c.nhops);
}
END_TEST

Suite *path_suite(void)
{
	Suite *s = suite_create("path");
	TCase *tc = tcase_create("assembly");

	tcase_add_test(tc, test_sorted_across_cpus);
	tcase_add_test(tc, test_hop_bytes);
	tcase_add_test(tc, test_repeat_visit);
	tcase_add_test(tc, test_end_emits_once);
	tcase_add_test(tc, test_mark_lost);
	tcase_add_test(tc, test_mark_after_hops);
	tcase_add_test(tc, test_drop_fields);
	tcase_add_test(tc, test_clone_closes_last);
	tcase_add_test(tc, test_netns_carried);
	tcase_add_test(tc, test_clone_first_drop_wins);
	tcase_add_test(tc, test_clone_timeout);
	tcase_add_test(tc, test_unseen_beats_drop);
	tcase_add_test(tc, test_copy_after_shared_end);
	tcase_add_test(tc, test_shared_end_lingers);
	tcase_add_test(tc, test_fragment_after_end);
	tcase_add_test(tc, test_copy_at_end_is_one_hop);
	tcase_add_test(tc, test_merged);
	tcase_add_test(tc, test_segmented);
	tcase_add_test(tc, test_fragments);
	tcase_add_test(tc, test_expire);
	tcase_add_test(tc, test_hold);
	tcase_add_test(tc, test_tombstone_forgotten);
	tcase_add_test(tc, test_read_after_free_joins);
	tcase_add_test(tc, test_xdp_copy_joins);
	tcase_add_test(tc, test_free_after_read_joins);
	tcase_add_test(tc, test_read_never_joins_drop);
	tcase_add_test(tc, test_late_named);
	tcase_add_test(tc, test_grace_reopens);
	tcase_add_test(tc, test_free_drops_open);
	tcase_add_test(tc, test_bad_records);
	tcase_add_test(tc, test_many_interleaved);
	tcase_add_test(tc, test_many_expire);
	tcase_add_test(tc, test_tap_never_decides);
	tcase_add_test(tc, test_tap_no_end);
	tcase_add_test(tc, test_tap_only);
	tcase_add_test(tc, test_copy_aside_never_decides);
	tcase_add_test(tc, test_copy_aside_no_end);
	tcase_add_test(tc, test_copy_seen_decides);
	tcase_add_test(tc, test_copy_aside_alone);
	tcase_add_test(tc, test_address_two_lives);
	tcase_add_test(tc, test_address_lives_interleaved);
	tcase_add_test(tc, test_address_hop_after_end);
	suite_add_tcase(s, tc);
	return s;
}
