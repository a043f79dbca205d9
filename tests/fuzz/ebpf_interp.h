/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small eBPF interpreter for what the translator emits, so that fuzz_xlate
 * can compare the translation with libpcap without a kernel, thousands of
 * times a second. It runs the program as BPF_PROG_TEST_RUN would on a linear
 * skb holding the frame, and treats as an error whatever the verifier would
 * refuse on the path taken: an access out of its region, a read of a register
 * or stack byte never written, an opcode the translator has no business
 * emitting. Falling off the end is a match: the classifier's C code follows.
 */
#ifndef PP_FUZZ_EBPF_INTERP_H
#define PP_FUZZ_EBPF_INTERP_H

#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>

/*
 * The checks the verifier makes before it runs anything: known opcodes,
 * jumps inside the program or to its end (the C code), forward only, no
 * unreachable instruction, the end reachable. 0, or -1 with a message.
 */
int fz_ebpf_check(const struct bpf_insn *v, size_t cnt, char *err, size_t errlen);

/*
 * Runs V on FRAME: 0 with *match set and the registers as they were at the
 * end in REGS (MAX_BPF_REG of them), or -1 with a message.
 */
int fz_ebpf_run(const struct bpf_insn *v, size_t cnt, const uint8_t *frame, uint32_t len,
		int *match, uint64_t *regs, char *err, size_t errlen);

#endif
