/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PP_TEST_PCAP_H
#define PP_TEST_PCAP_H

#include <stdbool.h>
#include <stdio.h>

/*
 * --test-pcap: run the classifier with EXPR on every frame of PATH and print
 * the numbers of the matching frames to OUT, the count to ERROUT; INNER:
 * with the inner view (PP_XLATE_INNER), as tracing has it. Returns the
 * process exit status.
 */
int pp_test_pcap(const char *expr, bool inner, const char *path, FILE *out, FILE *errout);

#endif
