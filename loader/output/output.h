/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output of closed packets: a text block per packet for people, a JSON
 * object per line for programs (docs/json-schema.md), and the exit summary.
 */
#ifndef PP_OUTPUT_H
#define PP_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "paths/path.h"
#include "paths/pkt_decode.h"
#include "paths/fate.h"

/* How to name things; the callbacks may be NULL, and may return NULL. */
struct pp_out_ops;

struct pp_out {
	FILE *f;
	const struct pp_out_ops *ops;	/* the format: pp_out_format() */
	const char *const *probe_names; /* probe index -> "ip_rcv", "tp:net:netif_receive_skb" */
	size_t nprobes;
	const char *(*reason_name)(__u32 reason, void *arg); /* -> "NETFILTER_DROP" */
	void *reason_arg;
	const char *(*sym_name)(__u64 addr, void *arg); /* kernel address -> "nf_hook_slow" */
	void *sym_arg;
	/*
	 * --stack: the frames of kernel stack ID (pp_hop.stack - 1), innermost
	 * first, named ("ip_rcv_core+0x1b"), up to MAX; how many (0: gone).
	 */
	size_t (*stack)(__u32 id, const char **frames, size_t max, void *arg);
	void *stack_arg;
	/*
	 * The name of interface IFINDEX of the namespace with inode NETNS,
	 * written into buf (PP_IFNAMSIZ + 1 bytes); NULL if not known.
	 */
	const char *(*if_name)(__u32 netns, __u32 ifindex, char *buf, void *arg);
	void *if_arg;
	/*
	 * The BPF programs other than pktpath's at HOOK (enum pp_hook,
	 * tc/hook_progs.h) of interface IFINDEX of the namespace with inode
	 * NETNS, now: "NAME (id N, VIA)", comma-separated, into BUF[LEN]; its
	 * length (0: none), or -1 if they cannot be listed.
	 */
	int (*hook_progs)(__u32 netns, __u32 ifindex, int hook, char *buf, size_t len, void *arg);
	void *hook_arg;
	/*
	 * This kernel could record those programs' verdicts (--verdicts), and
	 * they are not: a drop's hint says so where it lists them.
	 */
	bool verdicts_off;
	/*
	 * --json --snaplen N: each packet line also carries up to N bytes of
	 * the mark ("head"), for `pktpath report`'s pcapng. 0: none.
	 */
	__u32 head_bytes;
	/*
	 * CLOCK_REALTIME - CLOCK_MONOTONIC (wallclock.h): every packet's first
	 * hop as a wall-clock time, in the text header line and in JSON
	 * ("real_ns", beside "mono_ns").
	 */
	__s64 real_off;
	/*
	 * Network namespaces by name (names/netns_names.h): the name of inode
	 * INODE, NULL if none is known, valid until the next call. NULL: inodes.
	 */
	const struct pp_ns_name *(*netns_name)(__u32 inode, void *arg);
	void *netns_arg;
	/* Text: the namespaces described so far (pp_out_ns_legend()); -v: with inodes. */
	struct pp_ns_told *told;
	bool netns_inodes;
	/*
	 * JSON: the host that wrote the line ("host": its name, --host-name or
	 * gethostname(), and /proc/sys/kernel/random/boot_id), for `pktpath
	 * report`'s joins across hosts. NULL: no "host".
	 */
	const char *host_name;
	const char *boot_id;
};

/* The set of namespace inodes whose legend line was printed. */
struct pp_ns_told {
	__u32 *inodes;
	size_t n, cap;
};

/*
 * The exit totals: packets by fate, records lost; the exit line, JSON's
 * {"summary":...}. (--summary is the distinct paths: summary.h.)
 */
struct pp_totals {
	__u64 packets;		      /* packets emitted */
	__u64 fates[PP_FATE_MAX + 1]; /* by enum pp_fate: the rows of fate.h */
	__u64 taps;	/* packet sockets' copies (tcpdump's): observers, no fate of their own */
	__u64 lost;	/* records lost to a full ring buffer */
	__u64 gaps;	/* packets with hops not seen (PP_HOP_GAP): pp_packet_gaps() */
	__u64 map_full; /* packets that matched but found skb_map full */
	__u64 skipped;	/* probe runs the kernel skipped: a BPF program ran on that CPU */
	__u64 sample_period; /* --max-rate: the largest N of 1 in N tracked; 0: not sampled */
};

