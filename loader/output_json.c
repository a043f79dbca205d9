// SPDX-License-Identifier: GPL-2.0
/*
 * JSON lines: one object per packet, keys that do not apply left out
 * (docs/json-schema.md). Strings are written in ASCII only: device names
 * and comms are raw kernel bytes, so '"', '\\' and every byte below 0x20 or
 * from 0x7f up is escaped, a byte >= 0x80 as \u00XX (its Latin-1 code
 * point). The output is valid JSON whatever the bytes, and a reader gets
 * the original bytes back by taking each code point as one byte.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "output.h"
#include "pkt_decode.h"

#define PP_PROBE_NAMELEN 32
#define PP_JSON_BUF	 4096

/*
 * Output goes through a buffer on the stack and leaves in a few fwrite()s:
 * a stdio call per byte, each taking the FILE lock, cost more than all of
 * path assembly.
 */
struct jw {
	FILE *f;
	size_t n;
	char buf[PP_JSON_BUF];
};

/* An object being written: whether the next key needs a comma. */
struct jobj {
	struct jw *w;
	bool first;
};

static void jw_flush(struct jw *w)
{
	fwrite(w->buf, 1, w->n, w->f);
	w->n = 0;
}

static void jw_putc(struct jw *w, char c)
{
	if (w->n == sizeof(w->buf))
		jw_flush(w);
	w->buf[w->n++] = c;
}

static void jw_puts(struct jw *w, const char *s)
{
	while (*s)
		jw_putc(w, *s++);
}

