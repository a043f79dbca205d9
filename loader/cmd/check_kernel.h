/* SPDX-License-Identifier: GPL-2.0 */
/* pktpath --check: what this kernel and process offer, and what follows. */
#ifndef PP_CHECK_KERNEL_H
#define PP_CHECK_KERNEL_H

#include <stdio.h>

/* Returns 0 if tracing is possible here, 1 if not. */
int pp_check(FILE *out);

#endif
