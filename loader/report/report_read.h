/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `pktpath report`: one line of saved --json output (docs/json-schema.md)
 * back into the struct pp_packet that the live path hands to the summary
 * and the exports, so that the same code prints. Parsed with json-c.
 *
 * What JSON names as strings (probe points, drop reasons, the functions of
 * drop locations) the reader numbers as the live run did: a probe index per
 * probe name (tc:ingress and the other built-in points get their own
 * indexes), and remembers the names, which pp_report_read_names() hands to a
 * struct pp_out. Keys a line has that the reader does not know are ignored:
 * later versions may add keys.
 */
#ifndef PP_REPORT_READ_H
#define PP_REPORT_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "output/output.h"
#include "paths/path.h"

enum pp_report_read_kind {
	PP_REPORT_READ_BLANK = 0,	 /* an empty line */
	PP_REPORT_READ_PACKET = 1,	 /* a packet line: item.pkt */
	PP_REPORT_READ_TOTALS = 2,	 /* the exit line: item.lost, item.map_full, item.skipped */
	PP_REPORT_READ_PATH_SUMMARY = 3, /* a --summary report: item.elapsed, item.final */
	PP_REPORT_READ_OTHER = 4,	 /* a JSON object of a kind this version does not know */
};

struct pp_report_read_item {
	enum pp_report_read_kind kind;
	/* PACKET: valid until the next pp_report_read_line(). */
	const struct pp_packet *pkt;
	bool has_head;	/* "head": the mark's first bytes are in pkt->mark->data */
	bool has_time;	/* "mono_ns" and "real_ns": pkt's hop times are CLOCK_MONOTONIC */
	__s64 real_off; /* has_time: CLOCK_REALTIME - CLOCK_MONOTONIC of the recording */
	/* SUMMARY */
	__u64 lost, map_full, skipped;
	/* PATH_SUMMARY */
	double elapsed; /* PP_REPORT_READ_PATH_SUMMARY: "elapsed_s", -1 if the line has none */
	bool final;
};

struct pp_report_read;

struct pp_report_read *pp_report_read_new(void);
void pp_report_read_free(struct pp_report_read *r);

/*
 * Reads one line (LEN bytes, no newline needed). Returns 0 with ITEM
 * filled, -EINVAL with ERR saying what is wrong (a JSON error, or which key
 * has the wrong type or is missing), or -ENOMEM.
 */
int pp_report_read_line(struct pp_report_read *r, const char *line, size_t len,
			struct pp_report_read_item *item, char *err, size_t errlen);

/* The names read so far, for O: probe names, reason and function callbacks. */
void pp_report_read_names(const struct pp_report_read *r, struct pp_out *o);

#endif /* PP_REPORT_READ_H */
