// SPDX-License-Identifier: GPL-2.0
/*
 * The TC classifier. Every tracked skb that reaches a hook gets its hop
 * here, whether or not the filter matches it there (after NAT, inside a
 * tunnel): the filter decides what is marked, nothing else. The loader
 * splices the translated filter in front of each program (see splice.h).
 * It never changes a packet's fate: every path returns TC_ACT_UNSPEC,
 * which tcx reads as TCX_NEXT.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "record.bpf.h"
#include "frag.bpf.h"

#define TC_ACT_UNSPEC (-1)
#define PP_ETH_P_IP   0x0800
#define PP_ETH_P_IPV6 0x86dd

char LICENSE[] SEC("license") = "GPL";

/*
 * The filter's verdict: the loader puts the translated filter in front of
 * each program, ending with r0 = 1 where it matches and r0 = TC_ACT_UNSPEC
 * where it does not, and r1 = ctx either way (classifier.c). No call: a
 * bpf-to-bpf call costs every packet some nanoseconds. Read first, before
 * clang puts anything in r0; the loader checks that it did (classifier.c).
 */
static __always_inline bool pp_filter_matched(void)
{
	long v;

	asm volatile("%0 = r0" : "=r"(v) : : "memory");
	return v == 1;
}

/* H folded with W: a multiply-xorshift step, as in Fibonacci hashing. */
static __always_inline __u64 pp_fold(__u64 h, __u32 w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

/*
 * The packet's addresses, protocol and ports (ICMP: the echo id and
 * sequence), folded into 64 bits, never 0; 0 if it is no IP packet or is
 * unreadable. What NAT rewrites, and nothing that a router changes on
 * every hop (TTL, checksums). At both hooks the network header is set:
 * __netif_receive_skb_core() resets it before tc ingress, the IP output
 * path set it before tc egress.
 */
static __always_inline __u64 pp_tc_tuple(struct __sk_buff *ctx)
{
	__u32 w[10] = {}, l4 = 0, hlen = 20, words = 2, first = 3;
	__u8 *b = (__u8 *)w, proto;
	__u64 h = 0;

	if (ctx->protocol == bpf_htons(PP_ETH_P_IP)) {
		if (bpf_skb_load_bytes_relative(ctx, 0, w, 20, BPF_HDR_START_NET))
			return 0;
		proto = b[9];
		hlen = (b[0] & 0xf) * 4;
		/* A later fragment has no transport header. */
		if ((b[6] & 0x1f) | b[7])
			proto = 0;
	} else if (ctx->protocol == bpf_htons(PP_ETH_P_IPV6)) {
		if (bpf_skb_load_bytes_relative(ctx, 0, w, 40, BPF_HDR_START_NET))
			return 0;
		proto = b[6];
		hlen = 40;
		words = 8;
		first = 2;
	} else {
		return 0;
	}
	if (proto == 6 || proto == 17 || proto == 132 || proto == 136)
		bpf_skb_load_bytes_relative(ctx, hlen, &l4, 4, BPF_HDR_START_NET);
	else if (proto == 1 || proto == 58)
		bpf_skb_load_bytes_relative(ctx, hlen + 4, &l4, 4, BPF_HDR_START_NET);
#pragma unroll
	for (__u32 i = 0; i < 8; i++)
		if (i < words)
			h = pp_fold(h, w[first + i]);
	h = pp_fold(h, l4);
	return pp_fold(h, proto) | 1;
}

/*
 * The packet's addresses, protocol and ports as reply_map keys them, at
 * device DEV (a hook's identity without its direction); false for what a
 * reply could not be told by: no IPv4 or IPv6 TCP, UDP, SCTP, UDP-Lite or
 * ICMP echo header right behind the IP header (a later fragment, an IPv6
 * extension header, IP-in-IP and GRE, which have no ports).
 */
static __always_inline bool pp_reply_key_of(struct __sk_buff *ctx, __u32 dev,
					    struct pp_reply_key *k)
{
	__u32 w[10] = {}, hlen, l4[2] = {};
	__u8 *b = (__u8 *)w, *t = (__u8 *)l4, proto;

	if (ctx->protocol == bpf_htons(PP_ETH_P_IP)) {
		if (bpf_skb_load_bytes_relative(ctx, 0, w, 20, BPF_HDR_START_NET) ||
		    ((b[6] & 0x1f) | b[7]))
			return false;
		proto = b[9];
		hlen = (b[0] & 0xf) * 4;
		k->saddr[0] = w[3];
		k->daddr[0] = w[4];
		k->family = 4;
	} else if (ctx->protocol == bpf_htons(PP_ETH_P_IPV6)) {
		if (bpf_skb_load_bytes_relative(ctx, 0, w, 40, BPF_HDR_START_NET))
			return false;
		proto = b[6];
		hlen = 40;
		__builtin_memcpy(k->saddr, &w[2], 16);
		__builtin_memcpy(k->daddr, &w[6], 16);
		k->family = 6;
	} else {
		return false;
	}
	if (bpf_skb_load_bytes_relative(ctx, hlen, l4, 8, BPF_HDR_START_NET))
		return false;
	if (proto == 6 || proto == 17 || proto == 132 || proto == 136) {
		k->sport = l4[0] & 0xffff;
		k->dport = l4[0] >> 16;
	} else if ((proto == 1 && (t[0] == 8 || t[0] == 0)) ||
		   (proto == 58 && (t[0] == 128 || t[0] == 129))) {
		/* Echo request and reply carry the same identifier. */
		k->sport = k->dport = l4[1] & 0xffff;
	} else {
		return false;
	}
	k->proto = proto;
	k->dev = dev;
	return true;
}

/* K's source address and port folded, never 0. */
static __always_inline __u32 pp_reply_src(const struct pp_reply_key *k)
{
	__u64 h = pp_fold(0, k->sport);

#pragma unroll
	for (int i = 0; i < 4; i++)
		h = pp_fold(h, k->saddr[i]);
	return (__u32)(h >> 32) | 1;
}

/*
 * The socket the kernel would hand received CTX to (a listener for a SYN),
 * of tuple K (pp_reply_key_of(), ingress), in its device's namespace,
 * referenced (bpf_sk_release()); NULL: none, or not TCP or UDP.
 */
static __always_inline struct bpf_sock *pp_scope_sock(struct __sk_buff *ctx,
						      const struct pp_reply_key *k)
{
	struct bpf_sock_tuple t = {};
	__u32 len = sizeof(t.ipv4);

	if (k->family == 4) {
		t.ipv4.saddr = k->saddr[0];
		t.ipv4.daddr = k->daddr[0];
		t.ipv4.sport = k->sport;
		t.ipv4.dport = k->dport;
	} else {
		__builtin_memcpy(t.ipv6.saddr, k->saddr, sizeof(t.ipv6.saddr));
		__builtin_memcpy(t.ipv6.daddr, k->daddr, sizeof(t.ipv6.daddr));
		t.ipv6.sport = k->sport;
		t.ipv6.dport = k->dport;
		len = sizeof(t.ipv6);
	}
	if (k->proto == 6)
		return bpf_sk_lookup_tcp(ctx, &t, len, BPF_F_CURRENT_NETNS, 0);
	if (k->proto == 17)
		return bpf_sk_lookup_udp(ctx, &t, len, BPF_F_CURRENT_NETNS, 0);
	return NULL;
}

/* Marked ctx's pp_skb_val.mark_src: 0 if no reply could be told by its tuple. */
static __always_inline __u32 pp_mark_src(struct __sk_buff *ctx)
{
	struct pp_reply_key k = {};

	return pp_reply_key_of(ctx, 0, &k) ? pp_reply_src(&k) : 0;
}

static __always_inline bool pp_reply_fresh(__u64 now, __u64 ts)
{
	return (__s64)(now - ts) <= (__s64)PP_REPLY_NS;
}

/* ctx's device in pp_state.reply_devs. */
static __always_inline __u64 pp_reply_dev_bit(struct __sk_buff *ctx)
{
	return 1ULL << (ctx->ifindex & 63);
}

/*
 * Tracked V leaves by TC egress HOOK with another tuple than at its mark:
 * if its source is another and its length the same, a source NAT
 * (masquerade) rewrote it (an encapsulation would have grown it). Its
 * replies enter by the same device addressed to the rewritten source,
 * which the filter may not match: their tuple, keyed to the device, goes
 * into reply_map for the ingress to mark them (pp_reply_of()). Not for a
 * destination rewritten alone (a DNAT, or a NAT undone on a reply the
 * filter matched: following the conversation back would mark what the
 * filter excludes both before and after the NAT), nor for a packet
 * marked as a reply itself.
 */
static __always_inline void pp_reply_note(struct pp_state *st, struct pp_skb_val *v,
					  struct __sk_buff *ctx, __u32 hook)
{
	struct pp_reply_key k = {}, r = {};
	struct pp_reply_val val;
	__u64 devs;

	if ((v->flags & PP_SKB_REPLY) || !v->mark_src || ctx->len != v->mark_len)
		return;
	if (!pp_reply_key_of(ctx, hook & ~1U, &k) || pp_reply_src(&k) == v->mark_src)
		return;
	__builtin_memcpy(r.saddr, k.daddr, sizeof(r.saddr));
	__builtin_memcpy(r.daddr, k.saddr, sizeof(r.daddr));
	r.sport = k.dport;
	r.dport = k.sport;
	r.proto = k.proto;
	r.family = k.family;
	r.dev = k.dev;
	val.id = v->id;
	val.ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&reply_map, &r, &val, BPF_ANY);
	/*
	 * No atomic OR: Linux 5.10 refuses it (BPF_ATOMIC ops but add came
	 * in 5.12). Two CPUs noting two devices at once may lose one's bit:
	 * that device's next noted packet sets it again.
	 */
	devs = READ_ONCE(st->reply_devs);
	if (!(devs & pp_reply_dev_bit(ctx)))
		*(volatile __u64 *)&st->reply_devs = devs | pp_reply_dev_bit(ctx);
	*(volatile __u64 *)&st->reply_ts = val.ts;
}

