/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of a BTF object's types, sorted once, so that resolving thousands
 * of probe points (--all-skb-funcs) costs a binary search each: libbpf 1.1's
 * btf__find_by_name_kind() walks every type for each name.
 */
#ifndef PP_BTF_INDEX_H
#define PP_BTF_INDEX_H

#include <bpf/btf.h>

struct pp_btf_index;

/* Indexes BTF's types (the base's too, for split BTF); NULL without memory. */
struct pp_btf_index *pp_btf_index_new(const struct btf *btf);

/*
 * The id of the first type (lowest id) named NAME of kind KIND, as
 * btf__find_by_name_kind() gives it; -ENOENT if there is none.
 */
int pp_btf_index_find(const struct pp_btf_index *x, const char *name, __u32 kind);

void pp_btf_index_free(struct pp_btf_index *x);

#endif /* PP_BTF_INDEX_H */
