/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Long "or" chains without libpcap's superlinear costs. libpcap's optimizer
 * takes seconds past a hundred "host" terms and minutes past a thousand
 * (docs/PERFORMANCE.md); turning it off is no way out, as its unoptimised
 * compile also grows faster than the chain. A filter whose top level is a chain of
 * many "or" terms is compiled instead in chunks of terms, each by libpcap and
 * optimised, and the chunks are joined: a chunk's "no match" runs the next
 * chunk. Which chains can be cut without changing the meaning, and how, is
 * in filter_split.c.
 */
#ifndef PP_FILTER_SPLIT_H
#define PP_FILTER_SPLIT_H

#include <stdbool.h>
#include <stddef.h>

#define PP_SPLIT_CHUNK 32 /* terms per libpcap compile */

struct sock_filter;

struct pp_span {
	size_t begin, end; /* byte offsets into the expression */
};

/*
 * The top-level "or" terms of EXPR that can be compiled apart, in order,
 * into a malloc()ed *TERMS; returns how many, 1 when EXPR cannot be cut
 * (a top-level "and", a term that inherits the qualifier of the one before
 * it, unbalanced brackets), 0 when out of memory.
 */
size_t pp_split_or(const char *expr, struct pp_span **terms);

/*
 * Join classic programs as "P0 or P1 or ...": each P's RET #0 becomes a
 * jump to the next program, which starts with A = X = 0 as a program does.
 * -EINVAL if a program ends by RET A (its verdict would need a test).
 */
int pp_cbpf_join(struct sock_filter **progs, const size_t *lens, size_t n, struct sock_filter **out,
		 size_t *outlen);

/*
 * EXPR -> classic BPF, as pp_pcap_compile() (L3: pp_pcap_compile_l3()) but
 * in chunks of PP_SPLIT_CHUNK terms when EXPR is a chain of more than
 * PP_SPLIT_CHUNK that can be cut. *CHUNKS: the libpcap compiles done.
 */
int pp_compile_split(const char *expr, bool l3, struct sock_filter **out, size_t *len,
		     size_t *chunks, char *err, size_t errlen);

#endif
