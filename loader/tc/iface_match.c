// SPDX-License-Identifier: GPL-2.0
#include <fnmatch.h>
#include <string.h>
#include "tc/iface_match.h"

bool pp_iface_is_pattern(const char *word)
{
	return strpbrk(word, "*?[") != NULL;
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
