// SPDX-License-Identifier: GPL-2.0
/* pp_unit: runs every Check suite in one runner, so one summary line tells all. */
#include <stdlib.h>
#include "suites.h"

int main(void)
{
	SRunner *sr;
	int failed;

	/* Check kills a test after 4 s by default: too short for a loaded 2-core VM (the
	 * kernel differential test, a sanitizer build). Suites read it as they are made. */
	setenv("CK_DEFAULT_TIMEOUT", "120", 0);
	/* The text output's times are local times: the tests expect them in UTC. */
	setenv("TZ", "UTC", 1);
	sr = srunner_create(NULL);
#define PP_ADD_SUITE(name) srunner_add_suite(sr, name());
	PP_SUITES(PP_ADD_SUITE)

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
