// SPDX-License-Identifier: GPL-2.0
/*
 * A --json line back into a struct pp_packet. JSON does not say which hop
 * was which kind of record, so they are found as the live path made them:
 * the first hop is the mark hop when the mark arrived ("marked_at"); an
 * skb's last hop is its END (its free) unless its fate is "unseen"; a
 * copy's hop with the probe and time that "skbs" gives for it is where it
 * joined (its COPY). Strings come back as bytes: the writer escapes every
 * byte that is not printable ASCII as \u00XX (Latin-1), so each code point
 * is one byte.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "report/report_names.h"
#include "names/netns_names.h"
#include "report/report_read.h"
#include "output/verdict.h"

#define PP_NAME_MAX 512 /* a probe, reason or function name */

struct pp_report_read {
	struct pp_rnames *names;
	json_tokener *tok;
	struct pp_hop *hops;
	size_t hcap;
	struct pp_skbref *skbs;
	size_t scap;
	struct pp_mark mark;
	struct pp_packet pkt;
};

/* Where in the line a value is, for the error message: "hops[3]". */
struct ctx {
	struct pp_report_read *r;
	char *err;
	size_t errlen;
	char where[32];
};

struct pp_report_read *pp_report_read_new(void)
{
	struct pp_report_read *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->names = pp_rnames_new();
	r->tok = json_tokener_new();
	if (!r->names || !r->tok) {
		pp_report_read_free(r);
		return NULL;
	}
	return r;
}

void pp_report_read_free(struct pp_report_read *r)
{
	if (!r)
		return;
	pp_rnames_free(r->names);
	if (r->tok)
		json_tokener_free(r->tok);
	free(r->hops);
	free(r->skbs);
	free(r);
}

void pp_report_read_names(const struct pp_report_read *r, struct pp_out *o)
{
	pp_rnames_out(r->names, o);
}

static int bad(struct ctx *c, const char *key, const char *what)
{
	snprintf(c->err, c->errlen, "%s%s\"%s\" %s", c->where, c->where[0] ? "." : "", key, what);
	return -EINVAL;
}

/* 1: KEY is there, in *V; 0: absent (an error if NEED); -EINVAL: wrong type. */
static int get(struct ctx *c, json_object *obj, const char *key, bool need, json_type type,
	       json_object **v)
{
	static const char *const tname[] = {[json_type_boolean] = "a boolean",
					    [json_type_int] = "an unsigned integer",
					    [json_type_object] = "an object",
					    [json_type_array] = "an array",
					    [json_type_string] = "a string"};
	char what[48];

	if (!json_object_object_get_ex(obj, key, v))
		return need ? bad(c, key, "is missing") : 0;
	if (!json_object_is_type(*v, type)) {
		snprintf(what, sizeof(what), "is not %s", tname[type]);
		return bad(c, key, what);
	}
	return 1;
}

static int get_u64(struct ctx *c, json_object *obj, const char *key, bool need, __u64 *v)
{
	json_object *o;
	int ret = get(c, obj, key, need, json_type_int, &o);

	if (ret <= 0)
		return ret;
	if (json_object_get_int64(o) < 0)
		return bad(c, key, "is negative");
	*v = json_object_get_uint64(o);
	return 1;
}

static int get_u32(struct ctx *c, json_object *obj, const char *key, bool need, __u32 *v)
{
	__u64 x = 0;
	int ret = get_u64(c, obj, key, need, &x);

	if (ret > 0 && x > 0xffffffffULL)
		return bad(c, key, "does not fit in 32 bits");
	if (ret > 0)
		*v = (__u32)x;
	return ret;
}

/*
 * A string as the bytes it was written from, into BUF of SIZE bytes. ARR:
 * a char array that need not end in a NUL (a device name of 16 bytes);
 * else room for the NUL is needed.
 */
