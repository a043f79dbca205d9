// SPDX-License-Identifier: GPL-2.0
/* loader/base/fmt.c against the printf conversions and inet_ntop() it stands in for. */
#include <arpa/inet.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "base/fmt.h"
#include "suites.h"

#define GUARD 0x5a

/* Numbers at every digit-count and nibble boundary, and some in between. */
static size_t numbers(__u64 *v, size_t max)
{
	size_t n = 0;
	__u64 p;
	int i;

	for (p = 1, i = 0; i < 20; i++, p *= 10) {
		v[n++] = p - 1;
		v[n++] = p;
		v[n++] = p + 1;
		v[n++] = p * 5;
	}
	for (i = 0; i < 64; i++) {
		v[n++] = (1ULL << i) - 1;
		v[n++] = 1ULL << i;
		v[n++] = (1ULL << i) + 1;
	}
	v[n++] = ~0ULL;
	v[n++] = 0xffffffffULL;
	v[n++] = 0x100000000ULL;
	v[n++] = 4026532602ULL;
	v[n++] = 0xffffffff81a2b3c4ULL;
	for (p = 88172645463325252ULL; n < max;) {
		p ^= p << 13;
		p ^= p >> 7;
		p ^= p << 17;
		v[n++] = p >> (p & 63);
	}
	return n;
}

/* What a writer left in a guarded buffer: want up to end, and nothing stored from room on. */
static void check_bytes(const char *want, const char *buf, const char *end, size_t room)
{
	size_t i, n = (size_t)(end - buf);

	ck_assert_uint_le(n, room);
	ck_assert_uint_eq(n, strlen(want));
	ck_assert(!memcmp(buf, want, n));
	for (i = room; i < room + 8; i++)
		ck_assert_int_eq(buf[i], GUARD);
}

START_TEST(test_u64)
{
	char buf[64], want[32];
	__u64 v[400];
	size_t i, n = numbers(v, 400);

	for (i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v[i]);
		ck_assert_uint_eq(pp_fmt_ndigits(v[i]), strlen(want));
		memset(buf, GUARD, sizeof(buf));
		check_bytes(want, buf, pp_fmt_u64(buf, v[i]), PP_FMT_U64);
		memset(buf, GUARD, sizeof(buf));
		snprintf(want, sizeof(want), "%llx", (unsigned long long)v[i]);
		check_bytes(want, buf, pp_fmt_hex(buf, v[i]), PP_FMT_HEX);
	}
}
END_TEST

/* "%*llu" for every width the helpers take, within the room they document. */
START_TEST(test_right)
{
	char buf[64], want[32];
	__u64 v[400];
	size_t i, w, n = numbers(v, 400);

	for (i = 0; i < n; i++) {
		for (w = 0; w <= PP_FMT_PAD_MAX; w++) {
			snprintf(want, sizeof(want), "%*llu", (int)w, (unsigned long long)v[i]);
			memset(buf, GUARD, sizeof(buf));
			check_bytes(want, buf, pp_fmt_u64_right(buf, v[i], w),
				    PP_FMT_PAD_MAX + PP_FMT_U64);
		}
	}
}
END_TEST

/* "%-*s" and "%*s": the pad after or before a field, never past 16 bytes. */
START_TEST(test_pad)
{
	char buf[64], want[64];
	size_t len, w;
	char *p;

	for (len = 0; len <= 20; len++) {
		for (w = 0; w <= PP_FMT_PAD_MAX; w++) {
			memset(buf, GUARD, sizeof(buf));
			memset(buf, 'x', len);
			p = pp_fmt_pad(buf + len, len, w);
			snprintf(want, sizeof(want), "%-*.*s", (int)w, (int)len,
				 "xxxxxxxxxxxxxxxxxxxx");
			check_bytes(want, buf, p, len + PP_FMT_PAD_MAX);
			memset(buf, GUARD, sizeof(buf));
			p = pp_fmt_pad(buf, len, w);
			memset(p, 'x', len);
			snprintf(want, sizeof(want), "%*.*s", (int)w, (int)len,
				 "xxxxxxxxxxxxxxxxxxxx");
			check_bytes(want, buf, p + len, len + PP_FMT_PAD_MAX);
		}
	}
}
END_TEST

