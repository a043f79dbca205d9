// SPDX-License-Identifier: GPL-2.0
/* fuzz_xlate's input format; see cbpf_input.h. */
#include <string.h>
#include "cbpf_input.h"

#define FZ_RET_SNAPLEN 262144 /* what libpcap's programs return on a match */
#define FZ_HDR	       2
#define FZ_INSN	       8
#define FZ_NVALID      49
#define FZ_NOPS	       (sizeof(fz_ops) / sizeof(fz_ops[0]))

/* The first FZ_NVALID entries: every opcode of libpcap's bpf_filter(). */
static const uint16_t fz_ops[] = {
	BPF_RET | BPF_K,
	BPF_RET | BPF_A,
	BPF_LD | BPF_W | BPF_ABS,
	BPF_LD | BPF_H | BPF_ABS,
	BPF_LD | BPF_B | BPF_ABS,
	BPF_LD | BPF_W | BPF_LEN,
	BPF_LDX | BPF_W | BPF_LEN,
	BPF_LD | BPF_W | BPF_IND,
	BPF_LD | BPF_H | BPF_IND,
	BPF_LD | BPF_B | BPF_IND,
	BPF_LDX | BPF_MSH | BPF_B,
	BPF_LD | BPF_IMM,
	BPF_LDX | BPF_IMM,
	BPF_LD | BPF_MEM,
	BPF_LDX | BPF_MEM,
	BPF_ST,
	BPF_STX,
	BPF_JMP | BPF_JA,
	BPF_JMP | BPF_JGT | BPF_K,
	BPF_JMP | BPF_JGE | BPF_K,
	BPF_JMP | BPF_JEQ | BPF_K,
	BPF_JMP | BPF_JSET | BPF_K,
	BPF_JMP | BPF_JGT | BPF_X,
	BPF_JMP | BPF_JGE | BPF_X,
	BPF_JMP | BPF_JEQ | BPF_X,
	BPF_JMP | BPF_JSET | BPF_X,
	/* [FZ_ALU_FIRST] and the FZ_ALU_OPS after it, NEG last */
	BPF_ALU | BPF_ADD | BPF_K,
	BPF_ALU | BPF_SUB | BPF_K,
	BPF_ALU | BPF_MUL | BPF_K,
	BPF_ALU | BPF_DIV | BPF_K,
	BPF_ALU | BPF_MOD | BPF_K,
	BPF_ALU | BPF_AND | BPF_K,
	BPF_ALU | BPF_OR | BPF_K,
	BPF_ALU | BPF_XOR | BPF_K,
	BPF_ALU | BPF_LSH | BPF_K,
	BPF_ALU | BPF_RSH | BPF_K,
	BPF_ALU | BPF_ADD | BPF_X,
	BPF_ALU | BPF_SUB | BPF_X,
	BPF_ALU | BPF_MUL | BPF_X,
	BPF_ALU | BPF_DIV | BPF_X,
	BPF_ALU | BPF_MOD | BPF_X,
	BPF_ALU | BPF_AND | BPF_X,
	BPF_ALU | BPF_OR | BPF_X,
	BPF_ALU | BPF_XOR | BPF_X,
	BPF_ALU | BPF_LSH | BPF_X,
	BPF_ALU | BPF_RSH | BPF_X,
	BPF_ALU | BPF_NEG,
	BPF_MISC | BPF_TAX,
	BPF_MISC | BPF_TXA,
	/* Near misses: bits libpcap's bpf_validate() does not look at. */
	BPF_LD | 0x18 | BPF_ABS, /* BPF_DW in eBPF */
	BPF_LD | 0x18 | BPF_IND,
	BPF_LDX | BPF_W | BPF_ABS,
	BPF_LDX | BPF_B | BPF_IND,
	BPF_LD | BPF_B | BPF_MSH,
	BPF_LDX | BPF_MSH | BPF_W,
	BPF_LD | BPF_H | BPF_MEM,
	BPF_LD | BPF_B | BPF_IMM,
	BPF_RET | BPF_X,
	BPF_RET | 0x18,
	BPF_MISC | 0x20,
	BPF_ALU | 0xb0 | BPF_K,
	BPF_ALU | BPF_NEG | BPF_X,
	BPF_JMP | BPF_JA | BPF_X,
	BPF_JMP | 0x50 | BPF_K,
	0x0100 | BPF_LD | BPF_W | BPF_ABS,
};

