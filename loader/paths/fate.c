// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include "paths/fate.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Row order is precedence (path.h: consumed if any skb was, else the first
 * drop, ...) and the order of the exit line's columns. Unseen is last: no
 * free was seen within --packet-timeout, so no END carries it.
 */
const struct pp_fate_row pp_fates[] = {
	{PP_FATE_CONSUMED, "consumed", "consumed", "consumed", "consumed",
	 PP_FATE_F_END | PP_FATE_F_METRIC},
	{PP_FATE_DROPPED, "dropped", NULL, NULL, "dropped", PP_FATE_F_END | PP_FATE_F_METRIC},
	{PP_FATE_MERGED, "merged", "merged into another skb", "merged", "merged",
	 PP_FATE_F_END | PP_FATE_F_METRIC},
	{PP_FATE_SEGMENTED, "segmented",
	 "segmented (its data went on in its copies: GSO segments or IP fragments)", "segmented",
	 "segmented", PP_FATE_F_END | PP_FATE_F_TEXT_IF_ANY | PP_FATE_F_METRIC},
	/* --netns/--container: its last hop is the first outside; not a series (scoped runs only).
	 */
	/* Its data went on past XDP: a driver's copy for its XDP program, a frame sent back. */
	{PP_FATE_XDP, "xdp",
	 "went on past XDP (copied for XDP, or sent back or redirected; not followed)",
	 "went on past XDP", "past XDP",
	 PP_FATE_F_END | PP_FATE_F_TEXT_IF_ANY | PP_FATE_F_JSON_IF_ANY | PP_FATE_F_METRIC},
	{PP_FATE_LEFT, "left",
	 "left the scope (its last hop is the first outside it; not followed)", "left",
	 "left the scope", PP_FATE_F_END | PP_FATE_F_TEXT_IF_ANY | PP_FATE_F_JSON_IF_ANY},
	{PP_FATE_UNSEEN, "unseen", "end not seen", "end not seen", "end not seen",
	 PP_FATE_F_METRIC},
};
const size_t pp_nfates = ARRAY_LEN(pp_fates);

const struct pp_fate_row *pp_fate_row(enum pp_fate fate)
{
	for (size_t i = 0; i < pp_nfates; i++)
		if (pp_fates[i].fate == fate)
			return &pp_fates[i];
	return NULL;
}

const char *pp_fate_key(enum pp_fate fate)
{
	const struct pp_fate_row *r = pp_fate_row(fate);

	return r ? r->key : "none";
}

bool pp_fate_ends(enum pp_fate fate)
{
	const struct pp_fate_row *r = pp_fate_row(fate);

	return r && (r->flags & PP_FATE_F_END);
}