/*
 * An ingress hook on a device a reply's tuple was noted for, within
 * PP_REPLY_NS of the last note: the time now; 0 otherwise. Untracked
 * traffic pays one read of reply_ts while no tracked packet was rewritten
 * within PP_REPLY_NS (the loader clears a stale one), and a read of
 * reply_devs on ingress otherwise.
 */
static __always_inline __u64 pp_reply_open(struct pp_state *st, struct __sk_buff *ctx, __u32 probe)
{
	__u64 seen, now;

	if (probe != PP_PROBE_TC_INGRESS)
		return 0;
	seen = READ_ONCE(st->reply_ts);
	if (!seen || !(READ_ONCE(st->reply_devs) & pp_reply_dev_bit(ctx)))
		return 0;
	now = bpf_ktime_get_ns();
	return pp_reply_fresh(now, seen) ? now : 0;
}

/*
 * Untracked ctx at ingress HOOK: the id of the tracked packet it is a
 * reply to (pp_reply_note()), 0 if none. NOW: pp_reply_open()'s, if the
 * caller has it. Where that is open, a read of its headers and a lookup.
 */
static __always_inline __u64 pp_reply_of(struct pp_state *st, struct __sk_buff *ctx, __u32 hook,
					 __u32 probe, __u64 now)
{
	struct pp_reply_key k = {};
	struct pp_reply_val *r;

	if (!now)
		now = pp_reply_open(st, ctx, probe);
	if (!now || !pp_reply_key_of(ctx, hook & ~1U, &k))
		return 0;
	r = bpf_map_lookup_elem(&reply_map, &k);
	if (!r || !pp_reply_fresh(now, READ_ONCE(r->ts)))
		return 0;
	return r->id;
}

