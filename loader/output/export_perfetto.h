/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --perfetto: a timeline in the Trace Event Format (JSON) that
 * ui.perfetto.dev and chrome://tracing open.
 *
 * One process per packet (pid = packet id, named by its one-line path and
 * fate), one thread per skb of it (tid 1 the original, tid K + 1 copy K):
 * copies have paths of their own that overlap the original's in time, and
 * slices on one thread must nest. On each thread, a complete event ("X")
 * per hop, named by its probe, lasting until the skb's next hop (the last
 * hop: 0, with the fate in its args). A copy is a flow ("s" on the slice of
 * the skb it came from where it joined, "f" on its first slice). Times are
 * the probes' CLOCK_MONOTONIC in microseconds with ns decimals; on every
 * thread the events are written in time order.
 */
#ifndef PP_EXPORT_PERFETTO_H
#define PP_EXPORT_PERFETTO_H

#include <stdio.h>
#include <linux/types.h>
#include "output/output.h"

struct pp_perfetto_out;

/* Writes the opening of the JSON object to F; APPL names the writer. NULL if out of memory. */
struct pp_perfetto_out *pp_perfetto_out_new(FILE *f, const char *appl);
void pp_perfetto_out_packet(struct pp_perfetto_out *x, const struct pp_out *o,
			    const struct pp_packet *p);
/* Writes the closing of the JSON object. */
void pp_perfetto_out_end(struct pp_perfetto_out *x);
__u64 pp_perfetto_out_count(const struct pp_perfetto_out *x);
void pp_perfetto_out_free(struct pp_perfetto_out *x);

#endif /* PP_EXPORT_PERFETTO_H */
