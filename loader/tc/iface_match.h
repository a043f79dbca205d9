/* SPDX-License-Identifier: GPL-2.0 */
/* Which interfaces get the classifier: -i names and shell patterns. No kernel. */
#ifndef PP_IFACE_MATCH_H
#define PP_IFACE_MATCH_H

#include <stdbool.h>

/* A -i word with *, ? or [ is a shell pattern (fnmatch), else a name. */
bool pp_iface_is_pattern(const char *word);

/*
 * Does interface NAME get the classifier? No words: every Ethernet-like
 * interface. A name matches itself, whatever the device type (the user
 * named it); a pattern matches Ethernet-like interfaces only, as the
 * default does: the filter reads Ethernet offsets.
 */
bool pp_iface_wanted(const char *const *words, int n, const char *name, bool ethernet);

#endif
