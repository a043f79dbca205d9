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
#include "output/verdict.h"
#include "output/drop_hint.h"
#include "base/fmt.h"
#include "output/hop_change.h"
#include "names/netns_names.h"
#include "output/output.h"
#include "paths/pkt_decode.h"
#include "output/output_summary.h"
#include "paths/pkt_key.h"
#include "filter/tunnel.h"

#define PP_PROBE_NAMELEN 32

/* An object being written: whether the next key needs a comma. */
struct jobj {
	struct pp_wbuf *w;
	bool first;
};

/*
 * A key as the two arguments the j*() writers take: the literal with its
 * quotes and colon joined to it when compiling, and that length, so that
 * writing a key is one copy of known length.
 */
#define K(lit) "\"" lit "\":", sizeof(lit) + 2

/* A byte a string cannot hold as it is; NUL, where a string ends, too. */
static bool special(unsigned char c)
{
	return c < 0x20 || c >= 0x7f || c == '"' || c == '\\';
}

static void json_esc(struct pp_wbuf *w, unsigned char c)
{
	static const char short_esc[] = {['"'] = '"',  ['\\'] = '\\', ['\b'] = 'b', ['\f'] = 'f',
					 ['\n'] = 'n', ['\r'] = 'r',  ['\t'] = 't'};
	static const char hex[] = "0123456789abcdef";
	char *p = pp_wb_room(w, 6);

	p[0] = '\\';
	if (c < sizeof(short_esc) && short_esc[c]) {
		p[1] = short_esc[c];
		pp_wb_done(w, p + 2);
		return;
	}
	memcpy(p + 1, "u00", 3);
	p[4] = hex[c >> 4];
	p[5] = hex[c & 0xf];
	pp_wb_done(w, p + 6);
}

#define ONES  (~0ULL / 255) /* 0x0101...01 */
#define HIGHS (ONES * 0x80)

/* The top bit of each zero byte of x; exact up to the first (a borrow only goes up). */
static __u64 zero_bytes(__u64 x)
{
	return (x - ONES) & ~x & HIGHS;
}

/*
 * special() for 8 bytes at once, as the top bit of each: below 0x20
 * (again exact up to the first), from 0x7f (no carry leaves a byte), '"',
 * '\\'. Flags past the first may be wrong; only the first is used.
 */
static __u64 special8(__u64 x)
{
	__u64 ctl = (x - ONES * 0x20) & ~x, del = ((x & ~HIGHS) + ONES) | x;

	return ((ctl | del) & HIGHS) | zero_bytes(x ^ (ONES * '"')) | zero_bytes(x ^ (ONES * '\\'));
}

/*
 * The first byte of s[i..n) that needs escaping, or n: a word at a time
 * (the last word overlapping the one before), a byte at a time under 8.
 * Words are read little-endian, so that the first byte is the lowest.
 */
static size_t plain_end(const char *s, size_t i, size_t n)
{
	const bool words = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
	size_t start = i;
	__u64 x, m;

	for (; words && n - i >= 8; i += 8) {
		memcpy(&x, s + i, 8);
		m = special8(x);
		if (m)
			return i + __builtin_ctzll(m) / 8;
	}
	if (words && i < n && n >= start + 8) {
		/* s[n - 8 .. i) passed above: no flag of theirs, no wrong one above. */
		memcpy(&x, s + n - 8, 8);
		m = special8(x);
		return m ? n - 8 + __builtin_ctzll(m) / 8 : n;
	}
	while (i < n && !special((unsigned char)s[i]))
		i++;
	return i;
}

/* s[0..n) in quotes, escaped: plain runs in one copy each. */
static void json_esc_str(struct pp_wbuf *w, const char *s, size_t n)
{
	size_t i = 0, end;

	pp_wb_putc(w, '"');
	for (;;) {
		end = plain_end(s, i, n);
		pp_wb_write(w, s + i, end - i);
		if (end == n)
			break;
		json_esc(w, (unsigned char)s[end]);
		i = end + 1;
	}
	pp_wb_putc(w, '"');
}

/* A string of at most max bytes, ending early at a NUL. */
static void json_str(struct pp_wbuf *w, const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *p;

	/* Most strings need no escape: then one copy, quotes and all. */
	if (plain_end(s, 0, n) < n || n > PP_WBUF_SIZE - 2) {
		json_esc_str(w, s, n);
		return;
	}
	p = pp_wb_room(w, n + 2);
	*p = '"';
	memcpy(p + 1, s, n);
	p[n + 1] = '"';
	pp_wb_done(w, p + n + 2);
}

