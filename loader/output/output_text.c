// SPDX-License-Identifier: GPL-2.0
/*
 * Text output, one block per packet:
 *
 *   #7 10:22:28.123456 len 98 icmp 198.18.0.1 > 198.18.1.2 echo request id 4242 seq 1
 *     (marked at veth-a egress)
 *           0.000    +0.000       host veth-a            1 tc:egress
 *           1.204    +1.204       host veth-a            1 veth_xmit
 *          45.210   +44.006          b veth-b            0 tp:skb:consume_skb
 *     consumed after 45.210 us
 *
 * (the header line: the packet id, the local wall-clock time of its first
 * hop, the packet as marked, where it was marked; the hop lines: time since
 * the first hop and since the previous one in us, netns name (ns_label.c;
 * its inode where it has none), device, CPU, probe), then a blank line; and
 * the helpers both formats share. Device names are the kernel's bytes:
 * anything unprintable becomes '?', so a name cannot move the terminal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/drop_hint.h"
#include "base/fmt.h"
#include "output/hop_change.h"
#include "probes/life_points.h"
#include "output/output.h"
#include "paths/pkt_decode.h"
#include "filter/tunnel.h"
#include "output/wallclock.h"
#include "output/path_line.h"
#include "output/verdict.h"
#include "output/output_summary.h"

#define PP_LINE_MAX	 99 /* output lines stay under 100 columns */
#define PP_DEV_BUF	 (PP_IFNAMSIZ + 8)
#define PP_PROBE_NAMELEN 32

const char *pp_out_probe_name(const struct pp_out *o, __u32 probe, char *buf, size_t len)
{
	struct pp_sbuf f = {.buf = buf, .len = len};

	if (probe == PP_PROBE_TC_INGRESS)
		return "tc:ingress";
	if (probe == PP_PROBE_TC_EGRESS)
		return "tc:egress";
	if (probe == PP_PROBE_KMEM_FREE)
		return "tp:kmem:kmem_cache_free";
	if (probe == PP_PROBE_SEND)
		return "syscall:send";
	if (probe == PP_PROBE_READ)
		return "tp:sock:sock_recv_length";
	if (probe < o->nprobes && o->probe_names && o->probe_names[probe])
		return o->probe_names[probe];
	pp_sb_lit(&f, "probe#");
	pp_sb_u64(&f, probe);
	return buf;
}

const char *pp_out_tc_dir(__u32 probe)
{
	if (probe == PP_PROBE_TC_INGRESS)
		return "ingress";
	if (probe == PP_PROBE_TC_EGRESS)
		return "egress";
	return NULL;
}

__u32 pp_out_pkt_len(const struct pp_packet *p)
{
	return p->mark ? p->mark->hop.len : p->hops[0].len;
}

/* Where a socket's reader copies the data out: the skb's delivery to a process. */
static bool is_read_probe(const struct pp_out *o, __u32 probe)
{
	if (probe == PP_PROBE_READ)
		return true; /* the END that a read confirmed */
	return probe < o->nprobes && o->probe_names && pp_life_point_reads(o->probe_names[probe]);
}

/*
 * The last hop of skb R (any skb: NULL) at a read probe; else its END by
 * the reader's own free (PP_HOP_READ: the tracepoint backend, where a
 * linear datagram's copy fires nothing).
 */
const struct pp_hop *pp_out_read_hop(const struct pp_out *o, const struct pp_packet *p,
				     const struct pp_skbref *r)
{
	const struct pp_hop *read = NULL, *freed = NULL;
	size_t k = r ? (size_t)(r - p->skbs) : 0;

	for (size_t i = 0; i < p->nhops; i++) {
		if (r && pp_out_hop_skb(p, &p->hops[i]) != k)
			continue;
		if (is_read_probe(o, p->hops[i].probe))
			read = &p->hops[i];
		else if (p->hops[i].flags & PP_HOP_READ)
			freed = &p->hops[i];
	}
	return read ? read : freed;
}

