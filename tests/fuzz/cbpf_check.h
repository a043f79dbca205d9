/* SPDX-License-Identifier: GPL-2.0 */
/* What fuzz_xlate expects of the translator, decided from the classic program. */
#ifndef PP_FUZZ_CBPF_CHECK_H
#define PP_FUZZ_CBPF_CHECK_H

#include <stdbool.h>
#include <stddef.h>

struct sock_filter;

/* libpcap's bpf_validate(). PROG is a struct sock_filter array. */
bool fz_pcap_validate(const void *prog, size_t len);

struct fz_class {
	/*
	 * libpcap can run it: bpf_validate() accepts it and every opcode is one
	 * that bpf_filter() knows. bpf_validate() checks classes and modes only,
	 * and bpf_filter() abort()s on any other opcode.
	 */
	bool valid;
	/* A JA with a negative offset (libpcap's "protochain" loop), or a shift
	 * by a constant >= 32 (undefined in C): pktpath refuses them by design. */
	bool refused_by_design;
	/* Some path reads M[k] before any store to it: libpcap reads whatever
	 * its stack held, so its verdict is not a reference. */
	bool reads_unset_mem;
	/* Every reachable RET is RET A: a match returns A, which must then be
	 * libpcap's return value to the bit. */
	bool ret_a_only;
};

void fz_classify(const struct sock_filter *prog, size_t len, struct fz_class *c);

#endif