/*
 * A string in a char array whose size bytes can all be read (ifname, comm,
 * the summary's addresses): the scan for bytes to escape finds its NUL
 * too, no strnlen() first, and the copy is of a size known when compiling.
 */
static inline void json_arr(struct pp_wbuf *w, const char *s, size_t size)
{
	size_t n = plain_end(s, 0, size);
	char *p;

	if (n < size && s[n]) {
		json_esc_str(w, s, strnlen(s, size));
		return;
	}
	p = pp_wb_room(w, size + 2);
	*p = '"';
	memcpy(p + 1, s, size);
	p[n + 1] = '"';
	pp_wb_done(w, p + n + 2);
}

/*
 * The key (from K()) with the comma before it if it needs one; returns
 * where its value goes, with room for more bytes of it.
 */
static char *jkey(struct jobj *o, const char *key, size_t len, size_t more)
{
	char *p = pp_wb_room(o->w, 1 + len + more);

	if (!o->first)
		*p++ = ',';
	o->first = false;
	memcpy(p, key, len);
	return p + len;
}

static void jnum(struct jobj *o, const char *key, size_t len, __u64 v)
{
	pp_wb_done(o->w, pp_fmt_u64(jkey(o, key, len, PP_FMT_U64), v));
}

static void jstr(struct jobj *o, const char *key, size_t len, const char *s, size_t max)
{
	pp_wb_done(o->w, jkey(o, key, len, 0));
	json_str(o->w, s, max);
}

/* A char array of size bytes: see json_arr(). */
static inline void jarr(struct jobj *o, const char *key, size_t len, const char *s, size_t size)
{
	pp_wb_done(o->w, jkey(o, key, len, 0));
	json_arr(o->w, s, size);
}

static void jbool(struct jobj *o, const char *key, size_t len, bool v)
{
	char *p = jkey(o, key, len, 5);

	memcpy(p, v ? "true" : "false", v ? 4 : 5);
	pp_wb_done(o->w, p + (v ? 4 : 5));
}

static struct jobj jopen(struct jobj *parent, const char *key, size_t len)
{
	char *p = jkey(parent, key, len, 1);

	*p = '{';
	pp_wb_done(parent->w, p + 1);
	return (struct jobj){.w = parent->w, .first = true};
}

static void jclose(struct jobj *o)
{
	pp_wb_putc(o->w, '}');
}

static void json_frag(struct jobj *pkt, const struct pp_pkt_summary *s)
{
	struct jobj o = jopen(pkt, K("frag"));

	jnum(&o, K("id"), s->frag_id);
	jnum(&o, K("off"), s->frag_off);
	jbool(&o, K("more"), s->more_frags);
	jclose(&o);
}

static void json_l4(struct jobj *o, const struct pp_pkt_summary *s)
{
	char flags[9];

	if (s->has_ports) {
		jnum(o, K("sport"), s->sport);
		jnum(o, K("dport"), s->dport);
	}
	if (s->has_tcp) {
		jstr(o, K("tcp_flags"), pp_tcp_flags_str(s->tcp_flags, flags), sizeof(flags));
		jnum(o, K("tcp_seq"), s->tcp_seq);
		if (s->tcp_flags & PP_TCP_ACK)
			jnum(o, K("tcp_ack"), s->tcp_ack);
	}
	if (s->has_tcp_len)
		jnum(o, K("tcp_len"), s->tcp_len);
	if (s->has_icmp) {
		jnum(o, K("icmp_type"), s->icmp_type);
		jnum(o, K("icmp_code"), s->icmp_code);
	}
	if (s->has_echo) {
		jnum(o, K("icmp_id"), s->icmp_id);
		jnum(o, K("icmp_seq"), s->icmp_seq);
	}
}

