/* SPDX-License-Identifier: GPL-2.0 */
/* The --summary report: distinct paths and drops, as text or one JSON line. */
#ifndef PP_OUTPUT_SUMMARY_H
#define PP_OUTPUT_SUMMARY_H

#include <stdbool.h>
#include "output/output.h"
#include "output/summary.h"

struct pp_sum_when {
	double elapsed; /* seconds since tracing began */
	bool final;	/* at exit; false: an --interval report */
	bool untimed;	/* elapsed is not known (`pktpath report` of a file without it) */
	/*
	 * `pktpath report FILE`: the recording summed up (NULL: a live run);
	 * elapsed is the length of the run it recorded, or, with span, the
	 * time from its first packet's first hop to its last one's last.
	 */
	const char *file;
	bool span;
};

void pp_out_summary_text(const struct pp_out *o, const struct pp_summary *s,
			 const struct pp_sum_when *when);
void pp_out_summary_json(const struct pp_out *o, const struct pp_summary *s,
			 const struct pp_sum_when *when);

#endif /* PP_OUTPUT_SUMMARY_H */
