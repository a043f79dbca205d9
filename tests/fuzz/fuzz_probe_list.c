// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_probe_list: the probe list reader (loader/probes/probe_list.c) on any
 * file. Properties: it returns 0 or one of its documented errors with a
 * message; the message is printable ASCII (it goes to a terminal: no
 * escape sequence, C0 or C1);
 * every entry kept is a name of at most PP_PROBE_NAME_MAX printable
 * characters, a function or tp:CATEGORY:NAME, no two the same, at most
 * PP_MAX_PROBES of them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h> /* before pktpath.h, which uses __u32 */
#include "fuzz_memfile.h"
#include "pktpath.h"
#include "probes/probe_list.h"

static void check_entry(const struct pp_probe_list *l, size_t i)
{
	const struct pp_probe *p = &l->v[i];
	size_t len = strlen(p->name);

	FZ_CHECK(len > 0 && len <= PP_PROBE_NAME_MAX);
	for (size_t k = 0; k < len; k++)
		FZ_CHECK(isgraph((unsigned char)p->name[k]));
	FZ_CHECK(p->name[0] != '#');
	if (p->kind == PP_PROBE_TP) {
		FZ_CHECK(p->category && !strncmp(p->name, "tp:", 3));
		FZ_CHECK(strlen(p->category) + strlen(p->target) + 4 == len);
	} else {
		FZ_CHECK(p->kind == PP_PROBE_FUNC && !p->category);
		FZ_CHECK(!strcmp(p->target, p->name));
	}
	for (size_t k = 0; k < i; k++)
		FZ_CHECK(strcmp(l->v[k].name, p->name));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pp_probe_list l = {0};
	char path[64], err[512];
	int fd = fz_memfile(data, size, path, sizeof(path)), ret;

	if (fd < 0)
		return 0;
	memset(err, 0x55, sizeof(err));
	err[sizeof(err) - 1] = '\0';
	ret = pp_probe_list_load(&l, path, err, sizeof(err));
	close(fd);
	if (ret) {
		FZ_CHECK(ret == -EINVAL || ret == -E2BIG || ret == -ENOMEM || ret == -EIO);
		FZ_CHECK(!strncmp(err, path, strlen(path)));
		for (const char *c = err; *c; c++)
			FZ_CHECK(*c >= 0x20 && *c < 0x7f);
	}
	FZ_CHECK(l.n <= PP_MAX_PROBES);
	for (size_t i = 0; i < l.n; i++)
		check_entry(&l, i);
	pp_probe_list_free(&l);
	return 0;
}
