// SPDX-License-Identifier: GPL-2.0
/* A strict JSON parser for fuzz_paths; see json_check.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json_check.h"

#define FZJ_MAX_DEPTH 32

struct ps {
	const char *s;
	size_t n, i;
	unsigned int flags;
	int depth;
	struct fzj_doc *d;
	char *why;
	size_t whylen;
};

static int perr(struct ps *p, const char *what)
{
	snprintf(p->why, p->whylen, "byte %zu: %s", p->i, what);
	return -1;
}

static void *grow(void *v, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 64;

	if (need <= *cap)
		return v;
	while (ncap < need)
		ncap *= 2;
	v = realloc(v, ncap * elem);
	if (!v)
		abort();
	*cap = ncap;
	return v;
}

static long node_new(struct ps *p, enum fzj_type type)
{
	struct fzj_doc *d = p->d;

	d->v = grow(d->v, &d->cap, d->n + 1, sizeof(*d->v));
	d->v[d->n] = (struct fzj_node){.type = type, .first = -1, .next = -1};
	return (long)d->n++;
}

static void pool_put(struct fzj_doc *d, char c)
{
	d->pool = grow(d->pool, &d->pcap, d->plen + 1, 1);
	d->pool[d->plen++] = c;
}

static void skip_ws(struct ps *p)
{
	while (p->i < p->n && strchr(" \t\n\r", p->s[p->i]) && p->s[p->i])
		p->i++;
}

static int hex4(struct ps *p, unsigned int *cp)
{
	*cp = 0;
	for (int k = 0; k < 4; k++, p->i++) {
		char c = p->i < p->n ? p->s[p->i] : 0;

		if (c >= '0' && c <= '9')
			*cp = *cp << 4 | (unsigned int)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			*cp = *cp << 4 | (unsigned int)((c | 0x20) - 'a' + 10);
		else
			return perr(p, "bad \\u escape");
	}
	return 0;
}

/* A code point: one byte below 0x100 (pktpath's Latin-1 reading), else UTF-8. */
static void put_cp(struct fzj_doc *d, unsigned int cp)
{
	if (cp < 0x100) {
		pool_put(d, (char)cp);
	} else if (cp < 0x800) {
		pool_put(d, (char)(0xc0 | cp >> 6));
		pool_put(d, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		pool_put(d, (char)(0xe0 | cp >> 12));
		pool_put(d, (char)(0x80 | (cp >> 6 & 0x3f)));
		pool_put(d, (char)(0x80 | (cp & 0x3f)));
	} else {
		pool_put(d, (char)(0xf0 | cp >> 18));
		pool_put(d, (char)(0x80 | (cp >> 12 & 0x3f)));
		pool_put(d, (char)(0x80 | (cp >> 6 & 0x3f)));
		pool_put(d, (char)(0x80 | (cp & 0x3f)));
	}
}

static int unicode_escape(struct ps *p)
{
	unsigned int cp, lo;

	if (hex4(p, &cp))
		return -1;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return perr(p, "lone low surrogate");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (p->i + 2 > p->n || p->s[p->i] != '\\' || p->s[p->i + 1] != 'u')
			return perr(p, "high surrogate without a low one");
		p->i += 2;
		if (hex4(p, &lo))
			return -1;
		if (lo < 0xdc00 || lo > 0xdfff)
			return perr(p, "high surrogate without a low one");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	put_cp(p->d, cp);
	return 0;
}

static int escape(struct ps *p)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	char c;

	if (++p->i >= p->n)
		return perr(p, "string ends in an escape");
	c = p->s[p->i++];
	if (c == 'u')
		return unicode_escape(p);
	e = c ? strchr(from, c) : NULL;
	if (!e)
		return perr(p, "unknown escape");
	pool_put(p->d, to[e - from]);
	return 0;
}

/* How docs/json-schema.md writes byte C, appended to OUT (at least 7 bytes). */
static size_t canonical(unsigned char c, char *out)
{
	static const char esc[] = {['"'] = '"',	 ['\\'] = '\\', ['\b'] = 'b', ['\f'] = 'f',
				   ['\n'] = 'n', ['\r'] = 'r',	['\t'] = 't'};

	if (c < sizeof(esc) && esc[c]) {
		out[0] = '\\';
		out[1] = esc[c];
		return 2;
	}
	if (c < 0x20 || c >= 0x7f)
		return (size_t)snprintf(out, 7, "\\u00%02x", c);
	out[0] = (char)c;
	return 1;
}

