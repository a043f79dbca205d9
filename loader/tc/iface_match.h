/* SPDX-License-Identifier: GPL-2.0 */
/* Which interfaces get the classifier: -i names and shell patterns. No kernel. */
#ifndef PP_IFACE_MATCH_H
#define PP_IFACE_MATCH_H

#include <stdbool.h>

/* A -i word with *, ? or [ is a shell pattern (fnmatch), else a name. */
bool pp_iface_is_pattern(const char *word);

/*
 * Whether a device of TYPE (ARPHRD_*, the link's hardware type) frames its
 * packets with an Ethernet header, whose offsets the filter reads: an
 * Ethernet-like device (physical, veth, bridge, bond, VXLAN, macvlan) or
 * the loopback.
 */
bool pp_iface_ethernet_framed(unsigned short type);

/*
 * Does interface NAME get the classifier? No words: every interface with
 * Ethernet framing (pp_iface_ethernet_framed(): lo too). A name matches
 * itself, whatever the device type (the user named it); a pattern matches
 * such interfaces only, as the default does.
 */
bool pp_iface_wanted(const char *const *words, int n, const char *name, bool ethernet);

#endif