size_t pp_out_skb_index(const struct pp_packet *p, __u64 skb, __u64 ts)
{
	return pp_skb_index(p->skbs, p->nskbs, skb, ts);
}

size_t pp_out_hop_skb(const struct pp_packet *p, const struct pp_hop *h)
{
	return pp_skb_index(p->skbs, p->nskbs, h->skb, h->ts);
}

size_t pp_out_parent_skb(const struct pp_packet *p, const struct pp_skbref *r)
{
	return r->parent ? pp_skb_index(p->skbs, p->nskbs, r->parent, r->parent_ts) : p->nskbs;
}

const struct pp_hop *pp_out_drop_end(const struct pp_packet *p)
{
	for (size_t i = 0; i < p->nhops; i++) {
		const struct pp_hop *h = &p->hops[i];

		if (h->type == PP_REC_END && h->fate == PP_FATE_DROPPED && h->reason == p->reason &&
		    h->location == p->location)
			return h;
	}
	return NULL;
}

__u32 pp_packet_gaps(const struct pp_packet *p)
{
	__u32 n = 0;

	for (size_t i = 0; i < p->nhops; i++)
		n += !!(p->hops[i].flags & PP_HOP_GAP);
	return n;
}

void pp_totals_add(struct pp_totals *s, const struct pp_packet *p)
{
	s->packets++;
	s->gaps += pp_packet_gaps(p) > 0;
	for (size_t k = 0; k < p->nskbs; k++)
		s->taps += p->skbs[k].tap;
	if (pp_fate_row(p->fate))
		s->fates[p->fate]++;
}

/* The hop's device, printable: its name, else "if<index>", else "-". */
static char *dev_put(char *dst, const struct pp_hop *h)
{
	size_t i, n = strnlen(h->ifname, sizeof(h->ifname));
	unsigned char c;

	if (!n && !h->ifindex) {
		*dst = '-';
		return dst + 1;
	}
	if (!n) {
		memcpy(dst, "if", 2);
		return pp_fmt_u64(dst + 2, h->ifindex);
	}
	for (i = 0; i < n; i++) {
		c = h->ifname[i];
		dst[i] = c < 0x20 || c >= 0x7f ? '?' : c;
	}
	return dst + n;
}

static const char *dev_name(const struct pp_hop *h, char buf[PP_DEV_BUF])
{
	*dev_put(buf, h) = '\0';
	return buf;
}

/*
 * ns as microseconds with 3 decimals, in integers (no float rounding),
 * after sign ('+' or none), right-aligned in width: "%*s" of
 * "%s%llu.%03llu". Stores at most PP_USEC_MAX bytes, padding included.
 */
#define PP_USEC_MAX (1 + PP_FMT_U64 + 4)

static char *usec(char *dst, __u64 ns, char sign, size_t width)
{
	__u64 us = ns / 1000;
	unsigned int frac = ns % 1000;

	dst = pp_fmt_pad(dst, !!sign + pp_fmt_ndigits(us) + 4, width);
	if (sign)
		*dst++ = sign;
	dst = pp_fmt_u64(dst, us);
	dst[0] = '.';
	dst[1] = (char)('0' + frac / 100);
	dst[2] = (char)('0' + frac / 10 % 10);
	dst[3] = (char)('0' + frac % 10);
	return dst + 4;
}

/*
 * "(marked at DEV DIR)", or "(marked at DEV DIR: reply to #ID)" for a reply
 * to a tracked packet's NAT rewrite (PP_HOP_REPLY), cut to fit at[];
 * returns its length.
 */
static size_t marked_at(const struct pp_out *o, const struct pp_hop *h, char *at, size_t len)
{
	struct pp_sbuf f = {.buf = at, .len = len};
	char dev[PP_DEV_BUF], pname[PP_PROBE_NAMELEN];
	const char *dir = pp_out_tc_dir(h->probe);

	pp_sb_lit(&f, "(marked at ");
	pp_sb_str(&f, dev_name(h, dev));
	pp_sb_lit(&f, " ");
	pp_sb_str(&f, dir ? dir : pp_out_probe_name(o, h->probe, pname, sizeof(pname)));
	if (h->flags & PP_HOP_REPLY) {
		pp_sb_lit(&f, ": reply to #");
		pp_sb_u64(&f, h->location);
	}
	pp_sb_lit(&f, ")");
	return f.pos < len ? f.pos : len - 1;
}