/* Beside an inode (pp_hop.sock_ino): its conversation is new. Inodes are 32-bit, from 1. */
#define PP_SOCK_FRESH (1ULL << 32)

/*
 * The reply direction of the conversation CTX belongs to, as
 * scope_flow_map keys it (no device: a reply may come in by another).
 */
static __always_inline bool pp_scope_flow_key(struct __sk_buff *ctx, bool egress,
					      struct pp_reply_key *r)
{
	struct pp_reply_key k = {};

	if (!pp_reply_key_of(ctx, 0, &k))
		return false;
	if (!egress) {
		*r = k;
		return true;
	}
	__builtin_memcpy(r->saddr, k.daddr, sizeof(r->saddr));
	__builtin_memcpy(r->daddr, k.saddr, sizeof(r->daddr));
	r->sport = k.dport;
	r->dport = k.sport;
	r->proto = k.proto;
	r->family = k.family;
	return true;
}

/*
 * The process that made the socket of a MARK in a cgroup scope (sent by
 * it, or on ingress, for the socket the kernel would hand it to), as the
 * socket's storage keeps it (pp_sock_create(), or the loader for a socket
 * older than pktpath); zero if not known.
 */
static __always_inline void pp_mark_maker(struct __sk_buff *ctx, struct pp_mark *m)
{
	struct pp_sock_maker *o = NULL;
	const bool egress = m->hop.probe == PP_PROBE_TC_EGRESS;
	struct pp_reply_key k = {};
	struct bpf_sock *sk;

	m->pad = 0;
	m->maker_pid = 0;
	m->maker_comm[0] = 0;
	if (!pp_cfg.scope_cgid)
		return;
	if (egress) {
		sk = ctx->sk;
		if (sk)
			sk = bpf_sk_fullsock(sk);
		if (sk)
			o = bpf_sk_storage_get(&sock_maker_map, sk, 0, 0);
	}
	/* A SYN-ACK's request socket has no storage: its listener's, looked up. */
	if (!o && pp_scope_flow_key(ctx, egress, &k)) {
		sk = pp_scope_sock(ctx, &k);
		if (sk) {
			o = bpf_sk_storage_get(&sock_maker_map, sk, 0, 0);
			bpf_sk_release(sk);
		}
	}
	if (!o)
		return;
	m->maker_pid = o->pid;
	__builtin_memcpy(m->maker_comm, o->comm, sizeof(m->maker_comm));
}

