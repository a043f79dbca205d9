// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <string.h>
#include <linux/types.h>
#include "base/compat.h"
#include "pktpath.h"
#include "probes/end_points.h"

struct end_point {
	const char *name;
	enum pp_fate fate;
	bool data; /* the skb still holds its data at entry */
};

/*
 * Every way an sk_buff goes back to the allocator or to the NAPI cache
 * (net/core/skbuff.c, 6.1 to 6.18). consume_skb() and kfree_skb_reason()
 * fire their tracepoints first, which end the skb with the kernel's own
 * verdict; these catch the frees that fire none:
 *   - __kfree_skb(): TCP's pure ACKs and other callers that own the skb;
 *   - kfree_skbmem(): the sk_buff itself, fclones included, after the data;
 *   - __napi_kfree_skb() (6.1: __kfree_skb_defer()): net_tx_action, GRO's
 *     merged skbs and the deferred free into the NAPI cache;
 *   - skb_attempt_defer_free(): TCP's (6.18: also UDP's) receive path hands
 *     a read skb to the CPU that allocated it; the skb is done with here;
 *   - kfree_skb_partial() and napi_skb_free_stolen_head(): TCP coalescing
 *     and GRO moved the data into another skb: this one is merged.
 */
static const struct end_point ends[] = {
	{"__kfree_skb", PP_FATE_CONSUMED, true},
	{"kfree_skbmem", PP_FATE_CONSUMED, false},
	{"__napi_kfree_skb", PP_FATE_CONSUMED, true},
	{"__kfree_skb_defer", PP_FATE_CONSUMED, true}, /* 6.1's __napi_kfree_skb() */
	{"skb_attempt_defer_free", PP_FATE_CONSUMED, true},
	{"kfree_skb_partial", PP_FATE_MERGED, false},
	{"napi_skb_free_stolen_head", PP_FATE_MERGED, false},
};

struct copy_point {
	const char *name;
	__u32 bits; /* PP_COOKIE_COPIES, and PP_COOKIE_SEGMENTS for GSO */
};

/*
 * The functions that return new skbs made from their skb argument with data
 * of their own, which no shared buffer ties to the packet (skb_clone()'s
 * clones join through head_map): full and partial copies (pskb_copy() is an
 * inline wrapper of __pskb_copy_fclone()), and GSO's segments, which every
 * software segmentation returns through __skb_gso_segment().
 */
static const struct copy_point copies[] = {
	{"skb_copy", PP_COOKIE_COPIES},
	{"__pskb_copy_fclone", PP_COOKIE_COPIES},
	{"skb_copy_expand", PP_COOKIE_COPIES},
	{"__skb_gso_segment", PP_COOKIE_COPIES | PP_COOKIE_SEGMENTS},
};
_Static_assert(ARRAY_SIZE(copies) <= PP_COPY_POINTS, "a program per copy point");

/* The two tracepoints that say how the kernel judged the skb. */
const char *const pp_merge_frees[PP_MERGE_RANGES] = {
	"inet_frag_reasm_prepare", "inet_frag_reasm_finish", "skb_release_data",
	"kfree_skb_list_reason",   "kfree_skb_partial",
};

bool pp_merge_free(const char *func)
{
	for (size_t i = 0; func && i < PP_MERGE_RANGES; i++)
		if (!strcmp(func, pp_merge_frees[i]))
			return true;
	return false;
}

static const char *const free_tps[] = {"tp:skb:consume_skb", "tp:skb:kfree_skb"};

int pp_end_points_add(struct pp_probe_list *l, char *err, size_t errlen)
{
	int ret = 0;

	for (size_t i = 0; i < ARRAY_SIZE(free_tps) && !ret; i++)
		ret = pp_probe_list_add(l, free_tps[i], "built-in", err, errlen);
	for (size_t i = 0; i < ARRAY_SIZE(ends) && !ret; i++)
		ret = pp_probe_list_add(l, ends[i].name, "built-in", err, errlen);
	for (size_t i = 0; i < ARRAY_SIZE(copies) && !ret; i++)
		ret = pp_probe_list_add(l, copies[i].name, "built-in", err, errlen);
	return ret;
}

__u32 pp_point_cookie(const struct pp_probe *pr)
{
	if (pr->kind != PP_PROBE_FUNC)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(ends); i++)
		if (!strcmp(pr->target, ends[i].name))
			return (__u32)ends[i].fate << PP_COOKIE_FATE_SHIFT |
			       (ends[i].data ? PP_END_DATA : 0);
	for (size_t i = 0; i < ARRAY_SIZE(copies); i++)
		if (!strcmp(pr->target, copies[i].name))
			return copies[i].bits;
	return 0;
}

bool pp_reasm_point_wanted(enum pp_attach_kind kind, bool consume_at, bool has_func)
{
	return kind != PP_ATTACH_NONE && !consume_at && has_func;
}