/* "#ID HH:MM:SS.uuuuuu len N": the start of every packet's block. */
static size_t header_start(const struct pp_out *o, const struct pp_packet *p, char *buf, size_t len)
{
	struct pp_sbuf f = {.buf = buf, .len = len};
	char hms[PP_HMS_LEN];

	pp_wallclock_hms(p->hops[0].ts + (__u64)o->real_off, hms);
	pp_sb_lit(&f, "#");
	pp_sb_u64(&f, p->id);
	pp_sb_lit(&f, " ");
	pp_sb_str(&f, hms);
	pp_sb_lit(&f, " len ");
	pp_sb_u64(&f, pp_out_pkt_len(p));
	return f.pos < len ? f.pos : len - 1;
}

/*
 * "sent by COMM (pid N)", or "for COMM (pid N)" for a reply, and " in
 * container NAME" or " in unit NAME" where known: the process that held a
 * scoped packet's socket, if known; returns its length (0: none).
 */
static size_t owner_str(const struct pp_packet *p, char *buf, size_t len)
{
	char comm[sizeof(p->owner_comm)];
	size_t n = strnlen(p->owner_comm, sizeof(p->owner_comm) - 1);
	int w;

	if (!p->owner_pid || !p->mark)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = p->owner_comm[i];

		comm[i] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
	}
	comm[n] = '\0';
	w = snprintf(buf, len, "%s %s (pid %u)%s%s",
		     p->mark->hop.probe == PP_PROBE_TC_INGRESS ? "for" : "sent by", comm,
		     p->owner_pid,
		     p->owner_kind == PP_PLACE_CONTAINER ? " in container "
		     : p->owner_kind == PP_PLACE_UNIT	 ? " in unit "
							 : "",
		     p->owner_kind ? p->owner_place : "");
	return w < 0 ? 0 : (size_t)w < len ? (size_t)w : len - 1;
}

/* A space, or a new indented line if LEN more bytes would pass the line's end. */
static size_t text_sep(struct pp_wbuf *w, size_t col, size_t len)
{
	if (col + 1 + len > PP_LINE_MAX) {
		pp_wb_lit(w, "\n  ");
		return 2;
	}
	pp_wb_putc(w, ' ');
	return col + 1;
}

/*
 * The header: start, the packet as marked, where. A long IPv6 summary takes
 * a line of its own, and so may where it was marked: the start stays whole.
 */
static void text_header(const struct pp_out *o, struct pp_wbuf *w, const struct pp_packet *p)
{
	char start[64], sum[384], at[96], owner[64 + PP_SOCK_PLACELEN];
	size_t col = header_start(o, p, start, sizeof(start)), n, at_len, owner_len;

	pp_wb_write(w, start, col);
	if (!p->mark) {
		pp_wb_lit(w, " (packet bytes unknown)\n");
		return;
	}
	n = pp_pkt_format_frame(p->mark->data, p->mark->cap_len, sum, sizeof(sum));
	n = n < sizeof(sum) ? n : sizeof(sum) - 1;
	at_len = marked_at(o, &p->mark->hop, at, sizeof(at));
	col = text_sep(w, col, n) + n;
	pp_wb_write(w, sum, n);
	col = text_sep(w, col, at_len) + at_len;
	pp_wb_write(w, at, at_len);
	owner_len = owner_str(p, owner, sizeof(owner));
	if (owner_len) {
		text_sep(w, col, owner_len);
		pp_wb_write(w, owner, owner_len);
	}
	pp_wb_putc(w, '\n');
}

