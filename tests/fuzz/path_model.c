// SPDX-License-Identifier: GPL-2.0
/* The reference model of path assembly; see path_model.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "path_model.h"

struct fzm_pkt {
	__u64 id;
	bool open;
	__u64 at;	     /* open: last record's arrival; closed: when it closed */
	__u64 seq;	     /* open: arrival order of its last record */
	struct pp_hop *hops; /* in arrival order */
	size_t nhops;
	struct pp_skbref *skbs;
	size_t *nrecs; /* records filed under each skb */
	size_t nskbs;
	bool has_mark;
	struct pp_mark mark;
	__u32 lost;
	__u32 awaited; /* shared data's holders not seen yet */
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

void fzm_init(struct fzm *m)
{
	memset(m, 0, sizeof(*m));
}

static void expect_free(struct fzm_expect *e)
{
	free(e->hops);
	free(e->skbs);
	free(e->aside);
}

void fzm_free(struct fzm *m)
{
	for (size_t i = 0; i < m->npkts; i++) {
		free(m->pkts[i].hops);
		free(m->pkts[i].skbs);
		free(m->pkts[i].nrecs);
	}
	for (size_t i = m->qhead; i < m->qn; i++)
		expect_free(&m->q[i]);
	free(m->pkts);
	free(m->index);
	free(m->q);
	memset(m, 0, sizeof(*m));
}

static bool valid(const void *rec, size_t size)
{
	size_t hdr = offsetof(struct pp_mark, data);
	struct pp_mark m;
	__u32 type;

	if (size < sizeof(type))
		return false;
	memcpy(&type, rec, sizeof(type));
	if (type == PP_REC_HOP || type == PP_REC_COPY)
		return size == sizeof(struct pp_hop);
	if (type == PP_REC_END) {
		if (size != sizeof(struct pp_hop))
			return false;
		memcpy(&m.hop, rec, sizeof(m.hop));
		switch (m.hop.fate) {
		case PP_FATE_CONSUMED:
		case PP_FATE_DROPPED:
		case PP_FATE_MERGED:
		case PP_FATE_SEGMENTED:
		case PP_FATE_LEFT:
			return true;
		default:
			return false;
		}
	}
	if (type != PP_REC_MARK || size < hdr || size > sizeof(m))
		return false;
	memcpy(&m, rec, hdr);
	return m.cap_len <= PP_HDR_BYTES && m.cap_len <= size - hdr;
}

/* splitmix64's finaliser: a hash unlike path.c's, so as not to share its flaws. */
static size_t home(const struct fzm *m, __u64 id)
{
	id ^= id >> 30;
	id *= 0xbf58476d1ce4e5b9ULL;
	id ^= id >> 27;
	id *= 0x94d049bb133111ebULL;
	id ^= id >> 31;
	return (size_t)id & (m->nindex - 1);
}

/* The index slot of id, or the free one where it would go. */
static size_t slot(const struct fzm *m, __u64 id)
{
	size_t i = home(m, id);

	while (m->index[i] && m->pkts[m->index[i] - 1].id != id)
		i = (i + 1) & (m->nindex - 1);
	return i;
}

/* Rebuilds the index for pkts[] as it is, at most a quarter full. */
static void reindex(struct fzm *m)
{
	size_t n = 64;

	while (n < 4 * (m->npkts + 1))
		n *= 2;
	free(m->index);
	m->index = calloc(n, sizeof(*m->index));
	if (!m->index)
		abort();
	m->nindex = n;
	for (size_t i = 0; i < m->npkts; i++)
		m->index[slot(m, m->pkts[i].id)] = i + 1;
}

static struct fzm_pkt *find(struct fzm *m, __u64 id)
{
	size_t i;

	if (!m->nindex)
		return NULL;
	i = m->index[slot(m, id)];
	return i ? &m->pkts[i - 1] : NULL;
}

static struct fzm_pkt *open_pkt(struct fzm *m, __u64 id)
{
	if (m->npkts == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 16;
		m->pkts = xrealloc(m->pkts, m->cap * sizeof(*m->pkts));
	}
	m->pkts[m->npkts] = (struct fzm_pkt){.id = id, .open = true};
	m->nopen++;
	m->npkts++;
	if (2 * m->npkts > m->nindex)
		reindex(m);
	else
		m->index[slot(m, id)] = m->npkts;
	return &m->pkts[m->npkts - 1];
}

