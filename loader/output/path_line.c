// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "output/path_line.h"
#include "output/verdict.h"

#define PP_NAMEBUF 32

void pp_line_clean(struct pp_sbuf *f, const char *s, size_t n)
{
	char buf[64];
	size_t k;

	n = strnlen(s, n);
	while (n) {
		k = n < sizeof(buf) ? n : sizeof(buf);
		for (size_t i = 0; i < k; i++) {
			unsigned char c = (unsigned char)s[i];

			buf[i] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
		}
		pp_sb_put(f, buf, k);
		s += k;
		n -= k;
	}
}

void pp_line_usec(struct pp_sbuf *f, __u64 ns)
{
	char frac[4] = {(char)('0' + ns % 1000 / 100), (char)('0' + ns % 100 / 10),
			(char)('0' + ns % 10), 0};

	pp_sb_u64(f, ns / 1000);
	pp_sb_lit(f, ".");
	pp_sb_put(f, frac, 3);
}

/* A name: as it is (PP_LINE_RAW), else printable and at most MAX bytes. */
static void line_name(struct pp_sbuf *f, const char *s, size_t max, unsigned int flags)
{
	if (flags & PP_LINE_RAW)
		pp_sb_str(f, s);
	else
		pp_line_clean(f, s, max);
}

static void line_drop(const struct pp_out *o, __u32 reason, __u64 location, unsigned int flags,
		      struct pp_sbuf *f)
{
	const char *name = o->reason_name ? o->reason_name(reason, o->reason_arg) : NULL;
	const char *sym = location && o->sym_name ? o->sym_name(location, o->sym_arg) : NULL;
	char hex[PP_FMT_HEX];

	pp_sb_lit(f, "dropped: ");
	if (name) {
		line_name(f, name, 64, flags);
	} else if (!reason && (flags & PP_LINE_LONG)) {
		/* No name for 0: a kernel without drop reasons (before 5.17). */
		pp_sb_lit(f, "no reason from the kernel");
	} else {
		pp_sb_lit(f, "reason ");
		pp_sb_u64(f, reason);
	}
	if (sym) {
		pp_sb_lit(f, " at ");
		line_name(f, sym, 128, flags);
	} else if (location) {
		pp_sb_lit(f, " at 0x");
		pp_sb_put(f, hex, (size_t)(pp_fmt_hex(hex, location) - hex));
	} else if (flags & PP_LINE_AT_DASH) {
		pp_sb_lit(f, " at -");
	}
}

void pp_line_fate_of(const struct pp_out *o, enum pp_fate fate, __u32 reason, __u64 location,
		     unsigned int flags, struct pp_sbuf *f)
{
	const struct pp_fate_row *r = pp_fate_row(fate);

	if (fate == PP_FATE_DROPPED)
		line_drop(o, reason, location, flags, f);
	else if (!r)
		pp_sb_lit(f, "none");
	else
		pp_sb_str(f, flags & PP_LINE_LONG ? r->text : r->line);
}

char *pp_line_fate_str(const struct pp_out *o, enum pp_fate fate, __u32 reason, __u64 location,
		       unsigned int flags, char *buf, size_t len, size_t *n)
{
	struct pp_sbuf f = {.buf = buf, .len = len};
	char *s;

	pp_line_fate_of(o, fate, reason, location, flags, &f);
	*n = f.pos < len ? f.pos : len - 1;
	if (f.pos < len || !(s = malloc(f.pos + 1)))
		return buf;
	/* A name longer than BUF: PP_LINE_RAW forms print it whole. */
	f = (struct pp_sbuf){.buf = s, .len = f.pos + 1};
	pp_line_fate_of(o, fate, reason, location, flags, &f);
	*n = f.pos;
	return s;
}

void pp_line_fate(const struct pp_out *o, const struct pp_packet *p, struct pp_sbuf *f)
{
	pp_line_fate_of(o, p->fate, p->reason, p->location, PP_LINE_EXPORT, f);
	pp_sb_lit(f, " after ");
	pp_line_usec(f, p->hops[p->nhops - 1].ts - p->hops[0].ts);
	pp_sb_lit(f, " us");
	if (p->nskbs > 1) {
		pp_sb_lit(f, " (");
		pp_sb_u64(f, p->nskbs - 1);
		pp_sb_str(f, p->nskbs == 2 ? " copy)" : " copies)");
	}
}

static bool same_dev(const struct pp_hop *a, const struct pp_hop *b)
{
	return a->ifindex == b->ifindex && !strncmp(a->ifname, b->ifname, sizeof(a->ifname));
}

/* "name", "@dev" if the device changed, "[ns N]" if the namespace did, "[copy K]". */
static void line_hop(const struct pp_out *o, const struct pp_packet *p, const struct pp_hop *h,
		     const struct pp_hop *prev, struct pp_sbuf *f)
{
	char pname[PP_NAMEBUF];
	size_t k = pp_out_hop_skb(p, h);

	pp_line_clean(f, pp_out_probe_name(o, h->probe, pname, sizeof(pname)), 256);
	if (h->flags & PP_HOP_VERDICT) {
		char word[PP_VERDICT_LEN];

		pp_sb_lit(f, "=");
		pp_sb_str(f, pp_verdict_word(h->reason, h->flags & PP_HOP_XDP, word));
	}
	if ((!prev || !same_dev(h, prev)) && (h->ifname[0] || h->ifindex)) {
		pp_sb_lit(f, "@");
		if (h->ifname[0]) {
			pp_line_clean(f, h->ifname, sizeof(h->ifname));
		} else {
			pp_sb_lit(f, "if");
			pp_sb_u64(f, h->ifindex);
		}
	}
	if (prev && h->netns && prev->netns && h->netns != prev->netns) {
		pp_sb_lit(f, "[ns ");
		pp_sb_u64(f, h->netns);
		pp_sb_lit(f, "]");
	}
	if (k && k < p->nskbs) {
		pp_sb_lit(f, "[copy ");
		pp_sb_u64(f, k);
		pp_sb_lit(f, "]");
	}
}

size_t pp_path_line(const struct pp_out *o, const struct pp_packet *p, char *buf, size_t len)
{
	char fate[256];
	struct pp_sbuf ff = {.buf = fate, .len = sizeof(fate)};
	struct pp_sbuf f = {.buf = buf, .len = len};
	size_t flen, room;

	pp_line_fate(o, p, &ff);
	flen = ff.pos < sizeof(fate) ? ff.pos : sizeof(fate) - 1;
	if (len < flen + 8) {
		pp_sb_put(&f, fate, flen);
		return f.pos < len ? f.pos : len - 1;
	}
	/* The path gets what the fate and its "; " leave; "..." if it is cut. */
	room = len - flen - 2;
	f.len = room;
	for (size_t i = 0; i < p->nhops && f.pos < room; i++) {
		if (i)
			pp_sb_lit(&f, " > ");
		line_hop(o, p, &p->hops[i], i ? &p->hops[i - 1] : NULL, &f);
	}
	if (f.pos >= room) {
		f.pos = room - 4;
		f.buf[f.pos] = '\0';
		pp_sb_lit(&f, "...");
	}
	f.len = len;
	pp_sb_lit(&f, "; ");
	pp_sb_put(&f, fate, flen);
	return f.pos;
}
