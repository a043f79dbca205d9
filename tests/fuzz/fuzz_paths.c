// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for path assembly (loader/paths/path.c) and both output formats
 * (loader/output/output_text.c, loader/output/output_json.c).
 *
 * Each input is a stream of ring-buffer records, some malformed, with clock
 * steps, pp_paths_expire() and pp_paths_flush() calls (paths_input.h); a
 * final pp_paths_flush() closes what is left, or pp_paths_free() drops it.
 * Properties:
 *
 *  - no crash, undefined behaviour or leak (ASan, UBSan, LeakSanitizer);
 *  - every return value, every emitted packet (its hops byte for byte, mark,
 *    skbs, fate, reason, location, lost), the order of emission, the stats
 *    and the open count are those of path_model.c, a model written from
 *    path.h's promises; and, checked without the model, every packet has
 *    hops sorted by ts, all of its own id, skbs that cover them and that
 *    each keep a hop, no COPY hop right before its own END (with several
 *    skbs), skbs whose fate is UNSEEN exactly when they have no END, and a
 *    fate that follows from those of the skbs that decide it (taps' only if
 *    all are taps'; not a copy set aside, pp_skb_aside(), unless every skb
 *    no tap's is one; a copy set aside ended where it joined, shared and
 *    not read, as its END hop shows): CONSUMED when one was (live skbs or
 *    not), else UNSEEN when any skb is live, else the first DROPPED one's,
 *    else MERGED, else SEGMENTED; a lingered packet has no live skb;
 *  - each packet's JSON is one line of strict JSON, ASCII only, escaped
 *    exactly as docs/json-schema.md says, with the keys and values the
 *    schema gives for that packet (names made of awkward bytes included):
 *    each hop's skb, seen_last for an unseen packet, skbs[] (each skb's
 *    copy details and fate) for a packet of several skbs, each fate's read
 *    (the last hop at a socket read probe, of that skb for skbs[]), and no
 *    other key but the first hop's times (mono_ns, real_ns); the summary's
 *    counts by fate;
 *  - each packet's text block is printable ASCII, opens with
 *    "#ID HH:MM:SS.uuuuuu len LEN" and a space or a new line, and ends with
 *    a blank line.
 *
 * PKTPATH_FUZZ_TRACE=1 prints each call on stderr, to read a failing input.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/output.h"
#include "output/verdict.h"
#include "paths/path.h"
#include "paths/pkt_key.h"
#include "json_check.h"
#include "path_model.h"
#include "paths_input.h"

#define FZ_MAX_ACTIONS	10000
#define FZ_MAX_RENDERED 128

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the inputs exercised, printed at exit. */
static struct {
	unsigned long inputs, records, bad, late, packets, json_lines;
	unsigned long multi, copied, merged, unseen, live_consumed, lingered;
	unsigned long aside, aside_consumed;
} seen;

static void print_seen(void)
{
	fprintf(stderr,
		"fuzz_paths: %lu inputs, %lu records accepted, %lu malformed, %lu late, %lu "
		"packets emitted (%lu of several skbs, %lu with a copy, %lu merged, %lu unseen, "
		"%lu consumed with a live skb, %lu lingered, %lu with a copy set aside, %lu "
		"not consumed though such a copy was), %lu JSON lines checked\n",
		seen.inputs, seen.records, seen.bad, seen.late, seen.packets, seen.multi,
		seen.copied, seen.merged, seen.unseen, seen.live_consumed, seen.lingered,
		seen.aside, seen.aside_consumed, seen.json_lines);
}

struct fz_run {
	struct fzm model;
	struct pp_paths *pp;
	struct pp_out text, json;
	struct pp_totals totals;
	size_t action;		      /* index of the action being run, for messages */
	size_t rendered;	      /* packets written as text and JSON */
	__u64 fates[PP_FATE_MAX + 1]; /* packets emitted by fate; [0]: all */
	__u64 taps;		      /* skbs emitted that were taps' copies */
	__u64 gaps;		      /* packets emitted with a PP_HOP_GAP hop */
	bool trace;
};

/* Names with every kind of byte the JSON writer must escape. */
static const char *const json_probes[] = {
	"ip_rcv",
	"tp:net:netif_receive_skb",
	"we\"ird\\ name\n\t\b\f\r\x01\x1f\x7f\x80\xff/",
	"",
	NULL,
	"kfree_skb",
	"tp:skb:skb_copy_datagram_iovec",
	"skb_copy_datagram_iter",
};
static const char *const text_probes[] = {
	"ip_rcv",
	"tp:net:netif_receive_skb",
	"weird name",
	"",
	NULL,
	"kfree_skb",
	"tp:skb:skb_copy_datagram_iovec",
	"skb_copy_datagram_iter",
};

/*
 * Probes 6 and 7 above: where a process reads the data from a socket; and
 * the END that the end of a receive call sends for what it read (the
 * tracepoint backend's reads, bpf/reads.bpf.h): it names the reader too.
 */
#define FZ_READ_PROBE(p) ((p) == 6 || (p) == 7 || (p) == PP_PROBE_READ)

static const char *json_reason(__u32 reason, void *arg)
{
	static const char *const names[] = {NULL, "NOT_SPECIFIED", "NETFILTER_DROP",
					    "odd\"\\\x01\xc3\xa9"};

	(void)arg;
	return names[reason % 4];
}

static const char *text_reason(__u32 reason, void *arg)
{
	static const char *const names[] = {NULL, "NOT_SPECIFIED", "NETFILTER_DROP", "ODD"};

	(void)arg;
	return names[reason % 4];
}