bool fz_op_valid(uint16_t code)
{
	for (size_t i = 0; i < FZ_NVALID; i++)
		if (fz_ops[i] == code)
			return true;
	return false;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Where semantics change: shifts, signs, sizes, offsets, ethertypes, SKF_AD_OFF. */
static const uint32_t fz_edges[] = {
	0,	    1,		2,	    3,		7,	    8,		12,
	14,	    15,		16,	    20,		23,	    31,		32,
	33,	    63,		64,	    255,	256,	    0x7fff,	0x8000,
	0xffff,	    0x10000,	0x800,	    0x86dd,	0x1fff,	    0x7fffffff, 0x80000000,
	0xfffff000, 0xfffff02c, 0xfffff030, 0xfffffffe, 0xffffffff, 0x40000,
};

static uint32_t shape_k(uint32_t k, uint8_t shape, size_t frame_len)
{
	switch (shape & FZ_SHAPE_K_MASK) {
	case 1:
		return k % 16;
	case 2:
		return k % 64;
	case 3:
		return k % 1600;
	case 4:
	case 5:
		return fz_edges[k % (sizeof(fz_edges) / sizeof(fz_edges[0]))];
	case 6:
	case 7:
		return (uint32_t)frame_len - 8 + k % 16;
	}
	return k;
}

/* Instruction PC of a LEN-long program, from the table-mode bytes at P. */
static struct sock_filter table_insn(const uint8_t *p, size_t pc, size_t len, size_t frame_len)
{
	struct sock_filter f = {.code = fz_ops[p[0] % FZ_NOPS], .jt = p[1], .jf = p[2]};
	size_t room = len - pc - 1; /* instructions after this one */

	f.k = shape_k(get32(p + 3), p[7], frame_len);
	if (!(p[7] & FZ_SHAPE_RAW_JMP) && BPF_CLASS(f.code) == BPF_JMP) {
		f.jt = room ? f.jt % (room < 256 ? room : 256) : 0;
		f.jf = room ? f.jf % (room < 256 ? room : 256) : 0;
		if (BPF_OP(f.code) == BPF_JA)
			f.k = room ? f.k % room : 0;
	}
	return f;
}

#define FZ_ALU_FIRST 26 /* fz_ops[26..46]: the ALU opcodes */
#define FZ_ALU_OPS   21
#define FZ_NEDGES    (sizeof(fz_edges) / sizeof(fz_edges[0]))

/* One FZ_CTL_ALU step from the 8 bytes at P into OUT: 1 to 3 instructions. */
static size_t alu_step(const uint8_t *p, size_t frame_len, struct sock_filter *out)
{
	uint16_t code = fz_ops[FZ_ALU_FIRST + p[0] % FZ_ALU_OPS];
	uint32_t val = p[1] & 2 ? fz_edges[p[2] % FZ_NEDGES] : p[2];
	size_t n = 0;

	if (p[1] & 1)
		out[n++] = (struct sock_filter){.code = BPF_LD | BPF_IMM,
						.k = shape_k(get32(p + 3), p[7], frame_len)};
	if (BPF_SRC(code) == BPF_X) {
		out[n++] = (struct sock_filter){.code = BPF_LDX | BPF_IMM, .k = val};
		val = 0;
	}
	out[n++] = (struct sock_filter){.code = code, .k = val};
	return n;
}

static void alu_decode(const uint8_t *insns, size_t given, struct fz_case *c)
{
	for (size_t i = 0; i < given && c->len + 4 <= FZ_PROG_MAX; i++)
		c->len += alu_step(insns + i * FZ_INSN, c->frame_len, c->prog + c->len);
	c->prog[c->len++] = (struct sock_filter){.code = BPF_RET | BPF_A};
}

static struct sock_filter raw_insn(const uint8_t *p)
{
	return (struct sock_filter){
		.code = (uint16_t)(p[0] | p[1] << 8), .jt = p[2], .jf = p[3], .k = get32(p + 4)};
}

void fz_case_decode(const uint8_t *data, size_t size, struct fz_case *c)
{
	size_t hdr = FZ_HDR, given, total;
	const uint8_t *insns;

	c->ctl = 0;
	c->len = 0;
	c->frame = data + size;
	c->frame_len = 0;
	c->wire_len = 0;
	if (size < FZ_HDR)
		return;
	c->ctl = data[0];
	given = (size_t)data[1] + 1;
	total = given;
	if (c->ctl & FZ_CTL_TILE) {
		if (size < FZ_HDR + 2)
			return;
		total = (size_t)(data[2] | data[3] << 8) % FZ_PROG_MAX;
		hdr += 2;
	}
	if (given > (size - hdr) / FZ_INSN)
		given = (size - hdr) / FZ_INSN;
	if (!(c->ctl & FZ_CTL_TILE) || !given)
		total = given;
	insns = data + hdr;
	c->frame = insns + given * FZ_INSN;
	c->frame_len = (size_t)(data + size - c->frame);
	if (c->frame_len > FZ_FRAME_MAX)
		c->frame_len = FZ_FRAME_MAX;
	c->wire_len = c->ctl & FZ_CTL_CUT ? 2 * c->frame_len + 1 : c->frame_len;
	if ((c->ctl & (FZ_CTL_ALU | FZ_CTL_RAW | FZ_CTL_TILE)) == FZ_CTL_ALU) {
		alu_decode(insns, given, c);
		return;
	}
	c->len = total + !(c->ctl & FZ_CTL_NO_RET);
	if (c->len > FZ_PROG_MAX)
		c->len = FZ_PROG_MAX;
	for (size_t pc = 0; pc < total && pc < c->len; pc++) {
		const uint8_t *p = insns + (pc % given) * FZ_INSN;

		c->prog[pc] =
			c->ctl & FZ_CTL_RAW ? raw_insn(p) : table_insn(p, pc, c->len, c->frame_len);
	}
	if (!(c->ctl & FZ_CTL_NO_RET))
		c->prog[c->len - 1] = (struct sock_filter){
			.code = BPF_RET | (c->ctl & FZ_CTL_RET_A ? BPF_A : BPF_K),
			.k = FZ_RET_SNAPLEN};
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

size_t fz_case_encode(const struct sock_filter *prog, size_t len, const uint8_t *frame,
		      size_t frame_len, unsigned int ctl, uint8_t *out, size_t outlen)
{
	size_t need = FZ_HDR + len * FZ_INSN + frame_len, idx;
	uint8_t *p = out + FZ_HDR;

	if (!len || len > 256 || need > outlen)
		return 0;
	out[0] = (uint8_t)((ctl & (FZ_CTL_NO_DIRECT | FZ_CTL_RET_A)) | FZ_CTL_NO_RET);
	out[1] = (uint8_t)(len - 1);
	for (size_t pc = 0; pc < len; pc++, p += FZ_INSN) {
		for (idx = 0; idx < FZ_NOPS && fz_ops[idx] != prog[pc].code; idx++)
			;
		if (idx == FZ_NOPS)
			return 0;
		p[0] = (uint8_t)idx;
		p[1] = prog[pc].jt;
		p[2] = prog[pc].jf;
		put32(p + 3, prog[pc].k);
		p[7] = FZ_SHAPE_RAW_JMP; /* k and the jumps as they are */
	}
	memcpy(p, frame, frame_len);
	return need;
}
