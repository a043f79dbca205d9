/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The choices behind frag_map (bpf/frag.bpf.h), free of BPF so that the
 * unit tests run them: which skb a new fragment was cut from, and which
 * slot a noted range takes. A datagram can be cut at its sender and again
 * by each router with a smaller MTU on the way, so its noted ranges nest:
 * the sender's [0,1480), a router's [0,976) and [976,1480) of it, a second
 * router's [0,576) of that. The source of a fragment is the tightest noted
 * range that holds its first byte (the last cut it went through). Short
 * loops with few live values: the classifier inlines them three times,
 * and the verifier walks every branch of them.
 */
#ifndef PP_FRAG_PICK_H
#define PP_FRAG_PICK_H

#ifndef __bpf__ /* vmlinux.h has them in BPF */
#include <stdbool.h>
#include <linux/types.h>
#endif
#include "pktpath.h"

#define PP_FRAG_INLINE static inline __attribute__((always_inline))

/*
 * The slot of F that a note of SKB carrying [FIRST, END) takes: the slot of
 * the same skb, or of the same range (one fragment seen again at another
 * hook); else slot 0 for the first fragment (from byte 0, the widest seen),
 * which the sender's later fragments name as their source (no noted range
 * holds them) and which no other note takes; else the next of slots 1..7,
 * round robin.
 */
PP_FRAG_INLINE __u32 pp_frag_pick_slot(struct pp_frag_val *f, __u64 skb, __u32 first, __u32 end)
{
	for (__u32 i = 0; i < PP_FRAG_SLOTS; i++) {
		const struct pp_frag_slot *s = &f->slot[i];

		if (s->seq && (s->skb == skb || (s->first == first && s->end == end)))
			return i;
	}
	if (!first && (!f->slot[0].seq || end > f->slot[0].end))
		return 0;
	return 1 + f->ring++ % (PP_FRAG_SLOTS - 1);
}

/*
 * Notes SKB carrying [FIRST, END) in F (a zeroed F: a new datagram), alive
 * at time NOW. The slot is written by a constant index: a variable one
 * would make the verifier track the pick's value.
 */
PP_FRAG_INLINE void pp_frag_put(struct pp_frag_val *f, __u64 skb, __u32 first, __u32 end, __u64 now)
{
	__u32 pick = pp_frag_pick_slot(f, skb, first, end), seq = ++f->n;

	for (__u32 i = 0; i < PP_FRAG_SLOTS; i++) {
		struct pp_frag_slot *s = &f->slot[i];

		if (i != pick)
			continue;
		s->skb = skb;
		s->ts = now;
		s->first = first;
		s->end = end;
		s->seq = seq;
	}
}

/*
 * The skb that fragment [FIRST, ...) was cut from, of F's: the tightest
 * noted range that holds its first byte, the newest of equal ones (*CUT if
 * it begins there: a router's original, whose data goes on in its
 * fragments); else the first fragment, slot 0 (the sender's later
 * fragments came from its frag_list, ip_do_fragment()'s fast path); 0 if
 * none. *SEEN: when that skb was last noted, alive. It may be freed since
 * (a sender's first fragment sent before its later ones) and its address
 * taken by another skb of the packet (a tap's clone of the next fragment):
 * the address alone would name that one.
 */
PP_FRAG_INLINE __u64 pp_frag_pick_parent(const struct pp_frag_val *f, __u32 first, bool *cut,
					 __u64 *seen)
{
	__u32 len = ~0U, seq = 0, from = 0, pick = 0;
	const struct pp_frag_slot *s;

	for (__u32 i = 0; i < PP_FRAG_SLOTS; i++) {
		__u32 l = f->slot[i].end - f->slot[i].first;

		s = &f->slot[i];
		/* Unsigned: FIRST below the range wraps above its length. */
		if (s->seq && first - s->first < l && (l < len || (l == len && s->seq > seq))) {
			len = l;
			seq = s->seq;
			pick = i;
			from = s->first;
		}
	}
	*cut = seq && first == from;
	/*
	 * Read after the loop, by a masked index: fewer values live in it. The
	 * loop's shape is one the verifiers of Linux 5.10 and 6.1 accept (a
	 * variant of it failed there with "back-edge"): check them on a change.
	 */
	s = &f->slot[pick & (PP_FRAG_SLOTS - 1)];
	*seen = s->ts;
	return s->seq ? s->skb : 0;
}

#endif