/*
 * A record with the packet's leading bytes: a new packet's MARK (REPLY_TO:
 * the packet it is a reply to, pp_reply_of(); 0: it matched), or the
 * HOP_BYTES of a tracked one whose headers changed (V: its entry).
 */
static __always_inline void pp_emit_bytes(struct pp_state *st, struct pp_skb_val *v,
					  struct __sk_buff *ctx, __u64 id, __u32 probe,
					  const __u32 type, __u64 reply_to, __u64 sock_ino)
{
	/* A scope's new conversation: its process is looked for at once, while it runs. */
	const bool wake = sock_ino & PP_SOCK_FRESH;

	struct pp_mark *m = bpf_ringbuf_reserve(&path_map, sizeof(*m), 0);
	__u64 n = ctx->len; /* 64-bit: no zero-extended copy for clang to check instead */

	if (!m) {
		pp_count_lost(st, v, probe);
		return;
	}
	pp_fill_hop(&m->hop, type, probe, id, (struct sk_buff *)ctx, PP_VIA_TC);
	if (n > PP_HDR_BYTES)
		n = PP_HDR_BYTES;
	if (n) {
		/*
		 * 1..PP_HDR_BYTES in a form that older verifiers (6.1) can follow:
		 * they learn nothing from "n != 0". The barrier keeps clang from
		 * folding it back to n.
		 */
		barrier_var(n);
		n = ((n - 1) & (PP_HDR_BYTES - 1)) + 1;
		/* bpf_skb_load_bytes() also reaches bytes outside the linear part. */
		if (bpf_skb_load_bytes(ctx, 0, m->data, n) < 0)
			n = 0;
	}
	m->cap_len = n;
	m->hop.sock_ino = (__u32)sock_ino;
	if (type == PP_REC_MARK)
		pp_mark_maker(ctx, m);
	else
		m->maker_pid = 0;
	if (reply_to) {
		m->hop.flags |= PP_HOP_REPLY;
		m->hop.location = reply_to;
	}
	/* The tag's bytes stay out of data[]: user space puts them back. */
	m->vlan = ctx->vlan_present ? bpf_ntohs(ctx->vlan_proto) << 16 | ctx->vlan_tci : 0;
	if (wake)
		bpf_ringbuf_submit(m, BPF_RB_FORCE_WAKEUP);
	else if (type == PP_REC_MARK)
		pp_submit_mark(st, m);
	else
		pp_submit(st, m);
}

/*
 * A tracked packet reaches a TC hook: a new one for it, noted; one it has
 * crossed already means the sk_buff now carries another packet.
 */
static __always_inline bool pp_cross_hook(struct pp_skb_val *v, __u32 hook)
{
	for (int i = 0; i < PP_TC_HOOKS; i++) {
		if (v->tc_hook[i] == hook)
			return false;
		if (!v->tc_hook[i]) {
			v->tc_hook[i] = hook;
			return true;
		}
	}
	return true; /* more hooks than slots: trust the other checks */
}

