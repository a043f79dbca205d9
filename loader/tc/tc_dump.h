/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF filters of a clsact hook, as the kernel lists them (an
 * RTM_GETTFILTER dump): pktpath's own, which a killed pktpath may leave
 * (tc_stale.h), and other programs', which may judge a packet (hook_progs.h).
 */
#ifndef PP_TC_DUMP_H
#define PP_TC_DUMP_H

#include <linux/types.h>

struct pp_tc_filter {
	__u32 handle, prio;
	__u32 id;	  /* the program's id; 0 if the kernel gave none */
	const char *name; /* the program's name (tc's "NAME:[ID]" for an object file); "" if none */
};

/*
 * FN for each BPF filter on IFINDEX's clsact ingress (EGRESS 0) or egress
 * hook, in the kernel's order: 0, or -errno (-EINVAL, -ENOENT: no clsact).
 */
int pp_tc_bpf_filters(int ifindex, int egress, void (*fn)(const struct pp_tc_filter *f, void *arg),
		      void *arg);

#endif /* PP_TC_DUMP_H */