/* The keys of one frame's headers (docs/json-schema.md, pkt). */
static void json_headers(struct jobj *o, const struct pp_pkt_summary *s)
{
	jarr(o, K("proto"), s->proto, sizeof(s->proto));
	if (s->src[0]) {
		jarr(o, K("src"), s->src, sizeof(s->src));
		jarr(o, K("dst"), s->dst, sizeof(s->dst));
	}
	if (s->ip_ver)
		jnum(o, K("ip_proto"), s->ip_proto);
	json_l4(o, s);
	if (s->has_arp)
		jnum(o, K("arp_op"), s->arp_op);
	if (s->is_frag)
		json_frag(o, s);
	if (s->nvlan)
		jnum(o, K("vlan"), s->vlan);
	if (s->nvlan > 1)
		jnum(o, K("vlan_inner"), s->vlan_inner);
	if (s->trunc)
		jstr(o, K("truncated"), s->trunc, 8);
}

/* "vni" (VXLAN, Geneve) or "key" (GRE with one): none for the others. */
static void json_tunnel_id(struct jobj *o, __u8 kind, bool key, __u32 id)
{
	const char *name = pp_tunnel_id_name(kind, key);

	if (!strcmp(name, "vni"))
		jnum(o, K("vni"), id);
	else if (*name)
		jnum(o, K("key"), id);
}

/* A tunnel's frame: its kind and VNI or GRE key, and the inner frame's headers. */
static void json_tunnel(struct jobj *o, const struct pp_pkt_summary *s, const __u8 *data,
			__u32 cap_len)
{
	struct pp_pkt_summary in;
	struct jobj inner;
	const char *kind = pp_tunnel_name(s->tunnel);

	if (!data || !pp_pkt_decode_inner(data, cap_len, s, &in))
		return;
	jstr(o, K("tunnel"), kind, strlen(kind));
	json_tunnel_id(o, s->tunnel, s->tunnel_key, s->vni);
	inner = jopen(o, K("inner"));
	json_headers(&inner, &in);
	jclose(&inner);
}

/* "pkt": the headers of S, decoded from DATA (NULL: no inner frame shown). */
static void json_summary(struct jobj *top, const struct pp_pkt_summary *s, const __u8 *data,
			 __u32 cap_len)
{
	struct jobj o = jopen(top, K("pkt"));

	json_headers(&o, s);
	json_tunnel(&o, s, data, cap_len);
	jclose(&o);
}

static void json_pkt(struct jobj *top, const struct pp_mark *m)
{
	struct pp_pkt_summary s;

	pp_pkt_decode(m->data, m->cap_len, &s);
	json_summary(top, &s, m->data, m->cap_len);
}

/* ifname and ifindex, each only when known. */
static void json_dev(struct jobj *o, const struct pp_hop *h)
{
	if (h->ifname[0])
		jarr(o, K("ifname"), h->ifname, sizeof(h->ifname));
	if (h->ifindex)
		jnum(o, K("ifindex"), h->ifindex);
}

static void json_marked_at(const struct pp_out *out, struct jobj *top, const struct pp_hop *h)
{
	struct jobj o = jopen(top, K("marked_at"));
	const char *dir = pp_out_tc_dir(h->probe);
	char pname[PP_PROBE_NAMELEN];

	json_dev(&o, h);
	if (dir)
		jstr(&o, K("dir"), dir, 8);
	else
		jstr(&o, K("func"), pp_out_probe_name(out, h->probe, pname, sizeof(pname)),
		     SIZE_MAX);
	if (h->flags & PP_HOP_REPLY)
		jnum(&o, K("reply_to"), h->location);
	if (h->sock_ino)
		jnum(&o, K("socket_inode"), h->sock_ino);
	jclose(&o);
}

/* "process":{...}: the process that held a scoped packet's socket, if known. */
static void json_process(struct jobj *top, const struct pp_packet *p)
{
	struct jobj o;

	if (!p->owner_pid)
		return;
	o = jopen(top, K("process"));
	jnum(&o, K("pid"), p->owner_pid);
	jarr(&o, K("comm"), p->owner_comm, sizeof(p->owner_comm));
	if (p->owner_kind == PP_PLACE_CONTAINER)
		jstr(&o, K("container"), p->owner_place, sizeof(p->owner_place));
	else if (p->owner_kind == PP_PLACE_UNIT)
		jstr(&o, K("unit"), p->owner_place, sizeof(p->owner_place));
	jclose(&o);
}

/* A kernel address, as a string: it does not survive a double in most readers. */
static void json_addr(struct jobj *o, const char *key, size_t klen, __u64 addr)
{
	char s[24];

	memcpy(s, "0x", 2);
	*pp_fmt_hex(s + 2, addr) = '\0';
	jstr(o, key, klen, s, sizeof(s));
}