/*
 * Room for a hop line before the probe name: "  %11s %9s %10s %-15s %3u "
 * takes at most 86 bytes (times of 21 and 22 bytes, a 16-byte device, a
 * 10-digit CPU); pp_fmt_pad() may store 16 bytes from where the CPU's
 * field starts, at most 75.
 */
#define PP_HOP_FIXED 96

static void wb_u64(struct pp_wbuf *w, __u64 v)
{
	pp_wb_done(w, pp_fmt_u64(pp_wb_room(w, PP_FMT_U64), v));
}

static void wb_str(struct pp_wbuf *w, const char *s)
{
	pp_wb_write(w, s, strlen(s));
}

/*
 * After a copy's hop: " [copy K]"; where it joined: " [copy K of J]" (J: 0
 * for the first skb, the original); a tap's: " [tap copy K]". Hops of the
 * first skb have none.
 */
static void text_copy_tag(struct pp_wbuf *w, const struct pp_packet *p, const struct pp_hop *h)
{
	size_t k = pp_out_hop_skb(p, h), j;

	if (!k || k >= p->nskbs)
		return;
	if (p->skbs[k].tap)
		pp_wb_lit(w, " [tap copy ");
	else
		pp_wb_lit(w, " [copy ");
	wb_u64(w, k);
	if (h->type == PP_REC_COPY) {
		j = pp_out_parent_skb(p, &p->skbs[k]);
		pp_wb_lit(w, " of ");
		if (j < p->nskbs)
			wb_u64(w, j);
		else
			pp_wb_lit(w, "?");
	}
	pp_wb_putc(w, ']');
}

#define PP_STACK_INDENT 53 /* the probe name's column, less "at " */

/* --stack: a line per frame under the hop, "at FRAME" in the name's column. */
static void text_stack(const struct pp_out *o, struct pp_wbuf *w, const struct pp_hop *h)
{
	const char *frames[PP_STACK_DEPTH];
	size_t n = h->stack && o->stack
			   ? o->stack(h->stack - 1, frames, PP_STACK_DEPTH, o->stack_arg)
			   : 0;

	for (size_t i = 0; i < n; i++) {
		char *p = pp_wb_room(w, PP_STACK_INDENT);

		memset(p, ' ', PP_STACK_INDENT);
		pp_wb_done(w, p + PP_STACK_INDENT);
		pp_wb_lit(w, "at ");
		pp_wb_write(w, frames[i], strlen(frames[i]));
		pp_wb_putc(w, '\n');
	}
}

/*
 * "encap vxlan 42 via u1, ", "decap geneve 7, ", "encap gre key 5 via g1",
 * "decap ipip": before the flow, if any.
 */
static void text_tunnel(struct pp_wbuf *w, const struct pp_hop_change *c, const struct pp_hop *h)
{
	const char *id = pp_tunnel_id_name(c->tunnel, c->key);

	wb_str(w, c->kind == PP_CHANGE_ENCAP ? "encap " : "decap ");
	wb_str(w, pp_tunnel_name(c->tunnel));
	if (*id) {
		if (c->tunnel == PP_TUNNEL_GRE)
			pp_wb_lit(w, " key");
		pp_wb_putc(w, ' ');
		wb_u64(w, c->vni);
	}
	if (c->kind == PP_CHANGE_ENCAP && h->ifname[0]) {
		pp_wb_lit(w, " via ");
		pp_wb_write(w, h->ifname, strnlen(h->ifname, sizeof(h->ifname)));
	}
	if (c->has_now)
		pp_wb_lit(w, ", ");
}

/*
 * Under the hop, "now 198.18.0.1.40312 > 198.18.0.2.8000": its headers
 * changed since the mark (NAT); "encap vxlan 42 via u1, now ..." where an
 * overlay wrapped the packet as marked, "decap vxlan 42" where it came out.
 * In the probe name's column, less "now ".
 */
