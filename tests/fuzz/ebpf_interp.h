/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small eBPF interpreter for what the translator emits, so that fuzz_xlate
 * can compare the translation with libpcap without a kernel, thousands of
 * times a second. It runs the program as BPF_PROG_TEST_RUN would on a linear
 * skb holding the frame, and treats as an error whatever the verifier would
 * refuse on the path taken: an access out of its region, a read of a register
 * or stack byte never written, an opcode the translator has no business
 * emitting. In TC mode, falling off the end is a match: the classifier's C
 * code follows.
 */
#ifndef PP_FUZZ_EBPF_INTERP_H
#define PP_FUZZ_EBPF_INTERP_H

#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>

/* Where the translation runs (cbpf_xlate.h's flags). */
enum fz_vm_mode {
	/* At the head of the TC classifier: r1 = ctx, no match returns
	 * TC_ACT_UNSPEC, a match falls off the end into the C code. */
	FZ_VM_TC,
	/* PP_XLATE_PROBE: a subprogram f(data, len, headlen) that reads bytes
	 * with bpf_probe_read_kernel() and returns 1 on a match, else 0. */
	FZ_VM_PROBE,
};

/*
 * The checks the verifier makes before it runs anything: known opcodes,
 * the mode's helper only, jumps forward, inside the program or (TC) to its
 * end, no unreachable instruction, the end reachable in TC mode and not in
 * probe mode. 0, or -1 with a message.
 */
int fz_ebpf_check(const struct bpf_insn *v, size_t cnt, enum fz_vm_mode mode, char *err,
		  size_t errlen);

/*
 * Runs V on FRAME (in probe mode: data, len and headlen are the frame and
 * its length, and a read outside it is a fault): 0 with *match set and the
 * registers as they were at the end in REGS (MAX_BPF_REG of them), or -1
 * with a message.
 */
int fz_ebpf_run(const struct bpf_insn *v, size_t cnt, enum fz_vm_mode mode, const uint8_t *frame,
		uint32_t len, int *match, uint64_t *regs, char *err, size_t errlen);

#endif