static const char *json_sym(__u64 addr, void *arg)
{
	static const char *const names[] = {NULL, "nf_hook_slow", "sym\x7f\"x"};

	(void)arg;
	return names[addr % 3];
}

static const char *text_sym(__u64 addr, void *arg)
{
	static const char *const names[] = {NULL, "nf_hook_slow", "sym_x"};

	(void)arg;
	return names[addr % 3];
}

__attribute__((format(printf, 2, 3), noreturn)) static void fail(const struct fz_run *r,
								 const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz_paths: PROPERTY FAILED at action %zu: ", r->action);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

/* Each hop's skb is in skbs[], and each skb keeps a hop. */
static void check_hop_skbs(const struct fz_run *r, const struct pp_packet *p)
{
	for (size_t i = 0; i < p->nhops; i++) {
		const struct pp_hop *h = &p->hops[i], *next = i + 1 < p->nhops ? h + 1 : NULL;
		size_t s;

		for (s = 0; s < p->nskbs && p->skbs[s].skb != h->skb; s++)
			;
		if (s == p->nskbs)
			fail(r, "packet %llu: hop %zu's skb is not in skbs[]",
			     (unsigned long long)p->id, i);
		if (h->type < PP_REC_MARK || h->type > PP_REC_COPY)
			fail(r, "packet %llu: hop %zu of type %u", (unsigned long long)p->id, i,
			     h->type);
		if (p->nskbs > 1 && h->type == PP_REC_COPY && next && next->type == PP_REC_END &&
		    next->skb == h->skb && next->probe == h->probe)
			fail(r, "packet %llu: hop %zu is a COPY right before its own END",
			     (unsigned long long)p->id, i);
	}
	for (size_t s = 0; s < p->nskbs; s++) {
		size_t i;

		for (i = 0; i < p->nhops && p->hops[i].skb != p->skbs[s].skb; i++)
			;
		if (i == p->nhops)
			fail(r, "packet %llu: skbs[%zu] has no hop", (unsigned long long)p->id, s);
	}
}

/*
 * A copy set aside (pp_skb_aside()) was seen only at its own free, which
 * its END hop shows: a copy that ended, freed by the probe that saw it
 * join, with its data held by another skb (PP_HOP_SHARED), not by its
 * reader (PP_HOP_READ).
 */
static void check_aside(const struct fz_run *r, const struct pp_packet *p, size_t s)
{
	const struct pp_skbref *k = &p->skbs[s];

	if (k->copy && k->ended) {
		for (size_t i = 0; i < p->nhops; i++) {
			const struct pp_hop *h = &p->hops[i];

			if (h->type == PP_REC_END && h->skb == k->skb && h->ts == k->end_ts &&
			    h->probe == k->probe && (h->flags & PP_HOP_SHARED) &&
			    !(h->flags & PP_HOP_READ))
				return;
		}
	}
	fail(r, "packet %llu: skbs[%zu] set aside, not a copy ended where it joined, shared",
	     (unsigned long long)p->id, s);
}

/*
 * How many skbs no tap's are copies set aside (each skb set aside checked
 * against its hops); how many skbs are no tap's in *OTHERS.
 */
static size_t count_aside(const struct fz_run *r, const struct pp_packet *p, size_t *others)
{
	size_t aside = 0;

	*others = 0;
	for (size_t s = 0; s < p->nskbs; s++) {
		if (!pp_skb_aside(&p->skbs[s]))
			continue;
		check_aside(r, p, s);
		if (!p->skbs[s].tap)
			aside++;
	}
	for (size_t s = 0; s < p->nskbs; s++)
		*others += !p->skbs[s].tap;
	return aside;
}

/*
 * The packet's fate follows from its skbs' (path.h): taps' only if all are
 * taps'; a copy set aside only if every skb no tap's is one.
 */
static void check_fates(const struct fz_run *r, const struct pp_packet *p)
{
	const struct pp_skbref *drop = NULL;
	size_t live = 0, consumed = 0, merged = 0, segmented = 0, taps = 0, others;
	bool every_aside;

	for (size_t s = 0; s < p->nskbs; s++)
		taps += p->skbs[s].tap;
	if (p->by_tap != (p->nskbs && taps == p->nskbs))
		fail(r, "packet %llu: by_tap %d with %zu taps of %zu skbs",
		     (unsigned long long)p->id, p->by_tap, taps, p->nskbs);
	every_aside = count_aside(r, p, &others) == others;
	for (size_t s = 0; s < p->nskbs; s++) {
		const struct pp_skbref *k = &p->skbs[s];
		bool end_fate = k->fate == PP_FATE_CONSUMED || k->fate == PP_FATE_DROPPED ||
				k->fate == PP_FATE_MERGED || k->fate == PP_FATE_SEGMENTED ||
				k->fate == PP_FATE_LEFT;

		if (k->ended ? !end_fate : k->fate != PP_FATE_UNSEEN)
			fail(r, "packet %llu: skbs[%zu] ended %d with fate %u",
			     (unsigned long long)p->id, s, k->ended, k->fate);
		if (!k->copy && k->parent)
			fail(r, "packet %llu: skbs[%zu] has a parent but is no copy",
			     (unsigned long long)p->id, s);
		live += !k->ended;
		if (k->tap != p->by_tap || (!every_aside && pp_skb_aside(k)))
			continue;
		consumed += k->fate == PP_FATE_CONSUMED;
		merged += k->fate == PP_FATE_MERGED;
		segmented += k->fate == PP_FATE_SEGMENTED;
		if (!drop && k->fate == PP_FATE_DROPPED)
			drop = k;
	}
	switch (p->fate) {
	case PP_FATE_CONSUMED:
		if (!consumed)
			fail(r, "packet %llu: consumed, none of its skbs was",
			     (unsigned long long)p->id);
		break;
	case PP_FATE_UNSEEN:
		if (consumed || !live)
			fail(r, "packet %llu: unseen with %zu skbs consumed, %zu live",
			     (unsigned long long)p->id, consumed, live);
		break;
	case PP_FATE_DROPPED:
	case PP_FATE_MERGED:
	case PP_FATE_SEGMENTED:
	case PP_FATE_LEFT:
		if (consumed || live || !drop != (p->fate != PP_FATE_DROPPED) ||
		    (p->fate == PP_FATE_SEGMENTED && merged) ||
		    (p->fate == PP_FATE_LEFT && (merged || segmented)))
			fail(r, "packet %llu: fate %u with %zu skbs consumed, %zu live, %s drop",
			     (unsigned long long)p->id, p->fate, consumed, live, drop ? "a" : "no");
		break;
	default:
		fail(r, "packet %llu: fate %u", (unsigned long long)p->id, p->fate);
	}
	if (p->fate == PP_FATE_DROPPED ? p->reason != drop->reason || p->location != drop->location
				       : p->reason || p->location)
		fail(r, "packet %llu: a drop reason or location not its first dropped skb's",
		     (unsigned long long)p->id);
	if (p->lingered && live)
		fail(r, "packet %llu: lingered with %zu skbs live", (unsigned long long)p->id,
		     live);
}

/* What must hold of any packet, model or not. */
static void check_invariants(const struct fz_run *r, const struct pp_packet *p)
{
	if (!p->nhops || !p->nskbs)
		fail(r, "packet %llu: %zu hops, %zu skbs", (unsigned long long)p->id, p->nhops,
		     p->nskbs);
	for (size_t i = 0; i < p->nhops; i++) {
		if (i && p->hops[i - 1].ts > p->hops[i].ts)
			fail(r, "packet %llu: hop %zu is older than hop %zu",
			     (unsigned long long)p->id, i, i - 1);
		if (p->hops[i].id != p->id)
			fail(r, "packet %llu: hop %zu has id %llu", (unsigned long long)p->id, i,
			     (unsigned long long)p->hops[i].id);
	}
	check_hop_skbs(r, p);
	check_fates(r, p);
	if (p->mark && (p->mark->hop.type != PP_REC_MARK || p->mark->hop.id != p->id ||
			p->mark->cap_len > PP_HDR_BYTES))
		fail(r, "packet %llu: a mark that is not its mark", (unsigned long long)p->id);
}

/* Writes P with OUT (text or JSON) into a new buffer. */
static char *render(struct pp_out *o, const struct pp_packet *p,
		    void (*fn)(const struct pp_out *, const struct pp_packet *), size_t *len)
{
	char *buf = NULL;

	o->f = open_memstream(&buf, len);
	if (!o->f)
		abort();
	fn(o, p);
	fclose(o->f);
	o->f = NULL;
	return buf;
}

/* "HH:MM:SS.uuuuuu": digits and separators where they belong. */
static bool is_hms(const char *s)
{
	static const char form[] = "00:00:00.000000";

	for (size_t i = 0; i < sizeof(form) - 1; i++)
		if (form[i] == '0' ? s[i] < '0' || s[i] > '9' : s[i] != form[i])
			return false;
	return true;
}

static void check_text(struct fz_run *r, const struct pp_packet *p)
{
	char head[64], tail[32], *buf;
	size_t len, n, m;

	buf = render(&r->text, p, pp_out_text, &len);
	n = (size_t)snprintf(head, sizeof(head), "#%llu ", (unsigned long long)p->id);
	/* Then a space, or a new line for a summary too long to follow. */
	m = (size_t)snprintf(tail, sizeof(tail), " len %u", pp_out_pkt_len(p));
	for (size_t i = 0; i < len; i++)
		if (buf[i] != '\n' && (buf[i] < 0x20 || buf[i] >= 0x7f))
			fail(r, "text of packet %llu: byte 0x%02x at %zu",
			     (unsigned long long)p->id, (unsigned char)buf[i], i);
	if (len < n + 15 + m + 3 || memcmp(buf, head, n) || !is_hms(buf + n) ||
	    memcmp(buf + n + 15, tail, m) || !strchr(" \n", buf[n + 15 + m]) ||
	    memcmp(buf + len - 2, "\n\n", 2))
		fail(r,
		     "text of packet %llu: not \"%sHH:MM:SS.uuuuuu%s...\" ending in a blank "
		     "line:\n%.*s",
		     (unsigned long long)p->id, head, tail, (int)len, buf);
	free(buf);
}

struct jctx {
	const struct fz_run *r;
	const struct fzj_doc *d;
	const struct pp_packet *p;
	const char *line;
};

__attribute__((format(printf, 2, 3), noreturn)) static void jfail(const struct jctx *j,
								  const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fail(j->r, "JSON of packet %llu: %s\n%s", (unsigned long long)j->p->id, msg, j->line);
}

static void want_num(const struct jctx *j, const struct fzj_node *o, const char *key, bool present,
		     __u64 v)
{
	const struct fzj_node *n = fzj_get(j->d, o, key);

	if (!present && n)
		jfail(j, "\"%s\" should be left out", key);
	if (present && (!n || n->type != FZJ_NUM || !n->is_u64 || n->u64 != v))
		jfail(j, "\"%s\" should be %llu", key, (unsigned long long)v);
}

/* KEY holds the bytes of S up to its NUL or MAX when PRESENT, else is absent. */
static void want_str(const struct jctx *j, const struct fzj_node *o, const char *key, bool present,
		     const char *s, size_t max)
{
	const struct fzj_node *n = fzj_get(j->d, o, key);
	size_t len = present ? strnlen(s, max) : 0;

	if (!present && n)
		jfail(j, "\"%s\" should be left out", key);
	if (present && !fzj_str_is(j->d, n, s, len))
		jfail(j, "\"%s\" should hold the %zu bytes given", key, len);
}

static const struct fzj_node *want_obj(const struct jctx *j, const struct fzj_node *o,
				       const char *key, bool present, enum fzj_type type)
{
	const struct fzj_node *n = fzj_get(j->d, o, key);

	if (!present && n)
		jfail(j, "\"%s\" should be left out", key);
	if (present && (!n || n->type != type))
		jfail(j, "\"%s\" missing or of the wrong type", key);
	return n;
}

/* An address as output_json.c writes it: a hex string. */
static void want_addr(const struct jctx *j, const struct fzj_node *o, const char *key, bool present,
		      __u64 v)
{
	char s[24];

	snprintf(s, sizeof(s), "0x%llx", (unsigned long long)v);
	want_str(j, o, key, present, s, sizeof(s));
}

/* O has exactly N members: none but those checked. */
static void want_keys(const struct jctx *j, const struct fzj_node *o, const char *what, size_t n)
{
	if (o->nchild != n)
		jfail(j, "%s has %zu keys, not %zu", what, o->nchild, n);
}

static void check_json_hop(const struct jctx *j, const struct fzj_node *o, const struct pp_hop *h)
{
	char pname[32], verdict[PP_VERDICT_LEN];
	const struct fzj_node *r;

	if (!o || o->type != FZJ_OBJ)
		jfail(j, "a hop is not an object");
	want_str(j, o, "func", true, pp_out_probe_name(&j->r->json, h->probe, pname, sizeof(pname)),
		 SIZE_MAX);
	want_num(j, o, "t_ns", true, h->ts - j->p->hops[0].ts);
	want_num(j, o, "netns", h->netns, h->netns);
	want_str(j, o, "ifname", h->ifname[0], h->ifname, sizeof(h->ifname));
	want_num(j, o, "ifindex", h->ifindex, h->ifindex);
	want_num(j, o, "cpu", true, h->cpu);
	want_num(j, o, "pid", true, h->pid);
	want_str(j, o, "comm", h->comm[0], h->comm, sizeof(h->comm));
	want_num(j, o, "len", true, h->len);
	want_addr(j, o, "skb", true, h->skb);
	/* A namespace taken from its skb's hop before (path.h). */
	want_obj(j, o, "netns_carried", h->flags & PP_HOP_NETNS_CARRIED, FZJ_TRUE);
	/* Hops went unseen before this one (a qdisc's device, PP_HOP_GAP). */
	want_obj(j, o, "unseen_before", h->flags & PP_HOP_GAP, FZJ_TRUE);
	/* The reader's own free of the data (PP_HOP_READ). */
	want_obj(j, o, "read", h->flags & PP_HOP_READ, FZJ_TRUE);
	/* An XDP program's record on a frame (PP_HOP_FRAME). */
	want_obj(j, o, "frame", h->flags & PP_HOP_FRAME, FZJ_TRUE);
	/* Another BPF program's verdict (PP_HOP_VERDICT), in words. */
	want_str(j, o, "verdict", h->flags & PP_HOP_VERDICT,
		 pp_verdict_word(h->reason, h->flags & PP_HOP_XDP, verdict), SIZE_MAX);
	/* Where a frame's redirect went (PP_HOP_REDIRECT); no device names here. */
	r = want_obj(j, o, "redirect", h->flags & PP_HOP_REDIRECT, FZJ_OBJ);
	if (r) {
		want_num(j, r, "ifindex", true, h->out_ifindex);
		want_num(j, r, "map_id", h->redirect_map, h->redirect_map);
		want_num(j, r, "errno", h->redirect_err, (__u64) - (__s64)h->redirect_err);
		want_keys(j, r, "a redirect", 1 + !!h->redirect_map + !!h->redirect_err);
	}
	want_keys(j, o, "a hop",
		  6 + !!h->netns + !!(h->flags & PP_HOP_NETNS_CARRIED) + !!(h->flags & PP_HOP_GAP) +
			  !!(h->flags & PP_HOP_READ) + !!(h->flags & PP_HOP_FRAME) +
			  !!(h->flags & PP_HOP_VERDICT) + !!(h->flags & PP_HOP_REDIRECT) +
			  !!h->ifname[0] + !!h->ifindex + !!h->comm[0]);
}

static void check_json_mark(const struct jctx *j, const struct fzj_node *top)
{
	const struct pp_mark *m = j->p->mark;
	const struct fzj_node *pkt, *at;
	const char *dir = m ? pp_out_tc_dir(m->hop.probe) : NULL;
	char pname[32];

	pkt = want_obj(j, top, "pkt", m, FZJ_OBJ);
	at = want_obj(j, top, "marked_at", m, FZJ_OBJ);
	if (!m)
		return;
	if (!fzj_get(j->d, pkt, "proto") || fzj_get(j->d, pkt, "proto")->type != FZJ_STR)
		jfail(j, "\"pkt\" without a \"proto\" string");
	want_str(j, at, "ifname", m->hop.ifname[0], m->hop.ifname, sizeof(m->hop.ifname));
	want_num(j, at, "ifindex", m->hop.ifindex, m->hop.ifindex);
	want_str(j, at, "dir", dir, dir, 8);
	want_str(j, at, "func", !dir,
		 pp_out_probe_name(&j->r->json, m->hop.probe, pname, sizeof(pname)), SIZE_MAX);
}

/*
 * The last read of SKB's data (0: any skb's) by a process at a read probe;
 * else the last END by the reader's own free (PP_HOP_READ); NULL if none.
 */
static const struct pp_hop *last_read(const struct pp_packet *p, const struct pp_skbref *k)
{
	const struct pp_hop *freed = NULL;

	for (size_t i = p->nhops; i-- > 0;) {
		const struct pp_hop *h = &p->hops[i];

		/* An address may hold several skbs in turn: the one whose life holds the hop. */
		if (k && &p->skbs[pp_skb_index(p->skbs, p->nskbs, h->skb, h->ts)] != k)
			continue;
		if (FZ_READ_PROBE(h->probe))
			return h;
		if (!freed && (h->flags & PP_HOP_READ))
			freed = h;
	}
	return freed;
}

/* F's "read": who read the data of K (NULL: of any skb), when (docs/json-schema.md). */
static size_t check_json_read(const struct jctx *j, const struct fzj_node *f,
			      const struct pp_skbref *k)
{
	const struct pp_hop *h = last_read(j->p, k);
	const struct fzj_node *o = want_obj(j, f, "read", h, FZJ_OBJ);

	if (!h)
		return 0;
	want_num(j, o, "pid", true, h->pid);
	want_str(j, o, "comm", h->comm[0], h->comm, sizeof(h->comm));
	want_num(j, o, "t_ns", true, h->ts - j->p->hops[0].ts);
	want_keys(j, o, "read", 2 + !!h->comm[0]);
	return 1;
}

/*
 * The packet's own fate (TOP) of a drop has a "hint": a string that ends
 * with its evidence, the reason's name (or number, or that there is none) in it.
 */
static size_t check_json_hint(const struct jctx *j, const struct fzj_node *f, bool top, bool drop,
			      const char *reason, __u32 reason_code)
{
	const struct fzj_node *n = want_obj(j, f, "hint", top && drop, FZJ_STR);
	char num[32], hint[512];

	if (!n)
		return 0;
	if (!n->len || n->len >= sizeof(hint)) {
		jfail(j, "\"hint\" of %zu bytes", n->len);
		return 1;
	}
	/* A kernel without drop reasons (5.10) gives 0: the hint says so. */
	if (reason_code)
		snprintf(num, sizeof(num), "(reason %u", reason_code);
	else
		snprintf(num, sizeof(num), "(no reason from the kernel");
	snprintf(hint, sizeof(hint), "%.*s", (int)n->len, j->d->pool + n->str);
	if (hint[strlen(hint) - 1] != ')' || !strstr(hint, reason ? reason : num))
		jfail(j, "\"hint\" without its evidence: \"%s\"", hint);
	return 1;
}

/*
 * The packet's own fate (TOP) of a drop has "decided_by" where a verdict hop
 * dropped the skb whose END is that fate (the first END with its reason and
 * place) before it; "xdp", where a hop is an XDP program's verdict on a
 * frame (PP_HOP_FRAME).
 */
static size_t check_json_judge(const struct jctx *j, const struct fzj_node *f, bool top,
			       enum pp_fate fate)
{
	const __u32 frame = PP_HOP_FRAME | PP_HOP_VERDICT;
	const struct pp_packet *p = j->p;
	const struct pp_hop *end = NULL;
	bool framed = false;

	for (size_t i = 0; i < p->nhops && !end; i++)
		if (p->hops[i].type == PP_REC_END && p->hops[i].fate == PP_FATE_DROPPED &&
		    p->hops[i].reason == p->reason && p->hops[i].location == p->location)
			end = &p->hops[i];
	for (size_t i = 0; i < p->nhops; i++)
		framed |= (p->hops[i].flags & frame) == frame;
	return want_obj(j, f, "decided_by",
			top && ((fate == PP_FATE_DROPPED && end && pp_verdict_judge(p, end)) ||
				(fate == PP_FATE_XDP && framed)),
			FZJ_STR) != NULL;
}

/*
 * O's "fate": {kind, for a drop its reason, place and hint (TOP), the read
 * of K (NULL: any), by_tap (TOP: every skb a tap's)}.
 */
static void check_json_fate_of(const struct jctx *j, const struct fzj_node *o, enum pp_fate fate,
			       __u32 reason_code, __u64 location, const struct pp_skbref *k,
			       bool top)
{
	bool by_tap = top && j->p->by_tap;
	static const char *const kinds[] = {"none",   "consumed",  "dropped", "unseen",
					    "merged", "segmented", "left",    "xdp"};
	const struct fzj_node *f = want_obj(j, o, "fate", true, FZJ_OBJ);
	bool drop = fate == PP_FATE_DROPPED;
	const char *reason = drop ? json_reason(reason_code, NULL) : NULL, *sym = NULL;

	/* The names as docs/json-schema.md gives them, not from output_text.c. */
	if (strcmp(pp_fate_key(fate), kinds[fate <= PP_FATE_MAX ? fate : 0]))
		jfail(j, "pp_fate_key(%u) is \"%s\"", fate, pp_fate_key(fate));
	want_str(j, f, "kind", true, kinds[fate <= PP_FATE_MAX ? fate : 0], 16);
	want_num(j, f, "reason_code", drop, reason_code);
	want_str(j, f, "reason", reason, reason, SIZE_MAX);
	if (drop && location)
		sym = json_sym(location, NULL);
	want_str(j, f, "func", sym, sym, SIZE_MAX);
	want_addr(j, f, "location", drop && location, location);
	want_obj(j, f, "by_tap", by_tap, FZJ_TRUE);
	want_keys(j, f, "fate",
		  1 + drop + !!reason + !!sym + (drop && location) + by_tap +
			  check_json_read(j, f, k) +
			  check_json_hint(j, f, top, drop, reason, reason_code) +
			  check_json_judge(j, f, top, fate));
}

static void check_json_fate(const struct jctx *j, const struct fzj_node *top)
{
	const struct pp_packet *p = j->p;
	const struct pp_hop *h = &p->hops[p->nhops - 1];
	bool unseen = p->fate == PP_FATE_UNSEEN;
	const struct fzj_node *o = want_obj(j, top, "seen_last", unseen, FZJ_OBJ);
	char pname[32];

	check_json_fate_of(j, top, p->fate, p->reason, p->location, NULL, true);
	if (!unseen)
		return;
	/* Where it was seen last: its last hop. */
	want_str(j, o, "func", true, pp_out_probe_name(&j->r->json, h->probe, pname, sizeof(pname)),
		 SIZE_MAX);
	want_num(j, o, "t_ns", true, h->ts - p->hops[0].ts);
	want_str(j, o, "ifname", h->ifname[0], h->ifname, sizeof(h->ifname));
	want_num(j, o, "ifindex", h->ifindex, h->ifindex);
	want_keys(j, o, "seen_last", 2 + !!h->ifname[0] + !!h->ifindex);
}

/* skbs[], only for a packet of several: each skb, whence a copy came, its fate. */
static void check_json_skbs(const struct jctx *j, const struct fzj_node *top)
{
	const struct pp_packet *p = j->p;
	const struct fzj_node *a = want_obj(j, top, "skbs", p->nskbs > 1, FZJ_ARR);
	char pname[32];

	if (p->nskbs < 2)
		return;
	if (a->nchild != p->nskbs)
		jfail(j, "%zu skbs, the packet has %zu", a->nchild, p->nskbs);
	for (size_t i = 0; i < p->nskbs; i++) {
		const struct fzj_node *o = fzj_at(j->d, a, i);
		const struct pp_skbref *k = &p->skbs[i];
		size_t from;

		if (!o || o->type != FZJ_OBJ)
			jfail(j, "skbs[%zu] is not an object", i);
		want_addr(j, o, "skb", true, k->skb);
		want_addr(j, o, "from", k->copy && k->parent, k->parent);
		from = k->copy ? pp_out_parent_skb(p, k) : p->nskbs;
		want_num(j, o, "from_index", from < p->nskbs, from);
		want_str(j, o, "func", k->copy,
			 pp_out_probe_name(&j->r->json, k->probe, pname, sizeof(pname)), SIZE_MAX);
		/* A COPY taken out may be older than hops[0]: then 0. */
		want_num(j, o, "t_ns", k->copy,
			 k->first_ts > p->hops[0].ts ? k->first_ts - p->hops[0].ts : 0);
		check_json_fate_of(j, o, k->fate, k->reason, k->location, k, false);
		want_obj(j, o, "tap", k->tap, FZJ_TRUE);
		want_keys(j, o, "an skb",
			  2 + (k->copy && k->parent) + (from < p->nskbs) + 2 * k->copy + k->tap);
	}
}

/* P's hops that say hops went unseen before them. */
static __u64 hop_gaps(const struct pp_packet *p)
{
	__u64 n = 0;

	for (size_t i = 0; i < p->nhops; i++)
		n += !!(p->hops[i].flags & PP_HOP_GAP);
	return n;
}

static void check_json_doc(const struct jctx *j)
{
	const struct fzj_node *top = fzj_root(j->d), *hops, *ml;
	const struct pp_packet *p = j->p;
	char hex[17];
	__u64 key;

	if (!top || top->type != FZJ_OBJ)
		jfail(j, "not an object");
	want_num(j, top, "id", true, p->id);
	want_num(j, top, "len", true, pp_out_pkt_len(p));
	check_json_mark(j, top);
	hops = want_obj(j, top, "hops", true, FZJ_ARR);
	if (hops->nchild != p->nhops)
		jfail(j, "%zu hops, the packet has %zu", hops->nchild, p->nhops);
	for (size_t i = 0; i < p->nhops; i++)
		check_json_hop(j, fzj_at(j->d, hops, i), &p->hops[i]);
	check_json_fate(j, top);
	check_json_skbs(j, top);
	want_num(j, top, "lost_hops", p->lost, p->lost);
	want_num(j, top, "gaps", hop_gaps(p), hop_gaps(p));
	ml = want_obj(j, top, "mark_lost", !p->mark, FZJ_TRUE);
	(void)ml;
	want_num(j, top, "mono_ns", true, p->hops[0].ts);
	want_num(j, top, "real_ns", true, p->hops[0].ts + (__u64)j->r->json.real_off);
	/* The packet key across hosts, from the mark's bytes (docs/json-schema.md). */
	key = p->mark ? pp_pkt_key(p->mark->data, p->mark->cap_len) : 0;
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)key);
	want_str(j, top, "key", key != 0, hex, 17);
	want_keys(j, top, "the packet",
		  6 + (p->mark ? 2 : 1) + (p->fate == PP_FATE_UNSEEN) + (p->nskbs > 1) + !!p->lost +
			  !!hop_gaps(p) + (key != 0));
}

