/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output's hook_progs (output.h): the BPF programs at a TC or XDP hook
 * where a packet was dropped (tc/hook_progs.h), in words, kept a second so
 * that a flood of drops at one hook asks the kernel once a second.
 * Without a reader, none can be listed.
 */
#ifndef PP_HOOK_CACHE_H
#define PP_HOOK_CACHE_H

#include <stddef.h>
#include <linux/types.h>
#include "tc/hook_progs.h"

#define PP_HOOK_CACHE 8
#define PP_HOOK_TEXT  256

struct pp_hook_cache {
	struct pp_hook_reader reader; /* who asks the kernel (hook_progs.h); fd -1: none */
	struct pp_hook_seen {
		__u32 netns, ifindex;
		int hook, len; /* len: the text's, or -1: not listed */
		__u64 at_ms;
		char text[PP_HOOK_TEXT];
	} e[PP_HOOK_CACHE];
	unsigned int next;
};

/* output.h's hook_progs, with ARG a struct pp_hook_cache. */
int pp_hook_cache_get(__u32 netns, __u32 ifindex, int hook, char *buf, size_t len, void *arg);

#endif /* PP_HOOK_CACHE_H */
