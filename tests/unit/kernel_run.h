/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the tests that run the classifier in the kernel (root only). */
#ifndef PP_KERNEL_RUN_H
#define PP_KERNEL_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

/* BPF_PROG_TEST_RUN needs root; anything else is a visible SKIP. */
static inline bool pp_need_root(const char *what)
{
	if (geteuid() == 0)
		return true;
	printf("SKIP: %s: needs root to load BPF programs\n", what);
	return false;
}

#endif