/* One line: a newline at the end and nowhere else. */
static void check_line(const struct fz_run *r, const char *what, const char *buf, size_t len)
{
	if (!len || buf[len - 1] != '\n' || memchr(buf, '\n', len - 1))
		fail(r, "%s: not exactly one line:\n%.*s", what, (int)len, buf);
}

static void check_json(struct fz_run *r, const struct pp_packet *p)
{
	struct fzj_doc d;
	char why[256], *buf;
	size_t len;
	struct jctx j = {.r = r, .d = &d, .p = p};

	buf = render(&r->json, p, pp_out_json, &len);
	j.line = buf;
	check_line(r, "JSON packet", buf, len);
	if (fzj_parse(&d, buf, len - 1, FZJ_CANONICAL, why, sizeof(why)))
		fail(r, "JSON of packet %llu: invalid: %s\n%s", (unsigned long long)p->id, why,
		     buf);
	check_json_doc(&j);
	seen.json_lines++;
	fzj_free(&d);
	free(buf);
}

/* Counts the shapes of packet that the inputs reach. */
static void seen_packet(const struct pp_packet *p)
{
	bool copied = false, live = false, aside = false, aside_consumed = false;

	for (size_t i = 0; i < p->nskbs; i++) {
		copied |= p->skbs[i].copy;
		live |= !p->skbs[i].ended;
		aside |= pp_skb_aside(&p->skbs[i]);
		aside_consumed |= pp_skb_aside(&p->skbs[i]) && !p->skbs[i].tap &&
				  p->skbs[i].fate == PP_FATE_CONSUMED;
	}
	seen.aside += aside;
	seen.aside_consumed += aside_consumed && p->fate != PP_FATE_CONSUMED;
	seen.multi += p->nskbs > 1;
	seen.copied += copied;
	seen.merged += p->fate == PP_FATE_MERGED;
	seen.unseen += p->fate == PP_FATE_UNSEEN;
	seen.live_consumed += live && p->fate == PP_FATE_CONSUMED;
	seen.lingered += p->lingered;
}