static int check_canonical(struct ps *p, const char *raw, size_t rawlen, size_t off, size_t len)
{
	char enc[8];
	size_t at = 0, k;

	for (size_t b = 0; b < len; b++) {
		k = canonical((unsigned char)p->d->pool[off + b], enc);
		if (at + k > rawlen || memcmp(raw + at, enc, k))
			return perr(p, "a string not escaped as docs/json-schema.md says");
		at += k;
	}
	return at == rawlen ? 0 : perr(p, "a string not escaped as docs/json-schema.md says");
}

static int string(struct ps *p, size_t *off, size_t *len)
{
	size_t start;
	unsigned char c;

	p->i++; /* the quote */
	start = p->i;
	*off = p->d->plen;
	for (;;) {
		if (p->i >= p->n)
			return perr(p, "unterminated string");
		c = (unsigned char)p->s[p->i];
		if (c == '"')
			break;
		if (c < 0x20)
			return perr(p, "raw control byte in a string");
		if (c >= 0x80)
			return perr(p, "byte >= 0x80: pktpath writes ASCII only");
		if (c == '\\') {
			if (escape(p))
				return -1;
			continue;
		}
		pool_put(p->d, (char)c);
		p->i++;
	}
	*len = p->d->plen - *off;
	if ((p->flags & FZJ_CANONICAL) &&
	    check_canonical(p, p->s + start, p->i - start, *off, *len))
		return -1;
	p->i++;
	return 0;
}

static bool digit(struct ps *p)
{
	return p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9';
}

static long number(struct ps *p)
{
	long n = node_new(p, FZJ_NUM);
	bool neg = false, plain = true, fits = true;
	uint64_t v = 0;

	if (p->s[p->i] == '-') {
		neg = true;
		p->i++;
	}
	if (!digit(p))
		return perr(p, "a number without digits");
	if (p->s[p->i] == '0') {
		p->i++;
	} else {
		for (; digit(p); p->i++) {
			unsigned int dgt = (unsigned int)(p->s[p->i] - '0');

			fits = fits && v <= (UINT64_MAX - dgt) / 10;
			v = v * 10 + dgt;
		}
	}
	if (p->i < p->n && p->s[p->i] == '.') {
		p->i++;
		plain = false;
		if (!digit(p))
			return perr(p, "a fraction without digits");
		while (digit(p))
			p->i++;
	}
	if (p->i < p->n && (p->s[p->i] | 0x20) == 'e') {
		p->i++;
		plain = false;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (!digit(p))
			return perr(p, "an exponent without digits");
		while (digit(p))
			p->i++;
	}
	p->d->v[n].is_u64 = !neg && plain && fits;
	p->d->v[n].u64 = v;
	return n;
}

static long literal(struct ps *p, const char *word, enum fzj_type type)
{
	size_t len = strlen(word);

	if (p->n - p->i < len || memcmp(p->s + p->i, word, len))
		return perr(p, "unknown literal");
	p->i += len;
	return node_new(p, type);
}

static long value(struct ps *p);

/* Appends CHILD to PARENT's children; TAIL is the last one so far. */
static void link_child(struct fzj_doc *d, long parent, long *tail, long child)
{
	if (*tail < 0)
		d->v[parent].first = child;
	else
		d->v[*tail].next = child;
	*tail = child;
	d->v[parent].nchild++;
}

/* Whether the pool holds BYTES[0..len) at OFF; the pool is NULL until used. */
static bool pool_eq(const struct fzj_doc *d, size_t off, const void *bytes, size_t len)
{
	return !len || !memcmp(d->pool + off, bytes, len);
}

static bool key_taken(const struct fzj_doc *d, long obj, size_t off, size_t len)
{
	for (long c = d->v[obj].first; c >= 0; c = d->v[c].next)
		if (d->v[c].keylen == len && (!len || pool_eq(d, d->v[c].key, d->pool + off, len)))
			return true;
	return false;
}

