// SPDX-License-Identifier: GPL-2.0
/*
 * Drop diagnosis (drop_hint.h): a table from drop reason (and, where the
 * reason alone says too little, the function that dropped) to a sentence
 * with the packet's facts filled in, then the evidence. Texts follow the
 * kernel's own account of each reason (include/net/dropreason-core.h) and
 * of the function that sets it; nothing here is inferred from traffic.
 */
#define _GNU_SOURCE /* strerrorname_np() */
#include <string.h>
#include "base/compat.h"
#include "output/drop_hint.h"
#include "output/verdict.h"
#include "probes/verdicts.h"
#include "tc/hook_progs.h"
#include "base/fmt.h"

struct hint_ctx {
	struct pp_sbuf *f;
	const struct pp_drop_facts *d;
};

typedef void (*hint_fn)(struct hint_ctx *c);

/*
 * One row: REASON (with FUNC, if set, the function that dropped it) gets
 * TEXT, whose {names} are the packet's facts (see put_field()), or FN's words.
 */
struct hint_row {
	const char *reason;
	const char *func;
	const char *text;
	hint_fn fn;
};

static const struct pp_pkt_summary *pkt_ip(const struct pp_drop_facts *d)
{
	return d->pkt && d->pkt->ip_ver ? d->pkt : NULL;
}

/* A fact by its {name}; words that say so where it is not known. */
static void put_field(struct hint_ctx *c, const char *name, size_t n)
{
	const struct pp_pkt_summary *s = pkt_ip(c->d);
	struct pp_sbuf *f = c->f;

#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(name, lit, n))
	if (IS("dst"))
		pp_sb_str(f, s ? s->dst : "its destination");
	else if (IS("src"))
		pp_sb_str(f, s ? s->src : "its source");
	else if (IS("proto"))
		pp_sb_str(f, s ? s->proto : "IP");
	else if (IS("ipproto") && s)
		pp_sb_u64(f, s->ip_proto);
	else if (IS("dev"))
		pp_sb_str(f, c->d->dev && c->d->dev[0] ? c->d->dev : "its device");
	else if (IS("netns") && c->d->netns_name)
		pp_sb_str(f, c->d->netns_name);
	else if (IS("netns") && c->d->netns)
		pp_sb_u64(f, c->d->netns);
	else
		pp_sb_lit(f, "?");
#undef IS
}

/* TEXT with each {name} replaced by its fact. */
static void put_text(struct hint_ctx *c, const char *text)
{
	const char *open, *close;

	while ((open = strchr(text, '{')) && (close = strchr(open, '}'))) {
		pp_sb_put(c->f, text, (size_t)(open - text));
		put_field(c, open + 1, (size_t)(close - open - 1));
		text = close + 1;
	}
	pp_sb_str(c->f, text);
}

/* nf_hook_slow's caller -> the hook it runs (include/linux/netfilter.h's NF_HOOK users). */
static const struct {
	const char *caller, *family, *hook;
} nf_hooks[] = {
	{"ip_rcv", "ipv4", "prerouting"},
	{"ipv6_rcv", "ipv6", "prerouting"},
	/* ip_sublist_rcv() and ip6_sublist_rcv(), through NF_HOOK_LIST */
	{"nf_hook_slow_list", NULL, "prerouting"},
	{"ip_local_deliver", "ipv4", "input"},
	{"ip6_input", "ipv6", "input"},
	{"ip_forward", "ipv4", "forward"},
	{"ip6_forward", "ipv6", "forward"},
	{"__ip_local_out", "ipv4", "output"},
	{"raw_send_hdrinc", "ipv4", "output"},
	{"__ip6_local_out", "ipv6", "output"},
	{"ip6_xmit", "ipv6", "output"},
	{"rawv6_send_hdrinc", "ipv6", "output"},
	{"ip_output", "ipv4", "postrouting"},
	{"ip_mc_output", "ipv4", "postrouting"},
	{"ip6_output", "ipv6", "postrouting"},
	{"arp_rcv", "arp", "input"},
	{"arp_xmit", "arp", "output"},
	/* nf_hook_ingress() and nf_hook_egress() are inline in these */
	{"__netif_receive_skb_core", "netdev", "ingress"},
	{"__dev_queue_xmit", "netdev", "egress"},
	{"br_pass_frame_up", "bridge", "input"},
	{"br_forward_finish", "bridge", "postrouting"},
};