static void emit(const struct pp_packet *p, void *ctx)
{
	struct fz_run *r = ctx;
	const struct fzm_expect *e = fzm_next(&r->model);
	char why[512];

	check_invariants(r, p);
	if (!e)
		fail(r, "path.c emitted packet %llu, the model expects none",
		     (unsigned long long)p->id);
	if (fzm_compare(e, p, why, sizeof(why)))
		fail(r, "packet %llu: %s", (unsigned long long)p->id, why);
	fzm_pop(&r->model);
	/* Bursts emit hundreds of packets of one shape: render the first ones. */
	if (r->rendered++ < FZ_MAX_RENDERED) {
		check_text(r, p);
		check_json(r, p);
	}
	pp_totals_add(&r->totals, p);
	seen_packet(p);
	r->fates[0]++;
	for (size_t i = 0; i < p->nskbs; i++)
		r->taps += p->skbs[i].tap;
	r->gaps += hop_gaps(p) > 0;
	if (p->fate <= PP_FATE_MAX && p->fate != PP_FATE_NONE)
		r->fates[p->fate]++;
}

static void check_state(const struct fz_run *r)
{
	struct pp_paths_stats st;
	const struct pp_paths_stats *w = &r->model.st;

	if (fzm_next(&r->model))
		fail(r, "the model expects packet %llu, path.c did not emit it",
		     (unsigned long long)fzm_next(&r->model)->p.id);
	pp_paths_stats(r->pp, &st);
	if (memcmp(&st, w, sizeof(st)))
		fail(r,
		     "stats: model records %llu bad %llu late %llu mark_lost %llu emitted %llu, "
		     "path.c %llu %llu %llu %llu %llu",
		     w->records, w->bad, w->late, w->mark_lost, w->emitted, st.records, st.bad,
		     st.late, st.mark_lost, st.emitted);
	if (pp_paths_open(r->pp) != r->model.nopen)
		fail(r, "open packets: model %zu, path.c %zu", r->model.nopen,
		     pp_paths_open(r->pp));
}

