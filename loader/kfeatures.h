/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What this kernel can attach, found by trying the real thing on one
 * function (never by reading version numbers). Nothing stays attached.
 */
#ifndef PP_KFEATURES_H
#define PP_KFEATURES_H

#include <stdbool.h>
#include <linux/types.h>

bool pp_has_kprobe(const char *func);
bool pp_has_kprobe_multi(const char *func);
bool pp_has_fentry(__u32 func_btf_id);

#endif
