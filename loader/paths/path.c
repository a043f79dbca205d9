// SPDX-License-Identifier: GPL-2.0
/*
 * Path assembly. Open packets live in an entry pool indexed by an open
 * addressing hash table keyed by packet id (linear probing, backward-shift
 * deletion, load <= 1/2). Each open packet owns a buffer holding its mark and
 * its hops; buffers of closed packets go to a free stack and are reused, so
 * the steady state allocates nothing.
 *
 * Clones and copies inherit the packet id, and each skb's free sends an
 * END, so a packet closes when every skb seen in its records has ended,
 * unless a freed skb left its data to a holder not seen yet (an END with
 * PP_HOP_SHARED): then it waits for that copy's COPY record, up to the
 * timeout. Each skb keeps its own fate; the packet's is decided at close.
 *
 * Open entries sit on a list ordered by the arrival of their last record,
 * so expiry only looks at the list's head. A closed packet stays in the
 * table as a buffer-less tombstone for one more timeout: a record that
 * arrives after it closed is counted as late instead of opening a bogus
 * mark-lost packet, and the late callback names its packet.
 *
 * Ended packets (with a grace, pp_paths_set_grace()): the last END does not
 * emit its packet at once. One BPF ring buffer takes every CPU's records in
 * the order of their reservations, so a record another CPU sent at the same
 * moment may follow the END that ended the packet: on the tracepoint backend
 * the read's END (sock:sock_recv_length, in the reader's task) and the
 * deferred free's (skb:consume_skb, in the NAPI poll of the CPU that
 * allocated the skb, which skb_attempt_defer_free() kicks) race for one
 * datagram, and both find it tracked. The packet waits on the ending list,
 * in order of its due time, until a pass of pp_paths_expire() at or after
 * max(END's time, its arrival) + grace: the loader takes in the whole ring
 * before each pass, so what was reserved up to then has joined it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base/compat.h"
#include "base/grow.h"
#include "paths/path.h"
#include "paths/pkt_decode.h"
#include "paths/fate.h"

#define PP_NIL	      UINT32_MAX
#define PP_HOPS_INIT  16
#define PP_TABLE_INIT 1024 /* slots; a power of two */
#define PP_GOLDEN     0x9e3779b97f4a7c15ULL

enum pp_ent_state {
	PP_ST_FREE,
	PP_ST_OPEN,
	PP_ST_CLOSED,
};

/* What every record touches comes first, in one cache line. */
struct pp_buf {
	__u32 n, cap;
	__u32 nskbs, cap_skbs, live; /* live: skbs seen without an END */
	__u32 lost;		     /* summed over the ENDs: each skb counts its own */
	__u32 awaited;		     /* shared ENDs not yet answered by a COPY */
	struct pp_skbref *skbs;
	struct pp_hop_bytes *bytes;
	__u32 nbytes, cap_bytes;
	bool has_mark;
	struct pp_mark mark;
	struct pp_hop hops[];
};

struct pp_entry {
	__u64 id;
	__u64 last_ns;	    /* open: last record's arrival; closed: closing time */
	__u64 held_ns;	    /* when a hold first kept it open past the timeout; 0: never */
	__u64 due_ns;	    /* ended: when its grace is over; 0: never ended */
	struct pp_buf *buf; /* NULL unless open */
	__u32 prev, next;   /* open, ending, closed or free list */
	enum pp_ent_state state;
	bool ending; /* open, on the ending list */
};

struct pp_slot {
	__u64 id;
	__u32 idx; /* into entries, PP_NIL if the slot is empty */
};

/* A doubly-linked list of entries, by index: pool growth moves entries. */
struct pp_list {
	__u32 head, tail;
};

struct pp_paths {
	pp_emit_fn emit;
	pp_hold_fn hold;
	pp_late_fn late;
	__u64 grace_ns;
	void *ctx;
	struct pp_slot *slots;
	__u32 nslots, nused, shift;
	struct pp_entry *ents;
	__u32 nents, cap_ents, free_ent;
	struct pp_list open, ending, closed;
	bool unsorted; /* a flush appended older closing times: scan all of closed */
	size_t nopen;
	struct pp_buf **spare;
	size_t nspare, cap_spare;
	struct pp_paths_stats st;
};

