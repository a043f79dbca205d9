/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The classic BPF opcodes pktpath translates: exactly those the kernel's
 * classic checker accepts (bpf_check_classic() in net/core/filter.c), which
 * are also the ones libpcap's bpf_filter() runs. Any other 16-bit code,
 * however close (a size on BPF_IMM, BPF_X on BPF_NEG, bits above 0xff), is
 * refused before translation.
 */
#ifndef PP_CBPF_OPS_H
#define PP_CBPF_OPS_H

#include <stdbool.h>
#include <linux/types.h>

#define PP_CBPF_NOPS 49 /* how many codes pp_cbpf_op_allowed() accepts */

bool pp_cbpf_op_allowed(__u16 code);

#endif
