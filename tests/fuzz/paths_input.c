// SPDX-License-Identifier: GPL-2.0
/* fuzz_paths's input format; see paths_input.h. */
#include <string.h>
#include "paths_input.h"

/* Mostly the fates an END may give; NONE, UNSEEN and past the last are malformed. */
static const __u32 fz_fates[16] = {
	PP_FATE_CONSUMED, PP_FATE_CONSUMED, PP_FATE_CONSUMED,  PP_FATE_CONSUMED,
	PP_FATE_DROPPED,  PP_FATE_DROPPED,  PP_FATE_DROPPED,   PP_FATE_DROPPED,
	PP_FATE_MERGED,	  PP_FATE_MERGED,   PP_FATE_SEGMENTED, PP_FATE_NONE,
	PP_FATE_UNSEEN,	  PP_FATE_MAX + 1,  PP_FATE_LEFT,      PP_FATE_DROPPED,
};

void fz_reader_init(struct fz_reader *r, const uint8_t *data, size_t size)
{
	*r = (struct fz_reader){.p = data,
				.n = size,
				.now = FZ_NOW_START,
				.ts = FZ_TS_START,
				.next_id = FZ_FRESH_ID};
}

static uint8_t rd8(struct fz_reader *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->p++;
}

static __u64 rdn(struct fz_reader *r, int bytes)
{
	__u64 v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (__u64)rd8(r) << (8 * i);
	return v;
}

static void rdbytes(struct fz_reader *r, void *out, size_t n)
{
	uint8_t *o = out;

	for (size_t i = 0; i < n; i++)
		o[i] = rd8(r);
}

static __u64 skb_of(struct fz_reader *r, uint8_t b)
{
	return b < 0xf8 ? FZ_SKB_BASE + (__u64)b % 8 * 0x100 : rdn(r, 8);
}

/* A COPY's parent: one of the skbs, none, or any value. */
static __u64 parent_of(struct fz_reader *r, uint8_t b)
{
	return b < 0xf0 ? skb_of(r, b) : b < 0xf8 ? 0 : rdn(r, 8);
}

static __u32 probe_of(uint8_t sel)
{
	if (sel < 8)
		return sel;
	if (sel == 8)
		return PP_PROBE_TC_INGRESS;
	if (sel == 9)
		return PP_PROBE_TC_EGRESS;
	if (sel == 10)
		return PP_PROBE_READ;
	return sel * 977u;
}

/* The fields every record has: id, skb, ts, probe and where it ran. */
static void read_hop(struct fz_reader *r, unsigned int flags, struct pp_hop *h)
{
	uint8_t b = rd8(r);

	h->id = b < 0xf0 ? b % 16 + 1 : b < 0xf8 ? r->next_id++ : rdn(r, 8);
	b = rd8(r);
	h->skb = skb_of(r, b);
	r->ts += (__u64)((int8_t)rd8(r) * 37);
	h->ts = flags & FZ_F_RAW_TS ? rdn(r, 8) : r->ts;
	h->probe = probe_of(rd8(r));
	r->now += (__u64)rd8(r) * 1000;
	if (flags & FZ_F_DETAIL) {
		h->cpu = (__u32)rdn(r, 4);
		h->netns = (__u32)rdn(r, 4);
		h->ifindex = (__u32)rdn(r, 4);
		h->pid = (__u32)rdn(r, 4);
		h->len = (__u32)rdn(r, 4);
		h->flags |= (__u32)rdn(r, 4);
		rdbytes(r, h->ifname, sizeof(h->ifname));
		rdbytes(r, h->comm, sizeof(h->comm));
	} else {
		h->cpu = h->probe & 3;
		h->netns = 4026531840u;
		h->ifindex = 2;
		h->pid = 4321;
		h->len = 98;
		memcpy(h->ifname, "eth0", 5);
		memcpy(h->comm, "ping", 5);
	}
}

static void read_record(struct fz_reader *r, unsigned int kind, unsigned int flags,
			struct fz_action *a)
{
	static const __u32 types[] = {
		[FZ_OP_HOP] = PP_REC_HOP,
		[FZ_OP_COPY] = PP_REC_COPY,
		[FZ_OP_END] = PP_REC_END,
		[FZ_OP_MARK] = PP_REC_MARK,
	};
	struct pp_mark m = {0};
	struct pp_hop *h = &m.hop;
	size_t n;

	read_hop(r, flags, h);
	h->type = types[kind];
	if (kind != FZ_OP_MARK && (flags & FZ_F_TRIM))
		h->flags |= PP_HOP_SHARED;
	if (kind == FZ_OP_END)
		h->fate = fz_fates[rd8(r) & 15];
	if (kind == FZ_OP_COPY)
		h->location = parent_of(r, rd8(r));
	if (flags & FZ_F_DROPINFO) {
		h->reason = (__u32)rdn(r, 4);
		h->location = rdn(r, 8);
		h->lost = (__u32)rdn(r, 4);
	}
	a->size = sizeof(*h);
	if (kind == FZ_OP_MARK) {
		m.cap_len = rd8(r);
		n = m.cap_len < PP_HDR_BYTES ? m.cap_len : PP_HDR_BYTES;
		rdbytes(r, m.data, n);
		a->size = flags & FZ_F_TRIM ? offsetof(struct pp_mark, data) + n : sizeof(m);
	}
	memcpy(a->rec, &m, sizeof(m));
	if (flags & FZ_F_BADSIZE)
		a->size = rd8(r) % (sizeof(struct pp_mark) + 9);
}