static __u32 slot_home(const struct pp_paths *pp, __u64 id)
{
	/* Fibonacci hashing: ids are sequential, the top bits spread them. */
	return (__u32)((id * PP_GOLDEN) >> pp->shift);
}

/* The slot holding id, or the empty slot where it would go. */
static __u32 slot_find(const struct pp_paths *pp, __u64 id)
{
	__u32 mask = pp->nslots - 1;
	__u32 i = slot_home(pp, id);

	while (pp->slots[i].idx != PP_NIL && pp->slots[i].id != id)
		i = (i + 1) & mask;
	return i;
}

static int table_alloc(struct pp_paths *pp, __u32 nslots)
{
	struct pp_slot *s = malloc(nslots * sizeof(*s));
	__u32 i;

	if (!s)
		return -ENOMEM;
	for (i = 0; i < nslots; i++)
		s[i].idx = PP_NIL;
	pp->slots = s;
	pp->nslots = nslots;
	pp->shift = 64 - __builtin_ctz(nslots);
	return 0;
}

static int table_grow(struct pp_paths *pp)
{
	struct pp_slot *old = pp->slots;
	__u32 i, n = pp->nslots;

	/* table_alloc() leaves the old table in place when it fails. */
	if (n >= (1U << 30) || table_alloc(pp, n * 2))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (old[i].idx != PP_NIL)
			pp->slots[slot_find(pp, old[i].id)] = old[i];
	free(old);
	return 0;
}

/* True if home lies cyclically in (gap, pos]: the entry may not move to gap. */
static bool slot_stays(__u32 home, __u32 gap, __u32 pos)
{
	if (gap <= pos)
		return home > gap && home <= pos;
	return home > gap || home <= pos;
}

static void table_del(struct pp_paths *pp, __u64 id)
{
	__u32 mask = pp->nslots - 1;
	__u32 gap = slot_find(pp, id), pos = gap;

	if (pp->slots[gap].idx == PP_NIL)
		return;
	for (;;) {
		pos = (pos + 1) & mask;
		if (pp->slots[pos].idx == PP_NIL)
			break;
		if (slot_stays(slot_home(pp, pp->slots[pos].id), gap, pos))
			continue;
		pp->slots[gap] = pp->slots[pos];
		gap = pos;
	}
	pp->slots[gap].idx = PP_NIL;
	pp->nused--;
}

static void list_append(struct pp_paths *pp, struct pp_list *l, __u32 i)
{
	pp->ents[i].prev = l->tail;
	pp->ents[i].next = PP_NIL;
	if (l->tail != PP_NIL)
		pp->ents[l->tail].next = i;
	else
		l->head = i;
	l->tail = i;
}

static void list_unlink(struct pp_paths *pp, struct pp_list *l, __u32 i)
{
	struct pp_entry *e = &pp->ents[i];

	if (e->prev != PP_NIL)
		pp->ents[e->prev].next = e->next;
	else
		l->head = e->next;
	if (e->next != PP_NIL)
		pp->ents[e->next].prev = e->prev;
	else
		l->tail = e->prev;
}

/* Empties a buffer, keeping its arrays for the next packet. */
static void buf_reset(struct pp_buf *b)
{
	b->has_mark = false;
	b->nskbs = 0;
	b->nbytes = 0;
	b->live = 0;
	b->awaited = 0;
	b->lost = 0;
	b->n = 0;
}

static void buf_free(struct pp_buf *b)
{
	if (b) {
		free(b->skbs);
		free(b->bytes);
	}
	free(b);
}

static struct pp_buf *buf_get(struct pp_paths *pp)
{
	struct pp_buf *b;

	if (pp->nspare)
		return pp->spare[--pp->nspare];
	b = malloc(sizeof(*b) + PP_HOPS_INIT * sizeof(b->hops[0]));
	if (!b)
		return NULL;
	b->skbs = NULL;
	b->cap_skbs = 0;
	b->bytes = NULL;
	b->cap_bytes = 0;
	b->cap = PP_HOPS_INIT;
	buf_reset(b);
	return b;
}

static void buf_put(struct pp_paths *pp, struct pp_buf *b)
{
	if (PP_GROW(pp->spare, pp->cap_spare, pp->nspare + 1, 64)) {
		buf_free(b);
		return;
	}
	buf_reset(b);
	pp->spare[pp->nspare++] = b;
}

