// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "base/text_file.h"

int pp_text_file_read(const char *path, char **out)
{
	size_t cap = 0, n = 0;
	char *buf = NULL, *grown;
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	do {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = grown;
		}
		n += fread(buf + n, 1, 4096, f);
	} while (!feof(f) && !ferror(f));
	fclose(f);
	buf[n] = 0;
	*out = buf;
	return 0;
}
