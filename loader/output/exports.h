/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The export files (--pcapng, --perfetto) over a run's life. Once tracing,
 * pktpath may no longer open a file to write (privs.h: its seccomp filter),
 * so each file is created while nothing is attached, with safe_file.h's
 * checks (a bad path is bad input), put in place just before privileges go,
 * and written through the descriptor already open.
 *
 * A format is its own file, export_NAME.c, that defines its row,
 * pp_export_NAME_ops (export_pcapng.c, export_perfetto.c); loader/CMakeLists.txt
 * lists them in output/exports.inc, which makes enum pp_export_kind
 * (PP_EXPORT_NAME, in file order) and exports.c's table.
 */
#ifndef PP_EXPORTS_H
#define PP_EXPORTS_H

#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "output/output.h"
#include "output/wallclock.h"

enum pp_export_kind {
#define PP_EXPORT_FORMAT(name, NAME) PP_EXPORT_##NAME,
#include "output/exports.inc"
#undef PP_EXPORT_FORMAT
	PP_EXPORTS,
};

/* An export format's writer, W: what its file gets and when. */
struct pp_export_ops {
	const char *option; /* "--pcapng": in messages */
	mode_t mode;	    /* the file's */
	/*
	 * It writes the packets' first bytes: --snaplen applies to it, and
	 * `pktpath report` needs each line's bytes ("head") and times (a file
	 * recorded with --json --snaplen N), else bad input.
	 */
	bool bytes;
	/* `pktpath report`: a line without times starts at 0 (said once). */
	bool zero_untimed;
	/*
	 * Writes the file's header to F. SNAPLEN: --snaplen, 0 for all;
	 * REAL_OFF_NS: CLOCK_REALTIME - CLOCK_MONOTONIC; APPL: "pktpath
	 * VERSION". NULL if out of memory.
	 */
	void *(*open)(FILE *f, __u32 snaplen, __s64 real_off_ns, const char *appl);
	void (*packet)(void *w, const struct pp_out *o, const struct pp_packet *p);
	/* `pktpath report`: the packets from now on come from a host with this offset; NULL:
	 * unused. */
	void (*set_real_off)(void *w, __s64 real_off_ns);
	void (*end)(void *w); /* the file's closing bytes; NULL: none */
	__u64 (*count)(const void *w);
	void (*free)(void *w);
};

#define PP_EXPORT_FORMAT(name, NAME) extern const struct pp_export_ops pp_export_##name##_ops;
#include "output/exports.inc"
#undef PP_EXPORT_FORMAT

/* Export KIND's row (exports.c's table). */
const struct pp_export_ops *pp_export_ops_of(enum pp_export_kind kind);

struct pp_export {
	const char *path;
	struct pp_safe_file *sf;
	void *w; /* the format's writer */
};

struct pp_exports {
	struct pp_export files[PP_EXPORTS]; /* by enum pp_export_kind; no path: not written */
	const struct pp_out *out;	    /* names, while tracing */
	struct pp_wallclock clock; /* CLOCK_REALTIME - CLOCK_MONOTONIC, taken at the open */
};

/*
 * Create the files asked for (PATHS by enum pp_export_kind, NULL: none) and
 * write their headers. SNAPLEN: --snaplen, 0 for all; APPL: "pktpath
 * VERSION". 0, or -errno with ERR saying which file and why.
 */
int pp_exports_open(struct pp_exports *x, const char *const paths[PP_EXPORTS], __u32 snaplen,
		    const char *appl, char *err, size_t errlen);
/* Whether file KIND is written. */
bool pp_exports_has(const struct pp_exports *x, enum pp_export_kind kind);
/* Put the files in place (pp_safe_file_publish()), before privileges are dropped. */
int pp_exports_publish(struct pp_exports *x, char *err, size_t errlen);
/* A packet printed: into every file. CTX is the struct pp_exports (a pp_emit_fn). */
void pp_exports_packet(const struct pp_packet *p, void *ctx);
/* `pktpath report`: the next packets' host had its clocks REAL_OFF_NS apart. */
void pp_exports_set_real_off(struct pp_exports *x, __s64 real_off_ns);
/*
 * End the files, close them, and say on REPORT what each holds ("pktpath:
 * 12 packets written to out.pcapng"). 0, or -errno with ERR filled (a
 * write failed: disk full).
 */
int pp_exports_close(struct pp_exports *x, FILE *report, char *err, size_t errlen);
/* A run that never traced: remove what pp_exports_open() made. */
void pp_exports_discard(struct pp_exports *x);

#endif /* PP_EXPORTS_H */
