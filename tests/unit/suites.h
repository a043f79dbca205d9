/* SPDX-License-Identifier: GPL-2.0 */
/* Every Check suite of pp_unit. PP_SUITES(X) comes from the one list of them,
 * PP_UNIT_SUITES in tests/CMakeLists.txt, which also builds their files: a suite
 * cannot be built and not run, nor run without its file. */
#ifndef PP_SUITES_H
#define PP_SUITES_H

#include <check.h>
#include "pp_suites.h"

#define PP_DECLARE_SUITE(name) Suite *name(void);
PP_SUITES(PP_DECLARE_SUITE)

#endif
