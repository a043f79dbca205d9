// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "output/export_perfetto.h"
#include "base/fmt.h"
#include "output/path_line.h"
#include "paths/pkt_decode.h"
#include "output/exports.h"

#define PP_NAMEBUF 32
#define NONE	   SIZE_MAX

/* A copy's flow: from slice SLICE (a hop index) of its parent, at TS. */
struct flow {
	size_t child, slice;
	__u64 ts;
};

struct pp_perfetto_out {
	FILE *f;
	__u64 packets, next_flow;
	bool any; /* an event was written: the next needs a comma */
	/* Per packet, grown as needed: each hop's skb index and next hop of that skb. */
	size_t *skb_of, *next, *later;
	struct flow *flows;
	size_t cap;
};

/* A JSON string of at most N bytes of S; bytes outside printable ASCII become '?'. */
static void jstr(struct pp_wbuf *w, const char *s, size_t n)
{
	pp_wb_putc(w, '"');
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			pp_wb_putc(w, '\\');
		pp_wb_putc(w, c < 0x20 || c >= 0x7f ? '?' : (char)c);
	}
	pp_wb_putc(w, '"');
}

static void jnum(struct pp_wbuf *w, __u64 v)
{
	pp_wb_done(w, pp_fmt_u64(pp_wb_room(w, PP_FMT_U64), v));
}

/* ns as microseconds with three decimals: the format's unit, without float rounding. */
static void jus(struct pp_wbuf *w, __u64 ns)
{
	char *p = pp_fmt_u64(pp_wb_room(w, PP_FMT_U64 + 4), ns / 1000);

	p[0] = '.';
	p[1] = (char)('0' + ns % 1000 / 100);
	p[2] = (char)('0' + ns % 100 / 10);
	p[3] = (char)('0' + ns % 10);
	pp_wb_done(w, p + 4);
}

/* {"name":NAME,"ph":PH,"pid":PID,"tid":TID  (the caller adds the rest and "}") */
static void event(struct pp_perfetto_out *x, struct pp_wbuf *w, const char *name, const char *ph,
		  __u64 pid, __u64 tid)
{
	if (x->any)
		pp_wb_lit(w, ",\n");
	x->any = true;
	pp_wb_lit(w, "{\"name\":");
	jstr(w, name, 256);
	pp_wb_lit(w, ",\"ph\":\"");
	pp_wb_write(w, ph, strlen(ph));
	pp_wb_lit(w, "\",\"pid\":");
	jnum(w, pid);
	pp_wb_lit(w, ",\"tid\":");
	jnum(w, tid);
}

/* A metadata event: KIND ("process_name", "thread_name") with args {"name": VALUE}. */
static void meta(struct pp_perfetto_out *x, struct pp_wbuf *w, const char *kind, __u64 pid,
		 __u64 tid, const char *value)
{
	event(x, w, kind, "M", pid, tid);
	pp_wb_lit(w, ",\"args\":{\"name\":");
	jstr(w, value, 512);
	pp_wb_lit(w, "}}");
}

/* The process (packet) and thread (skb) names. */
static void names(struct pp_perfetto_out *x, struct pp_wbuf *w, const struct pp_out *o,
		  const struct pp_packet *p)
{
	char line[512], sline[64];
	struct pp_sbuf f = {.buf = line, .len = sizeof(line)};

	pp_sb_lit(&f, "#");
	pp_sb_u64(&f, p->id);
	pp_sb_lit(&f, " ");
	/* No bytes: a report of a file recorded without --snaplen. */
	if (p->mark && p->mark->cap_len) {
		f.pos += pp_pkt_format_frame(p->mark->data, p->mark->cap_len, line + f.pos,
					     f.pos < f.len ? f.len - f.pos : 0);
		pp_sb_lit(&f, ": ");
	}
	pp_line_fate(o, p, &f);
	meta(x, w, "process_name", p->id, 1, line);
	event(x, w, "process_sort_index", "M", p->id, 1);
	pp_wb_lit(w, ",\"args\":{\"sort_index\":");
	jnum(w, p->id);
	pp_wb_lit(w, "}}");
	for (size_t k = 0; k < p->nskbs; k++) {
		size_t j = pp_out_parent_skb(p, &p->skbs[k]);
		struct pp_sbuf t = {.buf = sline, .len = sizeof(sline)};

		if (!k) {
			pp_sb_lit(&t, "original");
		} else {
			pp_sb_lit(&t, "copy ");
			pp_sb_u64(&t, k);
			if (j < p->nskbs) {
				pp_sb_lit(&t, " of ");
				pp_sb_u64(&t, j);
			}
		}
		meta(x, w, "thread_name", p->id, k + 1, sline);
	}
}

/* A realloc() of PTR to N elements that leaves PTR as it was when it fails. */
#define GROW(ptr, n)                                                                               \
	({                                                                                         \
		__typeof__(ptr) v_ = realloc(ptr, (n) * sizeof(*(ptr)));                           \
		if (v_)                                                                            \
			ptr = v_;                                                                  \
		v_ != NULL;                                                                        \
	})

