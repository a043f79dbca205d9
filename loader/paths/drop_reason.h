/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of enum skb_drop_reason values, read from the running kernel's BTF
 * so that new reasons need no pktpath release: "NO_SOCKET", "NETFILTER_DROP".
 */
#ifndef PP_DROP_REASON_H
#define PP_DROP_REASON_H

#include <linux/types.h>
#include <bpf/btf.h>

struct pp_drop_reasons;

/*
 * Read enum skb_drop_reason from @btf. BTF without it (kernels before 5.17)
 * is not an error: every name then comes out as the number.
 * Returns 0 or -ENOMEM / -EINVAL.
 */
int pp_drop_reasons_load(struct pp_drop_reasons **out, const struct btf *btf);

/*
 * The name of @value without its SKB_DROP_REASON_ / SKB_ prefix. An unknown
 * value (or @r NULL) gives its decimal number, in one of a few rotating
 * per-thread buffers: up to 4 such results can be used at once.
 */
const char *pp_drop_reason_name(const struct pp_drop_reasons *r, __u32 value);

/* The value named @name (prefix stripped, as returned above), or -ENOENT. */
long long pp_drop_reason_value(const struct pp_drop_reasons *r, const char *name);

void pp_drop_reasons_free(struct pp_drop_reasons *r);

#endif /* PP_DROP_REASON_H */
