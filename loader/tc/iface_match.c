// SPDX-License-Identifier: GPL-2.0
#include <fnmatch.h>
#include <string.h>
#include <net/if_arp.h>
#include "tc/iface_match.h"

bool pp_iface_is_pattern(const char *word)
{
	return strpbrk(word, "*?[") != NULL;
}

/*
 * lo is no Ethernet device (ARPHRD_LOOPBACK), but its frames carry an
 * Ethernet header, zero addresses and the protocol: loopback_setup() gives
 * it eth_header_ops and a hard_header_len of ETH_HLEN (libpcap reads it as
 * DLT_EN10MB too). The classifier there marks what the namespace sends to
 * its own addresses.
 */
bool pp_iface_ethernet_framed(unsigned short type)
{
	return type == ARPHRD_ETHER || type == ARPHRD_LOOPBACK;
}

bool pp_iface_wanted(const char *const *words, int n, const char *name, bool ethernet)
{
	if (n == 0)
		return ethernet;
	for (int i = 0; i < n; i++) {
		if (!pp_iface_is_pattern(words[i]) ? !strcmp(words[i], name)
						   : ethernet && !fnmatch(words[i], name, 0))
			return true;
	}
	return false;
}
