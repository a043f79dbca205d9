/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reference model of path assembly, written from what loader/paths/path.h
 * promises and nothing else, simple and slow: fuzz_paths runs it beside
 * path.c and wants the same packets, in the same order, and the same stats.
 *
 *  - A record is malformed (stats.bad, -EINVAL) if shorter than its type, of
 *    an unknown type, a HOP, COPY or END not of struct pp_hop's size, an END
 *    whose fate is not CONSUMED, DROPPED or MERGED, or a MARK shorter than
 *    its header, longer than struct pp_mark, or not covering its cap_len
 *    (<= 128).
 *  - A record for a packet closed and not yet forgotten is late (stats.late,
 *    returns 0); any other opens its packet or joins it (stats.records).
 *  - A packet's hops are all its records' hops (MARK, HOP, COPY, END),
 *    sorted by ts, ties in arrival order; its mark is its first MARK.
 *  - Its skbs are in order of first appearance (any record). An address
 *    holds one skb a life: a COPY starts a new skb after an entry of its
 *    address that joined by a COPY or began before it; a MARK or HOP starts
 *    one after the END of the entry of its address that began by its time
 *    (the last such, else the first of the address); an END ends the last
 *    live entry of its address begun by its time, else the last live one,
 *    else a new one. Each skb: ended once its END came; fate, reason,
 *    location, end_ts, tap (PP_HOP_TAP), end_probe and end_flags its END's
 *    (UNSEEN, 0, 0 with none; reason and location are promised only for a
 *    drop, so they are compared only for a DROPPED skb or one with no END);
 *    copy if a COPY of it came, then parent (the COPY's location) and probe
 *    its COPY's, else 0; first_ts its COPY's ts if one came, else its
 *    earliest record's; hopped if a record of it came besides its COPY and
 *    its END (a HOP or a MARK).
 *  - A copy is set aside (pp_skb_aside() must say so of exactly these) when
 *    it was seen only at its own free: its records were its COPY and its
 *    END and no other, both from one probe; while another skb still held
 *    its data (the END's PP_HOP_SHARED), and that free was not its reader's
 *    (no PP_HOP_READ).
 *  - A skb is live from its first record until its END. Every END
 *    with PP_HOP_SHARED or PP_HOP_FRAGS (a fragment with more to come)
 *    after which no skb is live adds one to the awaited
 *    count; the first COPY of each skb takes one off, not below 0 (flags
 *    mean nothing on another record). An END after which no skb is live and
 *    nothing is awaited closes the packet.
 *  - pp_paths_expire() forgets packets closed more than timeout ago, then
 *    closes the open ones whose last record came more than timeout ago,
 *    oldest first, closing them at now_ns; pp_paths_flush(), which has no
 *    clock, closes every open one, oldest first, at its last record's.
 *    Closed that way with no skb live and something awaited, a packet has
 *    lingered.
 *  - At its close: with several skbs, each COPY hop directly followed (in
 *    the sorted hops, before any is taken out) by an END of the same skb and
 *    probe is taken out. The skbs that decide its fate: every skb if each
 *    is a tap's (by_tap); else those that are no tap's and not set aside,
 *    or every skb that is no tap's if each of them is set aside. Its fate
 *    is CONSUMED if a deciding skb's is; else UNSEEN if any skb is still
 *    live; else DROPPED by the first deciding skb dropped (its reason and
 *    location); else MERGED, SEGMENTED, LEFT if a deciding skb's is;
 *    reason and location are 0 unless DROPPED; lost is the sum over all its
 *    END records.
 */
#ifndef PP_FUZZ_PATH_MODEL_H
#define PP_FUZZ_PATH_MODEL_H

#include "paths/path.h"

struct fzm_pkt;

/* A packet the model expects path.c to emit, in the emit callback's terms. */
struct fzm_expect {
	struct pp_packet p; /* p.mark unset: see has_mark and mark */
	bool has_mark;
	struct pp_mark mark;
	struct pp_hop *hops;
	struct pp_skbref *skbs;
	bool *aside; /* skbs[i] set aside, for pp_skb_aside() */
};

struct fzm {
	struct fzm_pkt *pkts;
	size_t npkts, cap;
	size_t *index; /* id -> 1 + place in pkts[], 0 if free: a hash table */
	size_t nindex;
	__u64 seq; /* arrival order of records */
	size_t nopen;
	struct pp_paths_stats st;
	struct fzm_expect *q; /* packets expected, in emit order */
	size_t qn, qhead, qcap;
};

void fzm_init(struct fzm *m);
void fzm_free(struct fzm *m);

/* What pp_paths_add() must return; queues what it must emit. */
int fzm_add(struct fzm *m, const void *rec, size_t size, __u64 now);
size_t fzm_expire(struct fzm *m, __u64 now, __u64 timeout);
size_t fzm_flush(struct fzm *m);

/* The next packet expected, NULL if none is; fzm_pop() drops it. */
const struct fzm_expect *fzm_next(const struct fzm *m);
void fzm_pop(struct fzm *m);

/* Compares P with E: 0, or -1 with what differs in WHY. */
int fzm_compare(const struct fzm_expect *e, const struct pp_packet *p, char *why, size_t len);

#endif