static int ent_grow(struct pp_paths *pp)
{
	if (pp->cap_ents >= PP_NIL / 2)
		return -ENOMEM;
	return PP_GROW(pp->ents, pp->cap_ents, pp->cap_ents + 1, 1024);
}

static __u32 ent_alloc(struct pp_paths *pp)
{
	__u32 i = pp->free_ent;

	if (i != PP_NIL) {
		pp->free_ent = pp->ents[i].next;
		return i;
	}
	if (pp->nents == pp->cap_ents && ent_grow(pp))
		return PP_NIL;
	return pp->nents++;
}

static void ent_release(struct pp_paths *pp, __u32 i)
{
	pp->ents[i].state = PP_ST_FREE;
	pp->ents[i].next = pp->free_ent;
	pp->free_ent = i;
}

/* Opens a packet for id in the empty slot pos; returns its entry or PP_NIL. */
static __u32 open_packet(struct pp_paths *pp, __u64 id, __u32 pos, __u64 now)
{
	struct pp_buf *b;
	__u32 i;

	if ((pp->nused + 1) * 2 > pp->nslots) {
		if (table_grow(pp))
			return PP_NIL;
		pos = slot_find(pp, id);
	}
	b = buf_get(pp);
	if (!b)
		return PP_NIL;
	i = ent_alloc(pp);
	if (i == PP_NIL) {
		buf_put(pp, b);
		return PP_NIL;
	}
	pp->ents[i] = (struct pp_entry){.id = id, .last_ns = now, .buf = b, .state = PP_ST_OPEN};
	list_append(pp, &pp->open, i);
	pp->slots[pos] = (struct pp_slot){.id = id, .idx = i};
	pp->nused++;
	pp->nopen++;
	return i;
}

/* The list open entry i is on. */
static struct pp_list *open_list(struct pp_paths *pp, __u32 i)
{
	return pp->ents[i].ending ? &pp->ending : &pp->open;
}

/*
 * The open entry for h's packet, created if new; an ended one is open again
 * (its END may be followed by more). PP_NIL with *err == 0 means the packet
 * is already closed and the record is late.
 */
static __u32 lookup(struct pp_paths *pp, const struct pp_hop *h, __u64 now, int *err)
{
	__u32 pos = slot_find(pp, h->id), i = pp->slots[pos].idx;
	struct pp_entry *e;

	*err = 0;
	if (i == PP_NIL) {
		i = open_packet(pp, h->id, pos, now);
		if (i == PP_NIL)
			*err = -ENOMEM;
		return i;
	}
	e = &pp->ents[i];
	if (e->state != PP_ST_OPEN) {
		pp->st.late++;
		if (pp->late)
			pp->late(h->id, h, now > e->last_ns ? now - e->last_ns : 0, pp->ctx);
		return PP_NIL;
	}
	pp->st.graced += e->ending;
	e->last_ns = now;
	e->held_ns = 0;
	if (e->ending || pp->open.tail != i) {
		list_unlink(pp, open_list(pp, i), i);
		e->ending = false;
		list_append(pp, &pp->open, i);
	}
	return i;
}

/*
 * Inserts h in ts order, after every hop with the same ts. Records of one
 * packet are nearly sorted (only cross-CPU reservations interleave), so the
 * backwards scan is short and no sort is needed at close.
 */
static int hop_insert(struct pp_entry *e, const struct pp_hop *h)
{
	struct pp_buf *b = e->buf;
	__u32 i;

	if (b->n == b->cap) {
		if (b->cap > UINT32_MAX / 2)
			return -ENOMEM;
		b = realloc(b, sizeof(*b) + 2 * (size_t)b->cap * sizeof(b->hops[0]));
		if (!b)
			return -ENOMEM;
		b->cap *= 2;
		e->buf = b;
	}
	for (i = b->n; i > 0 && b->hops[i - 1].ts > h->ts; i--)
		;
	memmove(&b->hops[i + 1], &b->hops[i], (b->n - i) * sizeof(b->hops[0]));
	b->hops[i] = *h;
	b->n++;
	return 0;
}

/* A new entry in the skb list for h's skb, live; NULL if out of memory. */
static struct pp_skbref *skb_add(struct pp_buf *b, const struct pp_hop *h)
{
	struct pp_skbref *r;