/* --stack: "stack": [frame, ...], innermost first; left out if it is not known. */
static void json_stack(const struct pp_out *out, struct jobj *o, const struct pp_hop *h)
{
	const char *frames[PP_STACK_DEPTH];
	size_t n = h->stack && out->stack
			   ? out->stack(h->stack - 1, frames, PP_STACK_DEPTH, out->stack_arg)
			   : 0;
	char *at;

	if (!n)
		return;
	at = jkey(o, K("stack"), 1);
	*at = '[';
	pp_wb_done(o->w, at + 1);
	for (size_t i = 0; i < n; i++) {
		if (i)
			pp_wb_putc(o->w, ',');
		json_str(o->w, frames[i], SIZE_MAX);
	}
	pp_wb_putc(o->w, ']');
}

/* "netns_name", and "container" and "pod" where the namespace is one's (ns_label.c). */
static void json_netns_name(const struct pp_out *out, struct jobj *o, __u32 inode)
{
	const struct pp_ns_name *n =
		out->netns_name && inode ? out->netns_name(inode, out->netns_arg) : NULL;
	const struct pp_ctr *c;
	struct jobj sub;

	if (!n)
		return;
	c = &n->ctr;
	jstr(o, K("netns_name"), n->name, SIZE_MAX);
	if (!n->has_ctr)
		return;
	sub = jopen(o, K("container"));
	jstr(&sub, K("runtime"), pp_rt_name(c->rt), SIZE_MAX);
	jstr(&sub, K("id"), c->id, SIZE_MAX);
	if (c->name[0])
		jstr(&sub, K("name"), c->name, SIZE_MAX);
	if (c->sandbox)
		jbool(&sub, K("sandbox"), true);
	jclose(&sub);
	if (!c->pod[0])
		return;
	sub = jopen(o, K("pod"));
	jstr(&sub, K("name"), c->pod, SIZE_MAX);
	jstr(&sub, K("namespace"), c->pod_ns, SIZE_MAX);
	jclose(&sub);
}

/*
 * Its headers here, where they changed since the mark (NAT, an overlay),
 * and "encap" or "decap" with the tunnel where an overlay's header was
 * pushed or pulled.
 */
static void json_hop_change(struct jobj *o, const struct pp_packet *p, const struct pp_hop *h)
{
	const struct pp_hop_bytes *b = p->nbytes ? pp_packet_bytes(p, h) : NULL;
	const char *kind;
	struct pp_hop_change c;
	struct jobj t;

	pp_out_hop_change(p, h, &c);
	if (c.kind == PP_CHANGE_NONE)
		return;
	if (c.has_now && b)
		json_summary(o, &c.now, b->data, b->cap_len);
	if (c.kind == PP_CHANGE_NOW)
		return;
	kind = pp_tunnel_name(c.tunnel);
	t = c.kind == PP_CHANGE_ENCAP ? jopen(o, K("encap")) : jopen(o, K("decap"));
	jstr(&t, K("tunnel"), kind, strlen(kind));
	json_tunnel_id(&t, c.tunnel, c.key, c.vni);
	if (c.kind == PP_CHANGE_ENCAP && h->ifname[0])
		jarr(&t, K("via"), h->ifname, sizeof(h->ifname));
	jclose(&t);
}

/*
 * "redirect": where a redirected frame went (PP_HOP_REDIRECT, on its END):
 * the device by index and, where known, name; the map; the errno it failed with.
 */
static void json_redirect(const struct pp_out *out, struct jobj *top, const struct pp_hop *h)
{
	char name[PP_IFNAMSIZ + 1];
	const char *dev = h->out_ifindex && out->if_name
				  ? out->if_name(h->netns, h->out_ifindex, name, out->if_arg)
				  : NULL;
	struct jobj o = jopen(top, K("redirect"));

	jnum(&o, K("ifindex"), h->out_ifindex);
	if (dev)
		jstr(&o, K("dev"), dev, PP_IFNAMSIZ);
	if (h->redirect_map)
		jnum(&o, K("map_id"), h->redirect_map);
	if (h->redirect_err)
		jnum(&o, K("errno"), (__u64) - (__s64)h->redirect_err);
	jclose(&o);
}