/* Room for N hops and N + 1 skbs (an skb not in skbs[] has index nskbs). */
static bool grow(struct pp_perfetto_out *x, size_t n)
{
	if (n <= x->cap)
		return true;
	if (!GROW(x->skb_of, n) || !GROW(x->next, n) || !GROW(x->later, n) || !GROW(x->flows, n))
		return false;
	x->cap = n;
	return true;
}

/* skb_of[] and next[]: each hop's skb, and the same skb's next hop (NONE: its last). */
static void link_hops(struct pp_perfetto_out *x, const struct pp_packet *p)
{
	for (size_t k = 0; k <= p->nskbs; k++)
		x->later[k] = NONE;
	for (size_t i = p->nhops; i-- > 0;) {
		size_t k = pp_out_hop_skb(p, &p->hops[i]);

		x->skb_of[i] = k;
		x->next[i] = x->later[k];
		x->later[k] = i;
	}
}

/* The first hop of skb K, preferring its COPY hop (where it joined) if JOIN. */
static size_t first_hop(const struct pp_perfetto_out *x, const struct pp_packet *p, size_t k,
			bool join)
{
	size_t first = NONE;

	for (size_t i = 0; i < p->nhops; i++) {
		if (x->skb_of[i] != k)
			continue;
		if (first == NONE)
			first = i;
		if (!join || p->hops[i].type == PP_REC_COPY)
			return i;
	}
	return first;
}

/* Where copy C leaves its parent: the parent's slice at the join time, the time clamped into it. */
static bool flow_of(struct pp_perfetto_out *x, const struct pp_packet *p, size_t c, struct flow *fl)
{
	size_t parent = pp_out_parent_skb(p, &p->skbs[c]), join = first_hop(x, p, c, true);
	size_t slice = parent < p->nskbs && parent != c ? first_hop(x, p, parent, false) : NONE;
	__u64 ts, end;

	if (slice == NONE || join == NONE)
		return false;
	ts = p->hops[join].ts;
	while (x->next[slice] != NONE && p->hops[x->next[slice]].ts <= ts)
		slice = x->next[slice];
	end = x->next[slice] == NONE ? p->hops[slice].ts : p->hops[x->next[slice]].ts;
	fl->child = c;
	fl->slice = slice;
	fl->ts = ts < p->hops[slice].ts ? p->hops[slice].ts : ts > end ? end : ts;
	return true;
}

/* Flows ordered by the slice they leave, then time: each thread's events stay in order. */
static size_t plan_flows(struct pp_perfetto_out *x, const struct pp_packet *p)
{
	size_t n = 0;

	for (size_t c = 1; c < p->nskbs; c++) {
		struct flow fl;
		size_t i;

		if (!flow_of(x, p, c, &fl))
			continue;
		for (i = n;
		     i > 0 && (x->flows[i - 1].slice > fl.slice ||
			       (x->flows[i - 1].slice == fl.slice && x->flows[i - 1].ts > fl.ts));
		     i--)
			x->flows[i] = x->flows[i - 1];
		x->flows[i] = fl;
		n++;
	}
	return n;
}

static void slice_args(struct pp_wbuf *w, const struct pp_out *o, const struct pp_packet *p,
		       const struct pp_hop *h, const struct pp_hop *next)
{
	char name[PP_NAMEBUF], fate[256];
	struct pp_sbuf f = {.buf = fate, .len = sizeof(fate)};
	const struct pp_skbref *r = &p->skbs[pp_out_hop_skb(p, h) % p->nskbs];

	pp_wb_lit(w, ",\"args\":{\"dev\":");
	jstr(w, h->ifname, sizeof(h->ifname));
	pp_wb_lit(w, ",\"ifindex\":");
	jnum(w, h->ifindex);
	pp_wb_lit(w, ",\"netns\":");
	jnum(w, h->netns);
	pp_wb_lit(w, ",\"cpu\":");
	jnum(w, h->cpu);
	pp_wb_lit(w, ",\"len\":");
	jnum(w, h->len);
	if (next) {
		pp_wb_lit(w, ",\"next\":");
		jstr(w, pp_out_probe_name(o, next->probe, name, sizeof(name)), 256);
	} else {
		pp_line_fate_of(o, r->fate, r->reason, r->location, PP_LINE_EXPORT, &f);
		pp_wb_lit(w, ",\"fate\":");
		jstr(w, fate, sizeof(fate));
	}
	pp_wb_lit(w, "}}");
}