/*
 * Tracked V's hop at this hook: with its bytes if its addresses or ports
 * are no longer those of its mark, and on egress its reply's tuple noted.
 */
static __always_inline void pp_tc_hop(struct pp_state *st, struct pp_skb_val *v,
				      struct __sk_buff *ctx, __u32 probe, __u32 hook)
{
	__u64 now = v->tuple ? pp_tc_tuple(ctx) : 0;

	pp_head_follow(st, v, (__u64)ctx, PP_VIA_TC);
	pp_frag_seen(st, ctx, (__u64)ctx, v->id);
	if (now && now != v->tuple) {
		pp_emit_bytes(st, v, ctx, v->id, probe, PP_REC_HOP_BYTES, 0, 0);
		if (probe == PP_PROBE_TC_EGRESS)
			pp_reply_note(st, v, ctx, hook);
	} else
		pp_emit_hop(st, v, PP_REC_HOP, probe, (struct sk_buff *)ctx, 0, 0, PP_VIA_TC);
}

/*
 * The hook's identity: its device's ifindex and direction, and the device's
 * namespace, since a run scoped to several namespaces (--netns) hooks devices
 * of equal ifindex (every namespace numbers its own from 1: a pod's eth0 and
 * its node's underlay are both 2); without it a packet crossing the second
 * would look like another in a reused sk_buff. The namespace's inode is
 * folded into the high 16 bits: ifindex below 32768 keeps the low ones
 * non-zero and bit 0 the direction (pp_send_start()).
 */
static __always_inline __u32 pp_hook_id(struct __sk_buff *ctx, __u32 probe)
{
	struct sk_buff *skb = (struct sk_buff *)ctx;
	__u32 netns = pp_netns(skb, pp_skb_dev(skb, PP_VIA_TC), PP_VIA_TC);

	return (ctx->ifindex << 1 | (probe == PP_PROBE_TC_EGRESS)) ^ netns << 16;
}

/*
 * A tracked skb gets a hop, matched or not; a clone of a tracked one (a
 * bridge's flood copies) joins its packet. A tracked sk_buff that crossed
 * this hook already, or that a socket took, was freed unseen and carries
 * another packet. An IPv4 fragment cut from a tracked packet joins it
 * (bpf/frag.bpf.h). A MATCH that is none of these is a new packet, and so
 * is, on ingress, a reply to a tracked packet's NAT rewrite. Traffic
 * while nothing is tracked pays the filter and one array lookup (and a
 * read of the clock within PP_FRAG_NS of a tracked packet that may be cut:
 * its later fragments may come after it ended; on ingress of a device a
 * tracked packet left by NATed, a read of the clock within PP_REPLY_NS
 * of that: its replies may come after it ended, see pp_reply_open()).
 */
static __always_inline int pp_classify(struct __sk_buff *ctx, bool match, __u32 probe,
				       const bool fetch, __u64 sock_ino)
{
	__u64 skb = (__u64)ctx, id, reply_to = 0, open = 0; /* skb: its struct sk_buff's address */
	struct pp_state *st = pp_state();
	struct pp_skb_val *v;
	__u32 hook;
	bool busy;

	if (!st)
		return TC_ACT_UNSPEC;
	busy = pp_busy(st);
	/* Nothing tracked, nothing new, no fragment to come: the hook's identity is not read. */
	if (!busy && !match && !pp_frag_recent(st) && !(open = pp_reply_open(st, ctx, probe)))
		return TC_ACT_UNSPEC;
	hook = pp_hook_id(ctx, probe);
	if (!busy) {
		/* A later fragment of a packet that ended meanwhile: it goes on as a copy. */
		v = pp_frag_join(st, ctx, skb, hook, probe);
		if (v) {
			v->tuple = pp_tc_tuple(ctx);
			return TC_ACT_UNSPEC;
		}
	} else {
		v = bpf_map_lookup_elem(&skb_map, &skb);
		if (v && !(v->flags & PP_SKB_TAKEN) && pp_cross_hook(v, hook)) {
			pp_tc_hop(st, v, ctx, probe, hook);
			return TC_ACT_UNSPEC;
		}
		if (v) {
			pp_forget_reused(st, v, skb, PP_VIA_TC);
		} else if (pp_join_copy(st, skb, probe, hook, PP_VIA_TC)) {
			return TC_ACT_UNSPEC;
		} else {
			v = pp_frag_join(st, ctx, skb, hook, probe);
			/* A later fragment's tuple has no ports: its own, not the mark's. */
			if (v) {
				v->tuple = pp_tc_tuple(ctx);
				return TC_ACT_UNSPEC;
			}
		}
	}
	if (!match)
		reply_to = pp_reply_of(st, ctx, hook, probe, open);
	if ((!match && !reply_to) || pp_track(st, skb, hook, &id, PP_VIA_TC, fetch))
		return TC_ACT_UNSPEC;
	pp_frag_seen(st, ctx, skb, id);
	v = pp_skb_entry(skb);
	if (v) {
		v->tuple = pp_tc_tuple(ctx);
		v->mark_len = ctx->len;
		v->mark_src = pp_mark_src(ctx);
		if (reply_to)
			v->flags |= PP_SKB_REPLY;
	}
	pp_emit_bytes(st, NULL, ctx, id, probe, PP_REC_MARK, reply_to, sock_ino);
	return TC_ACT_UNSPEC;
}