static void json_hop(const struct pp_out *out, struct pp_wbuf *w, const struct pp_packet *p,
		     const struct pp_hop *h)
{
	struct jobj o = {.w = w, .first = true};
	char pname[PP_PROBE_NAMELEN];
	__u64 t0 = p->hops[0].ts;

	pp_wb_putc(w, '{');
	jstr(&o, K("func"), pp_out_probe_name(out, h->probe, pname, sizeof(pname)), SIZE_MAX);
	if (h->flags & PP_HOP_VERDICT) {
		char word[PP_VERDICT_LEN];

		jstr(&o, K("verdict"), pp_verdict_word(h->reason, h->flags & PP_HOP_XDP, word),
		     SIZE_MAX);
	}
	jnum(&o, K("t_ns"), h->ts - t0);
	if (h->netns)
		jnum(&o, K("netns"), h->netns);
	if (h->flags & PP_HOP_NETNS_CARRIED)
		jbool(&o, K("netns_carried"), true);
	if (h->flags & PP_HOP_GAP)
		jbool(&o, K("unseen_before"), true);
	if (h->flags & PP_HOP_READ)
		jbool(&o, K("read"), true);
	if (h->flags & PP_HOP_FRAME)
		jbool(&o, K("frame"), true);
	json_netns_name(out, &o, h->netns);
	json_dev(&o, h);
	jnum(&o, K("cpu"), h->cpu);
	jnum(&o, K("pid"), h->pid);
	if (h->comm[0])
		jarr(&o, K("comm"), h->comm, sizeof(h->comm));
	jnum(&o, K("len"), h->len);
	json_addr(&o, K("skb"), h->skb);
	json_hop_change(&o, p, h);
	if (h->flags & PP_HOP_REDIRECT)
		json_redirect(out, &o, h);
	json_stack(out, &o, h);
	jclose(&o);
}

static void json_hops(const struct pp_out *out, struct jobj *top, const struct pp_packet *p)
{
	char *at = jkey(top, K("hops"), 1);
	size_t i;

	*at = '[';
	pp_wb_done(top->w, at + 1);
	for (i = 0; i < p->nhops; i++) {
		if (i)
			pp_wb_putc(top->w, ',');
		json_hop(out, top->w, p, &p->hops[i]);
	}
	pp_wb_putc(top->w, ']');
}

static void json_drop(const struct pp_out *out, struct jobj *o, __u32 reason, __u64 location)
{
	const char *name = NULL, *sym = NULL;

	if (out->reason_name)
		name = out->reason_name(reason, out->reason_arg);
	if (name)
		jstr(o, K("reason"), name, SIZE_MAX);
	jnum(o, K("reason_code"), reason);
	if (!location)
		return;
	if (out->sym_name)
		sym = out->sym_name(location, out->sym_arg);
	if (sym)
		jstr(o, K("func"), sym, SIZE_MAX);
	json_addr(o, K("location"), location);
}

/* Where a packet whose end went unseen was seen last. */
static void json_seen_last(const struct pp_out *out, struct jobj *top, const struct pp_packet *p)
{
	const struct pp_hop *h = &p->hops[p->nhops - 1];
	struct jobj o = jopen(top, K("seen_last"));
	char pname[PP_PROBE_NAMELEN];

	jstr(&o, K("func"), pp_out_probe_name(out, h->probe, pname, sizeof(pname)), SIZE_MAX);
	jnum(&o, K("t_ns"), h->ts - p->hops[0].ts);
	json_dev(&o, h);
	jclose(&o);
}

/* "read":{...}: the process a socket delivered the data to, when it was seen. */
static void json_read(const struct pp_out *out, struct jobj *top, const struct pp_packet *p,
		      const struct pp_skbref *r)
{
	const struct pp_hop *h = pp_out_read_hop(out, p, r);
	struct jobj o;

	if (!h)
		return;
	o = jopen(top, K("read"));
	jnum(&o, K("pid"), h->pid);
	if (h->comm[0])
		jarr(&o, K("comm"), h->comm, sizeof(h->comm));
	jnum(&o, K("t_ns"), h->ts - p->hops[0].ts);
	jclose(&o);
}

/* "hint": the packet's drop, or its way past XDP, explained (drop_hint.h). */
static void json_hint(const struct pp_out *out, struct jobj *o, const struct pp_packet *p)
{
	char hint[512];

	if (p->fate == PP_FATE_DROPPED)
		pp_out_drop_hint(out, p, hint, sizeof(hint));
	else if (!pp_out_xdp_hint(out, p, hint, sizeof(hint)))
		return;
	jstr(o, K("hint"), hint, sizeof(hint));
}

