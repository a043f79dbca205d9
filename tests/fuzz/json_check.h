/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A strict JSON parser (RFC 8259) for fuzz_paths, building a small tree to
 * check values against. Stricter than the RFC where pktpath promises more
 * (docs/json-schema.md): ASCII only, and with FZJ_CANONICAL every string
 * written exactly as pktpath escapes it, so a reader gets the bytes back.
 */
#ifndef PP_FUZZ_JSON_CHECK_H
#define PP_FUZZ_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fzj_type {
	FZJ_NULL,
	FZJ_FALSE,
	FZJ_TRUE,
	FZJ_NUM,
	FZJ_STR,
	FZJ_ARR,
	FZJ_OBJ,
};

enum fzj_flags {
	FZJ_CANONICAL = 1 << 0, /* strings as docs/json-schema.md escapes them */
};

struct fzj_node {
	enum fzj_type type;
	size_t key, keylen; /* a member's key: offset into the string pool */
	size_t str, len;    /* FZJ_STR: decoded bytes (each code point < 0x100 is a byte) */
	bool is_u64;	    /* FZJ_NUM: an unsigned integer that fits in 64 bits */
	uint64_t u64;
	long first, next; /* children of an object or array; -1 for none */
	size_t nchild;
};

struct fzj_doc {
	struct fzj_node *v;
	size_t n, cap;
	char *pool; /* decoded keys and strings */
	size_t plen, pcap;
};

/* Parses TEXT[0..len) as exactly one value; 0, or -1 with a reason in WHY. */
int fzj_parse(struct fzj_doc *d, const char *text, size_t len, unsigned int flags, char *why,
	      size_t whylen);
void fzj_free(struct fzj_doc *d);

const struct fzj_node *fzj_root(const struct fzj_doc *d);
/* OBJ's member KEY, NULL if absent. */
const struct fzj_node *fzj_get(const struct fzj_doc *d, const struct fzj_node *obj,
			       const char *key);
/* ARR's element I, NULL past the end. */
const struct fzj_node *fzj_at(const struct fzj_doc *d, const struct fzj_node *arr, size_t i);
/* Whether N is a string holding exactly BYTES[0..len). */
bool fzj_str_is(const struct fzj_doc *d, const struct fzj_node *n, const void *bytes, size_t len);

#endif
