/* SPDX-License-Identifier: GPL-2.0 */
/* Destroying many probe links at once: the waits of their releases overlap. */
#ifndef PP_PROBES_LINK_RELEASE_H
#define PP_PROBES_LINK_RELEASE_H

#include <stddef.h>

struct bpf_link;

/*
 * bpf_link__destroy() on each of LINKS[0..N), from up to PP_RELEASE_THREADS
 * threads; in this one alone if a thread cannot be started. Returns when
 * every link is gone.
 */
void pp_links_destroy(struct bpf_link **links, size_t n);

#define PP_RELEASE_THREADS 8

#endif
