// SPDX-License-Identifier: GPL-2.0
/*
 * The opcode whitelist: the 49 codes, written out here on their own, are
 * the only ones of all 65536 that pp_cbpf_op_allowed() and pp_xlate() take,
 * and the kernel's classic checker (SO_ATTACH_FILTER on a socket, which
 * needs no privilege) accepts exactly the same ones.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "suites.h"
#include "filter/cbpf_ops.h"
#include "filter/cbpf_xlate.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Spelled as numbers, not through the macros the code under test uses. */
static const __u16 allowed[] = {
	/* ld: imm, w/h/b abs, w/h/b ind, mem, len */
	0x00,
	0x20,
	0x28,
	0x30,
	0x40,
	0x48,
	0x50,
	0x60,
	0x80,
	/* ldx: imm, mem, len, b msh; st, stx */
	0x01,
	0x61,
	0x81,
	0xb1,
	0x02,
	0x03,
	/* alu k: add sub mul div or and lsh rsh mod xor; the same on x; neg */
	0x04,
	0x14,
	0x24,
	0x34,
	0x44,
	0x54,
	0x64,
	0x74,
	0x94,
	0xa4,
	0x0c,
	0x1c,
	0x2c,
	0x3c,
	0x4c,
	0x5c,
	0x6c,
	0x7c,
	0x9c,
	0xac,
	0x84,
	/* jmp: ja; jeq jgt jge jset on k, on x */
	0x05,
	0x15,
	0x25,
	0x35,
	0x45,
	0x1d,
	0x2d,
	0x3d,
	0x4d,
	/* ret k, ret a; tax, txa */
	0x06,
	0x16,
	0x07,
	0x87,
};

static bool in_list(__u16 code)
{
	for (size_t i = 0; i < LEN(allowed); i++)
		if (allowed[i] == code)
			return true;
	return false;
}

START_TEST(test_table)
{
	size_t n = 0;

	for (__u32 code = 0; code <= 0xffff; code++) {
		bool ok = pp_cbpf_op_allowed((__u16)code);

		ck_assert_msg(ok == in_list((__u16)code), "opcode 0x%04x: allowed %d", code, ok);
		n += ok;
	}
	ck_assert_uint_eq(n, PP_CBPF_NOPS);
	ck_assert_uint_eq(LEN(allowed), PP_CBPF_NOPS);
}
END_TEST

/* k that every checker takes with any opcode: no division by 0, no shift >= 32. */
static __u32 benign_k(__u16 code)
{
	return BPF_CLASS(code) == BPF_ALU ? 1 : 0;
}

/* M[0] and M[1] stored first: the kernel refuses a read of unset memory. */
static void probe_prog(__u16 code, struct sock_filter p[4])
{
	p[0] = (struct sock_filter){BPF_ST, 0, 0, 0};
	p[1] = (struct sock_filter){BPF_STX, 0, 0, 1};
	p[2] = (struct sock_filter){code, 0, 0, benign_k(code)};
	p[3] = (struct sock_filter){BPF_RET | BPF_K, 0, 0, 0};
}

static int xlate_ok(const struct sock_filter *p, size_t n, char *err, size_t errlen)
{
	struct bpf_insn *v = NULL;
	size_t cnt;
	int ret = pp_xlate(p, n, 0, &v, &cnt, err, errlen);

	free(v);
	return ret;
}

START_TEST(test_xlate_refuses)
{
	struct sock_filter p[4];
	char err[256], want[64];
	size_t refused = 0;

	for (__u32 code = 0; code <= 0xffff; code++) {
		int ret;

		probe_prog((__u16)code, p);
		ret = xlate_ok(p, LEN(p), err, sizeof(err));
		if (in_list((__u16)code)) {
			ck_assert_msg(ret == 0, "opcode 0x%04x refused: %s", code, err);
			continue;
		}
		refused++;
		ck_assert_int_eq(ret, -EINVAL);
		snprintf(want, sizeof(want), "instruction 2: opcode 0x%04x", code);
		ck_assert_msg(strstr(err, want), "0x%04x: \"%s\"", code, err);
	}
	ck_assert_uint_eq(refused, 0x10000 - PP_CBPF_NOPS);
}
END_TEST

/* Where no path goes, too: the kernel checks every instruction. */
START_TEST(test_unreachable_bad_opcode)
{
	struct sock_filter p[] = {{BPF_RET | BPF_K, 0, 0, 1}, {BPF_LD | BPF_B | BPF_IMM, 0, 0, 0}};
	char err[256];

	ck_assert_int_eq(xlate_ok(p, LEN(p), err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "instruction 1: opcode 0x0010"), "%s", err);
}
END_TEST

START_TEST(test_kernel_agrees)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sock_filter p[4];
	size_t accepted = 0;

	ck_assert_int_ge(fd, 0);
	for (__u32 code = 0; code <= 0xffff; code++) {
		struct sock_fprog prog = {.len = LEN(p), .filter = p};
		bool kernel;

		probe_prog((__u16)code, p);
		kernel = setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) == 0;
		ck_assert_msg(kernel || errno == EINVAL, "0x%04x: %s", code, strerror(errno));
		ck_assert_msg(kernel == pp_cbpf_op_allowed((__u16)code),
			      "opcode 0x%04x: the kernel %s it, the whitelist does not", code,
			      kernel ? "accepts" : "refuses");
		accepted += kernel;
	}
	close(fd);
	printf("cbpf_ops: the kernel's classic checker accepts %zu of 65536 opcodes, the same "
	       "as the whitelist\n",
	       accepted);
}
END_TEST

Suite *cbpf_ops_suite(void)
{
	Suite *s = suite_create("cbpf_ops");
	TCase *tc = tcase_create("whitelist");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_xlate_refuses);
	tcase_add_test(tc, test_unreachable_bad_opcode);
	tcase_add_test(tc, test_kernel_agrees);
	suite_add_tcase(s, tc);
	return s;
}
