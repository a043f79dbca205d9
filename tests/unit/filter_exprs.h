/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcpdump expressions for the filter differential test. Each compiles with
 * libpcap 1.10 for DLT_EN10MB; against the corpus (corpus.h) each matches some
 * frames and misses others, except the few that libpcap folds to a constant.
 */
#ifndef PP_FILTER_EXPRS_H
#define PP_FILTER_EXPRS_H

#include <stddef.h>

extern const char *const pp_filter_exprs[];
extern const size_t pp_filter_nexprs;

#endif
