/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a packet's path ended (enum pp_fate, include/pktpath.h): one row per
 * fate, read by the path assembler, the text and JSON output, --summary,
 * the exports, the metrics and `pktpath report`. A new fate is its value in
 * enum pp_fate (if the BPF side sends it), its row here, and its words in
 * docs/json-schema.md's fate.kind.
 */
#ifndef PP_FATE_H
#define PP_FATE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "pktpath.h"

enum pp_fate_flag {
	/*
	 * An END record may carry it (the BPF side gives it at a free); the
	 * path assembler takes the first such fate in row order among a
	 * packet's skbs, the others are assembly's own conclusions.
	 */
	PP_FATE_F_END = 1,
	PP_FATE_F_TEXT_IF_ANY = 2, /* the exit line shows it only if some packet had it */
	PP_FATE_F_JSON_IF_ANY = 4, /* so does JSON's {"summary":...} */
	PP_FATE_F_METRIC = 8,	   /* a pktpath_packets_total{fate=KEY} series */
};

struct pp_fate_row {
	enum pp_fate fate;
	const char *key;   /* JSON's "kind", the metrics' label, what report reads back */
	const char *text;  /* the text block's fate line; NULL for the drop (pp_line_fate_of) */
	const char *line;  /* --summary's and the exports' one-line form */
	const char *total; /* its column of the exit line: "N end not seen" */
	unsigned int flags;
};

/* Every fate but PP_FATE_NONE, in the order of precedence and of the totals. */
extern const struct pp_fate_row pp_fates[];
extern const size_t pp_nfates;

/* The row of FATE, NULL for PP_FATE_NONE or a value with none. */
const struct pp_fate_row *pp_fate_row(enum pp_fate fate);
/* Its key: "consumed", "dropped", ...; "none" for a fate with no row. */
const char *pp_fate_key(enum pp_fate fate);
/* Whether an END record may carry FATE (PP_FATE_F_END). */
bool pp_fate_ends(enum pp_fate fate);

#endif /* PP_FATE_H */
