/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Other BPF programs' verdicts (PP_HOP_VERDICT hops) in words: a TC
 * program's return value, or an XDP program's action (PP_HOP_XDP), by the
 * kernel's name for it (TC_ACT_SHOT, XDP_DROP), as the programs' authors
 * write it; a value without a name as its number (an XDP one after "XDP_").
 */
#ifndef PP_VERDICT_H
#define PP_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "paths/path.h"

#define PP_VERDICT_LEN	24 /* the longest word, or a number, and its NUL */
#define PP_XDP_REDIRECT 4  /* enum xdp_action */

/* CODE's word into BUF (PP_VERDICT_LEN): BUF, or a constant. */
const char *pp_verdict_word(__u32 code, bool xdp, char *buf);

/* Back from a word or a number (`pktpath report`): 0, or -EINVAL. */
int pp_verdict_code(const char *word, __u32 *code, bool *xdp);

/* Whether CODE drops the packet: TC_ACT_SHOT, XDP_DROP or XDP_ABORTED. */
bool pp_verdict_drops(__u32 code, bool xdp);

/*
 * The verdict hop of P, before its END record END, on END's skb, that
 * dropped it (the program that decided the drop); NULL if none.
 */
const struct pp_hop *pp_verdict_judge(const struct pp_packet *p, const struct pp_hop *end);

/*
 * The END that says where XDP_REDIRECT verdict V sent its frame
 * (PP_HOP_REDIRECT: the target, or the redirect's error); NULL if V is no
 * XDP_REDIRECT, or none says (the frame followed as an skb, or a kernel
 * without the xdp tracepoints).
 */
const struct pp_hop *pp_verdict_redirect(const struct pp_packet *p, const struct pp_hop *v);

#endif