static int get_bytes(struct ctx *c, json_object *obj, const char *key, bool need, char *buf,
		     size_t size, bool arr)
{
	json_object *o;
	const unsigned char *s;
	size_t n = 0, len;
	int ret = get(c, obj, key, need, json_type_string, &o);

	if (ret <= 0)
		return ret;
	s = (const unsigned char *)json_object_get_string(o);
	len = (size_t)json_object_get_string_len(o);
	memset(buf, 0, size);
	for (size_t i = 0; i < len; i++, n++) {
		if (n == size - !arr)
			return bad(c, key, "is too long");
		/* U+0080..U+00FF: the two bytes C2/C3 xx; anything above is not the writer's. */
		if (s[i] >= 0x80 && (s[i] & 0xfe) == 0xc2 && i + 1 < len)
			buf[n] = (char)(((s[i] & 3) << 6) | (s[i + 1] & 0x3f)), i++;
		else if (s[i] >= 0x80)
			return bad(c, key, "has a character beyond U+00FF");
		else
			buf[n] = (char)s[i];
	}
	return 1;
}

/* A kernel address, written as a string in hex. */
static int get_addr(struct ctx *c, json_object *obj, const char *key, __u64 *v)
{
	char s[24], *end;
	int ret = get_bytes(c, obj, key, false, s, sizeof(s), false);

	if (ret <= 0)
		return ret;
	errno = 0;
	*v = strtoull(s, &end, 16);
	if (strncmp(s, "0x", 2) || end == s + 2 || *end || errno)
		return bad(c, key, "is not an address in hex (\"0x...\")");
	return 1;
}

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *g;

	if (n <= *cap)
		return 0;
	g = realloc(*v, n * size);
	if (!g)
		return -ENOMEM;
	*v = g;
	*cap = n;
	return 0;
}

/* A probe point's name into its index. */
static int probe_of(struct ctx *c, json_object *obj, const char *key, __u32 *probe)
{
	char name[PP_NAME_MAX];
	long idx;
	int ret = get_bytes(c, obj, key, true, name, sizeof(name), false);

	if (ret < 0)
		return ret;
	idx = pp_rnames_probe(c->r->names, name);
	if (idx == -ENOSPC)
		return bad(c, key, "is one probe point too many (8192 names at most)");
	if (idx < 0)
		return (int)idx;
	*probe = (__u32)idx;
	return 0;
}

/* A hop's netns_name, kept for the namespace it names (report_names.c). */
static int netns_name_of(struct ctx *c, json_object *obj, __u32 netns)
{
	char name[PP_CTR_NAME_MAX];
	int ret = get_bytes(c, obj, "netns_name", false, name, sizeof(name), false);

	if (ret > 0 && netns)
		ret = pp_rnames_netns(c->r->names, netns, name);
	return ret;
}

/*
 * A hop's flag written as KEY: true ("unseen_before": PP_HOP_GAP; "read":
 * PP_HOP_READ; "frame": PP_HOP_FRAME).
 */
static int read_flag(struct ctx *c, json_object *obj, const char *key, __u32 flag, struct pp_hop *h)
{
	json_object *v;
	int ret = get(c, obj, key, false, json_type_boolean, &v);

	if (ret > 0 && json_object_get_boolean(v))
		h->flags |= flag;
	return ret;
}

/* "verdict": another BPF program's return (PP_HOP_VERDICT), in words or a number. */
static int read_verdict(struct ctx *c, json_object *obj, struct pp_hop *h)
{
	char word[PP_VERDICT_LEN];
	int ret = get_bytes(c, obj, "verdict", false, word, sizeof(word), false);
	bool xdp;

	if (ret <= 0)
		return ret;
	if (pp_verdict_code(word, &h->reason, &xdp))
		return bad(c, "verdict", "is neither a TC or XDP verdict's name nor a number");
	h->flags |= PP_HOP_VERDICT | (xdp ? PP_HOP_XDP : 0);
	return 1;
}

/* "redirect": where a redirected frame went (PP_HOP_REDIRECT); its device's name kept. */
static int read_redirect(struct ctx *c, json_object *obj, struct pp_hop *h)
{
	char dev[PP_IFNAMSIZ + 1];
	json_object *r;
	__u32 err = 0;
	int ret = get(c, obj, "redirect", false, json_type_object, &r);

	if (ret <= 0)
		return ret;
	h->flags |= PP_HOP_REDIRECT;
	ret = get_u32(c, r, "ifindex", true, &h->out_ifindex);
	if (ret >= 0)
		ret = get_u32(c, r, "map_id", false, &h->redirect_map);
	if (ret >= 0)
		ret = get_u32(c, r, "errno", false, &err);
	h->redirect_err = -(__s32)err;
	if (ret >= 0)
		ret = get_bytes(c, r, "dev", false, dev, sizeof(dev), false);
	if (ret > 0)
		ret = pp_rnames_ifname(c->r->names, h->netns, h->out_ifindex, dev);
	return ret;
}