	if (PP_GROW(b->skbs, b->cap_skbs, b->nskbs + 1, 4))
		return NULL;
	r = &b->skbs[b->nskbs++];
	*r = (struct pp_skbref){.skb = h->skb, .first_ts = h->ts, .fate = PP_FATE_UNSEEN};
	b->live++;
	return r;
}

/* Whether h begins another life of the address after r's. */
static bool new_life(const struct pp_skbref *r, const struct pp_hop *h)
{
	/* The probes send one COPY a life, its first record: an earlier one is another life's. */
	if (h->type == PP_REC_COPY)
		return r->copy || r->first_ts < h->ts;
	/* A hop after the END's time comes after the free: its COPY is late or lost. */
	return r->ended && h->ts > r->end_ts;
}

/* An END: the live life of its address that began before it, else any live one. */
static struct pp_skbref *end_ref(struct pp_buf *b, const struct pp_hop *h)
{
	struct pp_skbref *any = NULL;

	for (__u32 i = b->nskbs; i-- > 0;) {
		struct pp_skbref *r = &b->skbs[i];

		if (r->skb != h->skb || r->ended)
			continue;
		if (r->first_ts <= h->ts)
			return r;
		any = any ? any : r;
	}
	return any;
}

/*
 * An END when no life of its address is live: the life that holds its
 * time, when that one ended and one of the two ENDs is a read's. A datagram
 * read on one CPU is freed on another (skb_attempt_defer_free()): the
 * reader's sock_recv_length and that CPU's consume_skb may both find it
 * tracked before either forgets it, and both send an END; or the free
 * forgot it first, and the read sends its END for the slot it left in the
 * socket's ring (pp_queue_read()). NULL otherwise: an skb whose other
 * records were lost.
 */
static struct pp_skbref *end_again(struct pp_buf *b, const struct pp_hop *h)
{
	size_t k = pp_skb_index(b->skbs, b->nskbs, h->skb, h->ts);
	struct pp_skbref *r = k < b->nskbs ? &b->skbs[k] : NULL;

	if (!r || !r->ended || r->twice || (h->probe != PP_PROBE_READ && !r->read))
		return NULL;
	/* A read is a consume; a drop and a read are two skbs' ends. */
	if (r->fate != PP_FATE_CONSUMED || h->fate != PP_FATE_CONSUMED)
		return NULL;
	return r;
}

/*
 * The skb list's entry for h: the life of h's skb address that h belongs
 * to, appended if new; NULL if out of memory. An address may be freed and
 * taken by another skb of the packet (tcpdump's clone of an ICMP error
 * freed, then ping's clone of the same data): each life is an skb of its
 * own. Records of one life arrive nearly in time order, but another CPU's
 * may come before the previous life's END: the times say which is whose.
 */
static struct pp_skbref *skb_ref(struct pp_buf *b, const struct pp_hop *h)
{
	struct pp_skbref *first = NULL, *r;

	if (h->type == PP_REC_END) {
		r = end_ref(b, h);
		r = r ? r : end_again(b, h);
		return r ? r : skb_add(b, h);
	}
	for (__u32 i = b->nskbs; i-- > 0;) {
		r = &b->skbs[i];
		if (r->skb != h->skb)
			continue;
		if (r->first_ts <= h->ts || h->type == PP_REC_COPY)
			return new_life(r, h) ? skb_add(b, h) : r;
		first = r;
	}
	return first ? first : skb_add(b, h);
}

/*
 * H is the END of R's skb: how and where it ended, and what the packet
 * still waits for; 1 for the skb's second END, else 0 (skb_note()).
 */
static int skb_ended(struct pp_buf *b, struct pp_skbref *r, const struct pp_hop *h)
{
	r->read |= h->probe == PP_PROBE_READ;
	if (r->ended) {
		/* Its second END (end_again()): the life ended at the first. */
		r->twice = true;
		r->end_ts = h->ts < r->end_ts ? h->ts : r->end_ts;
		return 1;
	}
	r->ended = true;
	r->end_ts = h->ts;
	r->end_probe = h->probe;
	r->end_flags = h->flags;
	r->fate = h->fate;
	r->reason = h->reason;
	r->location = h->location;
	r->tap = h->flags & PP_HOP_TAP;
	b->live--;
	b->lost += h->lost;
	/*
	 * Shared with none of its live skbs: a holder not seen yet, maybe a copy
	 * to come; or a fragment whose datagram's later fragments may still come.
	 */
	b->awaited += (h->flags & (PP_HOP_SHARED | PP_HOP_FRAGS)) && !b->live;
	return 0;
}

