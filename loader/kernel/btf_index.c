// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/btf_index.h"

struct entry {
	const char *name;
	__u32 kind;
	__u32 id;
};

struct pp_btf_index {
	struct entry *v;
	size_t n;
};

/* By kind, then name, then id: the first of equal names is the lowest id. */
static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->id < y->id ? -1 : x->id > y->id;
}

struct pp_btf_index *pp_btf_index_new(const struct btf *btf)
{
	__u32 cnt = btf__type_cnt(btf);
	struct pp_btf_index *x = calloc(1, sizeof(*x));

	if (!x || !(x->v = calloc(cnt, sizeof(*x->v)))) {
		free(x);
		return NULL;
	}
	for (__u32 id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = t && t->name_off ? btf__name_by_offset(btf, t->name_off) : NULL;

		if (name && *name)
			x->v[x->n++] = (struct entry){.name = name, .kind = btf_kind(t), .id = id};
	}
	qsort(x->v, x->n, sizeof(*x->v), cmp_entry);
	return x;
}

int pp_btf_index_find(const struct pp_btf_index *x, const char *name, __u32 kind)
{
	const struct entry key = {.name = name, .kind = kind};
	size_t lo = 0, hi = x->n;

	/* The first entry not below (kind, name, id 0). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_entry(&x->v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == x->n || x->v[lo].kind != kind || strcmp(x->v[lo].name, name))
		return -ENOENT;
	return (int)x->v[lo].id;
}

void pp_btf_index_free(struct pp_btf_index *x)
{
	if (!x)
		return;
	free(x->v);
	free(x);
}