static int read_hop(struct ctx *c, json_object *obj, __u64 base, struct pp_hop *h)
{
	__u64 t = 0;
	int ret;

	*h = (struct pp_hop){.type = PP_REC_HOP};
	if (!json_object_is_type(obj, json_type_object))
		return bad(c, "", "is not an object");
	ret = probe_of(c, obj, "func", &h->probe);
	if (!ret)
		ret = get_u64(c, obj, "t_ns", true, &t);
	if (ret >= 0)
		ret = get_u32(c, obj, "netns", false, &h->netns);
	if (ret >= 0)
		ret = netns_name_of(c, obj, h->netns);
	if (ret >= 0)
		ret = get_bytes(c, obj, "ifname", false, h->ifname, sizeof(h->ifname), true);
	if (ret >= 0)
		ret = get_u32(c, obj, "ifindex", false, &h->ifindex);
	if (ret >= 0)
		ret = get_u32(c, obj, "cpu", false, &h->cpu);
	if (ret >= 0)
		ret = get_u32(c, obj, "pid", false, &h->pid);
	if (ret >= 0)
		ret = get_bytes(c, obj, "comm", false, h->comm, sizeof(h->comm), true);
	if (ret >= 0)
		ret = get_u32(c, obj, "len", false, &h->len);
	if (ret >= 0)
		ret = get_addr(c, obj, "skb", &h->skb);
	if (ret >= 0)
		ret = read_flag(c, obj, "unseen_before", PP_HOP_GAP, h);
	if (ret >= 0)
		ret = read_flag(c, obj, "read", PP_HOP_READ, h);
	if (ret >= 0)
		ret = read_flag(c, obj, "frame", PP_HOP_FRAME, h);
	if (ret >= 0)
		ret = read_verdict(c, obj, h);
	if (ret >= 0)
		ret = read_redirect(c, obj, h);
	h->ts = base + t;
	return ret < 0 ? ret : 0;
}

static int read_hops(struct ctx *c, json_object *top, __u64 base)
{
	struct pp_report_read *r = c->r;
	json_object *arr;
	size_t n;
	int ret = get(c, top, "hops", true, json_type_array, &arr);

	if (ret < 0)
		return ret;
	n = json_object_array_length(arr);
	if (!n)
		return bad(c, "hops", "is empty");
	if (grow((void **)&r->hops, &r->hcap, n, sizeof(*r->hops)))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		snprintf(c->where, sizeof(c->where), "hops[%zu]", i);
		ret = read_hop(c, json_object_array_get_idx(arr, i), base, &r->hops[i]);
		if (ret)
			return ret;
		/* The printers take the steps' times as going forward, as the writer sorts them. */
		if (i && r->hops[i].ts < r->hops[i - 1].ts)
			return bad(c, "t_ns", "is earlier than the hop before");
	}
	c->where[0] = '\0';
	r->pkt.hops = r->hops;
	r->pkt.nhops = n;
	return 0;
}

static int fate_kind(struct ctx *c, const char *s, enum pp_fate *fate)
{
	for (int f = PP_FATE_CONSUMED; f <= PP_FATE_MAX; f++) {
		if (!strcmp(s, pp_fate_key((enum pp_fate)f))) {
			*fate = (enum pp_fate)f;
			return 0;
		}
	}
	return bad(c, "kind", "is not a fate this version knows");
}

/* A "fate" object: its kind, and a drop's reason and place, whose names are kept. */
static int read_fate(struct ctx *c, json_object *obj, struct pp_skbref *f)
{
	char kind[32], name[PP_NAME_MAX];
	json_object *fo;
	int ret = get(c, obj, "fate", true, json_type_object, &fo);

	if (ret < 0)
		return ret;
	ret = get_bytes(c, fo, "kind", true, kind, sizeof(kind), false);
	if (ret >= 0)
		ret = fate_kind(c, kind, &f->fate);
	if (ret >= 0 && f->fate == PP_FATE_DROPPED)
		ret = get_u32(c, fo, "reason_code", true, &f->reason);
	if (ret >= 0)
		ret = get_addr(c, fo, "location", &f->location);
	if (ret >= 0 && f->fate == PP_FATE_DROPPED)
		ret = get_bytes(c, fo, "reason", false, name, sizeof(name), false);
	if (ret > 0)
		ret = pp_rnames_reason(c->r->names, f->reason, name);
	if (ret >= 0 && f->location)
		ret = get_bytes(c, fo, "func", false, name, sizeof(name), false);
	if (ret > 0 && f->location)
		ret = pp_rnames_sym(c->r->names, f->location, name);
	return ret < 0 ? ret : 0;
}