/* "ip_forward.cold", "ip_rcv.isra.0": the function's name without the compiler's suffix. */
static bool same_func(const char *sym, const char *name)
{
	size_t n = strlen(name);

	return sym && !strncmp(sym, name, n) && (sym[n] == '\0' || sym[n] == '.');
}

const char *pp_nf_hook_of(const char *caller, const char **family)
{
	for (size_t i = 0; i < ARRAY_SIZE(nf_hooks); i++) {
		if (same_func(caller, nf_hooks[i].caller)) {
			*family = nf_hooks[i].family;
			return nf_hooks[i].hook;
		}
	}
	*family = NULL;
	return NULL;
}

/* Which rule engine ran the verdict, by the function that dropped: nft_do_chain: nftables. */
static const char *nf_engine(const char *func)
{
	if (same_func(func, "nft_do_chain"))
		return "an nftables rule or the chain's policy";
	if (same_func(func, "ipt_do_table") || same_func(func, "ip6t_do_table") ||
	    same_func(func, "arpt_do_table"))
		return "an iptables rule or the chain's policy";
	return "a rule or the chain's policy";
}

/*
 * NF_DROP from a rule or a base chain's policy, in the hook that
 * nf_hook_slow()'s caller runs. The kernel's drop event says neither which
 * table, chain or rule handle: only nftables' own tracing (meta nftrace)
 * does, which would change the rule set, so the hint stops at the hook.
 */
static void hint_netfilter(struct hint_ctx *c)
{
	const struct pp_drop_facts *d = c->d;
	const char *family, *hook = NULL;

	if (d->nf_caller || same_func(d->func, "nf_hook_slow"))
		hook = pp_nf_hook_of(d->caller, &family);
	if (!hook) {
		pp_sb_str(c->f, nf_engine(d->func));
		pp_sb_lit(c->f, " dropped it, at a netfilter hook pktpath ");
		pp_sb_str(c->f, d->caller ? "cannot name" : "cannot tell (no caller recorded)");
		return;
	}
	pp_sb_lit(c->f, "netfilter's ");
	if (family) {
		pp_sb_str(c->f, family);
		pp_sb_lit(c->f, " ");
	}
	pp_sb_str(c->f, hook);
	pp_sb_lit(c->f, " hook dropped it: ");
	pp_sb_str(c->f, nf_engine(d->func));
}

static void hint_no_socket(struct hint_ctx *c)
{
	const struct pp_pkt_summary *s = pkt_ip(c->d);

	if (s && s->has_ports) {
		put_text(c, "no {proto} socket is bound to port ");
		pp_sb_u64(c->f, s->dport);
		put_text(c, " of {dst} in netns {netns}");
	} else if (s && s->has_echo) {
		put_text(c, "no socket waits for this {proto} echo (id ");
		pp_sb_u64(c->f, s->icmp_id);
		put_text(c, ") in netns {netns}");
	} else {
		put_text(c, "no socket wants this {proto} packet to {dst} in netns {netns}");
	}
	/* UDP answers with port unreachable, rate limits allowing: seen, or not claimed. */
	if (c->d->icmp_sent)
		put_text(c, "; an ICMP error went back to {src}");
}

/*
 * ip_error(): the input route is an error route. A blackhole route gives
 * EINVAL (no ICMP); unreachable and prohibit send ICMP host unreachable or
 * administratively prohibited, unless rate-limited (icmp_ratelimit).
 */
static void hint_ip_error(struct hint_ctx *c)
{
	put_text(c, "the route to {dst} in netns {netns} is an error route: ");
	if (c->d->icmp_sent)
		pp_sb_lit(c->f, "unreachable or prohibit (an ICMP error went back to the sender)");
	else if (c->d->icmp_traced)
		pp_sb_lit(c->f, "blackhole, as no ICMP error was sent (or ICMP was rate-limited)");
	else
		pp_sb_lit(c->f, "unreachable, prohibit or blackhole");
}

/* QDISC_DROP at FOO_enqueue: the qdisc kind is in the name. */
static void hint_qdisc(struct hint_ctx *c)
{
	const char *fn = c->d->func, *end = fn ? strstr(fn, "_enqueue") : NULL;

	put_text(c, "the queueing discipline of {dev} dropped it (queue full or its policy");
	if (end && end > fn) {
		pp_sb_lit(c->f, "; qdisc ");
		pp_sb_put(c->f, fn, (size_t)(end - fn));
	}
	put_text(c, "): tc -s qdisc show dev {dev}");
}

