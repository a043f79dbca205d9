// SPDX-License-Identifier: GPL-2.0
/*
 * libpcap's own validator. A file of its own: <pcap/bpf.h> and
 * <linux/filter.h> cannot meet (both define struct bpf_insn).
 */
#include <limits.h>
#include <pcap/pcap.h>
#include "cbpf_check.h"

/* pcap's struct bpf_insn has struct sock_filter's layout: u16, u8, u8, u32. */
_Static_assert(sizeof(struct bpf_insn) == 8, "classic instruction is 8 bytes");

bool fz_pcap_validate(const void *prog, size_t len)
{
	return len <= INT_MAX && bpf_validate(prog, (int)len);
}