START_TEST(test_ipv4)
{
	static const __u8 addrs[][4] = {
		{0, 0, 0, 0},	 {255, 255, 255, 255}, {198, 18, 0, 1},
		{10, 0, 100, 9}, {1, 99, 100, 0},
	};
	char buf[32], want[INET_ADDRSTRLEN];
	__u8 a[4];
	size_t i;
	int k;

	for (i = 0; i < sizeof(addrs) / sizeof(addrs[0]) + 256; i++) {
		for (k = 0; k < 4; k++)
			a[k] = i < 5 ? addrs[i][k] : (__u8)(i * (k + 3) + k);
		ck_assert_ptr_nonnull(inet_ntop(AF_INET, a, want, sizeof(want)));
		memset(buf, GUARD, sizeof(buf));
		check_bytes(want, buf, pp_fmt_ipv4(buf, a), 16);
		ck_assert_int_eq(buf[strlen(want)], '\0');
	}
}
END_TEST

/* pp_sb_*() cut and count as snprintf() does, at every buffer length. */
START_TEST(test_sbuf)
{
	char buf[40], want[40];
	size_t len;
	int n;

	for (len = 0; len < 36; len++) {
		struct pp_sbuf f = {.buf = buf, .len = len};

		memset(buf, GUARD, sizeof(buf));
		memset(want, GUARD, sizeof(want));
		pp_sb_lit(&f, "#");
		pp_sb_u64(&f, 18446744073709551615ULL);
		pp_sb_str(&f, " len ");
		pp_sb_put(&f, "", 0);
		pp_sb_u64(&f, 0);
		n = snprintf(want, len, "#%llu len %u", 18446744073709551615ULL, 0);
		ck_assert_uint_eq(f.pos, (size_t)n);
		ck_assert(!memcmp(buf, want, sizeof(buf)));
	}
}
END_TEST

/* Through pp_wbuf: small writes, one past the buffer, and rooms that flush. */
START_TEST(test_wbuf)
{
	static char big[PP_WBUF_SIZE * 2 + 3], want[sizeof(big) * 4 + 16384];
	struct pp_wbuf w;
	size_t i, len = 0, n = 0;
	char *out = NULL, *p;
	FILE *f = open_memstream(&out, &len);

	ck_assert_ptr_nonnull(f);
	/* Its length from strlen(): a constant longer than the buffer draws -Warray-bounds. */
	for (i = 0; i < sizeof(big) - 1; i++)
		big[i] = (char)('a' + i % 26);
	pp_wb_init(&w, f);
	for (i = 0; i < 1000; i++) {
		pp_wb_lit(&w, "abc");
		memcpy(want + n, "abc", 3);
		n += 3;
		p = pp_wb_room(&w, 30);
		pp_wb_done(&w, pp_fmt_u64(p, i));
		n += (size_t)snprintf(want + n, 30, "%zu", i);
		if (i % 300 == 7) {
			pp_wb_write(&w, big, strlen(big));
			memcpy(want + n, big, strlen(big));
			n += strlen(big);
		}
		pp_wb_putc(&w, '\n');
		want[n++] = '\n';
	}
	pp_wb_flush(&w);
	fclose(f);
	ck_assert_uint_eq(len, n);
	ck_assert(!memcmp(out, want, n));
	free(out);
}
END_TEST

Suite *fmt_suite(void)
{
	Suite *s = suite_create("fmt");
	TCase *tc = tcase_create("conversions");

	tcase_add_test(tc, test_u64);
	tcase_add_test(tc, test_right);
	tcase_add_test(tc, test_pad);
	tcase_add_test(tc, test_ipv4);
	tcase_add_test(tc, test_sbuf);
	tcase_add_test(tc, test_wbuf);
	suite_add_tcase(s, tc);
	return s;
}
