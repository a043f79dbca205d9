/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The export files (--pcapng, --perfetto) over a run's life. Once tracing,
 * pktpath may no longer open a file to write (privs.h: its seccomp filter),
 * so each file is created while nothing is attached, with safe_file.h's
 * checks (a bad path is bad input), put in place just before privileges go,
 * and written through the descriptor already open.
 */
#ifndef PP_EXPORTS_H
#define PP_EXPORTS_H

#include <stddef.h>
#include <linux/types.h>
#include "output/output.h"
#include "output/wallclock.h"

struct pp_exports {
	const char *pcapng_path, *perfetto_path;
	struct pp_safe_file *pcapng_sf, *perfetto_sf;
	struct pp_pcapng_out *pcapng;
	struct pp_perfetto_out *perfetto;
	const struct pp_out *out;  /* names, while tracing */
	struct pp_wallclock clock; /* CLOCK_REALTIME - CLOCK_MONOTONIC, taken at the open */
};

/*
 * Create the files asked for (a NULL path: none) and write their headers.
 * SNAPLEN: --snaplen, 0 for all; APPL: "pktpath VERSION". 0, or -errno with
 * ERR saying which file and why.
 */
int pp_exports_open(struct pp_exports *x, const char *pcapng, const char *perfetto, __u32 snaplen,
		    const char *appl, char *err, size_t errlen);
/* Put the files in place (pp_safe_file_publish()), before privileges are dropped. */
int pp_exports_publish(struct pp_exports *x, char *err, size_t errlen);
/* A packet printed: into every file. CTX is the struct pp_exports (a pp_emit_fn). */
void pp_exports_packet(const struct pp_packet *p, void *ctx);
/*
 * End the files, close them, and say on REPORT what each holds ("pktpath:
 * 12 packets written to out.pcapng"). 0, or -errno with ERR filled (a
 * write failed: disk full).
 */
int pp_exports_close(struct pp_exports *x, FILE *report, char *err, size_t errlen);
/* A run that never traced: remove what pp_exports_open() made. */
void pp_exports_discard(struct pp_exports *x);

#endif /* PP_EXPORTS_H */