/*
 * PKT_TOO_BIG: the MTU that counts is the way out's (ip_forward() checks
 * the route's), while skb->dev, the evidence's device, is the way in.
 * ip_exceeds_mtu() drops only what may not be fragmented: IPv4 with DF
 * (routers never fragment IPv6).
 */
static void hint_too_big(struct hint_ctx *c)
{
	const struct pp_drop_facts *d = c->d;

	if (d->len) {
		pp_sb_lit(c->f, "its ");
		pp_sb_u64(c->f, d->len);
		pp_sb_lit(c->f, " bytes are more than the MTU");
	} else {
		pp_sb_lit(c->f, "bigger than the MTU");
	}
	if (d->out_mtu) {
		pp_sb_lit(c->f, " ");
		pp_sb_u64(c->f, d->out_mtu);
	}
	if (d->out_dev && d->out_dev[0]) {
		pp_sb_lit(c->f, " of ");
		pp_sb_str(c->f, d->out_dev);
		pp_sb_lit(c->f, ", its way out,");
	} else if (d->out_ifindex) {
		pp_sb_lit(c->f, " of its way out (ifindex ");
		pp_sb_u64(c->f, d->out_ifindex);
		pp_sb_lit(c->f, "),");
	} else {
		pp_sb_lit(c->f, " of its way out");
	}
	pp_sb_lit(c->f, " and it may not be fragmented (IPv4 with DF, or IPv6)");
	if (d->icmp_sent)
		put_text(c, "; an ICMP error (fragmentation needed, packet too big) went back to "
			    "{src}");
}

/*
 * OTHERHOST: __netif_receive_skb_core() marks a frame PACKET_OTHERHOST for
 * its destination MAC address, or for a VLAN tag (id not 0) that no VLAN
 * device of the receiving device takes (vlan_do_receive() found none);
 * with one, the frame goes on untagged on that VLAN device, and a drop
 * there is for the MAC address.
 */
static void hint_otherhost(struct hint_ctx *c)
{
	const struct pp_pkt_summary *s = c->d->pkt;

	if (s && s->nvlan && s->vlan && c->d->on_mark_dev) {
		pp_sb_lit(c->f, "a frame for VLAN ");
		pp_sb_u64(c->f, s->vlan);
		put_text(c, ", which no VLAN device on {dev} has: the kernel takes it as another "
			    "host's");
		return;
	}
	put_text(c, "not for this host: its destination MAC address is another host's (on {dev})");
}

