/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Formatting without printf, for the output's hot paths: at millions of
 * records a second, parsing a format string for every field costs more than
 * assembling the paths (docs/PERFORMANCE.md). Three kinds of helpers:
 *
 *   pp_fmt_*()  write at a pointer and return the end, no bound checked:
 *               the caller reserves the most a field can take (PP_FMT_*)
 *   pp_sb_*()   append to a fixed buffer with snprintf()'s truncation
 *   pp_wb_*()   an output buffer that leaves in one fwrite() when full
 */
#ifndef PP_FMT_H
#define PP_FMT_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#define PP_FMT_U64 20 /* digits of 2^64 - 1 */
#define PP_FMT_HEX 16

/* The number of decimal digits of v, 1 for 0. */
unsigned int pp_fmt_ndigits(__u64 v);
/* v in decimal ("%llu"). */
char *pp_fmt_u64(char *dst, __u64 v);
/* v in lower-case hex without a prefix ("%llx"). */
char *pp_fmt_hex(char *dst, __u64 v);
/*
 * The spaces that right-align a field of len bytes in width columns ("%*s")
 * or left-align the one just written ("%-*s"), for width up to
 * PP_FMT_PAD_MAX. It stores PP_FMT_PAD_MAX spaces whatever the count, one
 * store instead of a memset() call: dst needs room for as many, which the
 * field's own bytes then overwrite.
 */
#define PP_FMT_PAD_MAX 16

static inline char *pp_fmt_pad(char *dst, size_t len, size_t width)
{
	memcpy(dst, "                ", PP_FMT_PAD_MAX);
	return dst + (len < width ? width - len : 0);
}

/* v right-aligned in width columns ("%*llu"); room as pp_fmt_pad() and pp_fmt_u64(). */
static inline char *pp_fmt_u64_right(char *dst, __u64 v, size_t width)
{
	return pp_fmt_u64(pp_fmt_pad(dst, pp_fmt_ndigits(v), width), v);
}

/* An IPv4 address as inet_ntop() writes it (16 bytes at most), and a NUL; returns the NUL. */
char *pp_fmt_ipv4(char *dst, const __u8 addr[4]);

/*
 * A string being built in buf[len] as snprintf() would: it stays
 * NUL-terminated, what does not fit is cut, and pos counts every byte
 * asked for, so pos >= len tells it was cut.
 */
struct pp_sbuf {
	char *buf;
	size_t len, pos;
};

void pp_sb_put(struct pp_sbuf *f, const char *s, size_t n);
void pp_sb_str(struct pp_sbuf *f, const char *s);
void pp_sb_u64(struct pp_sbuf *f, __u64 v);
/* A string literal, its length known when compiling. */
#define pp_sb_lit(f, lit) pp_sb_put(f, "" lit, sizeof(lit) - 1)

/*
 * Output collected on the stack: a stdio call per field, each taking the
 * FILE lock and copying through its own buffer, cost more than the fields.
 */
#define PP_WBUF_SIZE 4096

struct pp_wbuf {
	FILE *f;
	size_t n;
	char buf[PP_WBUF_SIZE];
};

/* Not "= {.f = f}": that would zero the 4 KiB buffer for every packet. */
static inline void pp_wb_init(struct pp_wbuf *w, FILE *f)
{
	w->f = f;
	w->n = 0;
}

void pp_wb_flush(struct pp_wbuf *w);
void pp_wb_write_slow(struct pp_wbuf *w, const void *s, size_t len);

/* Any length: what does not fit the buffer goes straight to the FILE. */
static inline void pp_wb_write(struct pp_wbuf *w, const void *s, size_t len)
{
	if (sizeof(w->buf) - w->n < len) {
		pp_wb_write_slow(w, s, len);
		return;
	}
	memcpy(w->buf + w->n, s, len);
	w->n += len;
}

/*
 * Room for need bytes (at most PP_WBUF_SIZE) at the returned pointer; the
 * caller writes there with pp_fmt_*() and hands the end to pp_wb_done().
 */
static inline char *pp_wb_room(struct pp_wbuf *w, size_t need)
{
	if (sizeof(w->buf) - w->n < need)
		pp_wb_flush(w);
	return w->buf + w->n;
}

static inline void pp_wb_done(struct pp_wbuf *w, char *end)
{
	w->n = (size_t)(end - w->buf);
}

static inline void pp_wb_putc(struct pp_wbuf *w, char c)
{
	*pp_wb_room(w, 1) = c;
	w->n++;
}

#define pp_wb_lit(w, lit) pp_wb_write(w, "" lit, sizeof(lit) - 1)

#endif /* PP_FMT_H */
