// SPDX-License-Identifier: GPL-2.0
/* Kernel text symbols from /proc/kallsyms, sorted for address lookups. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "base/grow.h"
#include "kernel/ksyms.h"

#define KALLSYMS      "/proc/kallsyms"
#define PP_READ_CHUNK (1 << 20)

struct ksym {
	__u64 addr;
	size_t name; /* offset into buf: file order, kept as a tie-break when sorting */
};

struct pp_ksyms {
	struct ksym *v;
	size_t n, cap;
	char *buf; /* the whole file; each kept name NUL-terminated in place */
	size_t len;
	/*
	 * Open addressing by the name's part before any '.', so that a
	 * function and its clones (".isra.0", ".cold") share a key: the
	 * index + 1 into v of each symbol, 0 for an empty slot.
	 */
	__u32 *slot;
	size_t mask;
};

/*
 * The whole file in one buffer, read in large chunks: /proc/kallsyms
 * is a seq_file that fills each read() up to its size, so fewer calls
 * cost less than line-by-line stdio reads on emulated hardware.
 */
static int read_all(struct pp_ksyms *k, int fd)
{
	size_t cap = 0;
	ssize_t n;

	do {
		if (PP_GROW(k->buf, cap, k->len + PP_READ_CHUNK + 1, PP_READ_CHUNK * 4))
			return -ENOMEM;
		n = read(fd, k->buf + k->len, cap - 1 - k->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		k->len += (size_t)n;
	} while (n > 0);
	k->buf[k->len] = '\0';
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * "ffffffff81e01230 T ip_rcv" or "... t veth_xmit\t[veth]" (LINE ends at
 * END, no newline): keep text symbols only (t, T, W); data symbols would
 * shadow functions. Anything else is skipped. The name is cut in place.
 */
static int parse_line(struct pp_ksyms *k, char *line, const char *end)
{
	__u64 addr = 0;
	char *p = line, *name, type;
	int d, digits = 0;

	while (p < end && blank(*p))
		p++;
	for (; p < end && (d = hexval(*p)) >= 0; p++, digits++)
		addr = addr << 4 | (__u64)d;
	if (!digits || p == end || !blank(*p))
		return 0;
	while (p < end && blank(*p))
		p++;
	if (p == end)
		return 0;
	type = *p++;
	if (type != 't' && type != 'T' && type != 'W')
		return 0;
	while (p < end && blank(*p))
		p++;
	for (name = p; p < end && !blank(*p); p++)
		;
	if (p == name)
		return 0;
	*p = '\0';
	if (PP_GROW(k->v, k->cap, k->n + 1, 4096))
		return -ENOMEM;
	k->v[k->n].addr = addr;
	k->v[k->n].name = (size_t)(name - k->buf);
	k->n++;
	return 0;
}

static int parse_all(struct pp_ksyms *k)
{
	char *line = k->buf, *stop = k->buf + k->len;
	int err = 0;

	while (!err && line < stop) {
		char *nl = memchr(line, '\n', (size_t)(stop - line));
		char *end = nl ? nl : stop;

		err = parse_line(k, line, end);
		line = end + 1;
	}
	return err;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* FNV-1a of NAME up to its first '.' or its end. */
static size_t base_hash(const char *name)
{
	size_t h = 2166136261u;

	for (; *name && *name != '.'; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h;
}

static const char *sym_name(const struct pp_ksyms *k, size_t i)
{
	return k->buf + k->v[i].name;
}

/* Twice as many slots as symbols: short probe runs. */
static int build_index(struct pp_ksyms *k)
{
	size_t size = 1024;

	while (size < k->n * 2)
		size *= 2;
	if (k->n > UINT32_MAX - 1)
		return -E2BIG;
	k->slot = calloc(size, sizeof(*k->slot));
	if (!k->slot)
		return -ENOMEM;
	k->mask = size - 1;
	for (size_t i = 0; i < k->n; i++) {
		size_t at = base_hash(sym_name(k, i)) & k->mask;

		while (k->slot[at])
			at = (at + 1) & k->mask;
		k->slot[at] = (__u32)(i + 1);
	}
	return 0;
}

int pp_ksyms_load(struct pp_ksyms **out, const char *path)
{
	struct pp_ksyms *k;
	int fd, err;

	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	fd = open(path ? path : KALLSYMS, O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? -errno : read_all(k, fd);
	if (fd >= 0)
		close(fd);
	if (!err)
		err = parse_all(k);
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
	err = build_index(k);
	if (err)
		goto cleanup;
	*out = k;
	k = NULL;
cleanup:
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
	return sym_name(k, lo);
}

/* NAME is @name, or @name with a clone's suffix (".isra.0"). */
static bool is_or_clones(const char *sym, const char *name, size_t len)
{
	return !strncmp(sym, name, len) && (sym[len] == '\0' || sym[len] == '.');
}

/*
 * Calls FN(K, I, ARG) for each symbol I whose name's part before any '.'
 * is NAME's: NAME itself, its clones and split-off parts, in no order.
 */
static void each_base(const struct pp_ksyms *k, const char *name,
		      void (*fn)(const struct pp_ksyms *, size_t, void *), void *arg)
{
	size_t blen = strcspn(name, ".");

	if (!k || !k->slot)
		return;
	for (size_t at = base_hash(name) & k->mask; k->slot[at]; at = (at + 1) & k->mask) {
		size_t i = k->slot[at] - 1;
		const char *s = sym_name(k, i);

		if (is_or_clones(s, name, blen))
			fn(k, i, arg);
	}
}

struct count_ctx {
	const char *name;
	long n;
};

static void count_one(const struct pp_ksyms *k, size_t i, void *arg)
{
	struct count_ctx *c = arg;

	c->n += !strcmp(sym_name(k, i), c->name);
}

long pp_ksym_count(struct pp_ksyms *k, const char *name)
{
	struct count_ctx c = {name, 0};

	each_base(k, name, count_one, &c);
	return c.n;
}

void pp_ksyms_free(struct pp_ksyms *k)
{
	if (!k)
		return;
	free(k->v);
	free(k->buf);
	free(k->slot);
	free(k);
}

struct range_ctx {
	const char *name;
	size_t len, found, exact, at, at_exact;
};

/* Counts NAME's symbols and its clones'; an index is used only when one of its kind is found. */
static void range_one(const struct pp_ksyms *k, size_t i, void *arg)
{
	struct range_ctx *c = arg;
	const char *s = sym_name(k, i);

	if (!is_or_clones(s, c->name, c->len))
		return;
	c->found++;
	c->at = i;
	if (s[c->len] == '\0') {
		c->exact++;
		c->at_exact = i;
	}
}

int pp_ksym_range(const struct pp_ksyms *k, const char *name, __u64 *lo, __u64 *hi)
{
	struct range_ctx c = {.name = name, .len = strlen(name)};
	size_t at;

	each_base(k, name, range_one, &c);
	/* The function itself beside its split-off part (tpacket_rcv.cold). */
	if (c.exact == 1)
		at = c.at_exact;
	else if (c.found == 1)
		at = c.at;
	else
		return -ENOENT;
	*lo = k->v[at].addr;
	for (*hi = *lo; at < k->n && k->v[at].addr == *lo; at++)
		;
	if (at == k->n)
		return -ENOENT;
	*hi = k->v[at].addr;
	return 0;
}