/* "tap": true, a packet socket's copy. */
static int read_tap(struct ctx *c, json_object *obj, struct pp_skbref *s)
{
	json_object *v;
	int ret = get(c, obj, "tap", false, json_type_boolean, &v);

	if (ret > 0)
		s->tap = json_object_get_boolean(v);
	return ret;
}

/*
 * One entry of "skbs": which skb, made from which (*FROM: its index, ~0 if
 * not given), where and when it joined, its fate.
 */
static int read_skb(struct ctx *c, json_object *obj, __u64 base, struct pp_skbref *s, __u64 *from)
{
	__u64 t = 0;
	int ret;

	*s = (struct pp_skbref){0};
	if (!json_object_is_type(obj, json_type_object))
		return bad(c, "", "is not an object");
	ret = get_addr(c, obj, "skb", &s->skb);
	if (ret >= 0)
		ret = get_addr(c, obj, "from", &s->parent);
	*from = ~0ULL;
	if (ret >= 0)
		ret = get_u64(c, obj, "from_index", false, from);
	if (ret >= 0 && json_object_object_get_ex(obj, "func", NULL)) {
		s->copy = true;
		ret = probe_of(c, obj, "func", &s->probe);
		if (!ret)
			ret = get_u64(c, obj, "t_ns", false, &t);
	}
	if (ret >= 0)
		ret = read_fate(c, obj, s);
	if (ret >= 0)
		ret = read_tap(c, obj, s);
	/* The first skb's first record is the packet's first hop. */
	s->first_ts = base + t;
	s->ended = s->fate != PP_FATE_UNSEEN;
	return ret < 0 ? ret : 0;
}

/* The N entries of "skbs", each copy's parent_ts from the skb its from_index names. */
static int read_skb_list(struct ctx *c, json_object *arr, size_t n)
{
	struct pp_report_read *r = c->r;
	__u64 from;
	int ret;

	for (size_t i = 0; i < n; i++) {
		snprintf(c->where, sizeof(c->where), "skbs[%zu]", i);
		ret = read_skb(c, json_object_array_get_idx(arr, i), r->hops[0].ts, &r->skbs[i],
			       &from);
		if (ret)
			return ret;
		if (from != ~0ULL && from >= n)
			return bad(c, "from_index", "is past the skbs");
		r->skbs[i].parent_ts = from; /* an index until all are read */
	}
	c->where[0] = '\0';
	/* The life of the parent's address listed there, else the copy's time's. */
	for (size_t i = 0; i < n; i++) {
		struct pp_skbref *s = &r->skbs[i];

		s->parent_ts = s->parent_ts < n ? r->skbs[s->parent_ts].first_ts : s->first_ts;
	}
	return 0;
}

/* "skbs", or the one skb of a packet without copies, whose fate is the packet's. */
static int read_skbs(struct ctx *c, json_object *top, const struct pp_skbref *fate)
{
	struct pp_report_read *r = c->r;
	json_object *arr = NULL;
	size_t n = 1;
	int ret = get(c, top, "skbs", false, json_type_array, &arr);

	if (ret < 0)
		return ret;
	n = ret ? json_object_array_length(arr) : 1;
	if (!n)
		return bad(c, "skbs", "is empty");
	if (grow((void **)&r->skbs, &r->scap, n, sizeof(*r->skbs)))
		return -ENOMEM;
	r->pkt.skbs = r->skbs;
	r->pkt.nskbs = n;
	if (!arr) {
		r->skbs[0] = *fate;
		r->skbs[0].skb = r->hops[0].skb;
		r->skbs[0].first_ts = r->hops[0].ts;
		r->skbs[0].ended = fate->fate != PP_FATE_UNSEEN;
		return 0;
	}
	return read_skb_list(c, arr, n);
}

