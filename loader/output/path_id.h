/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A path's id: its probe points in order and its fate, hashed (FNV-1a), 48
 * bits. --summary prints it beside each distinct path and --metrics labels
 * its path series with it, so that one finds the other.
 */
#ifndef PP_PATH_ID_H
#define PP_PATH_ID_H

#include <linux/types.h>
#include "output/output.h"

#define PP_FNV_OFF 0xcbf29ce484222325ULL

/* H with string S folded in, then a separator no name holds. */
__u64 pp_fnv(__u64 h, const char *s);
/*
 * Hop by hop: H = 0, then H = pp_path_id_hop(H, ...) per probe point, then
 * pp_path_id_end(H, fate).
 */
__u64 pp_path_id_hop(__u64 h, const struct pp_out *o, __u32 probe);
__u64 pp_path_id_end(__u64 h, enum pp_fate fate);
/* The id of P's steps and fate. */
__u64 pp_path_id(const struct pp_out *o, const struct pp_packet *p);

#endif /* PP_PATH_ID_H */
