/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small eBPF interpreter for what the translator emits. It runs the
 * program as the kernel would on a linear skb holding the frame, and treats
 * as an error whatever the verifier would refuse on the path taken: an access
 * out of its region, a read of a register or stack byte never written, an
 * opcode the translator has no business emitting. In TC mode, falling off the
 * end is a match: the classifier's C code follows.
 *
 * Two users: --test-pcap decides with it the frames BPF_PROG_TEST_RUN
 * refuses (test_pcap.c), and fuzz_xlate compares the translation with
 * libpcap thousands of times a second without a kernel.
 */
#ifndef PP_EBPF_INTERP_H
#define PP_EBPF_INTERP_H

#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>

/* Where the translation runs (cbpf_xlate.h's flags). */
enum pp_vm_mode {
	/* At the head of the TC classifier: r1 = ctx, no match returns
	 * TC_ACT_UNSPEC, a match falls off the end into the C code. */
	PP_VM_TC,
	/* PP_XLATE_PROBE: a subprogram f(data, len, headlen) that reads bytes
	 * with bpf_probe_read_kernel() and returns 1 on a match, else 0. */
	PP_VM_PROBE,
};

/*
 * The packet a run sees. DATA[0..CAPLEN) is the linear part (ctx->data up to
 * ctx->data_end); LEN (>= CAPLEN) is ctx->len. Bytes in [CAPLEN, LEN) are
 * part of the packet but cannot be read: a helper load that reaches them
 * fails, as one past skb->len does in the kernel. That is a frame a capture
 * cut short, decided as libpcap decides it (its wire length is "len", a load
 * past the captured bytes does not match).
 */
struct pp_vm_pkt {
	const uint8_t *data;
	uint32_t caplen;
	uint32_t len;
	/* An outer tag the kernel holds in metadata (ctx->vlan_*), not in DATA. */
	uint8_t vlan_present;
	uint16_t vlan_proto; /* host order, e.g. 0x8100 */
	uint16_t vlan_tci;
};

/*
 * The checks the verifier makes before it runs anything: known opcodes,
 * the mode's helper only, jumps forward, inside the program or (TC) to its
 * end, no unreachable instruction, the end reachable in TC mode and not in
 * probe mode. 0, or -1 with a message.
 */
int pp_ebpf_check(const struct bpf_insn *v, size_t cnt, enum pp_vm_mode mode, char *err,
		  size_t errlen);

/*
 * Runs V on PKT (in probe mode: data, len and headlen are PKT's data, len and
 * caplen, and a read outside the captured bytes is a fault): 0 with *match
 * set and, if REGS is not NULL, the registers as they were at the end in REGS
 * (MAX_BPF_REG of them); or -1 with a message.
 */
int pp_ebpf_run(const struct bpf_insn *v, size_t cnt, enum pp_vm_mode mode,
		const struct pp_vm_pkt *pkt, int *match, uint64_t *regs, char *err, size_t errlen);

#endif