/* PKTPATH_FUZZ_TRACE=1: each action on stderr, to read a failing input. */
static void trace(const struct fz_run *r, const struct fz_action *a)
{
	static const char *const kinds[] = {"?", "MARK", "HOP", "END", "COPY"};
	struct pp_mark m = {0};

	if (a->kind == FZ_EXPIRE || a->kind == FZ_FLUSH) {
		fprintf(stderr, "%4zu now %llu %s timeout %llu\n", r->action,
			(unsigned long long)a->now, a->kind == FZ_FLUSH ? "flush" : "expire",
			(unsigned long long)a->timeout);
		return;
	}
	memcpy(&m, a->rec, a->size < sizeof(m) ? a->size : sizeof(m));
	fprintf(stderr,
		"%4zu now %llu add %s size %zu id %llu skb 0x%llx ts %llu probe %u fate %u "
		"flags %u location 0x%llx lost %u cap_len %u\n",
		r->action, (unsigned long long)a->now,
		m.hop.type <= PP_REC_COPY ? kinds[m.hop.type] : "?", a->size,
		(unsigned long long)m.hop.id, (unsigned long long)m.hop.skb,
		(unsigned long long)m.hop.ts, m.hop.probe, m.hop.fate, m.hop.flags,
		(unsigned long long)m.hop.location, m.hop.lost, m.cap_len);
}