/* P's records before which hops went unseen (PP_HOP_GAP). */
__u32 pp_packet_gaps(const struct pp_packet *p);
/*
 * The END whose drop is P's fate (its reason and place): the first, as the
 * fate is the first drop's; NULL if not there.
 */
const struct pp_hop *pp_out_drop_end(const struct pp_packet *p);

/* Counts p in s: packets and its fate. */
void pp_totals_add(struct pp_totals *s, const struct pp_packet *p);

struct pp_summary;
struct pp_sum_when;

/*
 * An output format: what a run and `pktpath report` write per packet, for
 * --summary and at exit. Chosen once (pp_out_format()) into struct pp_out's
 * ops; a new format is a file, output_NAME.c, with its functions and its
 * row, pp_out_format_NAME (output_formats.c says how it is found).
 */
struct pp_out_ops {
	const char *name; /* "text", "json": the option that chooses it (cli_options.c) */
	/*
	 * Lines for programs: printed alongside --metrics, and --snaplen's first
	 * bytes of each packet go into them (for pktpath report's exports).
	 */
	bool machine;
	void (*begin)(const struct pp_out *o); /* before the first packet; NULL: nothing */
	void (*packet)(const struct pp_out *o, const struct pp_packet *p);
	void (*summary)(const struct pp_out *o, const struct pp_summary *s,
			const struct pp_sum_when *when);
	void (*totals)(const struct pp_out *o, const struct pp_totals *s);
};

/* The format named NAME ("text", "json"), NULL if none is. */
const struct pp_out_ops *pp_out_format(const char *name);

void pp_out_text_header(const struct pp_out *o);
void pp_out_text(const struct pp_out *o, const struct pp_packet *p);
void pp_out_json(const struct pp_out *o, const struct pp_packet *p);
void pp_out_totals_text(const struct pp_out *o, const struct pp_totals *s);
void pp_out_totals_json(const struct pp_out *o, const struct pp_totals *s);

/*
 * Helpers shared by both formats. A probe's name: the list entry, "tc:ingress",
 * "tc:egress", or "probe#N" (written into buf) for an index with no name.
 */
const char *pp_out_probe_name(const struct pp_out *o, __u32 probe, char *buf, size_t len);
/* The mark direction of a classifier probe, NULL for any other probe. */
const char *pp_out_tc_dir(__u32 probe);
/*
 * The last hop at which a process copied the packet's data out of a socket
 * (the read that delivered it), on skb R or, if R is NULL, on any of its
 * skbs; NULL if none was seen.
 */
const struct pp_hop *pp_out_read_hop(const struct pp_out *o, const struct pp_packet *p,
				     const struct pp_skbref *r);
/*
 * The index in p->skbs[] (0: the first skb) of the skb at address SKB at
 * time TS (an address may hold several skbs in turn: pp_skb_index()),
 * p->nskbs if absent.
 */
size_t pp_out_skb_index(const struct pp_packet *p, __u64 skb, __u64 ts);
/* The index of the skb that hop H is on. */
size_t pp_out_hop_skb(const struct pp_packet *p, const struct pp_hop *h);
/*
 * The index of copy R's parent, p->nskbs if unknown: the life its address
 * had when the parent was last seen alive (a fragment's source may be
 * freed, and its address taken by another skb, before the fragment joins).
 */
size_t pp_out_parent_skb(const struct pp_packet *p, const struct pp_skbref *r);
/* The packet's length: the mark hop's skb->len, else the first hop's. */
__u32 pp_out_pkt_len(const struct pp_packet *p);

struct pp_wbuf;
/*
 * A namespace for a column: its name, else its inode in decimal (in BUF,
 * which holds 11 bytes or more), else "-".
 */
const char *pp_out_netns(const struct pp_out *o, __u32 inode, char *buf, size_t len);
/*
 * Text: a line for each namespace of P not described yet, before its block:
 * a container's runtime, short id and pod, always; with netns_inodes, every
 * named namespace, with its inode.
 */
void pp_out_ns_legend(const struct pp_out *o, struct pp_wbuf *w, const struct pp_packet *p);
void pp_ns_told_free(struct pp_ns_told *t);
/* A JSON string of at most max bytes of s, escaped as the packets' strings are. */
void pp_out_json_str(struct pp_wbuf *w, const char *s, size_t max);

#endif /* PP_OUTPUT_H */