static const struct hint_row rows[] = {
	/* First: find_row_by_place() takes it. */
	{"NETFILTER_DROP", NULL, NULL, hint_netfilter},
	{"NO_SOCKET", NULL, NULL, hint_no_socket},
	{"NOT_SPECIFIED", "ip_error", NULL, hint_ip_error},
	/* ip_forward() counts an expired TTL as a header error */
	{"IP_INHDR", "ip_forward", "its TTL ran out while forwarding in netns {netns}", NULL},
	{"IP_INHDR", NULL, "its IP header is invalid (version, length or header checksum)", NULL},
	{"IP_INNOROUTES", NULL, "no route to {dst} in netns {netns}", NULL},
	{"IP_OUTNOROUTES", NULL, "no route to {dst} for sending in netns {netns}", NULL},
	{"IP_INADDRERRORS", NULL,
	 "{dst} is neither local nor forwarded in netns {netns} (forwarding off on {dev}, or an "
	 "unreachable route)",
	 NULL},
	{"IP_RPFILTER", NULL,
	 "reverse path filter: in netns {netns} the route back to {src} does not leave by {dev}, "
	 "where it came in (rp_filter)",
	 NULL},
	{"IP_INVALID_SOURCE", NULL, "martian source {src} arriving on {dev} in netns {netns}",
	 NULL},
	{"IP_LOCAL_SOURCE", NULL,
	 "its source {src} is an address of netns {netns} itself, arriving from outside", NULL},
	{"IP_LOCALNET", NULL,
	 "a 127.0.0.0/8 address ({src} > {dst}) arriving on {dev}: route_localnet is off", NULL},
	{"IP_INVALID_DEST", NULL, "martian destination {dst} arriving on {dev} in netns {netns}",
	 NULL},
	{"IP_NOPROTO", NULL, "netns {netns} has no handler for IP protocol {ipproto}", NULL},
	{"OTHERHOST", NULL, NULL, hint_otherhost},
	{"PKT_TOO_SMALL", NULL, "too short for the headers it claims", NULL},
	{"PKT_TOO_BIG", NULL, NULL, hint_too_big},
	{"IP_CSUM", NULL, "bad IPv4 header checksum", NULL},
	{"TCP_CSUM", NULL, "bad TCP checksum", NULL},
	{"UDP_CSUM", NULL, "bad UDP checksum", NULL},
	{"ICMP_CSUM", NULL, "bad ICMP checksum", NULL},
	{"UNICAST_IN_L2_MULTICAST", NULL, "IP unicast inside a link-layer multicast or broadcast",
	 NULL},
	{"XFRM_POLICY", NULL, "an IPsec (xfrm) policy refused it", NULL},
	{"SOCKET_FILTER", NULL, "the receiving socket's filter (SO_ATTACH_FILTER) refused it",
	 NULL},
	{"SOCKET_RCVBUFF", NULL, "the receiving socket's buffer was full: its reader is behind",
	 NULL},
	{"SOCKET_BACKLOG", NULL, "the TCP socket's backlog was full while its owner held it", NULL},
	{"SOCKET_CLOSE", NULL, "its socket was closed", NULL},
	{"PROTO_MEM", NULL, "the protocol's memory limit was reached (tcp_mem, udp_mem)", NULL},
	{"QUEUE_PURGE", NULL, "its queue was purged: its socket or device went away", NULL},
	{"NEIGH_FAILED", NULL,
	 "the next hop's link-layer address (ARP/ND) on {dev} could not be resolved: no reply",
	 NULL},
	{"NEIGH_QUEUEFULL", NULL,
	 "too many packets waited for ARP/ND resolution on {dev} (the neighbour's queue was full)",
	 NULL},
	{"NEIGH_CREATEFAIL", NULL, "no neighbour entry could be made for the next hop on {dev}",
	 NULL},
	{"NEIGH_DEAD", NULL, "the next hop's neighbour entry on {dev} was being removed", NULL},
	{"QDISC_DROP", NULL, NULL, hint_qdisc},
	{"QDISC_OVERLIMIT", NULL, NULL, hint_qdisc},
	{"QDISC_CONGESTED", NULL, NULL, hint_qdisc},
	{"TC_INGRESS", NULL, "a TC filter or action on {dev} ingress dropped it (TC_ACT_SHOT)",
	 NULL},
	{"TC_EGRESS", NULL, "a TC filter or action on {dev} egress dropped it (TC_ACT_SHOT)", NULL},
	{"TC_CHAIN_NOTFOUND", NULL, "a TC action on {dev} went to a chain that does not exist",
	 NULL},
	{"TC_RECLASSIFY_LOOP", NULL, "TC on {dev} reclassified it too many times", NULL},
	{"XDP", NULL, "an XDP program on {dev} dropped it", NULL},
	{"NOT_SPECIFIED", "do_xdp_generic",
	 "an XDP program on {dev} (generic mode) dropped it (XDP_DROP or XDP_ABORTED)", NULL},
	{"NOT_SPECIFIED", "veth_xdp_rcv_skb",
	 "an XDP program on {dev} (native mode) dropped it (XDP_DROP or XDP_ABORTED)", NULL},
	{"CPU_BACKLOG", NULL, "the CPU's receive backlog was full (net.core.netdev_max_backlog)",
	 NULL},
	{"DEV_READY", NULL, "{dev} was down or not ready to send", NULL},
	{"IPV6DISABLED", NULL, "IPv6 is disabled on {dev}", NULL},
	{"UNHANDLED_PROTO", NULL, "no protocol handler for its ethertype on {dev}", NULL},
	{"BPF_CGROUP_EGRESS", NULL, "a cgroup BPF egress program refused it", NULL},
	{"SECURITY_HOOK", NULL, "a security module (LSM) refused it", NULL},
	{"NOMEM", NULL, "out of memory", NULL},
	{"FRAG_REASM_TIMEOUT", NULL, "its fragments were not all in before the reassembly timeout",
	 NULL},
	{"FRAG_TOO_FAR", NULL, "a fragment too far from the others (ipfrag_max_dist)", NULL},
	{"DUP_FRAG", NULL, "a fragment already received", NULL},
	{"TCP_INVALID_SEQUENCE", NULL, "TCP: its sequence number is outside the receive window",
	 NULL},
	{"TCP_OLD_SEQUENCE", NULL, "TCP: its sequence number is before the receive window", NULL},
	{"TCP_INVALID_END_SEQUENCE", NULL, "TCP: its data ends past the receive window", NULL},
	{"TCP_INVALID_ACK_SEQUENCE", NULL, "TCP: it acknowledges data not sent or long acked",
	 NULL},
	{"TCP_OLD_DATA", NULL, "TCP: all its data was received before (a retransmission)", NULL},
	{"TCP_OVERWINDOW", NULL, "TCP: its data goes past the receive window", NULL},
	{"TCP_ZEROWINDOW", NULL, "TCP: the receive window is zero: the reader is behind", NULL},
	{"TCP_OFOMERGE", NULL, "TCP: out-of-order data already queued", NULL},
	{"TCP_OFO_DROP", NULL, "TCP: out-of-order data past what the receive buffer holds", NULL},
	{"TCP_OFO_QUEUE_PRUNE", NULL, "TCP: pruned from the out-of-order queue (memory)", NULL},
	{"TCP_RFC7323_PAWS", NULL, "TCP: its timestamp is older than the last (PAWS)", NULL},
	{"TCP_FLAGS", NULL, "TCP: flags the connection's state does not accept", NULL},
	{"TCP_INVALID_SYN", NULL, "TCP: a SYN on a synchronized connection", NULL},
	{"TCP_RESET", NULL, "TCP: a reset, which closed the connection", NULL},
	{"TCP_CLOSE", NULL, "TCP: the socket is closed", NULL},
	{"TCP_OLD_ACK", NULL, "TCP: an acknowledgment older than one already seen", NULL},
	{"TCP_TOO_OLD_ACK", NULL, "TCP: an acknowledgment far older than the window", NULL},
	{"TCP_ACK_UNSENT_DATA", NULL, "TCP: it acknowledges data never sent", NULL},
	{"TCP_LISTEN_OVERFLOW", NULL, "TCP: the listener's accept queue is full", NULL},
	{"TCP_MINTTL", NULL, "TCP: its TTL is below the socket's IP_MINTTL", NULL},
};

