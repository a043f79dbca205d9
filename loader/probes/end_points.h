/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the kernel releases an sk_buff, and where it makes new skbs from a
 * packet's: the points that end an skb's life (so that no skb outlives its
 * free in skb_map) and those that start a copy's, attached whatever the
 * probe list says. BPF-free.
 */
#ifndef PP_END_POINTS_H
#define PP_END_POINTS_H

#include <stddef.h>
#include <linux/types.h>
#include "probes/probe_list.h"

/* Adds every built-in end and copy point missing from the list ("built-in"). */
int pp_end_points_add(struct pp_probe_list *l, char *err, size_t errlen);

/*
 * The bits of the probe's cookie above its index (PP_COOKIE_*): the fate it
 * gives the skb if it is an end function, PP_COOKIE_COPIES (and _SEGMENTS)
 * for a copying function, 0 for a plain hop. The free tracepoints have
 * programs of their own and get 0 here.
 */
__u32 pp_point_cookie(const struct pp_probe *pr);

#endif /* PP_END_POINTS_H */