/* Each skb's last hop is its END, unless its end was not seen. */
static void mark_ends(struct pp_report_read *r)
{
	for (size_t k = 0; k < r->pkt.nskbs; k++) {
		const struct pp_skbref *s = &r->skbs[k];

		for (size_t i = r->pkt.nhops; s->fate != PP_FATE_UNSEEN && i-- > 0;) {
			struct pp_hop *h = &r->hops[i];

			if (pp_skb_index(r->skbs, r->pkt.nskbs, h->skb, h->ts) != k)
				continue;
			h->type = PP_REC_END;
			h->fate = s->fate;
			h->reason = s->reason;
			h->location = s->location;
			break;
		}
	}
}

/* A copy's hop at the probe and time it joined is its COPY; the parent in location. */
static void mark_copies(struct pp_report_read *r)
{
	for (size_t k = 1; k < r->pkt.nskbs; k++) {
		const struct pp_skbref *s = &r->skbs[k];

		for (size_t i = 0; s->copy && i < r->pkt.nhops; i++) {
			struct pp_hop *h = &r->hops[i];

			if (h->skb != s->skb || h->probe != s->probe || h->ts != s->first_ts)
				continue;
			if (h->type == PP_REC_HOP) {
				h->type = PP_REC_COPY;
				h->location = s->parent;
			}
			break;
		}
	}
}

static int hex_nibble(char x)
{
	if (x >= '0' && x <= '9')
		return x - '0';
	if (x >= 'a' && x <= 'f')
		return x - 'a' + 10;
	if (x >= 'A' && x <= 'F')
		return x - 'A' + 10;
	return -1;
}

/* "head": the mark's first bytes in hex; more than PP_HDR_BYTES are cut. */
static int read_head(struct ctx *c, json_object *top, struct pp_mark *m)
{
	char hex[2 * PP_HDR_BYTES + 1];
	json_object *o;
	size_t n;
	int ret = get(c, top, "head", false, json_type_string, &o);

	if (ret <= 0)
		return ret;
	n = (size_t)json_object_get_string_len(o);
	if (n % 2)
		return bad(c, "head", "has an odd number of hex digits");
	n = n > sizeof(hex) - 1 ? sizeof(hex) - 1 : n;
	memcpy(hex, json_object_get_string(o), n);
	for (size_t i = 0; i < n; i += 2) {
		int hi = hex_nibble(hex[i]), lo = hex_nibble(hex[i + 1]);

		if (hi < 0 || lo < 0)
			return bad(c, "head", "is not hex");
		m->data[i / 2] = (__u8)(hi << 4 | lo);
	}
	m->cap_len = (__u32)(n / 2);
	return 1;
}

/* The mark: the first hop, when "marked_at" says the mark arrived; its bytes if "head". */
static int read_mark(struct ctx *c, json_object *top, struct pp_report_read_item *it)
{
	struct pp_report_read *r = c->r;
	json_object *o;
	int ret = get(c, top, "marked_at", false, json_type_object, &o);

	r->pkt.mark = NULL;
	if (ret <= 0)
		return ret;
	memset(&r->mark, 0, sizeof(r->mark));
	r->hops[0].type = r->hops[0].type == PP_REC_HOP ? PP_REC_MARK : r->hops[0].type;
	r->mark.hop = r->hops[0];
	r->mark.hop.type = PP_REC_MARK;
	/* "reply_to": a reply to a tracked packet's NAT rewrite (PP_HOP_REPLY). */
	ret = get_u64(c, o, "reply_to", false, &r->mark.hop.location);
	if (ret < 0)
		return ret;
	if (ret > 0)
		r->mark.hop.flags |= PP_HOP_REPLY;
	r->pkt.mark = &r->mark;
	ret = read_head(c, top, &r->mark);
	it->has_head = ret > 0;
	return ret < 0 ? ret : 0;
}

/* "mono_ns" and "real_ns" (--json --snaplen): the first hop's time on both clocks. */
static int read_time(struct ctx *c, json_object *top, struct pp_report_read_item *it, __u64 *base)
{
	__u64 mono = 0, real = 0;
	int a = get_u64(c, top, "mono_ns", false, &mono), b;

	if (a < 0)
		return a;
	b = get_u64(c, top, "real_ns", false, &real);
	if (b < 0)
		return b;
	it->has_time = a && b;
	it->real_off = it->has_time ? (__s64)(real - mono) : 0;
	*base = it->has_time ? mono : 0;
	return 0;
}

