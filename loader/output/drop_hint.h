/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Drop diagnosis: a one-line explanation of a dropped packet, as a network
 * engineer would give it, from what pktpath saw (the drop reason and the
 * function that dropped it, its caller, the packet's bytes as marked, the
 * device and namespace of the drop), with that evidence in parentheses:
 *
 *   netfilter's ipv4 forward hook dropped it: an nftables rule or the chain's
 *   policy (NETFILTER_DROP at nft_do_chain, under nf_hook_slow called by
 *   ip_forward, on r-eth0, netns pp-r)
 *
 * A reason it has no explanation for gets its name and place, never a guess.
 */
#ifndef PP_DROP_HINT_H
#define PP_DROP_HINT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "output/output.h"
#include "paths/pkt_decode.h"

/* What is known about one drop; NULL, "" or 0 where it is not. */
struct pp_drop_facts {
	const char *reason; /* "NETFILTER_DROP"; NULL: the kernel's BTF has no name */
	__u32 reason_code;
	const char *func;   /* the function that dropped it: "nf_hook_slow" */
	__u64 location;	    /* its address in that function */
	const char *caller; /* the function that called it, or with nf_caller nf_hook_slow()'s */
	bool nf_caller;	    /* it ran under nf_hook_slow(), and caller called that */
	const struct pp_pkt_summary *pkt; /* the packet as marked */
	const char *dev;		  /* the skb's device at the drop */
	__u32 netns;			  /* the network namespace of the drop */
	const char *netns_name;		  /* its name (names/), NULL: the inode stands */
	bool icmp_sent;			  /* the kernel sent an ICMP error about it */
	bool icmp_traced; /* ICMP errors sent are traced (tp:icmp:icmp_send), so none seen means
			     none */
	__u32 len;	  /* skb->len at the drop */
	bool on_mark_dev; /* dropped on the device where it was marked */
	/* PKT_TOO_BIG: the way out it was too big for (pp_hop.out_*); 0, NULL: not known */
	__u32 out_mtu;
	__u32 out_ifindex;
	const char *out_dev;
	/*
	 * A TC or XDP drop: the BPF programs at that hook now, other than
	 * pktpath's ("NAME (id N, tcx), ..."); "": none; NULL: not known.
	 */
	const char *hook_progs;
	/* The program a verdict hop saw drop it ("NAME#ID returned TC_ACT_SHOT"), or NULL. */
	const char *judge;
	bool verdicts_off; /* --verdicts would name the program that decided (output.h) */
	bool frame;	   /* a frame an XDP program dropped before any skb (PP_HOP_FRAME) */
};

/*
 * Dropped packet P's deciding program, where a verdict hop saw it drop P
 * before the END that is P's fate; or the program that sent back or
 * redirected P, a frame before any skb (PP_HOP_FRAME): "NAME#ID returned
 * VERDICT" in BUF, or NULL.
 */
const char *pp_out_drop_judge(const struct pp_out *o, const struct pp_packet *p, char *buf,
			      size_t len);

/*
 * Where a frame's redirect went, from its END (PP_HOP_REDIRECT): "to DEV",
 * its map, the error it failed with, into BUF[LEN] as snprintf().
 */
size_t pp_out_redirect_str(const struct pp_out *o, const struct pp_hop *end, char *buf, size_t len);

/* Another program's verdict on a packet: "NAME#ID returned VERDICT" into BUF[LEN], BUF. */
const char *pp_out_verdict_str(const struct pp_out *o, __u32 probe, __u32 code, bool xdp, char *buf,
			       size_t len);

/*
 * The explanation and its evidence, written into buf[len] as snprintf()
 * would; returns the length the whole hint needs.
 */
size_t pp_drop_hint(const struct pp_drop_facts *f, char *buf, size_t len);

/*
 * The hint for packet P's drop (P's fate must be PP_FATE_DROPPED), from
 * the END record of the skb that decided its fate, named with O's callbacks.
 */
size_t pp_out_drop_hint(const struct pp_out *o, const struct pp_packet *p, char *buf, size_t len);

/*
 * The hint for packet P that went on past XDP (PP_FATE_XDP): "XDP on DEV;
 * BPF programs there now: NAME (id N, xdp native)", from its first such
 * END; its length, 0 if there is none to give.
 */
size_t pp_out_xdp_hint(const struct pp_out *o, const struct pp_packet *p, char *buf, size_t len);

/*
 * A drop at a TC or XDP hook (REASON and the dropping function LOCATION
 * say which, on interface IFINDEX of namespace NETNS): the BPF programs
 * attached there now, the suspects ("NAME (id N, VIA), ..."; "" if none
 * but pktpath's), into BUF; their length, or -1 if the drop was at no
 * such hook or the hook cannot be read.
 */
int pp_out_drop_programs(const struct pp_out *o, __u32 reason, __u64 location, __u32 netns,
			 __u32 ifindex, char *buf, size_t len);

/*
 * The I-th reason the table explains (a name may repeat), NULL past the
 * last; *func: the function it must be dropped at, or NULL for any.
 */
const char *pp_drop_hint_reason(size_t i, const char **func);

/* The netfilter hook whose nf_hook_slow() call CALLER made: "forward"; NULL if not known. */
const char *pp_nf_hook_of(const char *caller, const char **family);

#endif /* PP_DROP_HINT_H */
