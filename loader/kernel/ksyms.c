// SPDX-License-Identifier: GPL-2.0
/* Kernel text symbols from /proc/kallsyms, sorted for address lookups. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "kernel/ksyms.h"

#define KALLSYMS "/proc/kallsyms"

struct ksym {
	__u64 addr;
	size_t name; /* offset into pool; grows with the file, so it keeps file order */
};

struct pp_ksyms {
	struct ksym *v;
	size_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
	size_t *by_name; /* pool offsets sorted by name, built on first pp_ksym_count() */
};

/* Room for one more symbol. */
static int grow_syms(struct pp_ksyms *k)
{
	return PP_GROW(k->v, k->cap, k->n + 1, 4096);
}

/* Room for @len more bytes of names. */
static int grow_pool(struct pp_ksyms *k, size_t len)
{
	return PP_GROW(k->pool, k->pool_cap, k->pool_len + len, 65536);
}

static int add_sym(struct pp_ksyms *k, __u64 addr, const char *name, size_t len)
{
	int err;

	err = grow_syms(k);
	if (!err)
		err = grow_pool(k, len + 1);
	if (err)
		return err;
	memcpy(k->pool + k->pool_len, name, len);
	k->pool[k->pool_len + len] = '\0';
	k->v[k->n].addr = addr;
	k->v[k->n].name = k->pool_len;
	k->pool_len += len + 1;
	k->n++;
	return 0;
}

/*
 * "ffffffff81e01230 T ip_rcv\n" or "... t veth_xmit\t[veth]\n": keep text
 * symbols only (t, T, W); data symbols would shadow functions.
 */
static int parse_line(struct pp_ksyms *k, const char *line)
{
	unsigned long long addr;
	char type;
	int off = 0;
	size_t len;

	if (sscanf(line, "%llx %c %n", &addr, &type, &off) < 2 || !off)
		return 0;
	if (type != 't' && type != 'T' && type != 'W')
		return 0;
	len = strcspn(line + off, " \t\n");
	if (!len)
		return 0;
	return add_sym(k, addr, line + off, len);
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static int read_file(struct pp_ksyms *k, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	int err = 0;

	while (!err && getline(&line, &cap, f) >= 0)
		err = parse_line(k, line);
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	return err;
}

int pp_ksyms_load(struct pp_ksyms **out, const char *path)
{
	struct pp_ksyms *k;
	FILE *f = NULL;
	int err;

	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	f = fopen(path ? path : KALLSYMS, "r");
	if (!f) {
		err = -errno;
		goto cleanup;
	}
	err = read_file(k, f);
	if (!err && !k->n)
		err = -ENOENT;
	if (err)
		goto cleanup;
	/* Aliases at one address stay in file order: the lookup returns the first. */
	qsort(k->v, k->n, sizeof(*k->v), cmp_ksym);
	if (!k->v[k->n - 1].addr) {
		err = -EPERM;
		goto cleanup;
	}
	*out = k;
	k = NULL;
cleanup:
	if (f)
		fclose(f);
	pp_ksyms_free(k);
	return err;
}

const char *pp_ksym_name(const struct pp_ksyms *k, __u64 addr, __u64 *offset)
{
	size_t lo = 0, hi = k ? k->n : 0;

	/* lo ends as the number of symbols that start at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	lo--;
	while (lo && k->v[lo - 1].addr == k->v[lo].addr)
		lo--;
	if (offset)
		*offset = addr - k->v[lo].addr;
	return k->pool + k->v[lo].name;
}

static const char *sort_pool; /* qsort() has no context argument */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(sort_pool + *(const size_t *)a, sort_pool + *(const size_t *)b);
}

static int build_name_index(struct pp_ksyms *k)
{
	k->by_name = malloc(k->n * sizeof(*k->by_name));
	if (!k->by_name)
		return -ENOMEM;
	for (size_t i = 0; i < k->n; i++)
		k->by_name[i] = k->v[i].name;
	sort_pool = k->pool;
	qsort(k->by_name, k->n, sizeof(*k->by_name), cmp_name);
	return 0;
}

/* The first index in by_name whose name is not below NAME. */
static size_t lower_bound(const struct pp_ksyms *k, const char *name)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(k->pool + k->by_name[mid], name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

long pp_ksym_count(struct pp_ksyms *k, const char *name)
{
	size_t i;

	if (!k->by_name && build_name_index(k))
		return -ENOMEM;
	for (i = lower_bound(k, name); i < k->n && !strcmp(k->pool + k->by_name[i], name); i++)
		;
	return (long)(i - lower_bound(k, name));
}

void pp_ksyms_free(struct pp_ksyms *k)
{
	if (!k)
		return;
	free(k->v);
	free(k->pool);
	free(k->by_name);
	free(k);
}

/* NAME is @name, or @name with a clone's suffix (".isra.0"). */
static bool is_or_clones(const char *sym, const char *name, size_t len)
{
	return !strncmp(sym, name, len) && (sym[len] == '\0' || sym[len] == '.');
}

int pp_ksym_range(const struct pp_ksyms *k, const char *name, __u64 *lo, __u64 *hi)
{
	size_t len = strlen(name), found = 0, exact = 0, at = 0, at_exact = 0;

	for (size_t i = 0; k && i < k->n; i++) {
		if (!is_or_clones(k->pool + k->v[i].name, name, len))
			continue;
		found++;
		at = i;
		if (k->pool[k->v[i].name + len] == '\0') {
			exact++;
			at_exact = i;
		}
	}
	/* The function itself beside its split-off part (tpacket_rcv.cold). */
	if (exact == 1)
		at = at_exact;
	else if (found != 1)
		return -ENOENT;
	*lo = k->v[at].addr;
	for (*hi = *lo; at < k->n && k->v[at].addr == *lo; at++)
		;
	if (at == k->n)
		return -ENOENT;
	*hi = k->v[at].addr;
	return 0;
}