#define PP_TCP_TIME_WAIT    6 /* include/net/tcp_states.h */
#define PP_TCP_NEW_SYN_RECV 12

/*
 * The inode of the socket that sends CTX, as /proc/PID/fd names it
 * (socket:[N]): the loader finds its process there. 0: no socket, or a
 * request or time-wait socket, which has no file.
 */
static __always_inline __u32 pp_sock_ino(struct __sk_buff *ctx)
{
	struct sock *sk = BPF_CORE_READ((struct sk_buff *)(__u64)ctx, sk);
	__u8 state;

	if (!sk)
		return 0;
	state = BPF_CORE_READ(sk, __sk_common.skc_state);
	if (state == PP_TCP_TIME_WAIT || state == PP_TCP_NEW_SYN_RECV)
		return 0;
	return BPF_CORE_READ(sk, sk_socket, file, f_inode, i_ino);
}

/* Whether CTX is sent by a time-wait socket (a closed connection's last ACK). */
static __always_inline bool pp_sock_time_wait(struct __sk_buff *ctx)
{
	struct sock *sk = BPF_CORE_READ((struct sk_buff *)(__u64)ctx, sk);

	return sk && BPF_CORE_READ(sk, __sk_common.skc_state) == PP_TCP_TIME_WAIT;
}

/*
 * Egress: CTX is sent by a socket of the cgroup scope, or of a cgroup below
 * it (the skb's socket; a request socket counts as its listener's); its
 * socket's inode into INO if MATCH (the filter's verdict) or the
 * conversation is new, with PP_SOCK_FRESH for a new one. Its
 * conversation's reply tuple is noted with that inode whatever the filter
 * says (a filter may match the replies alone); one that leaves by a socket
 * outside (a port reused by another program) is forgotten, unless it is
 * the conversation's own time-wait socket. A lookup a packet, an update or
 * a delete when that changes.
 */
static __always_inline bool pp_scope_sent(struct __sk_buff *ctx, bool match, __u64 *ino)
{
	bool in = bpf_skb_ancestor_cgroup_id(ctx, pp_cfg.scope_cglevel) == pp_cfg.scope_cgid;
	struct pp_reply_key k = {};
	__u32 *known, v;

	if (!pp_scope_flow_key(ctx, true, &k)) {
		if (in && match)
			*ino = pp_sock_ino(ctx);
		return in;
	}
	known = bpf_map_lookup_elem(&scope_flow_map, &k);
	/*
	 * A time-wait socket has no cgroup and no file: the last ACK of a
	 * conversation noted is its socket's, now closed.
	 */
	if (!in && known && pp_sock_time_wait(ctx))
		in = true;
	/* The socket's inode, four reads: for a mark, or a conversation not noted yet. */
	if (in && (match || !known))
		*ino = pp_sock_ino(ctx);
	if (in && !*ino && known)
		*ino = *known;
	if (in && (!known || (match && *known != *ino))) {
		v = *ino;
		bpf_map_update_elem(&scope_flow_map, &k, &v, BPF_ANY);
		if (*ino)
			*ino |= PP_SOCK_FRESH;
	} else if (!in && known) {
		bpf_map_delete_elem(&scope_flow_map, &k);
	}
	return in;
}

/*
 * Received CTX of tuple K, of no conversation noted: for a socket of the
 * scope, which its storage tells (the scope's sockets have a maker there):
 * a listener's SYN, a UDP server's datagram. A lookup (a hash or two) for
 * what the filter matched.
 */
