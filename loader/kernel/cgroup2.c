// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
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

int pp_cgroup2_of_proc(const char *text, char *buf, size_t len)
{
	const char *line = text;

	while (line && *line) {
		const char *end = strchrnul(line, '\n');

		if (!strncmp(line, "0::", 3)) {
			size_t n = (size_t)(end - line) - 3;

			if (n >= len)
				return -ENAMETOOLONG;
			memcpy(buf, line + 3, n);
			buf[n] = 0;
			return 0;
		}
		line = *end ? end + 1 : NULL;
	}
	return -ENOENT;
}

unsigned int pp_cgroup2_level(const char *path)
{
	unsigned int level = 0;

	for (const char *c = path; *c; c++)
		level += *c != '/' && (c == path || c[-1] == '/');
	return level;
}
