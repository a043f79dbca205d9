/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the kernel releases an sk_buff: the points that end an skb's life,
 * attached whatever the probe list says, so that no skb outlives its free
 * in skb_map. BPF-free.
 */
#ifndef PP_END_POINTS_H
#define PP_END_POINTS_H

#include <stddef.h>
#include <linux/types.h>
#include "probe_list.h"

/* Adds every built-in end point missing from the list ("built-in"). */
int pp_end_points_add(struct pp_probe_list *l, char *err, size_t errlen);

/*
 * The bits of the probe's cookie above its index (PP_COOKIE_*): the fate it
 * gives the skb if it is an end function, 0 for a plain hop. The free
 * tracepoints have programs of their own and get 0 here.
 */
__u32 pp_end_cookie(const struct pp_probe *pr);

#endif /* PP_END_POINTS_H */
