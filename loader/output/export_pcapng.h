/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --pcapng: each packet as it was marked (the mark's first bytes, cut to
 * the snap length) in an Enhanced Packet Block whose comment holds its path
 * and fate (path_line.h), on an interface per marking device (its name; the
 * namespace and ifindex in its description). The blocks go out as packets
 * close, so the file is readable up to the last one written.
 */
#ifndef PP_EXPORT_PCAPNG_H
#define PP_EXPORT_PCAPNG_H

#include <stdio.h>
#include <linux/types.h>
#include "output/output.h"

struct pp_pcapng_out;

/*
 * Writes the section header to F. SNAPLEN: bytes kept of each packet (at
 * most PP_HDR_BYTES; 0: all captured); REAL_OFF_NS: CLOCK_REALTIME minus
 * CLOCK_MONOTONIC, to turn the probes' times into dates; APPL: the writer's
 * name and version. NULL if out of memory.
 */
struct pp_pcapng_out *pp_pcapng_out_new(FILE *f, __u32 snaplen, __s64 real_off_ns,
					const char *appl);
/* Writes P's block, and first its interface's if new. O names probes and drop reasons. */
void pp_pcapng_out_packet(struct pp_pcapng_out *x, const struct pp_out *o,
			  const struct pp_packet *p);
/* Packets from now on were traced on a host whose clocks were REAL_OFF_NS apart. */
void pp_pcapng_out_set_real_off(struct pp_pcapng_out *x, __s64 real_off_ns);
__u64 pp_pcapng_out_count(const struct pp_pcapng_out *x);
void pp_pcapng_out_free(struct pp_pcapng_out *x);

#endif /* PP_EXPORT_PCAPNG_H */