/*
 * Notes that h's skb belongs to the packet: where a copy joined, and how
 * each skb ended. An END for an skb never seen before (its other records
 * were lost) counts as ended at once. Returns -ENOMEM if the list cannot
 * grow, 1 for an skb's second END (its read's and its free's), else 0.
 */
static int skb_note(struct pp_buf *b, const struct pp_hop *h)
{
	struct pp_skbref *r = skb_ref(b, h);

	if (!r)
		return -ENOMEM;
	if (!r->copy && h->ts < r->first_ts)
		r->first_ts = h->ts;
	if (h->type == PP_REC_COPY && !r->copy) {
		r->copy = true;
		r->parent = h->location;
		r->parent_ts = h->ts - pp_parent_age(h);
		r->probe = h->probe;
		r->first_ts = h->ts;
		b->awaited -= b->awaited > 0;
	}
	if (h->type != PP_REC_END) {
		r->hopped |= h->type != PP_REC_COPY;
		return 0;
	}
	return skb_ended(b, r, h);
}

bool pp_skb_aside(const struct pp_skbref *r)
{
	return r->copy && r->ended && !r->hopped && r->probe == r->end_probe &&
	       (r->end_flags & (PP_HOP_SHARED | PP_HOP_READ)) == PP_HOP_SHARED;
}

/*
 * Consumed if any skb was (a copy delivered is the packet delivered); else
 * the first drop (in skb order); else merged; else segmented; else left the
 * scope (--netns): the END fates in fate.c's row order; else its end was not
 * seen. A tap's copy observes: it
 * counts only when every skb of the packet was a tap's (a frame no protocol
 * takes, handed to tcpdump alone). A copy set aside (pp_skb_aside(): seen
 * only at its free, its data still held by another skb) did nothing that
 * was seen: its consume_skb() says the kernel was done with it, not that
 * the packet was delivered (the first
 * datagram to a neighbour not yet resolved waits in its arp_queue while
 * neigh_probe() clones it for the solicitation and consumes the clone; the
 * datagram itself goes on once the neighbour answers, and meets its own
 * end). It counts only when no other skb could.
 */
static const struct pp_skbref *decide_fate(const struct pp_buf *b, bool *by_tap)
{
	__u32 taps = 0, aside = 0;
	bool all_aside;

	for (__u32 i = 0; i < b->nskbs; i++)
		taps += b->skbs[i].tap;
	*by_tap = b->nskbs && taps == b->nskbs;
	for (__u32 i = 0; i < b->nskbs; i++)
		aside += !b->skbs[i].tap && pp_skb_aside(&b->skbs[i]);
	/* Taps' copies are often seen only at their free: by_tap decides as before. */
	all_aside = *by_tap || aside == b->nskbs - taps;
	for (size_t k = 0; k < pp_nfates; k++) {
		if (!(pp_fates[k].flags & PP_FATE_F_END))
			continue;
		for (__u32 i = 0; i < b->nskbs; i++) {
			const struct pp_skbref *r = &b->skbs[i];

			if (r->fate == pp_fates[k].fate && r->tap == *by_tap &&
			    (all_aside || !pp_skb_aside(r)))
				return r;
		}
	}
	return NULL;
}

size_t pp_skb_index(const struct pp_skbref *skbs, size_t nskbs, __u64 skb, __u64 ts)
{
	size_t first = nskbs;

	for (size_t i = nskbs; i-- > 0;) {
		if (skbs[i].skb != skb)
			continue;
		if (skbs[i].first_ts <= ts)
			return i;
		first = i;
	}
	return first;
}

/* Moves open entry i to the closed list; its buffer goes back to the spares. */
static void retire(struct pp_paths *pp, __u32 i, __u64 now)
{
	struct pp_entry *e = &pp->ents[i];

	list_unlink(pp, open_list(pp, i), i);
	e->ending = false;
	pp->nopen--;
	buf_put(pp, e->buf);
	e->buf = NULL;
	e->state = PP_ST_CLOSED;
	e->last_ns = now;
	list_append(pp, &pp->closed, i);
}