/* A new skb in k->skbs[], seen first at h. */
static struct pp_skbref *skb_new(struct fzm_pkt *k, const struct pp_hop *h)
{
	k->skbs = xrealloc(k->skbs, (k->nskbs + 1) * sizeof(*k->skbs));
	k->nrecs = xrealloc(k->nrecs, (k->nskbs + 1) * sizeof(*k->nrecs));
	k->skbs[k->nskbs] =
		(struct pp_skbref){.skb = h->skb, .first_ts = h->ts, .fate = PP_FATE_UNSEEN};
	k->nrecs[k->nskbs] = 0;
	return &k->skbs[k->nskbs++];
}

/*
 * An END with no live skb of its address: the entry that holds its time (the
 * last begun by it, else the first) when that one ended consumed, this END is
 * a consume too, one of the two is a read's (PP_PROBE_READ) and it has no
 * second END yet: its read and its free, sent on two CPUs. Else NULL.
 */
static struct pp_skbref *skb_again(struct fzm_pkt *k, const struct pp_hop *h)
{
	struct pp_skbref *first = NULL, *at = NULL;

	for (size_t i = 0; i < k->nskbs; i++) {
		if (k->skbs[i].skb != h->skb)
			continue;
		first = first ? first : &k->skbs[i];
		if (k->skbs[i].first_ts <= h->ts)
			at = &k->skbs[i];
	}
	at = at ? at : first;
	if (!at || !at->ended || at->twice || at->fate != PP_FATE_CONSUMED ||
	    h->fate != PP_FATE_CONSUMED || (h->probe != PP_PROBE_READ && !at->read))
		return NULL;
	return at;
}

/* The END's skb: the last live one of its address begun by its time, else the last live one. */
static struct pp_skbref *skb_of_end(struct fzm_pkt *k, const struct pp_hop *h)
{
	struct pp_skbref *begun = NULL, *live = NULL, *again;

	for (size_t i = 0; i < k->nskbs; i++) {
		struct pp_skbref *r = &k->skbs[i];

		if (r->skb != h->skb || r->ended)
			continue;
		live = r;
		if (r->first_ts <= h->ts)
			begun = r;
	}
	if (begun)
		return begun;
	if (live)
		return live;
	again = skb_again(k, h);
	return again ? again : skb_new(k, h);
}

/*
 * h's skb in k->skbs[]: of the entries of its address, the last begun by
 * h's time (a COPY: the last), else the first; a new one if none, or if h
 * begins another life after that one: a COPY after one that joined by a
 * COPY or began earlier, anything else after that one's END.
 */
static struct pp_skbref *skb_of(struct fzm_pkt *k, const struct pp_hop *h)
{
	struct pp_skbref *first = NULL, *at = NULL;
	bool again;

	if (h->type == PP_REC_END)
		return skb_of_end(k, h);
	for (size_t i = 0; i < k->nskbs; i++) {
		struct pp_skbref *r = &k->skbs[i];

		if (r->skb != h->skb)
			continue;
		first = first ? first : r;
		if (h->type == PP_REC_COPY || r->first_ts <= h->ts)
			at = r;
	}
	if (!at)
		return first ? first : skb_new(k, h);
	if (h->type == PP_REC_COPY)
		again = at->copy || at->first_ts < h->ts;
	else
		again = at->ended && h->ts > at->end_ts;
	return again ? skb_new(k, h) : at;
}

/* How many skbs have no END yet: counted afresh, no running total. */
static size_t nlive(const struct fzm_pkt *k)
{
	size_t n = 0;

	for (size_t i = 0; i < k->nskbs; i++)
		n += !k->skbs[i].ended;
	return n;
}

/*
 * What h says of its skb: joining as a copy, or its end; one more record of
 * it. True for a second END.
 */
