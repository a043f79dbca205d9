/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe points where a packet's life is known to be over or to begin,
 * whether or not the skb's free is seen: where a socket takes an skb, where
 * its reader copies the data out, and where a packet's way starts. BPF-free.
 */
#ifndef PP_LIFE_POINTS_H
#define PP_LIFE_POINTS_H

#include <stdbool.h>
#include <linux/types.h>

/* PP_COOKIE_TAKES and/or PP_COOKIE_STARTS for probe point NAME (as listed), else 0. */
__u32 pp_life_point_bits(const char *name);

/* NAME is where a socket's reader copies the data out: the delivery to a process. */
bool pp_life_point_reads(const char *name);

#endif /* PP_LIFE_POINTS_H */