/*
 * A copy first seen at its own free has a COPY and an END record from the
 * same probe: one step, so the COPY goes (skbs[] keeps where it joined).
 * Walked from the end, so that a run of such COPYs all go.
 */
static void drop_copy_at_end(struct pp_buf *b)
{
	__u32 n = b->n, k = n; /* hops[k..n) are kept */

	for (__u32 i = n; i-- > 0;) {
		const struct pp_hop *h = &b->hops[i], *next = k < n ? &b->hops[k] : NULL;

		if (h->type == PP_REC_COPY && next && next->type == PP_REC_END &&
		    next->skb == h->skb && next->probe == h->probe)
			continue;
		b->hops[--k] = *h;
	}
	memmove(b->hops, b->hops + k, (n - k) * sizeof(*b->hops));
	b->n = n - k;
}

/*
 * Hops that read no namespace get the one of the skb's hop before them. At a
 * TCP packet's end the skb has neither: tcp_v4_rcv() and tcp_v6_rcv() set
 * skb->dev to NULL (the device may go while the skb waits in the backlog),
 * the socket lookup steals skb->sk, and tcp_eat_recv_skb() clears skb->sk
 * again before the free; so tp:tcp:tcp_probe, consume_skb and
 * kmem_cache_free of a received segment read 0. An skb changes namespace
 * only by crossing a device, which the hop before shows, so this is its
 * namespace; the flag says where it came from (JSON netns_carried).
 */
static void netns_carry(struct pp_buf *b)
{
	for (__u32 i = 0; i < b->n; i++) {
		struct pp_hop *h = &b->hops[i];

		if (h->netns)
			continue;
		for (__u32 j = i; j-- > 0;) {
			if (b->hops[j].skb != h->skb || !b->hops[j].netns)
				continue;
			h->netns = b->hops[j].netns;
			h->flags |= PP_HOP_NETNS_CARRIED;
			break;
		}
	}
}

/* The packet that B's records make, as the output takes it. */
static struct pp_packet packet_of(const struct pp_entry *e, struct pp_buf *b)
{
	bool by_tap;
	const struct pp_skbref *f = decide_fate(b, &by_tap);
	struct pp_packet p = {
		.id = e->id,
		.mark = b->has_mark ? &b->mark : NULL,
		.hops = b->hops,
		.nhops = b->n,
		.skbs = b->skbs,
		.nskbs = b->nskbs,
		.fate = f ? f->fate : PP_FATE_UNSEEN,
		.lost = b->lost,
		.lingered = !b->live && b->awaited,
		.bytes = b->bytes,
		.nbytes = b->nbytes,
		.by_tap = by_tap,
	};

	/* An skb still live leaves the packet unfinished unless one was delivered. */
	if (b->live && p.fate != PP_FATE_CONSUMED)
		p.fate = PP_FATE_UNSEEN;
	if (p.fate == PP_FATE_DROPPED) {
		p.reason = f->reason;
		p.location = f->location;
	}
	return p;
}

/* Emits entry i and leaves it in the table as a tombstone. */
static void close_packet(struct pp_paths *pp, __u32 i, __u64 now)
{
	struct pp_entry *e = &pp->ents[i];
	struct pp_buf *b = e->buf;
	struct pp_packet p;

	if (b->nskbs > 1)
		drop_copy_at_end(b);
	netns_carry(b);
	p = packet_of(e, b);
	/* No hop only if memory ran out on its first record: nothing to show. */
	if (b->n) {
		pp->emit(&p, pp->ctx);
		pp->st.emitted++;
		pp->st.mark_lost += !b->has_mark;
	}
	retire(pp, i, now);
}

/*
 * Open entry i has no skb live and awaits nothing, after an END at TS that
 * arrived at NOW: emitted now without a grace, else put on the ending list
 * until max(TS, NOW) + grace (never earlier than an END before it said).
 */