static bool note_skb(struct fzm_pkt *k, const struct pp_hop *h)
{
	struct pp_skbref *r = skb_of(k, h);

	k->nrecs[r - k->skbs]++;
	if (!r->copy && h->ts < r->first_ts)
		r->first_ts = h->ts;
	if (h->type == PP_REC_COPY && !r->copy) {
		r->copy = true;
		r->parent = h->location;
		r->parent_ts = h->ts - pp_parent_age(h);
		r->probe = h->probe;
		r->first_ts = h->ts;
		if (k->awaited)
			k->awaited--;
		return false;
	}
	if (h->type != PP_REC_END)
		return false;
	r->read |= h->probe == PP_PROBE_READ;
	if (r->ended) { /* its second END (skb_again()): not one more record (hopped) */
		k->nrecs[r - k->skbs]--;
		r->twice = true;
		r->end_ts = h->ts < r->end_ts ? h->ts : r->end_ts;
		return true;
	}
	k->lost += h->lost;
	r->ended = true;
	r->end_ts = h->ts;
	r->tap = h->flags & PP_HOP_TAP;
	r->end_probe = h->probe;
	r->end_flags = h->flags;
	r->fate = (enum pp_fate)h->fate;
	r->reason = h->reason;
	r->location = h->location;
	if ((h->flags & (PP_HOP_SHARED | PP_HOP_FRAGS)) && !nlive(k))
		k->awaited++;
	return false;
}

static int by_ts(const void *a, const void *b)
{
	const struct pp_hop *x = *(const struct pp_hop *const *)a;
	const struct pp_hop *y = *(const struct pp_hop *const *)b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x < y ? -1 : x > y; /* arrival order: their place in hops[] */
}

/* A COPY of the skb and probe of the END that comes right after it. */
static bool copy_at_end(const struct pp_hop *c, const struct pp_hop *next)
{
	return c->type == PP_REC_COPY && next && next->type == PP_REC_END && next->skb == c->skb &&
	       next->probe == c->probe;
}

/*
 * The hops sorted by ts, ties in arrival order; with several skbs, less
 * each COPY right before its own END or before such COPYs. Their number in *n.
 */
static struct pp_hop *sorted_hops(const struct fzm_pkt *k, size_t *n)
{
	const struct pp_hop **idx = xrealloc(NULL, k->nhops * sizeof(*idx));
	struct pp_hop *out = xrealloc(NULL, k->nhops * sizeof(*out));
	size_t kept = k->nhops; /* kept hops fill out[] from its end */

	for (size_t i = 0; i < k->nhops; i++)
		idx[i] = &k->hops[i];
	qsort(idx, k->nhops, sizeof(*idx), by_ts);
	for (size_t i = k->nhops; i-- > 0;)
		if (k->nskbs < 2 || !copy_at_end(idx[i], kept < k->nhops ? &out[kept] : NULL))
			out[--kept] = *idx[i];
	*n = k->nhops - kept;
	memmove(out, out + kept, *n * sizeof(*out));
	free(idx);
	return out;
}

/*
 * A hop that read no namespace shows the namespace of the latest earlier hop
 * of the same skb address that has one (flagged as carried), as the
 * assembler promises; hops in time order.
 */
static void carry_netns(struct pp_hop *hops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (hops[i].netns)
			continue;
		for (size_t j = i; j-- > 0;) {
			if (hops[j].skb == hops[i].skb && hops[j].netns) {
				hops[i].netns = hops[j].netns;
				hops[i].flags |= PP_HOP_NETNS_CARRIED;
				break;
			}
		}
	}
}

/* Every skb of k is a tap's copy. */
static bool all_taps(const struct fzm_pkt *k)
{
	for (size_t i = 0; i < k->nskbs; i++)
		if (!k->skbs[i].tap)
			return false;
	return k->nskbs > 0;
}

/*
 * Whether skb i of k is a copy set aside: seen at its own free alone (two
 * records, its COPY and its END, from one probe), which was no reader's,
 * while another skb still held its data.
 */
static bool set_aside(const struct fzm_pkt *k, size_t i)
{
	const struct pp_skbref *r = &k->skbs[i];

	if (!r->copy || !r->ended || k->nrecs[i] != 2 || r->probe != r->end_probe)
		return false;
	return (r->end_flags & PP_HOP_SHARED) && !(r->end_flags & PP_HOP_READ);
}

/*
 * Which skbs of k decide the packet's fate, given which are set aside
 * (ASIDE): with every skb a tap's, each does; else the skbs no tap's, less
 * those set aside unless all of them are.
 */
