// SPDX-License-Identifier: GPL-2.0
#include <linux/filter.h>
#include "filter/cbpf_ops.h"

/* Loads and stores: the only sizes and modes classic BPF defines. */
static bool load_store_ok(__u16 code)
{
	switch (code) {
	case BPF_LD | BPF_W | BPF_ABS:
	case BPF_LD | BPF_H | BPF_ABS:
	case BPF_LD | BPF_B | BPF_ABS:
	case BPF_LD | BPF_W | BPF_IND:
	case BPF_LD | BPF_H | BPF_IND:
	case BPF_LD | BPF_B | BPF_IND:
	case BPF_LD | BPF_W | BPF_LEN:
	case BPF_LD | BPF_W | BPF_IMM:
	case BPF_LD | BPF_W | BPF_MEM:
	case BPF_LDX | BPF_W | BPF_LEN:
	case BPF_LDX | BPF_W | BPF_IMM:
	case BPF_LDX | BPF_W | BPF_MEM:
	case BPF_LDX | BPF_B | BPF_MSH:
	case BPF_ST:
	case BPF_STX:
		return true;
	}
	return false;
}

/* The ten ALU operations, on K or X; NEG only bare. */
static bool alu_ok(__u16 code)
{
	if (code == (BPF_ALU | BPF_NEG))
		return true;
	if ((code & ~(BPF_OP(0xff) | BPF_SRC(0xff))) != BPF_ALU)
		return false;
	switch (BPF_OP(code)) {
	case BPF_ADD:
	case BPF_SUB:
	case BPF_MUL:
	case BPF_DIV:
	case BPF_MOD:
	case BPF_AND:
	case BPF_OR:
	case BPF_XOR:
	case BPF_LSH:
	case BPF_RSH:
		return true;
	}
	return false;
}

/* JA bare; the four compares on K or X. */
static bool jmp_ok(__u16 code)
{
	if (code == (BPF_JMP | BPF_JA))
		return true;
	if ((code & ~(BPF_OP(0xff) | BPF_SRC(0xff))) != BPF_JMP)
		return false;
	switch (BPF_OP(code)) {
	case BPF_JEQ:
	case BPF_JGT:
	case BPF_JGE:
	case BPF_JSET:
		return true;
	}
	return false;
}

bool pp_cbpf_op_allowed(__u16 code)
{
	switch (BPF_CLASS(code)) {
	case BPF_ALU:
		return alu_ok(code);
	case BPF_JMP:
		return jmp_ok(code);
	case BPF_RET:
		return code == (BPF_RET | BPF_K) || code == (BPF_RET | BPF_A);
	case BPF_MISC:
		return code == (BPF_MISC | BPF_TAX) || code == (BPF_MISC | BPF_TXA);
	}
	return load_store_ok(code);
}