static void end_packet(struct pp_paths *pp, __u32 i, __u64 ts, __u64 now)
{
	struct pp_entry *e = &pp->ents[i];
	__u64 due = (ts > now ? ts : now) + pp->grace_ns;

	if (!pp->grace_ns) {
		close_packet(pp, i, now);
		return;
	}
	e->due_ns = due > e->due_ns ? due : e->due_ns;
	list_unlink(pp, &pp->open, i);
	e->ending = true;
	list_append(pp, &pp->ending, i);
}

/* Keeps the bytes of a HOP_BYTES record, for pp_packet_bytes(). */
static int bytes_note(struct pp_buf *b, const struct pp_mark *m)
{
	struct pp_hop_bytes *x;

	if (PP_GROW(b->bytes, b->cap_bytes, b->nbytes + 1, 4))
		return -ENOMEM;
	x = &b->bytes[b->nbytes++];
	x->skb = m->hop.skb;
	x->ts = m->hop.ts;
	x->probe = m->hop.probe;
	x->cap_len = m->cap_len;
	memcpy(x->data, m->data, m->cap_len);
	return 0;
}

const struct pp_hop_bytes *pp_packet_bytes(const struct pp_packet *p, const struct pp_hop *h)
{
	for (size_t i = 0; i < p->nbytes; i++)
		if (p->bytes[i].ts == h->ts && p->bytes[i].skb == h->skb &&
		    p->bytes[i].probe == h->probe)
			return &p->bytes[i];
	return NULL;
}

/* Files h (a hop, an END or a mark's hop) under its packet. */
static int add_hop(struct pp_paths *pp, const struct pp_hop *h, const struct pp_mark *m,
		   size_t size, __u64 now)
{
	struct pp_buf *b;
	int err;
	__u32 i = lookup(pp, h, now, &err);

	if (i == PP_NIL)
		return err;
	err = hop_insert(&pp->ents[i], h);
	if (!err)
		err = skb_note(pp->ents[i].buf, h);
	if (err < 0)
		return err;
	pp->st.ends_joined += err;
	pp->st.records++;
	b = pp->ents[i].buf;
	if (m && m->hop.type == PP_REC_HOP_BYTES)
		return bytes_note(b, m);
	/* A mark may come after hops from other CPUs; a second mark is a hop. */
	if (m && !b->has_mark) {
		memcpy(&b->mark, m, size);
		pp_mark_put_tag(&b->mark);
		b->has_mark = true;
	}
	if ((h->type == PP_REC_END || pp->ents[i].due_ns) && !b->live && !b->awaited)
		end_packet(pp, i, h->ts, now);
	return 0;
}

/* A HOP_BYTES record: a HOP in the path, its bytes kept beside it. */
static int add_bytes_hop(struct pp_paths *pp, const struct pp_mark *m, size_t size, __u64 now)
{
	struct pp_hop h = m->hop;

	h.type = PP_REC_HOP;
	return add_hop(pp, &h, m, size, now);
}

/* A MARK may be shorter than struct pp_mark, but must cover its cap_len. */
static bool mark_ok(const struct pp_mark *m, size_t size)
{
	size_t hdr = offsetof(struct pp_mark, data);

	return size >= hdr && size <= sizeof(*m) && m->cap_len <= PP_HDR_BYTES &&
	       m->cap_len <= size - hdr;
}

static bool hop_ok(const struct pp_hop *h, size_t size)
{
	if (size != sizeof(*h))
		return false;
	return h->type != PP_REC_END || pp_fate_ends((enum pp_fate)h->fate);
}

int pp_paths_add(struct pp_paths *pp, const void *rec, size_t size, __u64 now_ns)
{
	__u32 type;

	if (size < sizeof(type))
		goto bad;
	memcpy(&type, rec, sizeof(type));
	switch (type) {
	case PP_REC_MARK:
		if (!mark_ok(rec, size))
			goto bad;
		return add_hop(pp, rec, rec, size, now_ns);
	case PP_REC_HOP_BYTES:
		if (!mark_ok(rec, size))
			goto bad;
		return add_bytes_hop(pp, rec, size, now_ns);
	case PP_REC_HOP:
	case PP_REC_COPY:
	case PP_REC_END:
		if (!hop_ok(rec, size))
			goto bad;
		return add_hop(pp, rec, NULL, 0, now_ns);
	}
bad:
	pp->st.bad++;
	return -EINVAL;
}

