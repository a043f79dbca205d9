/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The slab programs' two sk_buff caches, learned before the probes load: one
 * TCP connect to a closed port in a network namespace of pktpath's own.
 */
#ifndef PP_SLAB_LEARN_H
#define PP_SLAB_LEARN_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * Learn the sk_buff head and fclone caches into SKB_CACHE and FCLONE_CACHE
 * (0 where unknown): true if both are known.
 */
bool pp_slab_learn(__u64 *skb_cache, __u64 *fclone_cache);

#endif /* PP_SLAB_LEARN_H */