const char *pp_drop_hint_reason(size_t i, const char **func)
{
	if (i >= ARRAY_SIZE(rows))
		return NULL;
	*func = rows[i].func;
	return rows[i].reason;
}

/*
 * Where the kernel gives no reason (before 5.17: no name, code 0), the
 * places that drop for one cause only: nf_hook_slow() frees on NF_DROP.
 */
static const struct hint_row *find_row_by_place(const struct pp_drop_facts *d)
{
	if (d->reason || d->reason_code)
		return NULL;
	/* A frame an XDP program dropped before any skb: XDP's row. */
	for (size_t i = 0; d->frame && i < ARRAY_SIZE(rows); i++)
		if (!strcmp(rows[i].reason, "XDP") && !rows[i].func)
			return &rows[i];
	return same_func(d->func, "nf_hook_slow") ? &rows[0] /* NETFILTER_DROP */ : NULL;
}

static const struct hint_row *find_row(const struct pp_drop_facts *d)
{
	if (!d->reason)
		return find_row_by_place(d);
	for (size_t i = 0; d->reason && i < ARRAY_SIZE(rows); i++) {
		if (strcmp(rows[i].reason, d->reason))
			continue;
		if (!rows[i].func || same_func(d->func, rows[i].func))
			return &rows[i];
	}
	return NULL;
}

