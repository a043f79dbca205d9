/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel's BTF says about probe points: where the
 * struct sk_buff * argument is, and why an entry cannot be probed.
 * Reads BTF only; attaches nothing.
 */
#ifndef PP_PROBE_BTF_H
#define PP_PROBE_BTF_H

#include <bpf/btf.h>
#include "probes/probe_list.h"

/*
 * Fill argpos, btf_id and skip of every entry (resetting earlier results).
 * Entries the kernel cannot probe get a skip reason; that is not an error.
 * Returns 0, or -EINVAL without BTF.
 */
int pp_probe_list_resolve(struct pp_probe_list *l, const struct btf *btf);

/*
 * 1-based position of the first struct sk_buff * parameter of the
 * BTF_KIND_FUNC @func_id, 0 if there is none, -EINVAL if @func_id is not
 * a function.
 */
int pp_btf_func_skb_argpos(const struct btf *btf, __u32 func_id);

/* How many parameters the BTF_KIND_FUNC @func_id takes, -EINVAL if not a function. */
int pp_btf_func_nargs(const struct btf *btf, __u32 func_id);

/* How many arguments tracepoint NAME passes (not the __data), -EINVAL if unknown. */
int pp_btf_tp_nargs(const struct btf *btf, const char *name);

/*
 * Resolve one function entry against BTF (vmlinux, or a module's split BTF),
 * whose BTF_KIND_FUNC named after it is @func_id (<= 0: none).
 */
void pp_probe_resolve_func(struct pp_probe *p, const struct btf *btf, int func_id);

/*
 * Call @cb for every kernel function whose skb argument is one of the first
 * five and whose name matches the POSIX extended regex @regex (NULL: all).
 * Tracing glue generated for tracepoints (__bpf_trace_*, __traceiter_*,
 * __probestub_*, perf_trace_*, trace_event_raw_event_*) is left out. A name
 * can come twice when static functions in two files share it. @cb returns
 * 0 to go on, > 0 to stop early, < 0 (an errno) to fail. Returns the number
 * of calls made, -EINVAL for a bad regex, or @cb's negative return.
 */
int pp_btf_skb_funcs(const struct btf *btf, const char *regex,
		     int (*cb)(const char *name, int argpos, void *ctx), void *ctx);

#endif /* PP_PROBE_BTF_H */