static void text_now(struct pp_wbuf *w, const struct pp_packet *p, const struct pp_hop *h)
{
	char flow[2 * INET6_ADDRSTRLEN + 32], *at;
	struct pp_hop_change c;

	pp_out_hop_change(p, h, &c);
	if (c.kind == PP_CHANGE_NONE)
		return;
	at = pp_wb_room(w, PP_STACK_INDENT - 1);
	memset(at, ' ', PP_STACK_INDENT - 1);
	pp_wb_done(w, at + PP_STACK_INDENT - 1);
	if (c.kind != PP_CHANGE_NOW)
		text_tunnel(w, &c, h);
	if (c.has_now) {
		pp_wb_lit(w, "now ");
		/* always fits: two addresses, two ports */
		pp_pkt_format_flow(&c.now, flow, sizeof(flow));
		pp_wb_write(w, flow, strlen(flow));
	}
	pp_wb_putc(w, '\n');
}

/* " to DEV": where verdict hop V's XDP_REDIRECT sent its frame, where that is known. */
static void text_redirect(const struct pp_out *o, struct pp_wbuf *w, const struct pp_packet *p,
			  const struct pp_hop *v)
{
	const struct pp_hop *to = pp_verdict_redirect(p, v);
	char buf[96];

	if (!to)
		return;
	pp_out_redirect_str(o, to, buf, sizeof(buf));
	pp_wb_putc(w, ' ');
	wb_str(w, buf);
}

/* "  %11s %9s %10s %-15s %3u %s\n", without a printf per line. */
static void text_hop(const struct pp_out *o, struct pp_wbuf *w, const struct pp_packet *pk,
		     const struct pp_hop *h, __u64 t0, __u64 prev)
{
	char pname[PP_PROBE_NAMELEN], nsbuf[PP_FMT_U64 + 1], *p, *dev;
	const char *name = pp_out_probe_name(o, h->probe, pname, sizeof(pname));
	const char *ns = pp_out_netns(o, h->netns, nsbuf, sizeof(nsbuf));
	size_t nslen = strlen(ns);

	/* A name longer than the column pushes the rest of the line right. */
	p = pp_wb_room(w, PP_HOP_FIXED + nslen);
	p[0] = ' ';
	p[1] = ' ';
	p = usec(p + 2, h->ts - t0, 0, 11);
	*p++ = ' ';
	p = usec(p, h->ts - prev, '+', 9);
	*p++ = ' ';
	p = pp_fmt_pad(p, nslen, 10);
	memcpy(p, ns, nslen);
	p += nslen;
	*p++ = ' ';
	dev = p;
	p = dev_put(p, h);
	p = pp_fmt_pad(p, (size_t)(p - dev), 15);
	*p++ = ' ';
	p = pp_fmt_u64_right(p, h->cpu, 3);
	*p++ = ' ';
	pp_wb_done(w, p);
	pp_wb_write(w, name, strlen(name));
	if (h->flags & PP_HOP_VERDICT) {
		char word[PP_VERDICT_LEN];

		pp_wb_putc(w, ' ');
		wb_str(w, pp_verdict_word(h->reason, h->flags & PP_HOP_XDP, word));
		text_redirect(o, w, pk, h);
	}
	if (pk->nskbs > 1)
		text_copy_tag(w, pk, h);
	pp_wb_putc(w, '\n');
	text_now(w, pk, h);
	text_stack(o, w, h);
}

/*
 * "consumed", "dropped: REASON at FUNC", "merged into another skb", ...:
 * fate.h's words, the drop from path_line.h's one builder.
 */
static void text_fate_of(const struct pp_out *o, struct pp_wbuf *w, enum pp_fate fate, __u32 reason,
			 __u64 location)
{
	char buf[256], *s;
	size_t n;

	s = pp_line_fate_str(o, fate, reason, location, PP_LINE_TEXT, buf, sizeof(buf), &n);
	pp_wb_write(w, s, n);
	if (s != buf)
		free(s);
}

/* "  N hop(s) of this packet was/were lost (ring buffer full)" */
static void text_lost(struct pp_wbuf *w, __u32 lost)
{
	pp_wb_lit(w, "  ");
	wb_u64(w, lost);
	if (lost == 1)
		pp_wb_lit(w, " hop of this packet was lost (ring buffer full)\n");
	else
		pp_wb_lit(w, " hops of this packet were lost (ring buffer full)\n");
}

