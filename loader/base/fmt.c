// SPDX-License-Identifier: GPL-2.0
/*
 * printf's conversions that the output uses, by hand (fmt.h says why).
 * Each writes exactly what the printf conversion named in fmt.h writes;
 * tests/unit/test_fmt.c holds them to it.
 */
#include "base/fmt.h"

/* A division by 100 gives two digits: half the divisions. Not a string: no NUL. */
static const char digits2[200] = "00010203040506070809"
				 "10111213141516171819"
				 "20212223242526272829"
				 "30313233343536373839"
				 "40414243444546474849"
				 "50515253545556575859"
				 "60616263646566676869"
				 "70717273747576777879"
				 "80818283848586878889"
				 "90919293949596979899";

unsigned int pp_fmt_ndigits(__u64 v)
{
	static const __u64 pow10[20] = {
		1ULL,
		10ULL,
		100ULL,
		1000ULL,
		10000ULL,
		100000ULL,
		1000000ULL,
		10000000ULL,
		100000000ULL,
		1000000000ULL,
		10000000000ULL,
		100000000000ULL,
		1000000000000ULL,
		10000000000000ULL,
		100000000000000ULL,
		1000000000000000ULL,
		10000000000000000ULL,
		100000000000000000ULL,
		1000000000000000000ULL,
		10000000000000000000ULL,
	};
	/*
	 * log10 from log2 (1233 / 4096 ~ log10(2)) is the count or one short;
	 * one compare tells which. v | 1 counts 0 as a digit and changes no
	 * other count: no power of 10 is odd.
	 */
	__u64 x = v | 1;
	unsigned int n = (unsigned int)(64 - __builtin_clzll(x)) * 1233 >> 12;

	return n + (x >= pow10[n]);
}

char *pp_fmt_u64(char *dst, __u64 v)
{
	char *end, *p;
	__u32 u;

	/* CPUs, ifindexes: no digit count needed. */
	if (v < 10) {
		*dst = (char)('0' + v);
		return dst + 1;
	}
	end = dst + pp_fmt_ndigits(v);
	p = end;

	/* Divisions of a u32 are cheaper: 64 bits only for what does not fit. */
	while (v > 0xffffffffULL) {
		p -= 2;
		memcpy(p, &digits2[v % 100 * 2], 2);
		v /= 100;
	}
	for (u = (__u32)v; u >= 100; u /= 100) {
		p -= 2;
		memcpy(p, &digits2[u % 100 * 2], 2);
	}
	if (u >= 10)
		memcpy(p - 2, &digits2[u * 2], 2);
	else
		p[-1] = (char)('0' + u);
	return end;
}

char *pp_fmt_hex(char *dst, __u64 v)
{
	static const char hex[] = "0123456789abcdef";
	/* Nibbles up to the highest set bit; 0 still takes one digit. */
	int n = (64 - __builtin_clzll(v | 1) + 3) / 4;
	char *end = dst + n;

	while (n--) {
		dst[n] = hex[v & 0xf];
		v >>= 4;
	}
	return end;
}

char *pp_fmt_ipv4(char *dst, const __u8 addr[4])
{
	int i;

	for (i = 0; i < 4; i++) {
		if (i)
			*dst++ = '.';
		dst = pp_fmt_u64(dst, addr[i]);
	}
	*dst = '\0';
	return dst;
}

void pp_sb_put(struct pp_sbuf *f, const char *s, size_t n)
{
	size_t room = f->pos < f->len ? f->len - f->pos : 0;
	size_t k = n < room ? n : room - 1;

	/* As vsnprintf(): the bytes that fit with a NUL, which it always writes. */
	if (room) {
		memcpy(f->buf + f->pos, s, k);
		f->buf[f->pos + k] = '\0';
	}
	f->pos += n;
}

void pp_sb_str(struct pp_sbuf *f, const char *s)
{
	pp_sb_put(f, s, strlen(s));
}

void pp_sb_u64(struct pp_sbuf *f, __u64 v)
{
	char d[PP_FMT_U64];

	pp_sb_put(f, d, (size_t)(pp_fmt_u64(d, v) - d));
}

void pp_wb_flush(struct pp_wbuf *w)
{
	if (w->n)
		fwrite(w->buf, 1, w->n, w->f);
	w->n = 0;
}

void pp_wb_write_slow(struct pp_wbuf *w, const void *s, size_t len)
{
	pp_wb_flush(w);
	if (len > sizeof(w->buf)) {
		fwrite(s, 1, len, w->f);
		return;
	}
	memcpy(w->buf, s, len);
	w->n = len;
}
