/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Path assembly: turns the ring buffer's MARK/HOP/END records into one
 * closed packet each, its hops sorted by time, handed to an emit callback.
 */
#ifndef PP_PATH_H
#define PP_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "pktpath.h"
#include "names/sock_owner.h"

/*
 * An skb that carried the packet: the marked one, or a clone or copy. One
 * address may carry several skbs of a packet in turn (a copy freed, another
 * copy made at the same address): each is an entry of its own, and a
 * record belongs to the one whose life holds its time (pp_skb_index()).
 */
struct pp_skbref {
	__u64 skb;
	__u64 parent;	   /* a copy: the skb it came from; 0 for the first */
	__u64 parent_ts;   /* a copy: when its parent was last seen alive */
	__u64 first_ts;	   /* its COPY's ts if one came, else its earliest record's */
	__u64 end_ts;	   /* its END's ts, if ended */
	__u32 probe;	   /* a copy: the probe that saw it join */
	__u32 end_probe;   /* its END's probe, if ended */
	__u32 end_flags;   /* its END's flags (PP_HOP_*), if ended */
	bool copy;	   /* it joined by a COPY record */
	bool hopped;	   /* a HOP (or the mark) of its own, besides its COPY and END */
	bool ended;	   /* its END arrived: the skb was freed */
	bool tap;	   /* its END says a packet socket's copy (PP_HOP_TAP): an observer */
	bool read;	   /* an END of it was its read's (PP_PROBE_READ) */
	bool twice;	   /* its read and its free both sent an END (pp_paths_add()) */
	enum pp_fate fate; /* its END's, PP_FATE_UNSEEN if none came */
	__u32 reason;	   /* DROPPED: enum skb_drop_reason value */
	__u64 location;	   /* DROPPED: kfree_skb's caller */
};

/*
 * The packet's leading bytes at a hop where its addresses, protocol or
 * ports were no longer those of its mark (a HOP_BYTES record): NAT seen
 * where it happened. The hop is in hops[] as a HOP.
 */
struct pp_hop_bytes {
	__u64 skb, ts; /* the hop's */
	__u32 probe;
	__u32 cap_len;
	__u8 data[PP_HDR_BYTES];
};

/*
 * How long before COPY H its parent was last seen alive (pp_hop.parent_age):
 * BPF sends the difference of two clocks' reads unchecked, and a note by
 * another CPU may be a little later than the join's own read; such a
 * difference, wrapped, is above 2^31 ns and means "at H".
 */
static inline __u64 pp_parent_age(const struct pp_hop *h)
{
	__u64 age = h->parent_age < (1U << 31) ? h->parent_age : 0;

	return age < h->ts ? age : 0;
}

/*
 * The index in skbs[] of the skb at address SKB at time TS: of the entries
 * with that address, the last that began at or before TS, else the first;
 * nskbs if none has it.
 */
size_t pp_skb_index(const struct pp_skbref *skbs, size_t nskbs, __u64 skb, __u64 ts);

/*
 * Whether R is a copy set aside: seen only at its own free (it joined at
 * the probe that saw its END, with no hop of its own, and that free was no
 * reader's, PP_HOP_READ), while another skb still held its data
 * (PP_HOP_SHARED): the data went on there, and nothing shows that this
 * copy went anywhere. A copy the kernel made for itself and freed, as
 * neigh_probe()'s clone of the packet waiting for its neighbour, handed to
 * arp_solicit() or ndisc_solicit() for its source address and consumed.
 * Its end is its own, not the packet's. The last holder of the data is
 * never set aside: it may be the packet's continuation, delivered (a
 * reader's free where the tracepoint has no location, before Linux 6.3).
 */
bool pp_skb_aside(const struct pp_skbref *r);

/*
 * A closed packet, valid only during the emit callback. hops[] holds every
 * hop of the packet: the mark hop (type PP_REC_MARK) when the mark arrived,
 * each HOP and COPY, and each END (one per skb freed); sorted by ts, ties
 * in arrival order. A packet closes when every skb in skbs[] has ended and
 * no freed skb left its data to a holder not yet seen (PP_HOP_SHARED); on
 * a timeout, those not ended are the skb_map entries left to delete.
 *
 * Its fate: consumed if any of its skbs was (delivered or sent: a copy
 * read by ping counts); else the first drop in skbs[] order (its reason and
 * location); else merged; else segmented; else left (--netns); else
 * unseen. An skb with no END has fate unseen;
 * a packet closed by the timeout with such an skb is unseen unless consumed.
 * Taps' copies (pp_skbref.tap) take no part, unless every skb is one (by_tap).
 * Nor does a copy set aside, seen only at its own free while another skb
 * held its data (pp_skb_aside()), unless every skb that is not a tap's is one.
 *
 * Lives: a COPY record for an address whose entry already joined by a COPY,
 * or began before the COPY, starts a new entry (the probes send one COPY a
 * skb, its first record); so does a HOP after the END of the address's
 * entry that holds its time, or an END when no entry of the address is
 * live. An END ends the live entry of its address that began at or before
 * it (else the last live one). An END when no entry of the address is live,
 * where the entry that holds its time ended and one of the two ENDs is the
 * read's (PP_PROBE_READ), is that entry's second END (twice): on the
 * tracepoint backend the reader's sock_recv_length and the deferred free's
 * consume_skb (skb_attempt_defer_free(), on the CPU that allocated the skb)
 * may both find the skb still tracked and both send one.
 *
 * Shared data: an END with PP_HOP_SHARED after which no skb of the packet is
 * live adds one to the packet's awaited count; the first COPY record of an
 * skb takes one off (not below 0). A packet closes on an END that leaves no
 * skb live and nothing awaited; otherwise at the timeout (lingered: no skb
 * live but something awaited). Before the emit, when the packet has several
 * skbs, a COPY hop directly followed (in sorted order) by an END of the same
 * skb and probe is removed: it is one step; so is a COPY directly followed
 * by such a removed COPY.
 */