/* {"kind":...} and, for a drop, its reason, place and hint; the read of SKB (0: any). */
/*
 * "decided_by": --verdicts saw which program dropped it, or sent it back or
 * redirected it (a frame), "NAME#ID returned VERDICT".
 */
static void json_judge(const struct pp_out *out, struct jobj *o, const struct pp_packet *p)
{
	char buf[160];
	const char *judge = pp_out_drop_judge(out, p, buf, sizeof(buf));

	if (judge)
		jstr(o, K("decided_by"), judge, sizeof(buf));
}

static void json_fate_of(const struct pp_out *out, struct jobj *top, const struct pp_packet *p,
			 const struct pp_skbref *r)
{
	enum pp_fate fate = r ? r->fate : p->fate;
	struct jobj o = jopen(top, K("fate"));

	jstr(&o, K("kind"), pp_fate_key(fate), 16);
	if (fate == PP_FATE_DROPPED)
		json_drop(out, &o, r ? r->reason : p->reason, r ? r->location : p->location);
	if ((fate == PP_FATE_DROPPED || fate == PP_FATE_XDP) && !r)
		json_hint(out, &o, p);
	if ((fate == PP_FATE_DROPPED || fate == PP_FATE_XDP) && !r)
		json_judge(out, &o, p);
	if (!r && p->by_tap)
		jbool(&o, K("by_tap"), true);
	json_read(out, &o, p, r);
	jclose(&o);
}

static void json_fate(const struct pp_out *out, struct jobj *top, const struct pp_packet *p)
{
	json_fate_of(out, top, p, NULL);
	if (p->fate == PP_FATE_UNSEEN)
		json_seen_last(out, top, p);
}

/* One skb of a packet with copies: which, made from which, where, when, its fate, a tap's. */
static void json_skb(const struct pp_out *out, struct pp_wbuf *w, const struct pp_packet *p,
		     const struct pp_skbref *r)
{
	struct jobj o = {.w = w, .first = true};
	char pname[PP_PROBE_NAMELEN];
	size_t from = pp_out_parent_skb(p, r);

	pp_wb_putc(w, '{');
	json_addr(&o, K("skb"), r->skb);
	if (r->copy) {
		if (r->parent)
			json_addr(&o, K("from"), r->parent);
		if (from < p->nskbs)
			jnum(&o, K("from_index"), from);
		jstr(&o, K("func"), pp_out_probe_name(out, r->probe, pname, sizeof(pname)),
		     SIZE_MAX);
		/* Its COPY, a step with its END, may have been the earliest record. */
		jnum(&o, K("t_ns"), r->first_ts > p->hops[0].ts ? r->first_ts - p->hops[0].ts : 0);
	}
	json_fate_of(out, &o, p, r);
	if (r->tap)
		jbool(&o, K("tap"), true);
	jclose(&o);
}

static void json_skbs(const struct pp_out *out, struct jobj *top, const struct pp_packet *p)
{
	char *at = jkey(top, K("skbs"), 1);

	*at = '[';
	pp_wb_done(top->w, at + 1);
	for (size_t i = 0; i < p->nskbs; i++) {
		if (i)
			pp_wb_putc(top->w, ',');
		json_skb(out, top->w, p, &p->skbs[i]);
	}
	pp_wb_putc(top->w, ']');
}

/* The first hop's time on both clocks: to order lines, and to find them in logs. */
static void json_time(const struct pp_out *o, struct jobj *top, const struct pp_packet *p)
{
	jnum(top, K("mono_ns"), p->hops[0].ts);
	jnum(top, K("real_ns"), p->hops[0].ts + (__u64)o->real_off);
}

/* --json --snaplen: the mark's first bytes, for `pktpath report --pcapng`. */
static void json_head(const struct pp_out *o, struct jobj *top, const struct pp_packet *p)
{
	static const char hex[] = "0123456789abcdef";
	__u32 n = 0;
	char *at;

	if (!p->mark)
		return;
	n = p->mark->cap_len < o->head_bytes ? p->mark->cap_len : o->head_bytes;
	n = n < PP_HDR_BYTES ? n : PP_HDR_BYTES;
	at = jkey(top, K("head"), 2 * n + 2);
	*at++ = '"';
	for (__u32 i = 0; i < n; i++) {
		*at++ = hex[p->mark->data[i] >> 4];
		*at++ = hex[p->mark->data[i] & 0xf];
	}
	*at++ = '"';
	pp_wb_done(top->w, at);
}