static __always_inline bool pp_scope_served(struct __sk_buff *ctx, const struct pp_reply_key *k)
{
	struct bpf_sock *sk = pp_scope_sock(ctx, k);
	bool in;

	if (!sk)
		return false;
	in = bpf_sk_storage_get(&sock_maker_map, sk, 0, 0) != NULL;
	bpf_sk_release(sk);
	return in;
}

/*
 * MATCH (the filter's verdict) in the cgroup scope: on egress, sent by its
 * sockets (pp_scope_sent(), tested for every packet); on ingress, a reply
 * of a noted conversation, or a packet for a socket of the scope
 * (pp_scope_served()), tested for what the filter matched. INO: the inode
 * of the scope's socket that sent it or whose conversation it answers
 * (0 for a served packet before its conversation is noted: its mark names
 * its socket's maker). A TC program cannot ask a socket it looks up for its
 * cgroup (bpf_sk_cgroup_id() is cgroup_skb's): the scope's sockets are told
 * by their storage. Forwarded packets, which no local socket sends, are
 * outside.
 */
static __always_inline bool pp_cgroup_match(struct __sk_buff *ctx, bool egress, bool match,
					    __u64 *ino)
{
	struct pp_reply_key k = {};
	__u32 *flow;

	if (!pp_cfg.scope_cgid)
		return match;
	if (egress)
		return pp_scope_sent(ctx, match, ino) && match;
	if (!match || !pp_scope_flow_key(ctx, false, &k))
		return false;
	flow = bpf_map_lookup_elem(&scope_flow_map, &k);
	if (flow) {
		*ino = *flow;
		return true;
	}
	return pp_scope_served(ctx, &k);
}

/*
 * A socket made in the cgroup scope (the loader attaches this to the
 * scope's cgroup alone: no other socket(2) runs it): its maker kept with
 * it for pp_mark_maker(). 1: the socket is made, as it would be without.
 */
SEC("cgroup/sock_create")
int pp_sock_create(struct bpf_sock *ctx)
{
	struct pp_sock_maker *o =
		bpf_sk_storage_get(&sock_maker_map, ctx, 0, BPF_SK_STORAGE_GET_F_CREATE);

	if (o) {
		o->pid = bpf_get_current_pid_tgid() >> 32;
		bpf_get_current_comm(o->comm, sizeof(o->comm));
	}
	return 1;
}

/*
 * Never attached. With --verdicts, the frame template's target while no
 * XDP program with BTF is loaded (loader/probes/verdicts.c): its context,
 * as the programs' its copies go on, is an xdp_buff to an fexit. Named as
 * pktpath's classifiers, which --verdicts and the hooks' lists leave out.
 */
SEC("xdp")
int pp_cls_xdp_anchor(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_PASS;
}

/* The filter's verdict first (pp_filter_matched()), then the cgroup's. */
SEC("pktpath_cls")
int pp_cls_ingress(struct __sk_buff *ctx)
{
	bool match = pp_filter_matched();
	__u64 ino = 0;

	match = pp_cgroup_match(ctx, false, match, &ino);
	return pp_classify(ctx, match, PP_PROBE_TC_INGRESS, true, ino);
}

SEC("pktpath_cls")
int pp_cls_egress(struct __sk_buff *ctx)
{
	bool match = pp_filter_matched();
	__u64 ino = 0;

	match = pp_cgroup_match(ctx, true, match, &ino);
	return pp_classify(ctx, match, PP_PROBE_TC_EGRESS, true, ino);
}

/* For kernels without atomic fetch (pp_next_id()): the loader loads these instead. */
SEC("pktpath_cls")
int pp_cls_ingress_nofetch(struct __sk_buff *ctx)
{
	bool match = pp_filter_matched();
	__u64 ino = 0;

	match = pp_cgroup_match(ctx, false, match, &ino);
	return pp_classify(ctx, match, PP_PROBE_TC_INGRESS, false, ino);
}

SEC("pktpath_cls")
int pp_cls_egress_nofetch(struct __sk_buff *ctx)
{
	bool match = pp_filter_matched();
	__u64 ino = 0;

	match = pp_cgroup_match(ctx, true, match, &ino);
	return pp_classify(ctx, match, PP_PROBE_TC_EGRESS, false, ino);
}