/*
 * pp_hop.flags, set by the loader (BPF sets the low bits, include/pktpath.h):
 * the hop's skb had neither a device nor a socket, and its netns is that of
 * the skb's hop before it (path.c: netns_carry()).
 */
#define PP_HOP_NETNS_CARRIED (1U << 31)

struct pp_packet {
	__u64 id;
	const struct pp_mark *mark; /* NULL if the mark record was lost */
	const struct pp_hop *hops;
	size_t nhops;		      /* at least 1 */
	const struct pp_skbref *skbs; /* in order of first appearance */
	size_t nskbs;
	enum pp_fate fate; /* see above */
	__u32 reason;	   /* DROPPED: enum skb_drop_reason value */
	__u64 location;	   /* DROPPED: address of kfree_skb's caller, 0 if unknown */
	__u32 lost;	   /* hops lost to a full ring buffer, summed over its ENDs */
	bool lingered;	   /* closed by the timeout while waiting for a shared data's holder */
	const struct pp_hop_bytes *bytes; /* in arrival order */
	size_t nbytes;
	bool by_tap; /* every skb was a tap's copy: the fate is theirs */
	/*
	 * A cgroup scope's mark: the process that held its socket (the sender,
	 * or the one a reply is for), set by the trace loop; pid 0: not known.
	 */
	__u32 owner_pid;
	char owner_comm[16];
	/* Its container or systemd unit, if known (names/sock_owner.h). */
	enum pp_place owner_kind;
	char owner_place[PP_SOCK_PLACELEN];
};

/* The bytes that hop H of P carried, NULL if it carried none. */
const struct pp_hop_bytes *pp_packet_bytes(const struct pp_packet *p, const struct pp_hop *h);

/* Called once per packet; must not call back into pp_paths_*(). */
typedef void (*pp_emit_fn)(const struct pp_packet *p, void *ctx);

struct pp_paths_stats {
	__u64 records;	   /* records accepted */
	__u64 bad;	   /* records rejected: unknown type, wrong size, bad fate */
	__u64 late;	   /* records for a packet already closed, dropped */
	__u64 mark_lost;   /* packets emitted without their mark */
	__u64 emitted;	   /* packets handed to the emit callback */
	__u64 held;	   /* times a packet due to time out was kept open (pp_hold_fn) */
	__u64 graced;	   /* records that joined a packet ended but not yet emitted (grace) */
	__u64 ends_joined; /* second ENDs of an skb: its read's and its free's */
};

/*
 * Whether packet ID, due to time out, waits where no record comes for long
 * (a qdisc's queue) and stays open: SKBS its skbs so far.
 */
typedef bool (*pp_hold_fn)(__u64 id, const struct pp_skbref *skbs, __u32 nskbs, void *ctx);

/* How long past --packet-timeout a held packet stays open at most. */
#define PP_HOLD_MAX_NS (60ULL * 1000000000ULL)

/*
 * A record H for packet ID came AGO_NS after the packet was emitted: it is
 * not shown (stats.late counts it), and this says which packet it missed.
 */
typedef void (*pp_late_fn)(__u64 id, const struct pp_hop *h, __u64 ago_ns, void *ctx);

/*
 * The grace the trace loop gives an ended packet before it is emitted
 * (pp_paths_set_grace()): a read's END and the free's END of one skb are
 * sent from two CPUs at once and reach the ring in either order.
 */
#define PP_END_GRACE_NS (5ULL * 1000000ULL)

struct pp_paths;

struct pp_paths *pp_paths_new(pp_emit_fn emit, void *ctx);
/*
 * An ended packet (its last END in) is emitted by pp_paths_expire() once
 * GRACE_NS have passed since that END's time and its arrival, so that the
 * records other CPUs sent meanwhile join it; 0 (the default): at its END.
 */
void pp_paths_set_grace(struct pp_paths *pp, __u64 grace_ns);
/* LATE hears of each record that came after its packet was emitted. */
void pp_paths_set_late(struct pp_paths *pp, pp_late_fn late);
/* The packets HOLD keeps open past the timeout (up to PP_HOLD_MAX_NS). */
void pp_paths_set_hold(struct pp_paths *pp, pp_hold_fn hold);
/* Destroys the table; open packets are dropped without being emitted. */
void pp_paths_free(struct pp_paths *pp);

/*
 * Adds one ring-buffer record; an END record closes and emits its packet
 * (with a grace: ends it, and pp_paths_expire() emits it).
 * now_ns is the caller's monotonic clock, used only for expiry.
 * Returns 0, -EINVAL for a malformed record (counted in stats.bad) or
 * -ENOMEM.
 */
int pp_paths_add(struct pp_paths *pp, const void *rec, size_t size, __u64 now_ns);

/*
 * Emits every ended packet whose grace is over; closes every packet whose
 * last record arrived more than timeout_ns before now_ns, and forgets
 * packets closed that long ago (their late records are counted, not turned
 * into new packets). Call it periodically. Returns the number of packets
 * it closed.
 */
size_t pp_paths_expire(struct pp_paths *pp, __u64 now_ns, __u64 timeout_ns);

/* Closes every open packet as the timeout would, e.g. at exit. */
size_t pp_paths_flush(struct pp_paths *pp);

size_t pp_paths_open(const struct pp_paths *pp);
void pp_paths_stats(const struct pp_paths *pp, struct pp_paths_stats *st);

#endif /* PP_PATH_H */
