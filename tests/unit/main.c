// SPDX-License-Identifier: GPL-2.0
/* pp_unit: runs every Check suite in one runner, so one summary line tells all. */
#include <stdlib.h>
#include "suites.h"

int main(void)
{
	SRunner *sr = srunner_create(NULL);
	int failed;

#define PP_ADD_SUITE(name) srunner_add_suite(sr, name());
	PP_SUITES(PP_ADD_SUITE)

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