/*
 * "  hops not seen between FUNC and FUNC": the packet left the device whose
 * qdisc held it with no hop recorded there (PP_HOP_GAP on the later hop).
 */
static void text_gaps(const struct pp_out *o, struct pp_wbuf *w, const struct pp_packet *p)
{
	char a[PP_PROBE_NAMELEN], b[PP_PROBE_NAMELEN];

	for (size_t i = 1; i < p->nhops; i++) {
		const struct pp_hop *h = &p->hops[i];

		if (!(h->flags & PP_HOP_GAP))
			continue;
		pp_wb_lit(w, "  hops not seen between ");
		wb_str(w, pp_out_probe_name(o, p->hops[i - 1].probe, a, sizeof(a)));
		pp_wb_lit(w, " and ");
		wb_str(w, pp_out_probe_name(o, h->probe, b, sizeof(b)));
		pp_wb_lit(w, " (it left the queue's device unrecorded)\n");
	}
}

/*
 * ": last seen at FUNC on DEV": where a packet whose end went unseen was;
 * no " on DEV" where that hop's skb had no device (a received TCP segment
 * at tp:tcp:tcp_probe: tcp_v4_rcv() cleared skb->dev), rather than "on -".
 */
static void text_seen_last(const struct pp_out *o, struct pp_wbuf *w, const struct pp_packet *p)
{
	const struct pp_hop *h = &p->hops[p->nhops - 1];
	char pname[PP_PROBE_NAMELEN], dev[PP_DEV_BUF];

	pp_wb_lit(w, ": last seen at ");
	wb_str(w, pp_out_probe_name(o, h->probe, pname, sizeof(pname)));
	if (!h->ifname[0] && !h->ifindex)
		return;
	pp_wb_lit(w, " on ");
	wb_str(w, dev_name(h, dev));
}

/* COMM, with anything unprintable as '?'. */
static void text_comm(struct pp_wbuf *w, const struct pp_hop *h)
{
	size_t n = strnlen(h->comm, sizeof(h->comm));
	char *d = pp_wb_room(w, sizeof(h->comm));

	for (size_t i = 0; i < n; i++) {
		unsigned char c = h->comm[i];

		*d++ = c < 0x20 || c >= 0x7f ? '?' : c;
	}
	pp_wb_done(w, d);
}

/*
 * " [tap: COMM]" after a packet socket's copy, COMM the process seen
 * reading it; " [tap]" when none was (tcpdump's ring, filled in softirq,
 * has no reader to see).
 */
static void text_tap(const struct pp_out *o, struct pp_wbuf *w, const struct pp_packet *p,
		     const struct pp_skbref *r)
{
	const struct pp_hop *h = pp_out_read_hop(o, p, r);

	if (!h || !h->comm[0]) {
		pp_wb_lit(w, " [tap]");
		return;
	}
	pp_wb_lit(w, " [tap: ");
	text_comm(w, h);
	pp_wb_putc(w, ']');
}

/* "; read by COMM (pid N) at T us": the process the data was delivered to. */
static void text_read(const struct pp_out *o, struct pp_wbuf *w, const struct pp_packet *p,
		      const struct pp_skbref *r)
{
	const struct pp_hop *h = pp_out_read_hop(o, p, r);

	if (!h)
		return;
	pp_wb_lit(w, "; read by ");
	text_comm(w, h);
	pp_wb_lit(w, " (pid ");
	wb_u64(w, h->pid);
	pp_wb_lit(w, ") at ");
	pp_wb_done(w, usec(pp_wb_room(w, PP_USEC_MAX), h->ts - p->hops[0].ts, 0, 0));
	pp_wb_lit(w, " us");
}

/* One line per skb of a packet with copies: "  copy K of J: FATE", a tap's "copy K of J [tap]:
 * FATE". */
