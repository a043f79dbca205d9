/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Classic BPF (as libpcap emits it) -> eBPF that runs at the head of the TC
 * classifier. The generated code decides exactly as libpcap's bpf_filter():
 * on a match it jumps past its own end with r1 = ctx (the classifier's C code
 * follows); on no match it returns TC_ACT_UNSPEC, which is also TCX_NEXT.
 */
#ifndef PP_CBPF_XLATE_H
#define PP_CBPF_XLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/filter.h>

enum pp_xlate_flags {
	/* Read every byte through bpf_skb_load_bytes(): proves the path that
	 * non-linear skbs take, since BPF_PROG_TEST_RUN only builds linear ones. */
	PP_XLATE_NO_DIRECT = 1 << 0,
	/*
	 * A BPF subprogram for probes, int f(const void *data, u64 len, u64
	 * headlen): bytes read with bpf_probe_read_kernel() from the linear part
	 * (a load past headlen does not match); returns 1 on a match, else 0.
	 */
	PP_XLATE_PROBE = 1 << 1,
	/*
	 * The filter looks for 802.1Q/802.1ad tags (pp_cbpf_tests_vlan()): where
	 * the kernel holds the outer tag in skb metadata (every received frame,
	 * __netif_receive_skb_core() untags it before TC), the filter reads the
	 * frame as on the wire, the tag back at offset 12 and "len" 4 bytes
	 * longer. TC mode only; the packet itself is never changed.
	 */
	PP_XLATE_VLAN_VIEW = 1 << 2,
	/*
	 * Match encapsulated frames too: where the program does not match a
	 * VXLAN or Geneve frame (tunnel.h), run it again on the inner Ethernet
	 * frame, its offsets and "len" from the inner header on; either match
	 * is a match. TC mode only.
	 */
	PP_XLATE_INNER = 1 << 3,
};

/* Registers of the generated code; r1-r5 are scratch for helper calls. */
#define PP_R_CTX  BPF_REG_6
#define PP_R_A	  BPF_REG_7
#define PP_R_X	  BPF_REG_8
#define PP_R_DATA BPF_REG_9
#define PP_R_HEAD BPF_REG_6 /* probe mode: headlen (there is no ctx) */

/*
 * The kernel's limit on a program's instructions for a privileged loader
 * (BPF_COMPLEXITY_LIMIT_INSNS), which is also its limit on the instructions
 * the verifier walks. Classic programs are not held to the 4096 of
 * BPF_MAXINSNS: the translation is loaded as eBPF.
 */
#define PP_XLATE_MAX_INSNS 1000000u

/*
 * Whether PROG compares a value with an 802.1Q, 802.1ad or QinQ TPID, as
 * libpcap's "vlan" does (and "ether proto 0x8100", "ether[12:2] = 0x8100").
 */
bool pp_cbpf_tests_vlan(const struct sock_filter *prog, size_t len);

/*
 * Translate PROG[0..LEN) into a malloc()ed eBPF array (*OUT, *OUT_CNT).
 * Returns 0, or -EINVAL (an opcode outside cbpf_ops.h's whitelist, named by
 * its index, or another malformed instruction) / -E2BIG (past a limit) /
 * -ENOMEM, with a message in ERR.
 */
int pp_xlate(const struct sock_filter *prog, size_t len, unsigned int flags, struct bpf_insn **out,
	     size_t *out_cnt, char *err, size_t errlen);

#endif