/* now - then > timeout, false if the clock went backwards. */
static bool older(__u64 then, __u64 now, __u64 timeout)
{
	return now > then && now - then > timeout;
}

/*
 * Open entry i is due to time out: if the hold callback says it waits where
 * no record comes, it goes to the end of the open list as if a record had
 * come, for at most PP_HOLD_MAX_NS from the first hold.
 */
static bool held(struct pp_paths *pp, __u32 i, __u64 now)
{
	struct pp_entry *e = &pp->ents[i];

	if (!pp->hold || (e->held_ns && older(e->held_ns, now, PP_HOLD_MAX_NS)) ||
	    !pp->hold(e->id, e->buf->skbs, e->buf->nskbs, pp->ctx))
		return false;
	if (!e->held_ns)
		e->held_ns = now;
	e->last_ns = now;
	list_unlink(pp, &pp->open, i);
	list_append(pp, &pp->open, i);
	pp->st.held++;
	return true;
}

size_t pp_paths_expire(struct pp_paths *pp, __u64 now_ns, __u64 timeout_ns)
{
	size_t n = 0;
	__u32 i;

	for (i = pp->closed.head; i != PP_NIL;) {
		__u32 next = pp->ents[i].next;

		if (!older(pp->ents[i].last_ns, now_ns, timeout_ns)) {
			/* In closing-time order, the rest is newer; not after a flush. */
			if (!pp->unsorted)
				break;
			i = next;
			continue;
		}
		list_unlink(pp, &pp->closed, i);
		table_del(pp, pp->ents[i].id);
		ent_release(pp, i);
		i = next;
	}
	if (pp->closed.head == PP_NIL)
		pp->unsorted = false;
	while ((i = pp->open.head) != PP_NIL && older(pp->ents[i].last_ns, now_ns, timeout_ns)) {
		if (held(pp, i, now_ns))
			continue;
		close_packet(pp, i, now_ns);
		n++;
	}
	/* Due times are nearly in list order (ENDs arrive nearly in time order). */
	while ((i = pp->ending.head) != PP_NIL && now_ns > pp->ents[i].due_ns) {
		close_packet(pp, i, now_ns);
		n++;
	}
	return n;
}

size_t pp_paths_flush(struct pp_paths *pp)
{
	size_t n = 0;
	__u32 i;

	while ((i = pp->ending.head) != PP_NIL || (i = pp->open.head) != PP_NIL) {
		close_packet(pp, i, pp->ents[i].last_ns);
		pp->unsorted = true;
		n++;
	}
	return n;
}

void pp_paths_set_grace(struct pp_paths *pp, __u64 grace_ns)
{
	pp->grace_ns = grace_ns;
}

void pp_paths_set_late(struct pp_paths *pp, pp_late_fn late)
{
	pp->late = late;
}

void pp_paths_set_hold(struct pp_paths *pp, pp_hold_fn hold)
{
	pp->hold = hold;
}

struct pp_paths *pp_paths_new(pp_emit_fn emit, void *ctx)
{
	struct pp_paths *pp;

	if (!emit)
		return NULL;
	pp = calloc(1, sizeof(*pp));
	if (!pp)
		return NULL;
	pp->emit = emit;
	pp->ctx = ctx;
	pp->free_ent = PP_NIL;
	pp->open = pp->ending = pp->closed = (struct pp_list){PP_NIL, PP_NIL};
	if (table_alloc(pp, PP_TABLE_INIT)) {
		free(pp);
		return NULL;
	}
	return pp;
}

void pp_paths_free(struct pp_paths *pp)
{
	__u32 i;

	if (!pp)
		return;
	for (i = pp->open.head; i != PP_NIL; i = pp->ents[i].next)
		buf_free(pp->ents[i].buf);
	for (i = pp->ending.head; i != PP_NIL; i = pp->ents[i].next)
		buf_free(pp->ents[i].buf);
	while (pp->nspare)
		buf_free(pp->spare[--pp->nspare]);
	free(pp->spare);
	free(pp->ents);
	free(pp->slots);
	free(pp);
}

size_t pp_paths_open(const struct pp_paths *pp)
{
	return pp->nopen;
}

void pp_paths_stats(const struct pp_paths *pp, struct pp_paths_stats *st)
{
	*st = pp->st;
}