static void text_skb_fates(const struct pp_out *o, struct pp_wbuf *w, const struct pp_packet *p)
{
	for (size_t k = 0; k < p->nskbs; k++) {
		const struct pp_skbref *r = &p->skbs[k];
		size_t j = pp_out_parent_skb(p, r);

		if (!k) {
			pp_wb_lit(w, "    original: ");
		} else {
			pp_wb_lit(w, "    copy ");
			wb_u64(w, k);
			if (j < p->nskbs) {
				pp_wb_lit(w, " of ");
				wb_u64(w, j);
			}
			if (r->tap)
				text_tap(o, w, p, r);
			pp_wb_lit(w, ": ");
		}
		text_fate_of(o, w, r->fate, r->reason, r->location);
		if (!k && r->tap)
			text_tap(o, w, p, r);
		text_read(o, w, p, r);
		pp_wb_putc(w, '\n');
	}
}

/*
 * "  why: HINT" under the fate line of a drop, or of a packet that went on
 * past XDP, cut at spaces into lines under 100 columns, the ones after the
 * first indented as far as the hint.
 */
static void text_why(const struct pp_out *o, struct pp_wbuf *w, const struct pp_packet *p)
{
	static const char lead[] = "  why: ";
	const size_t indent = sizeof(lead) - 1, room = PP_LINE_MAX - indent;
	char hint[512];
	size_t n = p->fate == PP_FATE_DROPPED ? pp_out_drop_hint(o, p, hint, sizeof(hint))
					      : pp_out_xdp_hint(o, p, hint, sizeof(hint)),
	       at = 0, cut;

	if (!n)
		return;
	n = n < sizeof(hint) ? n : sizeof(hint) - 1;
	pp_wb_lit(w, "  why: ");
	while (n - at > room) {
		for (cut = at + room; cut > at && hint[cut] != ' '; cut--)
			;
		if (cut == at) /* one word longer than a line: cut it */
			cut = at + room;
		pp_wb_write(w, hint + at, cut - at);
		pp_wb_putc(w, '\n');
		pp_wb_write(w, "                ", indent);
		at = cut + (hint[cut] == ' ');
	}
	pp_wb_write(w, hint + at, n - at);
	pp_wb_putc(w, '\n');
}

/*
 * The fate line's note: why an end is not seen; or, when every skb ended as
 * a tap's (path.c, decide_fate()), that the fate is a packet socket's: a
 * received frame that no protocol handler takes goes, as itself, to the last
 * packet socket listening (__netif_receive_skb_core() hands the last ptype
 * the skb unshared), which queued it to tcpdump, copied it to its ring, or
 * dropped it. Each skb ended there: no copy whose packet went unseen.
 */
static void text_fate_note(struct pp_wbuf *w, const struct pp_packet *p)
{
	if (p->fate == PP_FATE_UNSEEN)
		pp_wb_lit(w, "  (no probe saw its free within the packet timeout)\n");
	if (p->by_tap)
		pp_wb_lit(w, "  (it went to a tap alone, a packet socket such as tcpdump's: no "
			     "protocol took it)\n");
}

/*
 * " (BPF program NAME#ID returned VERDICT)": --verdicts saw which program
 * dropped it, or sent it back or redirected it, a frame before any skb.
 */
static void text_judge(const struct pp_out *o, struct pp_wbuf *w, const struct pp_packet *p)
{
	char buf[160];
	const char *judge = pp_out_drop_judge(o, p, buf, sizeof(buf));

	if (!judge)
		return;
	pp_wb_lit(w, " (BPF program ");
	wb_str(w, judge);
	pp_wb_putc(w, ')');
}