/* Which host wrote the line, and the packet's key (pkt_key.h): what joins hosts' records. */
static void json_host_key(const struct pp_out *o, struct jobj *top, const struct pp_packet *p)
{
	static const char hex[] = "0123456789abcdef";
	__u64 key = p->mark ? pp_pkt_key(p->mark->data, p->mark->cap_len) : 0;
	char *at;
	struct jobj h;

	if (o->host_name) {
		h = jopen(top, K("host"));
		jstr(&h, K("name"), o->host_name, 256);
		if (o->boot_id)
			jstr(&h, K("boot_id"), o->boot_id, 64);
		jclose(&h);
	}
	if (!key)
		return;
	at = jkey(top, K("key"), 18);
	*at++ = '"';
	for (int i = 60; i >= 0; i -= 4)
		*at++ = hex[(key >> i) & 0xf];
	*at++ = '"';
	pp_wb_done(top->w, at);
}

void pp_out_json(const struct pp_out *o, const struct pp_packet *p)
{
	struct jobj top = {.first = true};
	struct pp_wbuf w;

	pp_wb_init(&w, o->f);
	top.w = &w;
	pp_wb_putc(&w, '{');
	jnum(&top, K("id"), p->id);
	jnum(&top, K("len"), pp_out_pkt_len(p));
	if (p->mark) {
		json_pkt(&top, p->mark);
		json_marked_at(o, &top, &p->mark->hop);
		json_process(&top, p);
	}
	json_hops(o, &top, p);
	json_fate(o, &top, p);
	if (p->nskbs > 1)
		json_skbs(o, &top, p);
	if (p->lost)
		jnum(&top, K("lost_hops"), p->lost);
	if (pp_packet_gaps(p))
		jnum(&top, K("gaps"), pp_packet_gaps(p));
	if (!p->mark)
		jbool(&top, K("mark_lost"), true);
	json_time(o, &top, p);
	json_host_key(o, &top, p);
	if (o->head_bytes)
		json_head(o, &top, p);
	pp_wb_lit(&w, "}\n");
	pp_wb_flush(&w);
}

/* "consumed":N,... in fate.c's row order; a PP_FATE_F_JSON_IF_ANY fate only if some packet had it.
 */
static void json_fate_totals(struct jobj *sum, const struct pp_totals *s)
{
	char key[32];

	for (size_t i = 0; i < pp_nfates; i++) {
		const struct pp_fate_row *r = &pp_fates[i];
		__u64 n = s->fates[r->fate];

		if (!n && (r->flags & PP_FATE_F_JSON_IF_ANY))
			continue;
		snprintf(key, sizeof(key), "\"%s\":", r->key);
		jnum(sum, key, strlen(key), n);
	}
}

void pp_out_totals_json(const struct pp_out *o, const struct pp_totals *s)
{
	struct jobj top = {.first = true}, sum;
	struct pp_wbuf w;

	pp_wb_init(&w, o->f);
	top.w = &w;
	pp_wb_putc(&w, '{');
	sum = jopen(&top, K("summary"));
	jnum(&sum, K("packets"), s->packets);
	json_fate_totals(&sum, s);
	jnum(&sum, K("taps"), s->taps);
	jnum(&sum, K("lost"), s->lost);
	jnum(&sum, K("gaps"), s->gaps);
	jnum(&sum, K("map_full"), s->map_full);
	jnum(&sum, K("skipped"), s->skipped);
	if (s->sample_period)
		jnum(&sum, K("sample_period"), s->sample_period);
	jclose(&sum);
	pp_wb_lit(&w, "}\n");
	pp_wb_flush(&w);
}

void pp_out_json_str(struct pp_wbuf *w, const char *s, size_t max)
{
	json_str(w, s, max);
}

/* --json, its row for output_formats.c: JSON lines have no header line. */
const struct pp_out_ops pp_out_format_json = {
	.name = "json",
	.machine = true,
	.packet = pp_out_json,
	.summary = pp_out_summary_json,
	.totals = pp_out_totals_json,
};
