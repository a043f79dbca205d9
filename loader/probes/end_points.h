/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the kernel releases an sk_buff, and where it makes new skbs from a
 * packet's: the points that end an skb's life (so that no skb outlives its
 * free in skb_map) and those that start a copy's, attached whatever the
 * probe list says. BPF-free.
 */
#ifndef PP_END_POINTS_H
#define PP_END_POINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "probes/probe_list.h"

/*
 * The functions whose frees say the skb's data went on in another skb
 * (PP_FATE_MERGED, include/free_fate.h): reassembly and the frag_list frees.
 */
extern const char *const pp_merge_frees[PP_MERGE_RANGES];

/* Whether FUNC is one of them. */
bool pp_merge_free(const char *func);

/* Adds every built-in end and copy point missing from the list ("built-in"). */
int pp_end_points_add(struct pp_probe_list *l, char *err, size_t errlen);

/*
 * The bits of the probe's cookie above its index (PP_COOKIE_*): the fate it
 * gives the skb if it is an end function, PP_COOKIE_COPIES (and _SEGMENTS)
 * for a copying function, 0 for a plain hop. The free tracepoints have
 * programs of their own and get 0 here.
 */
__u32 pp_point_cookie(const struct pp_probe *pr);

/*
 * The reassembly hook (bpf/probes.bpf.c, pp_reasm_*): at the entry of
 * inet_frag_reasm_prepare(), which consumes the datagram's first fragment
 * after skb_morph() gave its data to the one that completed it, that
 * fragment is marked, and the consume_skb tracepoint ends it merged. No
 * hop: it records nothing, and costs nothing but reassembled datagrams.
 */
#define PP_REASM_POINT "inet_frag_reasm_prepare"

/*
 * Whether the hook is attached: where the consume_skb tracepoint carries
 * no location (CONSUME_AT false, before Linux 6.3: its location says the
 * merge from 6.3 on), under a function backend (KIND not PP_ATTACH_NONE),
 * and the kernel has the function (HAS_FUNC, in its BTF).
 */
bool pp_reasm_point_wanted(enum pp_attach_kind kind, bool consume_at, bool has_func);

#endif /* PP_END_POINTS_H */
