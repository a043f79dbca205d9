/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_xlate's input format: fuzzer bytes -> a classic BPF program and a
 * frame. The seed generator writes the same format.
 *
 *   byte 0     FZ_CTL_* flags
 *   byte 1     instructions given, minus one
 *   [2 bytes]  with FZ_CTL_TILE: the program's length, little-endian; the
 *              given instructions are repeated to fill it
 *   8 bytes    per instruction (see below)
 *   the rest   the frame, at most FZ_FRAME_MAX bytes
 *
 * An instruction is, by default, taken from a table of opcodes so that most
 * programs get past the translator's checks: byte 0 picks the opcode, bytes
 * 1 and 2 are jt and jf, bytes 3-6 are k (little-endian), and byte 7 shapes
 * them (FZ_SHAPE_*). With FZ_CTL_RAW the 8 bytes are a struct sock_filter
 * as they are. With FZ_CTL_ALU (and not RAW, not TILE) each 8 bytes are one
 * step of arithmetic on A: byte 1 bit 0 loads A first with k shaped by byte 7;
 * byte 0 picks the ALU op; its operand is byte 2, or with byte 1 bit 1 a
 * boundary value picked by byte 2, loaded into X for the X forms. The program
 * ends in RET A, so a match shows A to the bit: dense checks of the ALU.
 */
#ifndef PP_FUZZ_CBPF_INPUT_H
#define PP_FUZZ_CBPF_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/filter.h>

#define FZ_PROG_MAX  5000 /* past BPF_MAXINSNS, the kernel's classic limit, not the translator's */
#define FZ_FRAME_MAX 2048 /* well under what BPF_PROG_TEST_RUN takes */

enum fz_ctl {
	FZ_CTL_NO_DIRECT = 1 << 0, /* the kernel run uses PP_XLATE_NO_DIRECT */
	FZ_CTL_RAW = 1 << 1,	   /* instructions are raw struct sock_filter */
	FZ_CTL_NO_RET = 1 << 2,	   /* do not append a RET */
	FZ_CTL_RET_A = 1 << 3,	   /* the appended RET is RET A, else RET #262144 */
	FZ_CTL_TILE = 1 << 4,	   /* a 16-bit length follows: repeat the instructions */
	FZ_CTL_ALU = 1 << 5,	   /* arithmetic only, ending in RET A (below) */
	/* The frame is what a snap length left of a longer packet: its length
	 * on the wire (the filter's "len") is 2 * frame_len + 1. */
	FZ_CTL_CUT = 1 << 6,
};

enum fz_shape {
	/*
	 * 0: k as is, 1: k % 16, 2: k % 64, 3: k % 1600, 4-5: a boundary value
	 * (0, 31, 32, 0xffffffff...), 6-7: near the end of the frame (a load's
	 * bounds check), frame length - 8 + k % 16.
	 */
	FZ_SHAPE_K_MASK = 7,
	FZ_SHAPE_RAW_JMP = 1 << 3, /* jt, jf (and JA's k) as is, else folded in range */
};

struct fz_case {
	unsigned int ctl;
	struct sock_filter prog[FZ_PROG_MAX];
	size_t len;
	const uint8_t *frame;
	size_t frame_len;
	size_t wire_len; /* frame_len, or more with FZ_CTL_CUT */
};

/* Whether libpcap's bpf_filter() runs CODE: it abort()s on any other. */
bool fz_op_valid(uint16_t code);

/* Decodes DATA into C; never fails, a program may be empty. */
void fz_case_decode(const uint8_t *data, size_t size, struct fz_case *c);

/*
 * Encodes PROG (LEN <= 256, every opcode in the table) and FRAME as an input
 * that decodes back to exactly them: table mode, nothing appended.
 * Returns the bytes written to OUT, 0 if it does not fit in OUTLEN.
 */
size_t fz_case_encode(const struct sock_filter *prog, size_t len, const uint8_t *frame,
		      size_t frame_len, unsigned int ctl, uint8_t *out, size_t outlen);

#endif
