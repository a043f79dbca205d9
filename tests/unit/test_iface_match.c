// SPDX-License-Identifier: GPL-2.0
#include <check.h>
#include <string.h>
#include <net/if_arp.h>
#include "cmd/cli.h"
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
	/* A pattern takes Ethernet-framed devices only. */
	ck_assert(!pp_iface_wanted(w, 3, "veth-tun", false));
	ck_assert(pp_iface_wanted(w, 3, "lxc1a", true));
	ck_assert(!pp_iface_wanted(w, 3, "lxc1", true));
	ck_assert(!pp_iface_wanted(w, 3, "xveth0", true));
}
END_TEST

/* The device types the default takes: those whose frames begin with an Ethernet header. */
START_TEST(test_ethernet_framed)
{
	ck_assert(pp_iface_ethernet_framed(ARPHRD_ETHER));    /* veth, bridges, NICs */
	ck_assert(pp_iface_ethernet_framed(ARPHRD_LOOPBACK)); /* lo: zero addresses */
	ck_assert(!pp_iface_ethernet_framed(ARPHRD_NONE));    /* tun, WireGuard: bare IP */
	ck_assert(!pp_iface_ethernet_framed(ARPHRD_TUNNEL));  /* ipip */
	ck_assert(!pp_iface_ethernet_framed(ARPHRD_IPGRE));
	ck_assert(!pp_iface_ethernet_framed(ARPHRD_SIT));
	ck_assert(!pp_iface_ethernet_framed(ARPHRD_IEEE80211_RADIOTAP));
}
END_TEST

/*
 * -i's help says what the default takes, as the ready line counts it: lo
 * is no Ethernet-like device, so it is named.
 */
START_TEST(test_default_words)
{
	const char *help = NULL;

	for (size_t i = 0; i < pp_cli_nopts; i++)
		if (!strcmp(pp_cli_opts[i].name, "interface"))
			help = pp_cli_opts[i].help;
	ck_assert_ptr_nonnull(help);
	ck_assert(pp_iface_ethernet_framed(ARPHRD_LOOPBACK));
	ck_assert_msg(strstr(help, "default: lo and every Ethernet-like\n"), "-i's help: %s", help);
}
END_TEST

Suite *iface_match_suite(void)
{
	Suite *s = suite_create("iface_match");
	TCase *tc = tcase_create("match");

	tcase_add_test(tc, test_default_every_ethernet);
	tcase_add_test(tc, test_names_and_patterns);
	tcase_add_test(tc, test_ethernet_framed);
	tcase_add_test(tc, test_default_words);
	suite_add_tcase(s, tc);
	return s;
}
