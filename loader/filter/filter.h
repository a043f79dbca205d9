/* SPDX-License-Identifier: GPL-2.0 */
/* A tcpdump expression -> classic BPF (libpcap) -> eBPF for the classifier. */
#ifndef PP_FILTER_H
#define PP_FILTER_H

#include <stdbool.h>
#include "filter/cbpf_xlate.h"
#include "filter/pcap_io.h"

struct pp_filter {
	struct sock_filter *cbpf; /* libpcap's program (NULL: given as is) */
	size_t cbpf_len;
	size_t chunks;		/* libpcap compiles joined (filter_split.h), 1 for most */
	struct bpf_insn *insns; /* its translation, spliced into the classifier */
	size_t cnt;
};

/*
 * Compile EXPR (a long "or" chain in chunks, filter_split.h) and translate
 * it; FLAGS are enum pp_xlate_flags.
 */
int pp_filter_build(struct pp_filter *f, const char *expr, unsigned int flags, char *err,
		    size_t errlen);
/* The probe variant: compiled for packets that start at the IP header. */
int pp_filter_build_l3(struct pp_filter *f, const char *expr, char *err, size_t errlen);

/* Translate a classic program given as is (tests, fuzzing). */
int pp_filter_from_cbpf(struct pp_filter *f, const struct sock_filter *prog, size_t len,
			unsigned int flags, char *err, size_t errlen);
void pp_filter_free(struct pp_filter *f);

/* Whether the classic program reads the packet's length ("len", "greater"). */
bool pp_filter_reads_len(const struct pp_filter *f);

#endif