/* Hop I as a slice on its skb's thread, until that skb's next hop. */
static void slice(struct pp_perfetto_out *x, struct pp_wbuf *w, const struct pp_out *o,
		  const struct pp_packet *p, size_t i)
{
	const struct pp_hop *h = &p->hops[i];
	const struct pp_hop *next = x->next[i] == NONE ? NULL : &p->hops[x->next[i]];
	char name[PP_NAMEBUF];

	event(x, w, pp_out_probe_name(o, h->probe, name, sizeof(name)), "X", p->id,
	      x->skb_of[i] + 1);
	pp_wb_lit(w, ",\"cat\":\"");
	pp_wb_lit(w, "hop\",\"ts\":");
	jus(w, h->ts);
	pp_wb_lit(w, ",\"dur\":");
	jus(w, next ? next->ts - h->ts : 0);
	slice_args(w, o, p, h, next);
}

/* One end of a copy's flow ("s" or "f"); ids are unique in the file. */
static void flow_end(struct pp_perfetto_out *x, struct pp_wbuf *w, const struct pp_packet *p,
		     const char *ph, __u64 tid, __u64 ts, __u64 id)
{
	event(x, w, "copy", ph, p->id, tid);
	pp_wb_lit(w, ",\"cat\":\"copy\",\"id\":");
	jnum(w, id);
	pp_wb_lit(w, ",\"ts\":");
	jus(w, ts);
	if (ph[0] == 'f')
		pp_wb_lit(w, ",\"bp\":\"e\"");
	pp_wb_putc(w, '}');
}

/* Each skb's thread in time order: its slices, its flow's end, the flows leaving it. */
static void threads(struct pp_perfetto_out *x, struct pp_wbuf *w, const struct pp_out *o,
		    const struct pp_packet *p, size_t nflows, __u64 flow0)
{
	for (size_t k = 0; k < p->nskbs; k++) {
		bool first = true;

		for (size_t i = 0; i < p->nhops; i++) {
			if (x->skb_of[i] != k)
				continue;
			slice(x, w, o, p, i);
			for (size_t n = 0; first && n < nflows; n++)
				if (x->flows[n].child == k)
					flow_end(x, w, p, "f", k + 1, p->hops[i].ts, flow0 + n);
			first = false;
			for (size_t n = 0; n < nflows; n++)
				if (x->flows[n].slice == i)
					flow_end(x, w, p, "s", k + 1, x->flows[n].ts, flow0 + n);
		}
	}
}

void pp_perfetto_out_packet(struct pp_perfetto_out *x, const struct pp_out *o,
			    const struct pp_packet *p)
{
	struct pp_wbuf w;
	size_t nflows;

	if (!grow(x, (p->nhops > p->nskbs ? p->nhops : p->nskbs) + 1))
		return;
	pp_wb_init(&w, x->f);
	link_hops(x, p);
	nflows = plan_flows(x, p);
	names(x, &w, o, p);
	threads(x, &w, o, p, nflows, x->next_flow);
	x->next_flow += nflows;
	pp_wb_flush(&w);
	x->packets++;
}

struct pp_perfetto_out *pp_perfetto_out_new(FILE *f, const char *appl)
{
	struct pp_perfetto_out *x = calloc(1, sizeof(*x));
	struct pp_wbuf w;

	if (!x)
		return NULL;
	x->f = f;
	x->next_flow = 1;
	pp_wb_init(&w, f);
	/* Metadata first, the events last: a reader needs them all anyway. */
	pp_wb_lit(&w, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":");
	jstr(&w, appl, 128);
	pp_wb_lit(&w, ",\"clock\":\"CLOCK_MONOTONIC\"},\n\"traceEvents\":[\n");
	pp_wb_flush(&w);
	return x;
}

void pp_perfetto_out_end(struct pp_perfetto_out *x)
{
	fputs("\n]}\n", x->f);
}

__u64 pp_perfetto_out_count(const struct pp_perfetto_out *x)
{
	return x->packets;
}

void pp_perfetto_out_free(struct pp_perfetto_out *x)
{
	if (!x)
		return;
	free(x->skb_of);
	free(x->next);
	free(x->later);
	free(x->flows);
	free(x);
}

static void *perfetto_open(FILE *f, __u32 snaplen, __s64 real_off_ns, const char *appl)
{
	(void)snaplen;	   /* no packet bytes */
	(void)real_off_ns; /* the timeline's times are the probes' CLOCK_MONOTONIC */
	return pp_perfetto_out_new(f, appl);
}

static void perfetto_packet(void *w, const struct pp_out *o, const struct pp_packet *p)
{
	pp_perfetto_out_packet(w, o, p);
}

static void perfetto_end(void *w)
{
	pp_perfetto_out_end(w);
}

static __u64 perfetto_count(const void *w)
{
	return pp_perfetto_out_count(w);
}

static void perfetto_free(void *w)
{
	pp_perfetto_out_free(w);
}

/* The timeline holds what the text output shows: 0644. */
const struct pp_export_ops pp_export_perfetto_ops = {
	.option = "--perfetto",
	.mode = 0644,
	.zero_untimed = true,
	.open = perfetto_open,
	.packet = perfetto_packet,
	.end = perfetto_end,
	.count = perfetto_count,
	.free = perfetto_free,
};
