// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "kernel/cgroup2.h"

int pp_cgroup2_root(const char *mounts, const char *prefix, char *buf, size_t len)
{
	const char *line = mounts;

	while (line && *line) {
		char dev[64], dir[256], type[32];
		const char *next = strchr(line, '\n');

		if (sscanf(line, "%63s %255s %31s", dev, dir, type) == 3 &&
		    !strcmp(type, "cgroup2")) {
			if ((size_t)snprintf(buf, len, "%s%s", prefix, dir) >= len)
				return -ENAMETOOLONG;
			return 0;
		}
		line = next ? next + 1 : NULL;
	}
	return -ENOENT;
}
