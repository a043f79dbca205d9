/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Other BPF programs' verdicts (PP_HOP_VERDICT hops) in words: a TC
 * program's return value by the kernel's name for it (TC_ACT_SHOT), as the
 * programs' authors write it; a value without a name as its number.
 */
#ifndef PP_VERDICT_H
#define PP_VERDICT_H

#include <stddef.h>
#include <linux/types.h>

#define PP_VERDICT_LEN 24 /* the longest word, or a number, and its NUL */

/* CODE's word into BUF (PP_VERDICT_LEN): BUF. */
const char *pp_verdict_word(__u32 code, char *buf);

/* Back from a word or a number (`pktpath report`): 0, or -EINVAL. */
int pp_verdict_code(const char *word, __u32 *code);

/* Whether CODE drops the packet (TC_ACT_SHOT). */
#define PP_VERDICT_SHOT 2U

#endif