/* "(REASON at FUNC called by CALLER on DEV, netns N)" */
static void put_evidence(struct pp_sbuf *f, const struct pp_drop_facts *d)
{
	pp_sb_lit(f, "(");
	if (d->reason) {
		pp_sb_str(f, d->reason);
	} else if (!d->reason_code) {
		pp_sb_lit(f, "no reason from the kernel,");
	} else {
		pp_sb_lit(f, "reason ");
		pp_sb_u64(f, d->reason_code);
	}
	if (d->func) {
		pp_sb_lit(f, " at ");
		pp_sb_str(f, d->func);
	} else if (d->location) {
		char hex[PP_FMT_HEX + 1];

		*pp_fmt_hex(hex, d->location) = '\0';
		pp_sb_lit(f, " at 0x");
		pp_sb_str(f, hex);
	}
	if (d->caller) {
		pp_sb_str(f, d->nf_caller && !same_func(d->func, "nf_hook_slow")
				     ? ", under nf_hook_slow called by "
				     : " called by ");
		pp_sb_str(f, d->caller);
	}
	if (d->dev && d->dev[0]) {
		pp_sb_str(f, d->caller ? ", on " : " on ");
		pp_sb_str(f, d->dev);
	}
	if (d->netns_name) {
		pp_sb_lit(f, ", netns ");
		pp_sb_str(f, d->netns_name);
	} else if (d->netns) {
		pp_sb_lit(f, ", netns ");
		pp_sb_u64(f, d->netns);
	}
	pp_sb_lit(f, ")");
}

/* "; BPF programs there now: ...": the suspects of a TC or XDP drop. */
static void put_hook_progs(struct pp_sbuf *f, const struct pp_drop_facts *d)
{
	if (d->judge) {
		pp_sb_lit(f, "; BPF program ");
		pp_sb_str(f, d->judge);
		return;
	}
	if (!d->hook_progs)
		return;
	if (!d->hook_progs[0]) {
		pp_sb_lit(f, "; no BPF program there now but pktpath's");
		return;
	}
	pp_sb_lit(f, "; BPF programs there now: ");
	pp_sb_str(f, d->hook_progs);
	if (d->verdicts_off)
		pp_sb_lit(f, " (--verdicts shows which one decided)");
}

size_t pp_drop_hint(const struct pp_drop_facts *d, char *buf, size_t len)
{
	struct pp_sbuf f = {.buf = buf, .len = len};
	struct hint_ctx c = {.f = &f, .d = d};
	const struct hint_row *r = find_row(d);

	if (len)
		buf[0] = '\0';
	if (r && r->fn)
		r->fn(&c);
	else if (r)
		put_text(&c, r->text);
	else if (!d->reason && !d->reason_code)
		pp_sb_lit(&f, "the kernel gives no reason, and this place drops for more than one");
	else
		pp_sb_lit(&f, "no explanation known to pktpath for this reason");
	put_hook_progs(&f, d);
	pp_sb_lit(&f, " ");
	put_evidence(&f, d);
	return f.pos;
}

static bool is_probe(const struct pp_out *o, __u32 probe, const char *name)
{
	return probe < o->nprobes && o->probe_names && o->probe_names[probe] &&
	       !strcmp(o->probe_names[probe], name);
}

#define ICMP_SEND_TP "tp:icmp:icmp_send"

/* Whether an ICMP error about the packet went out before END; whether that is traced at all. */
static void icmp_facts(const struct pp_out *o, const struct pp_packet *p, const struct pp_hop *end,
		       struct pp_drop_facts *d)
{
	for (size_t i = 0; i < o->nprobes && !d->icmp_traced; i++)
		d->icmp_traced = is_probe(o, (__u32)i, ICMP_SEND_TP);
	for (size_t i = 0; i < p->nhops && &p->hops[i] != end; i++)
		d->icmp_sent |= is_probe(o, p->hops[i].probe, ICMP_SEND_TP);
}

/* The device's name, printable ('?' for other bytes, as the hop lines), or "if<N>". */
static void dev_of(const struct pp_hop *h, char *dev, size_t len)
{
	struct pp_sbuf f = {.buf = dev, .len = len};
	size_t n = strnlen(h->ifname, sizeof(h->ifname));

	dev[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)h->ifname[i];

		pp_sb_put(&f, ch < 0x20 || ch >= 0x7f ? "?" : &h->ifname[i], 1);
	}
	if (!n && h->ifindex) {
		pp_sb_lit(&f, "if");
		pp_sb_u64(&f, h->ifindex);
	}
}

/* PKT_TOO_BIG's way out, named by O's if_name (the live run's namespace only). */
static void out_facts(const struct pp_out *o, const struct pp_hop *end, struct pp_drop_facts *d,
		      char name[PP_IFNAMSIZ + 1])
{
	d->out_mtu = end->out_mtu;
	d->out_ifindex = end->out_ifindex;
	if (end->out_ifindex && o->if_name)
		d->out_dev = o->if_name(end->netns, end->out_ifindex, name, o->if_arg);
}