static void jw_u64(struct jw *w, __u64 v)
{
	char d[20];
	int n = 0;

	do {
		d[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		jw_putc(w, d[--n]);
}

static void json_char(struct jw *w, unsigned char c)
{
	static const char short_esc[] = {['"'] = '"',  ['\\'] = '\\', ['\b'] = 'b', ['\f'] = 'f',
					 ['\n'] = 'n', ['\r'] = 'r',  ['\t'] = 't'};
	static const char hex[] = "0123456789abcdef";

	if (c < sizeof(short_esc) && short_esc[c]) {
		jw_putc(w, '\\');
		jw_putc(w, short_esc[c]);
	} else if (c < 0x20 || c >= 0x7f) {
		jw_puts(w, "\\u00");
		jw_putc(w, hex[c >> 4]);
		jw_putc(w, hex[c & 0xf]);
	} else {
		jw_putc(w, c);
	}
}

/* A string of at most max bytes, ending early at a NUL. */
static void json_str(struct jw *w, const char *s, size_t max)
{
	size_t i;

	jw_putc(w, '"');
	for (i = 0; i < max && s[i]; i++)
		json_char(w, (unsigned char)s[i]);
	jw_putc(w, '"');
}

/* Keys are this file's own literals: nothing to escape. */
static void jkey(struct jobj *o, const char *key)
{
	if (!o->first)
		jw_putc(o->w, ',');
	o->first = false;
	jw_putc(o->w, '"');
	jw_puts(o->w, key);
	jw_puts(o->w, "\":");
}

static void jnum(struct jobj *o, const char *key, __u64 v)
{
	jkey(o, key);
	jw_u64(o->w, v);
}

static void jstr(struct jobj *o, const char *key, const char *s, size_t max)
{
	jkey(o, key);
	json_str(o->w, s, max);
}

static void jbool(struct jobj *o, const char *key, bool v)
{
	jkey(o, key);
	jw_puts(o->w, v ? "true" : "false");
}

static struct jobj jopen(struct jobj *parent, const char *key)
{
	jkey(parent, key);
	jw_putc(parent->w, '{');
	return (struct jobj){.w = parent->w, .first = true};
}

static void jclose(struct jobj *o)
{
	jw_putc(o->w, '}');
}

static void json_frag(struct jobj *pkt, const struct pp_pkt_summary *s)
{
	struct jobj o = jopen(pkt, "frag");

	jnum(&o, "id", s->frag_id);
	jnum(&o, "off", s->frag_off);
	jbool(&o, "more", s->more_frags);
	jclose(&o);
}

static void json_l4(struct jobj *o, const struct pp_pkt_summary *s)
{
	char flags[9];

	if (s->has_ports) {
		jnum(o, "sport", s->sport);
		jnum(o, "dport", s->dport);
	}
	if (s->has_tcp)
		jstr(o, "tcp_flags", pp_tcp_flags_str(s->tcp_flags, flags), sizeof(flags));
	if (s->has_icmp) {
		jnum(o, "icmp_type", s->icmp_type);
		jnum(o, "icmp_code", s->icmp_code);
	}
	if (s->has_echo) {
		jnum(o, "icmp_id", s->icmp_id);
		jnum(o, "icmp_seq", s->icmp_seq);
	}
}

static void json_pkt(struct jobj *top, const struct pp_mark *m)
{
	struct jobj o = jopen(top, "pkt");
	struct pp_pkt_summary s;

	pp_pkt_decode(m->data, m->cap_len, &s);
	jstr(&o, "proto", s.proto, sizeof(s.proto));
	if (s.src[0]) {
		jstr(&o, "src", s.src, sizeof(s.src));
		jstr(&o, "dst", s.dst, sizeof(s.dst));
	}
	if (s.ip_ver)
		jnum(&o, "ip_proto", s.ip_proto);
	json_l4(&o, &s);
	if (s.has_arp)
		jnum(&o, "arp_op", s.arp_op);
	if (s.is_frag)
		json_frag(&o, &s);
	if (s.nvlan)
		jnum(&o, "vlan", s.vlan);
	if (s.nvlan > 1)
		jnum(&o, "vlan_inner", s.vlan_inner);
	if (s.trunc)
		jstr(&o, "truncated", s.trunc, 8);
	jclose(&o);
}

/* ifname and ifindex, each only when known. */
static void json_dev(struct jobj *o, const struct pp_hop *h)
{
	if (h->ifname[0])
		jstr(o, "ifname", h->ifname, sizeof(h->ifname));
	if (h->ifindex)
		jnum(o, "ifindex", h->ifindex);
}

static void json_marked_at(const struct pp_out *out, struct jobj *top, const struct pp_hop *h)
{
	struct jobj o = jopen(top, "marked_at");
	const char *dir = pp_out_tc_dir(h->probe);
	char pname[PP_PROBE_NAMELEN];

	json_dev(&o, h);
	if (dir)
		jstr(&o, "dir", dir, 8);
	else
		jstr(&o, "func", pp_out_probe_name(out, h->probe, pname, sizeof(pname)), SIZE_MAX);
	jclose(&o);
}

static void json_hop(const struct pp_out *out, struct jw *w, const struct pp_hop *h, __u64 t0)
{
	struct jobj o = {.w = w, .first = true};
	char pname[PP_PROBE_NAMELEN];

	jw_putc(w, '{');
	jstr(&o, "func", pp_out_probe_name(out, h->probe, pname, sizeof(pname)), SIZE_MAX);
	jnum(&o, "t_ns", h->ts - t0);
	if (h->netns)
		jnum(&o, "netns", h->netns);
	json_dev(&o, h);
	jnum(&o, "cpu", h->cpu);
	jnum(&o, "pid", h->pid);
	if (h->comm[0])
		jstr(&o, "comm", h->comm, sizeof(h->comm));
	jnum(&o, "len", h->len);
	jclose(&o);
}

static void json_hops(const struct pp_out *out, struct jobj *top, const struct pp_packet *p)
{
	size_t i;

	jkey(top, "hops");
	jw_putc(top->w, '[');
	for (i = 0; i < p->nhops; i++) {
		if (i)
			jw_putc(top->w, ',');
		json_hop(out, top->w, &p->hops[i], p->hops[0].ts);
	}
	jw_putc(top->w, ']');
}

static void json_drop(const struct pp_out *out, struct jobj *o, const struct pp_packet *p)
{
	const char *reason = NULL, *sym = NULL;
	char loc[24];

	if (out->reason_name)
		reason = out->reason_name(p->reason, out->reason_arg);
	if (reason)
		jstr(o, "reason", reason, SIZE_MAX);
	jnum(o, "reason_code", p->reason);
	if (!p->location)
		return;
	if (out->sym_name)
		sym = out->sym_name(p->location, out->sym_arg);
	if (sym)
		jstr(o, "func", sym, SIZE_MAX);
	/* A string: a kernel address does not survive a double in most readers. */
	snprintf(loc, sizeof(loc), "0x%llx", (unsigned long long)p->location);
	jstr(o, "location", loc, sizeof(loc));
}

static void json_fate(const struct pp_out *out, struct jobj *top, const struct pp_packet *p)
{
	static const char *const kinds[] = {
		[PP_FATE_NONE] = "none",
		[PP_FATE_CONSUMED] = "consumed",
		[PP_FATE_DROPPED] = "dropped",
		[PP_FATE_TIMEOUT] = "timeout",
	};
	struct jobj o = jopen(top, "fate");

	jstr(&o, "kind", (unsigned)p->fate <= PP_FATE_TIMEOUT ? kinds[p->fate] : "none", 16);
	if (p->fate == PP_FATE_DROPPED)
		json_drop(out, &o, p);
	jclose(&o);
}

void pp_out_json(const struct pp_out *o, const struct pp_packet *p)
{
	struct jw w = {.f = o->f};
	struct jobj top = {.w = &w, .first = true};

	jw_putc(&w, '{');
	jnum(&top, "id", p->id);
	jnum(&top, "len", pp_out_pkt_len(p));
	if (p->mark) {
		json_pkt(&top, p->mark);
		json_marked_at(o, &top, &p->mark->hop);
	}
	json_hops(o, &top, p);
	json_fate(o, &top, p);
	if (p->lost)
		jnum(&top, "lost_hops", p->lost);
	if (!p->mark)
		jbool(&top, "mark_lost", true);
	jw_puts(&w, "}\n");
	jw_flush(&w);
}

void pp_out_summary_json(const struct pp_out *o, const struct pp_summary *s)
{
	struct jw w = {.f = o->f};
	struct jobj top = {.w = &w, .first = true};
	struct jobj sum;

	jw_putc(&w, '{');
	sum = jopen(&top, "summary");
	jnum(&sum, "packets", s->packets);
	jnum(&sum, "consumed", s->consumed);
	jnum(&sum, "dropped", s->dropped);
	jnum(&sum, "timeout", s->timeout);
	jnum(&sum, "lost", s->lost);
	jnum(&sum, "map_full", s->map_full);
	jclose(&sum);
	jw_puts(&w, "}\n");
	jw_flush(&w);
}