static bool *deciders(const struct fzm_pkt *k, const bool *aside)
{
	bool *d = xrealloc(NULL, k->nskbs * sizeof(*d)), taps = all_taps(k), every_aside = true;

	for (size_t i = 0; i < k->nskbs; i++)
		if (!k->skbs[i].tap && !aside[i])
			every_aside = false;
	for (size_t i = 0; i < k->nskbs; i++)
		d[i] = taps || (!k->skbs[i].tap && (every_aside || !aside[i]));
	return d;
}

/* The first skb whose fate is f among those that decide (D), NULL if none. */
static const struct pp_skbref *first_of(const struct fzm_pkt *k, const bool *d, enum pp_fate f)
{
	for (size_t i = 0; i < k->nskbs; i++)
		if (k->skbs[i].fate == f && d[i])
			return &k->skbs[i];
	return NULL;
}

/* Each skb's hopped: a record of it came besides its COPY and its END. */
static void note_hopped(struct fzm_pkt *k)
{
	for (size_t i = 0; i < k->nskbs; i++)
		k->skbs[i].hopped = k->nrecs[i] > (size_t)k->skbs[i].copy + k->skbs[i].ended;
}

/* The packet's fate from those of the skbs that decide it (D); its drop in *DROP. */
static enum pp_fate pkt_fate(const struct fzm_pkt *k, const bool *d, const struct pp_skbref **drop)
{
	*drop = first_of(k, d, PP_FATE_DROPPED);
	if (first_of(k, d, PP_FATE_CONSUMED))
		return PP_FATE_CONSUMED;
	if (nlive(k))
		return PP_FATE_UNSEEN;
	if (*drop)
		return PP_FATE_DROPPED;
	if (first_of(k, d, PP_FATE_MERGED))
		return PP_FATE_MERGED;
	if (first_of(k, d, PP_FATE_SEGMENTED))
		return PP_FATE_SEGMENTED;
	if (first_of(k, d, PP_FATE_LEFT))
		return PP_FATE_LEFT;
	return PP_FATE_UNSEEN;
}

/* Closes k at AT, by an END or (TIMED) the timeout. */
static void close_pkt(struct fzm *m, struct fzm_pkt *k, bool timed, __u64 at)
{
	bool *aside = xrealloc(NULL, k->nskbs * sizeof(*aside)), *d;
	const struct pp_skbref *drop;
	enum pp_fate fate;
	struct fzm_expect *e;
	size_t n;

	for (size_t i = 0; i < k->nskbs; i++)
		aside[i] = set_aside(k, i);
	d = deciders(k, aside);
	fate = pkt_fate(k, d, &drop);
	free(d);
	note_hopped(k);
	if (m->qn == m->qcap) {
		m->qcap = m->qcap ? 2 * m->qcap : 16;
		m->q = xrealloc(m->q, m->qcap * sizeof(*m->q));
	}
	e = &m->q[m->qn++];
	*e = (struct fzm_expect){.hops = sorted_hops(k, &n),
				 .skbs = k->skbs,
				 .aside = aside,
				 .mark = k->mark,
				 .has_mark = k->has_mark};
	carry_netns(e->hops, n);
	e->p = (struct pp_packet){.id = k->id,
				  .hops = e->hops,
				  .nhops = n,
				  .skbs = e->skbs,
				  .nskbs = k->nskbs,
				  .fate = fate,
				  .lost = k->lost,
				  .lingered = timed && !nlive(k) && k->awaited,
				  .by_tap = all_taps(k)};
	if (fate == PP_FATE_DROPPED) {
		e->p.reason = drop->reason;
		e->p.location = drop->location;
	}
	m->st.emitted++;
	m->st.mark_lost += !k->has_mark;
	free(k->hops);
	free(k->nrecs);
	k->hops = NULL;
	k->skbs = NULL;
	k->nrecs = NULL;
	k->open = false;
	k->at = at;
	m->nopen--;
}

/*
 * The mark as the user sees it: a VLAN tag the kernel held in metadata goes
 * back on the wire frame, after the two MAC addresses, the frame cut at
 * PP_HDR_BYTES.
 */
