// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "output/pcapng.h"

#define PAD4(n) (((n) + 3) & ~(size_t)3)

/* A block: type and total length, body, total length again. */
#define BLOCK_HEAD 8
#define BLOCK_TAIL 4

/* Where a block is assembled: bounds were checked before the first put. */
struct pos {
	__u8 *p;
};

static void put32(struct pos *w, __u32 v)
{
	memcpy(w->p, &v, 4);
	w->p += 4;
}

static void put16(struct pos *w, __u16 v)
{
	memcpy(w->p, &v, 2);
	w->p += 2;
}

/* Bytes, then zeros up to a 32-bit boundary. */
static void put_padded(struct pos *w, const void *s, size_t n)
{
	if (n)
		memcpy(w->p, s, n);
	memset(w->p + n, 0, PAD4(n) - n);
	w->p += PAD4(n);
}

static size_t str_len(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n > PP_PCAPNG_OPT_MAX ? PP_PCAPNG_OPT_MAX : n;
}

/* An option's size: code, length, the value padded; 0 for an absent string. */
static size_t opt_size(size_t n)
{
	return 4 + PAD4(n);
}

static size_t str_opt_size(const char *s)
{
	return str_len(s) ? opt_size(str_len(s)) : 0;
}

static void put_opt(struct pos *w, __u16 code, const void *v, size_t n)
{
	put16(w, code);
	put16(w, (__u16)n);
	put_padded(w, v, n);
}

static void put_str_opt(struct pos *w, __u16 code, const char *s)
{
	if (str_len(s))
		put_opt(w, code, s, str_len(s));
}

static void put_head(struct pos *w, __u32 type, size_t total)
{
	put32(w, type);
	put32(w, (__u32)total);
}

/* opt_endofopt when there were options, then the trailing total length. */
static void put_tail(struct pos *w, size_t total, size_t opts)
{
	if (opts)
		put_opt(w, PP_PCAPNG_OPT_END, NULL, 0);
	put32(w, (__u32)total);
}

size_t pp_pcapng_shb(void *buf, size_t len, const char *appl)
{
	size_t opts = str_opt_size(appl), total;
	struct pos w = {buf};

	opts += opts ? opt_size(0) : 0;
	total = BLOCK_HEAD + 16 + opts + BLOCK_TAIL;
	if (total > len)
		return total;
	put_head(&w, PP_PCAPNG_SHB, total);
	put32(&w, PP_PCAPNG_BOM);
	put16(&w, 1);		/* major version */
	put16(&w, 0);		/* minor version */
	put32(&w, 0xffffffffU); /* section length: -1, not known in advance */
	put32(&w, 0xffffffffU);
	put_str_opt(&w, PP_PCAPNG_SHB_USERAPPL, appl);
	put_tail(&w, total, opts);
	return total;
}

size_t pp_pcapng_idb(void *buf, size_t len, __u16 linktype, __u32 snaplen, const char *name,
		     const char *descr)
{
	size_t opts = str_opt_size(name) + str_opt_size(descr) + opt_size(1) + opt_size(0);
	size_t total = BLOCK_HEAD + 8 + opts + BLOCK_TAIL;
	struct pos w = {buf};
	__u8 tsresol = 9; /* 10^-9 s */

	if (total > len)
		return total;
	put_head(&w, PP_PCAPNG_IDB, total);
	put16(&w, linktype);
	put16(&w, 0); /* reserved */
	put32(&w, snaplen);
	put_str_opt(&w, PP_PCAPNG_IF_NAME, name);
	put_str_opt(&w, PP_PCAPNG_IF_DESCR, descr);
	put_opt(&w, PP_PCAPNG_IF_TSRESOL, &tsresol, 1);
	put_tail(&w, total, opts);
	return total;
}

size_t pp_pcapng_epb(void *buf, size_t len, const struct pp_pcapng_pkt *pk)
{
	size_t opts = str_opt_size(pk->comment), total;
	struct pos w = {buf};

	opts += pk->flags ? opt_size(4) : 0;
	opts += pk->packetid ? opt_size(8) : 0;
	opts += opts ? opt_size(0) : 0;
	total = BLOCK_HEAD + 20 + PAD4((size_t)pk->caplen) + opts + BLOCK_TAIL;
	if (total > len)
		return total;
	put_head(&w, PP_PCAPNG_EPB, total);
	put32(&w, pk->ifid);
	put32(&w, (__u32)(pk->ts_ns >> 32));
	put32(&w, (__u32)pk->ts_ns);
	put32(&w, pk->caplen);
	put32(&w, pk->origlen);
	put_padded(&w, pk->data, pk->caplen);
	put_str_opt(&w, PP_PCAPNG_OPT_COMMENT, pk->comment);
	if (pk->flags)
		put_opt(&w, PP_PCAPNG_EPB_FLAGS, &pk->flags, 4);
	if (pk->packetid)
		put_opt(&w, PP_PCAPNG_EPB_PACKETID, &pk->packetid, 8);
	put_tail(&w, total, opts);
	return total;
}