static void text_fate(const struct pp_out *o, struct pp_wbuf *w, const struct pp_packet *p)
{
	__u64 span = p->hops[p->nhops - 1].ts - p->hops[0].ts;

	pp_wb_lit(w, "  ");
	text_fate_of(o, w, p->fate, p->reason, p->location);
	if (p->fate == PP_FATE_DROPPED || p->fate == PP_FATE_XDP)
		text_judge(o, w, p);
	if (p->fate == PP_FATE_UNSEEN)
		text_seen_last(o, w, p);
	pp_wb_lit(w, " after ");
	pp_wb_done(w, usec(pp_wb_room(w, PP_USEC_MAX), span, 0, 0));
	pp_wb_lit(w, " us");
	text_read(o, w, p, NULL);
	pp_wb_putc(w, '\n');
	text_fate_note(w, p);
	if (p->fate == PP_FATE_DROPPED || p->fate == PP_FATE_XDP)
		text_why(o, w, p);
	if (p->nskbs > 1)
		text_skb_fates(o, w, p);
	if (!p->mark)
		pp_wb_lit(w, "  the mark record of this packet was lost (ring buffer full)\n");
	if (p->lost)
		text_lost(w, p->lost);
	text_gaps(o, w, p);
}

/* The hop lines' columns, once at the top of the text output. */
void pp_out_text_header(const struct pp_out *o)
{
	fprintf(o->f, "  %11s %9s %10s %-15s %3s %s\n", "time(us)", "delta", "netns", "device",
		"cpu", "function or tracepoint");
}

/* The whole block is built in w and leaves in as few fwrite()s as it fills. */
void pp_out_text(const struct pp_out *o, const struct pp_packet *p)
{
	__u64 t0 = p->hops[0].ts, prev = t0;
	struct pp_wbuf w;
	size_t i;

	pp_wb_init(&w, o->f);
	pp_out_ns_legend(o, &w, p);
	text_header(o, &w, p);
	for (i = 0; i < p->nhops; i++) {
		/* A frame's END (and COPY) repeat its verdict's hop (PP_HOP_FRAME): left out. */
		if ((p->hops[i].flags & (PP_HOP_FRAME | PP_HOP_VERDICT)) == PP_HOP_FRAME)
			continue;
		text_hop(o, &w, p, &p->hops[i], t0, prev);
		prev = p->hops[i].ts;
	}
	text_fate(o, &w, p);
	pp_wb_putc(&w, '\n');
	pp_wb_flush(&w);
}

/* "pktpath: N packets (N consumed, ..., N end not seen), ...": the fates in fate.c's row order. */
void pp_out_totals_text(const struct pp_out *o, const struct pp_totals *s)
{
	const char *sep = "";

	fprintf(o->f, "pktpath: %llu packets (", (unsigned long long)s->packets);
	for (size_t i = 0; i < pp_nfates; i++) {
		const struct pp_fate_row *r = &pp_fates[i];
		__u64 n = s->fates[r->fate];

		if (!n && (r->flags & PP_FATE_F_TEXT_IF_ANY))
			continue;
		fprintf(o->f, "%s%llu %s", sep, (unsigned long long)n, r->total);
		sep = ", ";
	}
	fputs("), ", o->f);
	if (s->taps)
		fprintf(o->f, "%llu tap copies, ", (unsigned long long)s->taps);
	fprintf(o->f, "%llu records lost", (unsigned long long)s->lost);
	if (s->gaps)
		fprintf(o->f, ", %llu packets with hops not seen", (unsigned long long)s->gaps);
	if (s->map_full)
		fprintf(o->f, ", %llu packets untracked (skb_map full)",
			(unsigned long long)s->map_full);
	if (s->skipped)
		fprintf(o->f, ", %llu probe runs skipped by the kernel",
			(unsigned long long)s->skipped);
	if (s->sample_period > 1)
		fprintf(o->f, ", sampled (--max-rate): down to 1 matching packet in %llu",
			(unsigned long long)s->sample_period);
	else if (s->sample_period)
		fputs(", every matching packet (within --max-rate)", o->f);
	fputc('\n', o->f);
}

/* The default format, its row for output_formats.c. */
const struct pp_out_ops pp_out_format_text = {
	.name = "text",
	.begin = pp_out_text_header, /* the hop lines' columns */
	.packet = pp_out_text,
	.summary = pp_out_summary_text,
	.totals = pp_out_totals_text,
};
