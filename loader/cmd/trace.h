/* SPDX-License-Identifier: GPL-2.0 */
/* The tracing loop: ring buffer -> paths -> output, until told to stop. */
#ifndef PP_TRACE_H
#define PP_TRACE_H

#include <signal.h>
#include <stdbool.h>
#include "output/output.h"

struct pp_maps;
struct pp_metrics;

struct pp_trace_cfg {
	const struct pp_out *out;   /* its ops: the format (output_formats.c) */
	bool summary;		    /* distinct paths (output_summary.h) instead of packet blocks */
	bool packets;		    /* with summary: the packet blocks too */
	double interval;	    /* with summary: seconds between reports, 0: at exit only */
	unsigned long long count;   /* stop after this many packets, 0: never */
	double duration;	    /* seconds, 0: no limit */
	double packet_timeout;	    /* seconds */
	struct pp_metrics *metrics; /* --metrics: every packet counted there, NULL: none */
	size_t probes, interfaces;  /* attached at start, for the metrics */
	unsigned long long max_rate; /* --max-rate: new paths a second at most, 0: all */
	double cpu_budget;	     /* --cpu-budget: share of one CPU (0.05: 5%), 0: none */
	pp_emit_fn also; /* every packet printed goes here too (the exports), NULL: none */
	/* --metrics: called with the health figures, about once a second (--agent's reads). */
	void (*tick)(void *ctx, __u64 now);
	void *tick_ctx;
	/* About once a second, NULL: none (--verdicts: programs loaded since, recorded too). */
	void (*rescan)(void *ctx);
	void *rescan_ctx;
	/* With rescan_ctx, at exit and for --metrics: probe runs the kernel skipped; NULL: none. */
	__u64 (*skipped)(void *ctx);
	void *also_ctx;
	/*
	 * -- COMMAND: true once it has ended; the run then ends when nothing
	 * is open or in flight, after a quiet poll, or a packet timeout
	 * later (trace.c, command_done()). NULL: none.
	 */
	bool (*ended)(void *ctx);
	void *ended_ctx;
	/* --pid-only: the packets of this process's sockets alone are kept; 0: all. */
	unsigned int pid_only;
};

/* Returns 0 when done (count, duration or *STOP), -errno on failure. */
int pp_trace_run(const struct pp_maps *maps, const struct pp_trace_cfg *cfg,
		 volatile sig_atomic_t *stop);

#endif
