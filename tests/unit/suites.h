/* SPDX-License-Identifier: GPL-2.0 */
/* Every Check suite of pp_unit. A suite whose file is not there yet is weak and skipped. */
#ifndef PP_SUITES_H
#define PP_SUITES_H

#include <check.h>

#define PP_SUITES(X)                                                                               \
	X(xlate_suite)                                                                             \
	X(filter_diff_suite)                                                                       \
	X(probe_list_suite)                                                                        \
	X(probe_btf_suite)                                                                         \
	X(path_suite)                                                                              \
	X(decode_suite)                                                                            \
	X(output_suite)                                                                            \
	X(fmt_suite)                                                                               \
	X(cli_suite)                                                                               \
	X(safe_file_suite)                                                                         \
	X(iface_match_suite)

#define PP_DECLARE_SUITE(name) Suite *name(void) __attribute__((weak));
PP_SUITES(PP_DECLARE_SUITE)

#endif
