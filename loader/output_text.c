// SPDX-License-Identifier: GPL-2.0
/*
 * Text output, one block per packet:
 *
 *   #7 len 98 icmp 198.18.0.1 > 198.18.1.2 echo request id 4242 seq 1 (marked at veth-a egress)
 *           0.000    +0.000 4026531840 veth-a            1 tc:egress
 *           1.204    +1.204 4026531840 veth-a            1 veth_xmit
 *          45.210   +44.006 4026532001 veth-b            0 tp:skb:consume_skb
 *     consumed after 45.210 us
 *
 * (time since the first hop and since the previous one in us, netns inode,
 * device, CPU, probe), then a blank line; and the helpers both formats
 * share. Device names are the kernel's bytes: anything unprintable becomes
 * '?', so a name cannot move the terminal.
 */
#include <stdio.h>
#include <string.h>
#include "output.h"
#include "pkt_decode.h"

#define PP_LINE_MAX	 99 /* output lines stay under 100 columns */
#define PP_DEV_BUF	 (PP_IFNAMSIZ + 8)
#define PP_PROBE_NAMELEN 32

const char *pp_out_probe_name(const struct pp_out *o, __u32 probe, char *buf, size_t len)
{
	if (probe == PP_PROBE_TC_INGRESS)
		return "tc:ingress";
	if (probe == PP_PROBE_TC_EGRESS)
		return "tc:egress";
	if (probe < o->nprobes && o->probe_names && o->probe_names[probe])
		return o->probe_names[probe];
	snprintf(buf, len, "probe#%u", probe);
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

void pp_summary_add(struct pp_summary *s, const struct pp_packet *p)
{
	s->packets++;
	if (p->fate == PP_FATE_CONSUMED)
		s->consumed++;
	else if (p->fate == PP_FATE_DROPPED)
		s->dropped++;
	else if (p->fate == PP_FATE_TIMEOUT)
		s->timeout++;
}

/* The hop's device, printable: its name, else "if<index>", else "-". */
static const char *dev_name(const struct pp_hop *h, char buf[PP_DEV_BUF])
{
	size_t i, n = strnlen(h->ifname, sizeof(h->ifname));
	unsigned char c;

	if (!n && !h->ifindex)
		return "-";
	if (!n) {
		snprintf(buf, PP_DEV_BUF, "if%u", h->ifindex);
		return buf;
	}
	for (i = 0; i < n; i++) {
		c = h->ifname[i];
		buf[i] = c < 0x20 || c >= 0x7f ? '?' : c;
	}
	buf[n] = '\0';
	return buf;
}

/* ns as microseconds with 3 decimals, in integers: no float rounding. */
static const char *usec(__u64 ns, const char *prefix, char buf[32])
{
	snprintf(buf, 32, "%s%llu.%03llu", prefix, (unsigned long long)(ns / 1000),
		 (unsigned long long)(ns % 1000));
	return buf;
}

static void text_header(const struct pp_out *o, const struct pp_packet *p)
{
	char line[256], dev[PP_DEV_BUF], pname[PP_PROBE_NAMELEN], at[96];
	struct pp_pkt_summary s;
	const char *dir;
	int n;

	n = snprintf(line, sizeof(line), "#%llu len %u ", (unsigned long long)p->id,
		     pp_out_pkt_len(p));
	if (!p->mark) {
		fprintf(o->f, "%s(packet bytes unknown)\n", line);
		return;
	}
	pp_pkt_decode(p->mark->data, p->mark->cap_len, &s);
	pp_pkt_format(&s, line + n, sizeof(line) - n);
	dir = pp_out_tc_dir(p->mark->hop.probe);
	snprintf(at, sizeof(at), "(marked at %s %s)", dev_name(&p->mark->hop, dev),
		 dir ? dir : pp_out_probe_name(o, p->mark->hop.probe, pname, sizeof(pname)));
	/* A long IPv6 summary pushes where it was marked to a line of its own. */
	if (strlen(line) + 1 + strlen(at) > PP_LINE_MAX)
		fprintf(o->f, "%s\n  %s\n", line, at);
	else
		fprintf(o->f, "%s %s\n", line, at);
}

static void text_hop(const struct pp_out *o, const struct pp_hop *h, __u64 t0, __u64 prev)
{
	char t[32], d[32], ns[16], dev[PP_DEV_BUF], pname[PP_PROBE_NAMELEN];

	snprintf(ns, sizeof(ns), "%u", h->netns);
	fprintf(o->f, "  %11s %9s %10s %-15s %3u %s\n", usec(h->ts - t0, "", t),
		usec(h->ts - prev, "+", d), h->netns ? ns : "-", dev_name(h, dev), h->cpu,
		pp_out_probe_name(o, h->probe, pname, sizeof(pname)));
}

static void text_drop(const struct pp_out *o, const struct pp_packet *p)
{
	const char *reason = o->reason_name ? o->reason_name(p->reason, o->reason_arg) : NULL;
	const char *sym = NULL;

	if (reason)
		fprintf(o->f, "  dropped: %s", reason);
	else
		fprintf(o->f, "  dropped: reason %u", p->reason);
	if (p->location && o->sym_name)
		sym = o->sym_name(p->location, o->sym_arg);
	if (sym)
		fprintf(o->f, " at %s", sym);
	else if (p->location)
		fprintf(o->f, " at 0x%llx", (unsigned long long)p->location);
}

static void text_fate(const struct pp_out *o, const struct pp_packet *p)
{
	__u64 span = p->hops[p->nhops - 1].ts - p->hops[0].ts;
	char t[32];

	if (p->fate == PP_FATE_CONSUMED)
		fprintf(o->f, "  consumed");
	else if (p->fate == PP_FATE_DROPPED)
		text_drop(o, p);
	else if (p->fate == PP_FATE_TIMEOUT)
		fprintf(o->f, "  timed out");
	else
		fprintf(o->f, "  fate unknown");
	fprintf(o->f, " after %s us\n", usec(span, "", t));
	if (!p->mark)
		fprintf(o->f, "  the mark record of this packet was lost (ring buffer full)\n");
	if (p->lost)
		fprintf(o->f, "  %u hop%s of this packet %s lost (ring buffer full)\n", p->lost,
			p->lost == 1 ? "" : "s", p->lost == 1 ? "was" : "were");
}

/* The hop lines' columns, once at the top of the text output. */
void pp_out_text_header(const struct pp_out *o)
{
	fprintf(o->f, "  %11s %9s %10s %-15s %3s %s\n", "time(us)", "delta", "netns", "device",
		"cpu", "function or tracepoint");
}

void pp_out_text(const struct pp_out *o, const struct pp_packet *p)
{
	__u64 t0 = p->hops[0].ts, prev = t0;
	size_t i;

	text_header(o, p);
	for (i = 0; i < p->nhops; i++) {
		text_hop(o, &p->hops[i], t0, prev);
		prev = p->hops[i].ts;
	}
	text_fate(o, p);
	fputc('\n', o->f);
}

void pp_out_summary_text(const struct pp_out *o, const struct pp_summary *s)
{
	fprintf(o->f, "pktpath: %llu packets (%llu consumed, %llu dropped, %llu timed out), ",
		(unsigned long long)s->packets, (unsigned long long)s->consumed,
		(unsigned long long)s->dropped, (unsigned long long)s->timeout);
	fprintf(o->f, "%llu records lost", (unsigned long long)s->lost);
	if (s->map_full)
		fprintf(o->f, ", %llu packets untracked (skb_map full)",
			(unsigned long long)s->map_full);
	fputc('\n', o->f);
}