static int read_packet(struct ctx *c, json_object *top, struct pp_report_read_item *it)
{
	struct pp_report_read *r = c->r;
	struct pp_skbref fate = {0};
	__u64 base = 0;
	int ret;

	r->pkt = (struct pp_packet){0};
	ret = get_u64(c, top, "id", true, &r->pkt.id);
	if (ret >= 0)
		ret = read_time(c, top, it, &base);
	if (ret >= 0)
		ret = read_hops(c, top, base);
	if (ret >= 0)
		ret = read_fate(c, top, &fate);
	if (ret >= 0)
		ret = read_skbs(c, top, &fate);
	if (ret >= 0)
		ret = get_u32(c, top, "lost_hops", false, &r->pkt.lost);
	if (ret < 0)
		return ret;
	r->pkt.fate = fate.fate;
	r->pkt.reason = fate.reason;
	r->pkt.location = fate.location;
	mark_ends(r);
	mark_copies(r);
	ret = read_mark(c, top, it);
	if (ret < 0)
		return ret;
	it->kind = PP_REPORT_READ_PACKET;
	it->pkt = &r->pkt;
	return 0;
}

static int read_summary(struct ctx *c, json_object *top, struct pp_report_read_item *it)
{
	json_object *s;
	int ret = get(c, top, "summary", true, json_type_object, &s);

	if (ret >= 0)
		ret = get_u64(c, s, "lost", false, &it->lost);
	if (ret >= 0)
		ret = get_u64(c, s, "map_full", false, &it->map_full);
	if (ret >= 0)
		ret = get_u64(c, s, "skipped", false, &it->skipped);
	it->kind = PP_REPORT_READ_TOTALS;
	return ret < 0 ? ret : 0;
}

static int read_path_summary(struct ctx *c, json_object *top, struct pp_report_read_item *it)
{
	json_object *s, *v;
	int ret = get(c, top, "path_summary", true, json_type_object, &s);

	it->elapsed = -1.0;
	if (ret >= 0 && json_object_object_get_ex(s, "elapsed_s", &v) &&
	    (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		it->elapsed = json_object_get_double(v);
	if (ret >= 0 && json_object_object_get_ex(s, "final", &v))
		it->final = json_object_get_boolean(v);
	it->kind = PP_REPORT_READ_PATH_SUMMARY;
	return ret < 0 ? ret : 0;
}

static int read_object(struct ctx *c, json_object *top, struct pp_report_read_item *it)
{
	if (!json_object_is_type(top, json_type_object)) {
		snprintf(c->err, c->errlen, "not a JSON object");
		return -EINVAL;
	}
	if (json_object_object_get_ex(top, "id", NULL))
		return read_packet(c, top, it);
	if (json_object_object_get_ex(top, "summary", NULL))
		return read_summary(c, top, it);
	if (json_object_object_get_ex(top, "path_summary", NULL))
		return read_path_summary(c, top, it);
	it->kind = PP_REPORT_READ_OTHER;
	return 0;
}

static bool blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			return false;
	return true;
}

int pp_report_read_line(struct pp_report_read *r, const char *line, size_t len,
			struct pp_report_read_item *item, char *err, size_t errlen)
{
	struct ctx c = {.r = r, .err = err, .errlen = errlen};
	enum json_tokener_error e;
	json_object *top;
	size_t end;
	int ret;

	*item = (struct pp_report_read_item){0};
	if (blank(line, len))
		return 0;
	if (len > 0x7fffffff) {
		snprintf(err, errlen, "line too long");
		return -EINVAL;
	}
	json_tokener_reset(r->tok);
	top = json_tokener_parse_ex(r->tok, line, (int)len);
	e = json_tokener_get_error(r->tok);
	if (!top) {
		snprintf(err, errlen, "%s",
			 e == json_tokener_continue
				 ? "the line ends inside its JSON object (cut short)"
				 : json_tokener_error_desc(e));
		return -EINVAL;
	}
	for (end = json_tokener_get_parse_end(r->tok); end < len && blank(line + end, 1); end++)
		;
	if (end < len) {
		json_object_put(top);
		snprintf(err, errlen, "more after the JSON object, at byte %zu", end + 1);
		return -EINVAL;
	}
	ret = read_object(&c, top, item);
	json_object_put(top);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return ret;
}