static void wear_tag(struct pp_mark *m)
{
	__u8 frame[PP_HDR_BYTES + 4];
	const __u32 macs = 12;

	if (!m->vlan || m->cap_len < macs)
		return;
	memcpy(frame, m->data, macs);
	for (int i = 0; i < 4; i++)
		frame[macs + i] = (__u8)(m->vlan >> (24 - 8 * i));
	memcpy(frame + macs + 4, m->data + macs, m->cap_len - macs);
	m->cap_len = m->cap_len + 4 > PP_HDR_BYTES ? PP_HDR_BYTES : m->cap_len + 4;
	memcpy(m->data, frame, m->cap_len);
}

int fzm_add(struct fzm *m, const void *rec, size_t size, __u64 now)
{
	struct fzm_pkt *k;
	struct pp_hop h;

	if (!valid(rec, size)) {
		m->st.bad++;
		return -EINVAL;
	}
	memcpy(&h, rec, sizeof(h));
	k = find(m, h.id);
	if (k && !k->open) {
		m->st.late++;
		return 0;
	}
	if (!k)
		k = open_pkt(m, h.id);
	k->at = now;
	k->seq = ++m->seq;
	k->hops = xrealloc(k->hops, (k->nhops + 1) * sizeof(*k->hops));
	k->hops[k->nhops++] = h;
	m->st.ends_joined += note_skb(k, &h);
	m->st.records++;
	if (h.type == PP_REC_MARK && !k->has_mark) {
		memcpy(&k->mark, rec, size);
		wear_tag(&k->mark);
		k->has_mark = true;
	}
	if (h.type == PP_REC_END && !nlive(k) && !k->awaited)
		close_pkt(m, k, false, now);
	return 0;
}

static bool older(__u64 then, __u64 now, __u64 timeout)
{
	return now > then && now - then > timeout;
}

