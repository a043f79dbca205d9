// SPDX-License-Identifier: GPL-2.0
#include <check.h>
#include "tc/iface_match.h"
#include "suites.h"

START_TEST(test_default_every_ethernet)
{
	ck_assert(pp_iface_wanted(NULL, 0, "eth0", true));
	ck_assert(!pp_iface_wanted(NULL, 0, "tun0", false));
}
END_TEST

START_TEST(test_names_and_patterns)
{
	const char *w[] = {"eth0", "veth*", "lxc[0-9]?"};

	ck_assert(pp_iface_is_pattern("veth*"));
	ck_assert(!pp_iface_is_pattern("eth0"));
	ck_assert(pp_iface_wanted(w, 3, "eth0", true));
	/* A name the user gave is taken whatever its type. */
	ck_assert(pp_iface_wanted(w, 3, "eth0", false));
	ck_assert(!pp_iface_wanted(w, 3, "eth1", true));
	ck_assert(pp_iface_wanted(w, 3, "veth12ab", true));
	ck_assert(pp_iface_wanted(w, 3, "veth", true));
	/* A pattern takes Ethernet-like devices only. */
	ck_assert(!pp_iface_wanted(w, 3, "veth-tun", false));
	ck_assert(pp_iface_wanted(w, 3, "lxc1a", true));
	ck_assert(!pp_iface_wanted(w, 3, "lxc1", true));
	ck_assert(!pp_iface_wanted(w, 3, "xveth0", true));
}
END_TEST

Suite *iface_match_suite(void)
{
	Suite *s = suite_create("iface_match");
	TCase *tc = tcase_create("match");

	tcase_add_test(tc, test_default_every_ethernet);
	tcase_add_test(tc, test_names_and_patterns);
	suite_add_tcase(s, tc);
	return s;
}
