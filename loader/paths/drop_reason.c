// SPDX-License-Identifier: GPL-2.0
/* enum skb_drop_reason value -> name, from kernel BTF. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/compat.h"
#include "paths/drop_reason.h"

#define NUM_BUFS 4

struct reason {
	__u32 value;
	__u32 order; /* position in the enum: the first name of a value wins */
	char *name;
};

struct pp_drop_reasons {
	struct reason *v;
	size_t n;
};

/* SKB_DROP_REASON_NO_SOCKET -> NO_SOCKET, SKB_CONSUMED -> CONSUMED */
static const char *strip_prefix(const char *name)
{
	static const char *const prefixes[] = {"SKB_DROP_REASON_", "SKB_"};
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++) {
		len = strlen(prefixes[i]);
		if (!strncmp(name, prefixes[i], len) && name[len])
			return name + len;
	}
	return name;
}

static int cmp_reason(const void *a, const void *b)
{
	const struct reason *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Entry @i of an ENUM or ENUM64; false if its value does not fit a __u32. */
static bool enum_entry(const struct btf_type *t, int i, __u64 *value, __u32 *name_off)
{
	if (btf_is_enum(t)) {
		*value = (__u32)btf_enum(t)[i].val;
		*name_off = btf_enum(t)[i].name_off;
	} else {
		*value = btf_enum64_value(&btf_enum64(t)[i]);
		*name_off = btf_enum64(t)[i].name_off;
	}
	return *value <= 0xffffffffULL;
}

static int fill(struct pp_drop_reasons *r, const struct btf *btf, const struct btf_type *t)
{
	int i, vlen = btf_vlen(t);
	__u32 name_off;
	__u64 value;

	r->v = calloc(vlen ? vlen : 1, sizeof(*r->v));
	if (!r->v)
		return -ENOMEM;
	for (i = 0; i < vlen; i++) {
		struct reason *e = &r->v[r->n];
		const char *name;

		if (!enum_entry(t, i, &value, &name_off))
			continue;
		name = btf__name_by_offset(btf, name_off);
		if (!name)
			continue;
		e->name = strdup(strip_prefix(name));
		if (!e->name)
			return -ENOMEM;
		e->value = value;
		e->order = i;
		r->n++;
	}
	qsort(r->v, r->n, sizeof(*r->v), cmp_reason);
	return 0;
}

/* The enum, or NULL. It has been an ENUM so far; accept ENUM64 should it grow. */
static const struct btf_type *find_enum(const struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, "skb_drop_reason", BTF_KIND_ENUM);

	if (id <= 0)
		id = btf__find_by_name_kind(btf, "skb_drop_reason", BTF_KIND_ENUM64);
	return id > 0 ? btf__type_by_id(btf, id) : NULL;
}

int pp_drop_reasons_load(struct pp_drop_reasons **out, const struct btf *btf)
{
	const struct btf_type *t;
	struct pp_drop_reasons *r;
	int err = 0;

	*out = NULL;
	if (!btf)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	t = find_enum(btf);
	if (t)
		err = fill(r, btf, t);
	if (err)
		goto cleanup;
	*out = r;
	return 0;
cleanup:
	pp_drop_reasons_free(r);
	return err;
}

/* The first entry (in enum order) with @value, or NULL. */
static const struct reason *lookup(const struct pp_drop_reasons *r, __u32 value)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->v[mid].value < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->n && r->v[lo].value == value ? &r->v[lo] : NULL;
}

const char *pp_drop_reason_name(const struct pp_drop_reasons *r, __u32 value)
{
	/* Rotating buffers, so printf("%s %s", name(a), name(b)) works. */
	static __thread char bufs[NUM_BUFS][sizeof("4294967295")];
	static __thread unsigned int next;
	const struct reason *e = r ? lookup(r, value) : NULL;
	char *buf;

	if (e)
		return e->name;
	buf = bufs[next++ % NUM_BUFS];
	snprintf(buf, sizeof(bufs[0]), "%u", value);
	return buf;
}

long long pp_drop_reason_value(const struct pp_drop_reasons *r, const char *name)
{
	size_t i;

	for (i = 0; r && i < r->n; i++) {
		if (!strcmp(r->v[i].name, name))
			return r->v[i].value;
	}
	return -ENOENT;
}

void pp_drop_reasons_free(struct pp_drop_reasons *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++)
		free(r->v[i].name);
	free(r->v);
	free(r);
}
