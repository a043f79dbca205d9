/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `pktpath report H1.jsonl H2.jsonl ...`: the packet lines of several
 * hosts' --json files joined into one path per packet (report_join.h),
 * in time order, each part tagged with its host; clocks that disagree
 * flagged. No BPF, no root.
 */
#ifndef PP_REPORT_HOSTS_H
#define PP_REPORT_HOSTS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

struct pp_hosts_opts {
	const char *const *files;
	int nfiles;
	__u64 window_ns; /* --window */
	__u64 tol_ns;	 /* --clock-tolerance */
	/*
	 * The output format's name (struct pp_out_ops): "json" (--json), one
	 * line per joined packet, then a summary line; any other: text.
	 */
	const char *format;
	FILE *out;
};

/* The exit status: 0 done, 1 out of memory or nothing joined, 2 bad input. */
int pp_report_hosts(const struct pp_hosts_opts *o);

#endif /* PP_REPORT_HOSTS_H */