static void read_raw(struct fz_reader *r, struct fz_action *a)
{
	static const __u32 types[] = {PP_REC_MARK, PP_REC_HOP, PP_REC_END, PP_REC_COPY, 0};
	uint8_t t = rd8(r);
	__u32 type = t % 6 < 5 ? types[t % 6] : (__u32)rdn(r, 4);

	a->size = rd8(r) % (sizeof(struct pp_mark) + 9);
	rdbytes(r, a->rec, a->size);
	if (a->size >= sizeof(type))
		memcpy(a->rec, &type, sizeof(type));
}

/* Kinds 0-1 are HOP, 2 COPY, 3-4 END, 5 MARK. */
static unsigned int kind_of(uint8_t op)
{
	unsigned int k = op & 7;

	return k < FZ_OP_COPY	 ? FZ_OP_HOP
	       : k == FZ_OP_COPY ? FZ_OP_COPY
	       : k < FZ_OP_MARK	 ? FZ_OP_END
				 : FZ_OP_MARK;
}

/* The next record of a burst: a HOP, then an END, each of a new packet. */
static void burst_record(struct fz_reader *r, struct fz_action *a)
{
	struct pp_hop h = {.type = r->burst_i & 1 ? PP_REC_END : PP_REC_HOP,
			   .id = r->next_id++,
			   .ts = r->ts,
			   .skb = FZ_SKB_BASE,
			   .probe = (__u32)r->burst_i % 8,
			   .fate = r->burst_i & 1 ? PP_FATE_CONSUMED : 0,
			   .len = 60};

	r->burst--;
	r->burst_i++;
	a->kind = FZ_ADD;
	a->size = sizeof(h);
	memcpy(a->rec, &h, sizeof(h));
}

/*
 * A copy first seen at its own free (CLOCK 0x80-0x9f): its COPY now, then
 * (pending) maybe a HOP of its parent, and its END from the same probe.
 */
static void copy_at_end(struct fz_reader *r, uint8_t s, struct fz_action *a)
{
	struct pp_hop c = {.type = PP_REC_COPY, .len = 60, .cpu = 1}, e;
	uint8_t b = rd8(r);

	c.id = b < 0xf0 ? b % 16 + 1 : r->next_id++;
	c.skb = skb_of(r, rd8(r));
	c.location = parent_of(r, rd8(r));
	c.probe = probe_of(rd8(r));
	r->ts += 37;
	c.ts = r->ts;
	e = c;
	e.type = PP_REC_END;
	e.location = 0;
	e.fate = fz_fates[rd8(r) & 15];
	e.flags = s & 1 ? PP_HOP_SHARED : 0;
	e.flags |= (s & 8 ? PP_HOP_READ : 0) | (s & 16 ? PP_HOP_TAP : 0);
	e.ts += s & 2 ? 37 : 0;
	r->pending[r->npending++] = e;
	if (s & 4) {
		e = c;
		e.type = PP_REC_HOP;
		e.skb = c.location;
		e.location = 0;
		r->pending[r->npending++] = e;
	}
	a->kind = FZ_ADD;
	a->size = sizeof(c);
	memcpy(a->rec, &c, sizeof(c));
}

int fz_next_action(struct fz_reader *r, struct fz_action *a)
{
	uint8_t op, s;

	memset(a, 0, sizeof(*a));
	if (r->npending) {
		a->kind = FZ_ADD;
		a->size = sizeof(struct pp_hop);
		memcpy(a->rec, &r->pending[--r->npending], sizeof(struct pp_hop));
		a->now = r->now;
		return 1;
	}
	if (r->burst) {
		burst_record(r, a);
		a->now = r->now;
		return 1;
	}
	if (!r->n)
		return 0;
	op = rd8(r);
	a->kind = FZ_ADD;
	switch (op & 7) {
	case FZ_OP_CLOCK:
		s = rd8(r);
		if (s >= 0xc0) {
			a->kind = FZ_FLUSH;
			break;
		}
		if (s >= 0xa0) {
			r->burst = ((size_t)rd8(r) + 1) * 2;
			r->burst_i = 0;
			burst_record(r, a);
			break;
		}
		if (s >= 0x80) {
			copy_at_end(r, s, a);
			break;
		}
		r->now += (__u64)(s & 0x3f) * 100000;
		a->kind = FZ_EXPIRE;
		a->timeout = (__u64)rd8(r) * 20000;
		break;
	case FZ_OP_RAW:
		read_raw(r, a);
		break;
	default:
		read_record(r, kind_of(op), op >> 3, a);
	}
	a->now = r->now;
	return 1;
}
