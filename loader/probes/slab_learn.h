/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The slab programs' two sk_buff caches, learned at start: one TCP connect
 * to a closed port in a network namespace of pktpath's own (slab_learn.c).
 */
#ifndef PP_SLAB_LEARN_H
#define PP_SLAB_LEARN_H

#include <stdbool.h>

struct pp_probes;

/*
 * Where P's slab programs are attached and a cache is still unknown, make
 * the frees they learn from. True if both caches are known after it.
 */
bool pp_slab_learn(const struct pp_probes *p);

#endif /* PP_SLAB_LEARN_H */