/* The hook whose programs may have dropped it (hook_progs.h), or -1. */
static int drop_hook(const char *reason, const char *func)
{
	if (reason && !strcmp(reason, "TC_INGRESS"))
		return PP_HOOK_TC_INGRESS;
	if (reason && !strcmp(reason, "TC_EGRESS"))
		return PP_HOOK_TC_EGRESS;
	if ((reason && !strcmp(reason, "XDP")) || same_func(func, "do_xdp_generic") ||
	    same_func(func, "veth_xdp_rcv_skb"))
		return PP_HOOK_XDP;
	return -1;
}

/* The suspects of a drop at HOOK (-1: none) on IFINDEX of NETNS, through O's hook_progs. */
static int hook_suspects(const struct pp_out *o, int hook, __u32 netns, __u32 ifindex, char *buf,
			 size_t len)
{
	if (hook < 0 || !ifindex || !o->hook_progs)
		return -1;
	return o->hook_progs(netns, ifindex, hook, buf, len, o->hook_arg);
}

int pp_out_drop_programs(const struct pp_out *o, __u32 reason, __u64 location, __u32 netns,
			 __u32 ifindex, char *buf, size_t len)
{
	const char *rname = o->reason_name ? o->reason_name(reason, o->reason_arg) : NULL;
	const char *func = location && o->sym_name ? o->sym_name(location, o->sym_arg) : NULL;

	return hook_suspects(o, drop_hook(rname, func), netns, ifindex, buf, len);
}

/* A TC or XDP drop's suspects, into BUF, through O's hook_progs. */
static void hook_facts(const struct pp_out *o, const struct pp_hop *end, struct pp_drop_facts *d,
		       char *buf, size_t len)
{
	if (hook_suspects(o, drop_hook(d->reason, d->func), end->netns, end->ifindex, buf, len) >=
	    0)
		d->hook_progs = buf;
}

size_t pp_out_xdp_hint(const struct pp_out *o, const struct pp_packet *p, char *buf, size_t len)
{
	struct pp_sbuf f = {.buf = buf, .len = len};
	char dev[PP_IFNAMSIZ + 16], progs[256];
	const struct pp_hop *end = NULL;

	for (size_t i = 0; i < p->nhops && !end; i++)
		if (p->hops[i].type == PP_REC_END && p->hops[i].fate == PP_FATE_XDP)
			end = &p->hops[i];
	if (!end || len == 0)
		return 0;
	buf[0] = '\0';
	dev_of(end, dev, sizeof(dev));
	pp_sb_lit(&f, "XDP on ");
	pp_sb_str(&f, dev);
	if (hook_suspects(o, PP_HOOK_XDP, end->netns, end->ifindex, progs, sizeof(progs)) < 0)
		return f.pos;
	if (progs[0])
		pp_sb_lit(&f, "; BPF programs there now: ");
	else
		pp_sb_lit(&f, "; no XDP program there now");
	pp_sb_str(&f, progs);
	return f.pos;
}

const char *pp_out_verdict_str(const struct pp_out *o, __u32 probe, __u32 code, bool xdp, char *buf,
			       size_t len)
{
	char pname[64], word[PP_VERDICT_LEN];
	const char *name = pp_out_probe_name(o, probe, pname, sizeof(pname));

	if (!strncmp(name, PP_VERDICT_PREFIX, strlen(PP_VERDICT_PREFIX)))
		name += strlen(PP_VERDICT_PREFIX);
	snprintf(buf, len, "%s returned %s", name, pp_verdict_word(code, xdp, word));
	return buf;
}