static int by_seq(const void *a, const void *b)
{
	const struct fzm_pkt *x = *(const struct fzm_pkt *const *)a;
	const struct fzm_pkt *y = *(const struct fzm_pkt *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Closes, oldest last record first, the open packets whose last record came
 * more than timeout before now (every open one if ALL), at now or (ALL) at
 * their last record's arrival.
 */
static size_t close_old(struct fzm *m, __u64 now, __u64 timeout, bool all)
{
	struct fzm_pkt **v = xrealloc(NULL, m->npkts * sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < m->npkts; i++)
		if (m->pkts[i].open && (all || older(m->pkts[i].at, now, timeout)))
			v[n++] = &m->pkts[i];
	qsort(v, n, sizeof(*v), by_seq);
	for (size_t i = 0; i < n; i++)
		close_pkt(m, v[i], true, all ? v[i]->at : now);
	free(v);
	return n;
}

size_t fzm_expire(struct fzm *m, __u64 now, __u64 timeout)
{
	size_t keep = 0;

	for (size_t i = 0; i < m->npkts; i++)
		if (m->pkts[i].open || !older(m->pkts[i].at, now, timeout))
			m->pkts[keep++] = m->pkts[i];
	if (keep != m->npkts) {
		m->npkts = keep;
		reindex(m);
	}
	return close_old(m, now, timeout, false);
}

size_t fzm_flush(struct fzm *m)
{
	return close_old(m, 0, 0, true);
}

const struct fzm_expect *fzm_next(const struct fzm *m)
{
	return m->qhead < m->qn ? &m->q[m->qhead] : NULL;
}

void fzm_pop(struct fzm *m)
{
	expect_free(&m->q[m->qhead++]);
	if (m->qhead == m->qn)
		m->qhead = m->qn = 0;
}

static int differ(char *why, size_t len, const char *what, unsigned long long want,
		  unsigned long long got)
{
	snprintf(why, len, "%s: model %llu, path.c %llu", what, want, got);
	return -1;
}

static int compare_hops(const struct fzm_expect *e, const struct pp_packet *p, char *why,
			size_t len)
{
	for (size_t i = 0; i < p->nhops; i++) {
		const struct pp_hop *a = &e->hops[i], *b = &p->hops[i];

		if (!memcmp(a, b, sizeof(*a)))
			continue;
		snprintf(why, len,
			 "hop %zu: model type %u probe %u ts %llu skb 0x%llx, path.c type %u probe "
			 "%u ts %llu skb 0x%llx",
			 i, a->type, a->probe, (unsigned long long)a->ts,
			 (unsigned long long)a->skb, b->type, b->probe, (unsigned long long)b->ts,
			 (unsigned long long)b->skb);
		return -1;
	}
	return 0;
}

static int compare_mark(const struct fzm_expect *e, const struct pp_packet *p, char *why,
			size_t len)
{
	size_t hdr = offsetof(struct pp_mark, data);

	if (e->has_mark != (p->mark != NULL))
		return differ(why, len, "has a mark", e->has_mark, p->mark != NULL);
	if (!p->mark)
		return 0;
	if (memcmp(&e->mark, p->mark, hdr))
		return differ(why, len, "mark header, cap_len", e->mark.cap_len, p->mark->cap_len);
	if (memcmp(e->mark.data, p->mark->data, e->mark.cap_len))
		return differ(why, len, "mark data bytes", e->mark.cap_len, p->mark->cap_len);
	return 0;
}

static int compare_skbs(const struct fzm_expect *e, const struct pp_packet *p, char *why,
			size_t len)
{
	if (e->p.nskbs != p->nskbs)
		return differ(why, len, "nskbs", e->p.nskbs, p->nskbs);
	for (size_t i = 0; i < p->nskbs; i++) {
		const struct pp_skbref *a = &e->skbs[i], *b = &p->skbs[i];
		/* Promised only for a drop; no END, no value. */
		bool info = a->fate == PP_FATE_DROPPED || !a->ended;
		char what[64];

#define FZM_SKB_FIELD(f, cond)                                                                     \
	do {                                                                                       \
		if ((cond) && a->f != b->f) {                                                      \
			snprintf(what, sizeof(what), "skbs[%zu]." #f, i);                          \
			return differ(why, len, what, (unsigned long long)a->f,                    \
				      (unsigned long long)b->f);                                   \
		}                                                                                  \
	} while (0)
		FZM_SKB_FIELD(skb, true);
		FZM_SKB_FIELD(ended, true);
		FZM_SKB_FIELD(fate, true);
		FZM_SKB_FIELD(reason, info);
		FZM_SKB_FIELD(location, info);
		FZM_SKB_FIELD(copy, true);
		FZM_SKB_FIELD(parent, true);
		FZM_SKB_FIELD(parent_ts, a->copy);
		FZM_SKB_FIELD(probe, a->copy);
		FZM_SKB_FIELD(first_ts, true);
		FZM_SKB_FIELD(end_ts, a->ended);
		FZM_SKB_FIELD(tap, a->ended);
		FZM_SKB_FIELD(end_probe, a->ended);
		FZM_SKB_FIELD(end_flags, a->ended);
		FZM_SKB_FIELD(hopped, true);
#undef FZM_SKB_FIELD
		if (e->aside[i] != pp_skb_aside(b)) {
			snprintf(what, sizeof(what), "skbs[%zu] set aside", i);
			return differ(why, len, what, e->aside[i], pp_skb_aside(b));
		}
	}
	return 0;
}

int fzm_compare(const struct fzm_expect *e, const struct pp_packet *p, char *why, size_t len)
{
	const struct pp_packet *w = &e->p;

	if (w->id != p->id)
		return differ(why, len, "id", w->id, p->id);
	if (w->nhops != p->nhops)
		return differ(why, len, "nhops", w->nhops, p->nhops);
	if (compare_hops(e, p, why, len) || compare_mark(e, p, why, len) ||
	    compare_skbs(e, p, why, len))
		return -1;
	if (w->fate != p->fate)
		return differ(why, len, "fate", w->fate, p->fate);
	if (w->reason != p->reason)
		return differ(why, len, "reason", w->reason, p->reason);
	if (w->location != p->location)
		return differ(why, len, "location", w->location, p->location);
	if (w->lost != p->lost)
		return differ(why, len, "lost", w->lost, p->lost);
	if (w->lingered != p->lingered)
		return differ(why, len, "lingered", w->lingered, p->lingered);
	if (w->by_tap != p->by_tap)
		return differ(why, len, "by_tap", w->by_tap, p->by_tap);
	return 0;
}