static long member(struct ps *p, long obj)
{
	size_t off, len;
	long child;

	skip_ws(p);
	if (p->i >= p->n || p->s[p->i] != '"')
		return perr(p, "expected a key");
	if (string(p, &off, &len))
		return -1;
	if (key_taken(p->d, obj, off, len))
		return perr(p, "duplicate key");
	skip_ws(p);
	if (p->i >= p->n || p->s[p->i] != ':')
		return perr(p, "expected ':'");
	p->i++;
	child = value(p);
	if (child < 0)
		return -1;
	p->d->v[child].key = off;
	p->d->v[child].keylen = len;
	return child;
}

/* An object or an array: members or elements up to CLOSE. */
static long container(struct ps *p, enum fzj_type type, char close)
{
	long n = node_new(p, type), tail = -1, child;

	if (++p->depth > FZJ_MAX_DEPTH)
		return perr(p, "nested too deep");
	p->i++;
	skip_ws(p);
	if (p->i < p->n && p->s[p->i] == close) {
		p->i++;
		p->depth--;
		return n;
	}
	for (;;) {
		child = type == FZJ_OBJ ? member(p, n) : value(p);
		if (child < 0)
			return -1;
		link_child(p->d, n, &tail, child);
		skip_ws(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->n && p->s[p->i] == close)
			break;
		return perr(p, type == FZJ_OBJ ? "expected ',' or '}'" : "expected ',' or ']'");
	}
	p->i++;
	p->depth--;
	return n;
}

static long value(struct ps *p)
{
	long n;

	skip_ws(p);
	if (p->i >= p->n)
		return perr(p, "expected a value");
	switch (p->s[p->i]) {
	case '{':
		return container(p, FZJ_OBJ, '}');
	case '[':
		return container(p, FZJ_ARR, ']');
	case '"':
		n = node_new(p, FZJ_STR);
		if (string(p, &p->d->v[n].str, &p->d->v[n].len))
			return -1;
		return n;
	case 't':
		return literal(p, "true", FZJ_TRUE);
	case 'f':
		return literal(p, "false", FZJ_FALSE);
	case 'n':
		return literal(p, "null", FZJ_NULL);
	}
	if (p->s[p->i] == '-' || digit(p))
		return number(p);
	return perr(p, "expected a value");
}

int fzj_parse(struct fzj_doc *d, const char *text, size_t len, unsigned int flags, char *why,
	      size_t whylen)
{
	struct ps p = {.s = text, .n = len, .flags = flags, .d = d, .why = why, .whylen = whylen};

	memset(d, 0, sizeof(*d));
	if (value(&p) < 0)
		return -1;
	skip_ws(&p);
	return p.i == p.n ? 0 : perr(&p, "bytes after the value");
}

void fzj_free(struct fzj_doc *d)
{
	free(d->v);
	free(d->pool);
	memset(d, 0, sizeof(*d));
}

const struct fzj_node *fzj_root(const struct fzj_doc *d)
{
	return d->n ? &d->v[0] : NULL;
}

const struct fzj_node *fzj_get(const struct fzj_doc *d, const struct fzj_node *obj, const char *key)
{
	size_t len = strlen(key);

	if (!obj || obj->type != FZJ_OBJ)
		return NULL;
	for (long c = obj->first; c >= 0; c = d->v[c].next)
		if (d->v[c].keylen == len && pool_eq(d, d->v[c].key, key, len))
			return &d->v[c];
	return NULL;
}

const struct fzj_node *fzj_at(const struct fzj_doc *d, const struct fzj_node *arr, size_t i)
{
	long c;

	if (!arr || arr->type != FZJ_ARR)
		return NULL;
	for (c = arr->first; c >= 0 && i; c = d->v[c].next)
		i--;
	return c >= 0 ? &d->v[c] : NULL;
}

bool fzj_str_is(const struct fzj_doc *d, const struct fzj_node *n, const void *bytes, size_t len)
{
	return n && n->type == FZJ_STR && n->len == len && pool_eq(d, n->str, bytes, len);
}