size_t pp_out_redirect_str(const struct pp_out *o, const struct pp_hop *end, char *buf, size_t len)
{
	struct pp_sbuf f = {.buf = buf, .len = len};
	char name[PP_IFNAMSIZ + 1];
	const char *dev = end->out_ifindex && o->if_name
				  ? o->if_name(end->netns, end->out_ifindex, name, o->if_arg)
				  : NULL;

	if (len)
		buf[0] = '\0';
	if (dev) {
		pp_sb_lit(&f, "to ");
		pp_sb_str(&f, dev);
	} else if (end->out_ifindex) {
		pp_sb_lit(&f, "to ifindex ");
		pp_sb_u64(&f, end->out_ifindex);
	} else {
		pp_sb_lit(&f, "to no device");
	}
	if (end->redirect_map) {
		pp_sb_lit(&f, " (map id ");
		pp_sb_u64(&f, end->redirect_map);
		pp_sb_lit(&f, ")");
	}
	if (end->redirect_err) {
		const char *e = strerrorname_np(-end->redirect_err);

		pp_sb_lit(&f, ", which failed: ");
		if (e)
			pp_sb_str(&f, e);
		else
			pp_sb_u64(&f, (__u64) - (__s64)end->redirect_err);
	}
	return f.pos;
}

/*
 * "NAME#ID returned VERDICT" of verdict hop V of P into BUF, with where it
 * redirected a frame.
 */
static const char *judge_str(const struct pp_out *o, const struct pp_packet *p,
			     const struct pp_hop *v, char *buf, size_t len)
{
	const struct pp_hop *to = pp_verdict_redirect(p, v);
	size_t n;

	pp_out_verdict_str(o, v->probe, v->reason, v->flags & PP_HOP_XDP, buf, len);
	n = strlen(buf);
	if (to && n + 1 < len) {
		buf[n++] = ' ';
		pp_out_redirect_str(o, to, buf + n, len - n);
	}
	return buf;
}

/* The program that dropped P by its verdict before END: "NAME#ID returned VERDICT" in BUF, or NULL.
 */
static const char *judge_of(const struct pp_out *o, const struct pp_packet *p,
			    const struct pp_hop *end, char *buf, size_t len)
{
	const struct pp_hop *shot = pp_verdict_judge(p, end);

	return shot ? judge_str(o, p, shot, buf, len) : NULL;
}

const char *pp_out_drop_judge(const struct pp_out *o, const struct pp_packet *p, char *buf,
			      size_t len)
{
	const struct pp_hop *end = pp_out_drop_end(p), *h;
	const __u32 frame = PP_HOP_FRAME | PP_HOP_VERDICT;

	if (end)
		return judge_of(o, p, end, buf, len);
	for (size_t i = p->nhops; p->fate == PP_FATE_XDP && i-- > 0;) {
		h = &p->hops[i];
		if ((h->flags & frame) == frame)
			return judge_str(o, p, h, buf, len);
	}
	return NULL;
}

size_t pp_out_drop_hint(const struct pp_out *o, const struct pp_packet *p, char *buf, size_t len)
{
	const struct pp_hop *end = pp_out_drop_end(p);
	struct pp_drop_facts d = {.reason_code = p->reason, .location = p->location};
	struct pp_pkt_summary s;
	char dev[PP_IFNAMSIZ + 16], ns[16], out_dev[PP_IFNAMSIZ + 1], progs[256], judge[160];

	if (o->reason_name)
		d.reason = o->reason_name(p->reason, o->reason_arg);
	if (p->location && o->sym_name)
		d.func = o->sym_name(p->location, o->sym_arg);
	if (p->mark && !pp_pkt_decode(p->mark->data, p->mark->cap_len, &s))
		d.pkt = &s;
	/* A redirect's END holds its target and error there (PP_HOP_REDIRECT), not these. */
	if (end && !(end->flags & PP_HOP_REDIRECT)) {
		if (end->caller && o->sym_name)
			d.caller = o->sym_name(end->location + (__s64)end->caller, o->sym_arg);
		d.nf_caller = d.caller && (end->flags & PP_HOP_NF_CALLER);
		out_facts(o, end, &d, out_dev);
	}
	if (end) {
		dev_of(end, dev, sizeof(dev));
		d.dev = dev;
		d.netns = end->netns;
		d.netns_name = end->netns ? pp_out_netns(o, end->netns, ns, sizeof(ns)) : NULL;
		d.len = end->len;
		d.on_mark_dev = p->mark && p->mark->hop.ifindex == end->ifindex &&
				p->mark->hop.netns == end->netns;
		hook_facts(o, end, &d, progs, sizeof(progs));
		d.judge = judge_of(o, p, end, judge, sizeof(judge));
		d.verdicts_off = o->verdicts_off;
		d.frame = end->flags & PP_HOP_FRAME;
	}
	icmp_facts(o, p, end, &d);
	return pp_drop_hint(&d, buf, len);
}