static void run_action(struct fz_run *r, const struct fz_action *a)
{
	size_t want, got;
	void *rec;
	int ret;

	if (r->trace)
		trace(r, a);
	switch (a->kind) {
	case FZ_ADD:
		/* Exactly size bytes: ASan sees any read past the record. */
		rec = malloc(a->size ? a->size : 1);
		if (!rec)
			abort();
		memcpy(rec, a->rec, a->size);
		want = (size_t)fzm_add(&r->model, rec, a->size, a->now);
		ret = pp_paths_add(r->pp, rec, a->size, a->now);
		free(rec);
		if ((size_t)ret != want)
			fail(r, "pp_paths_add() returned %d, the model %d", ret, (int)want);
		break;
	case FZ_EXPIRE:
		want = fzm_expire(&r->model, a->now, a->timeout);
		got = pp_paths_expire(r->pp, a->now, a->timeout);
		if (got != want)
			fail(r, "pp_paths_expire() closed %zu, the model %zu", got, want);
		break;
	case FZ_FLUSH:
		want = fzm_flush(&r->model);
		got = pp_paths_flush(r->pp);
		if (got != want)
			fail(r, "pp_paths_flush() closed %zu, the model %zu", got, want);
		break;
	}
	check_state(r);
}

/* The summary counts the packets emitted by their fate; the rest is zero here. */
static void check_summary(struct fz_run *r)
{
	const struct {
		const char *key;
		__u64 want;
	} counts[] = {
		{"packets", r->fates[0]},
		{"consumed", r->fates[PP_FATE_CONSUMED]},
		{"dropped", r->fates[PP_FATE_DROPPED]},
		{"merged", r->fates[PP_FATE_MERGED]},
		{"segmented", r->fates[PP_FATE_SEGMENTED]},
		{"unseen", r->fates[PP_FATE_UNSEEN]},
		{"left", r->fates[PP_FATE_LEFT]}, /* present when not 0 */
		{"taps", r->taps},
		{"lost", 0},
		{"gaps", r->gaps},
		{"map_full", 0},
		{"skipped", 0},
	};
	struct fzj_doc d;
	const struct fzj_node *s;
	char why[256], *buf = NULL;
	size_t len;

	r->json.f = open_memstream(&buf, &len);
	if (!r->json.f)
		abort();
	pp_out_totals_json(&r->json, &r->totals);
	fclose(r->json.f);
	check_line(r, "JSON summary", buf, len);
	if (fzj_parse(&d, buf, len - 1, FZJ_CANONICAL, why, sizeof(why)))
		fail(r, "JSON summary: invalid: %s\n%s", why, buf);
	s = fzj_get(&d, fzj_root(&d), "summary");
	if (!s || s->type != FZJ_OBJ ||
	    s->nchild != sizeof(counts) / sizeof(counts[0]) - !r->fates[PP_FATE_LEFT] ||
	    r->totals.packets != r->model.st.emitted || r->totals.packets != r->fates[0])
		fail(r, "JSON summary: not one key per count, or packets not %llu\n%s",
		     (unsigned long long)r->model.st.emitted, buf);
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		const struct fzj_node *n = fzj_get(&d, s, counts[i].key);

		if (!n && !counts[i].want && !strcmp(counts[i].key, "left"))
			continue;
		if (!n || n->type != FZJ_NUM || !n->is_u64 || n->u64 != counts[i].want)
			fail(r, "JSON summary: \"%s\" is not %llu\n%s", counts[i].key,
			     (unsigned long long)counts[i].want, buf);
	}
	fzj_free(&d);
	free(buf);
	r->text.f = fopen("/dev/null", "w");
	if (!r->text.f)
		abort();
	pp_out_totals_text(&r->text, &r->totals);
	fclose(r->text.f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	atexit(print_seen);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_action a;
	struct fz_reader rd;
	struct fz_run r = {
		.text = {.probe_names = text_probes,
			 .nprobes = sizeof(text_probes) / sizeof(text_probes[0]),
			 .reason_name = text_reason,
			 .sym_name = text_sym},
		.json = {.probe_names = json_probes,
			 .nprobes = sizeof(json_probes) / sizeof(json_probes[0]),
			 .reason_name = json_reason,
			 .sym_name = json_sym},
	};

	r.trace = getenv("PKTPATH_FUZZ_TRACE") != NULL;
	fzm_init(&r.model);
	r.pp = pp_paths_new(emit, &r);
	if (!r.pp)
		abort();
	fz_reader_init(&rd, data, size);
	while (r.action < FZ_MAX_ACTIONS && fz_next_action(&rd, &a)) {
		run_action(&r, &a);
		r.action++;
	}
	if (size % 2 == 0) {
		a = (struct fz_action){.kind = FZ_FLUSH};
		run_action(&r, &a);
	}
	check_summary(&r);
	seen.inputs++;
	seen.records += r.model.st.records;
	seen.bad += r.model.st.bad;
	seen.late += r.model.st.late;
	seen.packets += r.model.st.emitted;
	pp_paths_free(r.pp);
	fzm_free(&r.model);
	return 0;
}
