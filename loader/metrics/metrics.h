/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --metrics: the counters behind /metrics, in Prometheus' text exposition
 * format (version 0.0.4). The ring-buffer reader adds each closed packet
 * (pp_metrics_add()) and, about once a second, its health figures
 * (pp_metrics_health()); an HTTP thread renders (pp_metrics_render()). Both
 * sides hold the lock only to update one entry or to copy the tables: the
 * rendering itself, the formatting and the sending, runs on the copy, so a
 * slow scrape never holds up the reader. Every name is resolved by the
 * reader when it adds: the render calls none of pp_out's callbacks.
 *
 * Bounded cardinality: at most TOP paths and TOP drop places have series
 * of their own, the busiest (metrics_rank.c); the packets of the rest are
 * summed in path="other" and in the drop labels "other". A path or drop
 * place that saw no packet for IDLE seconds, or that a busier one displaced,
 * loses its series and its packets go on counting in "other": every counter
 * only grows while its series exists, and the series always add up to every
 * packet counted. pp_metrics_max_series() is the bound.
 */
#ifndef PP_METRICS_H
#define PP_METRICS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "output/output.h"

#define PP_METRICS_DEF_TOP  100
#define PP_METRICS_MAX_TOP  10000
#define PP_METRICS_DEF_IDLE 900.0 /* seconds */
#define PP_METRICS_BUCKETS  15	  /* pktpath_path_duration_seconds, +Inf not counted */
#define PP_METRICS_STEPS    512	  /* bytes of a path's steps label, "..." past it */
#define PP_METRICS_LABEL    64	  /* bytes of any other label value */
#define PP_METRICS_LOST_MAX 256	  /* probe points with a lost-records series */
#define PP_METRICS_CAND	    4	  /* candidates (no series) per exported entry */
#define PP_METRICS_MARGIN   2	  /* how much busier a candidate must be to take a place */
#define PP_METRICS_NSTEPS   32	  /* a path's steps whose times are kept */

/* What every entry begins with, exported or candidate. */
struct pp_mhead {
	__u64 id;
	__u64 count;	 /* packets in its series; 0 for a candidate */
	__u64 last;	 /* ns (the reader's clock) of its last packet */
	__u64 cur, prev; /* packets in this window and the one before (metrics_rank.c) */
};

/* A distinct path: the ordered probe points and the fate kind. */
struct pp_mpath {
	struct pp_mhead h; /* id: FNV-1a of steps and fate, the path label (12 hex digits) */
	__u64 buckets[PP_METRICS_BUCKETS]; /* cumulative counts at render; here per bucket */
	__u64 inf;			   /* past the last bucket */
	double sum;			   /* seconds */
	double step[PP_METRICS_NSTEPS];	   /* seconds from hop i to hop i + 1, summed */
	char fate[12];
	char steps[PP_METRICS_STEPS];
};

/* A drop place: reason x function x netfilter hook x namespace x device. */
struct pp_mdrop {
	struct pp_mhead h;
	char reason[PP_METRICS_LABEL];
	char function[PP_METRICS_LABEL];
	char hook[PP_METRICS_LABEL];
	char netns[PP_METRICS_LABEL];
	char device[PP_METRICS_LABEL];
	/*
	 * At a TC or XDP hook: its BPF programs then (pp_out_drop_programs()), or
	 * the one --verdicts saw decide ("NAME#ID returned VERDICT"); else "".
	 */
	char programs[PP_METRICS_LABEL * 2];
};

/* One probe point's records lost to a full ring buffer. */
struct pp_mlost {
	char probe[PP_METRICS_LABEL];
	__u64 records;
};

/* What the reader reports about itself (pp_metrics_health()). */
struct pp_mhealth {
	__u64 ring_lost;       /* records lost to a full ring buffer */
	__u64 map_full;	       /* packets not tracked: skb_map full */
	__u64 skipped;	       /* probe runs the kernel skipped (pp_totals.skipped) */
	__u64 tracked;	       /* packets in skb_map now */
	__u64 open;	       /* packets being assembled now */
	__u64 late, bad;       /* records the path assembler set aside */
	size_t probes;	       /* probe points attached */
	size_t interfaces;     /* interfaces the classifier is on */
	__u64 sample_period;   /* 1 in N followed now (--max-rate); 0: none (--agent) */
	__u64 rate_limit;      /* new paths a second allowed now; 0: no limit */
	struct pp_mlost *lost; /* per probe, only those that lost any */
	size_t nlost;
};

/* Fixed at start: pktpath_build_info and process_start_time_seconds. */
struct pp_mbuild {
	const char *version, *backend, *kernel;
	double start_time; /* seconds since the epoch */
};

/* One table: entries, their index by id (open addressing, index + 1, 0 empty). */
struct pp_mtable {
	void *v; /* struct pp_mpath or struct pp_mdrop [max] */
	size_t n, max, size;
	__u32 *slots;
	size_t nslots;
};

/* Folds an entry that loses its series into "other". */
typedef void (*pp_mfold)(void *arg, const struct pp_mhead *e);

/* The busiest TOP entries (exported) and candidates for their places (metrics_rank.c). */
struct pp_mrank {
	struct pp_mtable top;  /* struct pp_mpath or struct pp_mdrop */
	struct pp_mtable cand; /* struct pp_mhead, PP_METRICS_CAND x TOP */
	__u64 floor;	       /* at most the recent packets of the least busy in top */
	__u64 swaps;	       /* places taken by a busier one */
};

int pp_mrank_init(struct pp_mrank *r, size_t top, size_t size);
void pp_mrank_free(struct pp_mrank *r);
/*
 * ID's exported entry, its N recent packets counted at NOW (its count is
 * the caller's): a new one (*fresh; id and recent counts set, the rest zeroed)
 * when there is room or when ID, a candidate, takes the place of a less busy
 * one (folded by FOLD first); NULL when ID stays a candidate.
 */
void *pp_mrank_get(struct pp_mrank *r, __u64 id, __u64 n, __u64 now, bool *fresh, pp_mfold fold,
		   void *arg);
/* Drops entries idle since before CUTOFF, the exported folded; returns how many exported. */
size_t pp_mrank_expire(struct pp_mrank *r, __u64 cutoff, pp_mfold fold, void *arg);
/* A new window: this one's counts become the last's (SKIPPED: a whole one passed too). */
void pp_mrank_window(struct pp_mrank *r, bool skipped);

struct pp_metrics {
	pthread_mutex_t lock;
	size_t top;
	__u64 idle_ns;
	struct pp_totals totals; /* the packets by fate: pp_totals_add(), as the exit line */
	struct pp_mrank paths, drops;
	struct pp_mpath other_path;
	__u64 other_drops;
	__u64 evicted;		  /* entries dropped for idleness */
	__u64 window;		  /* ns when the current window began; 0: not yet */
	struct pp_mhealth health; /* its lost[] is owned here */
	size_t lost_cap;
	struct pp_mbuild build;
	__u64 health_at;   /* ns of the last pp_metrics_health(), 0: none yet */
	bool kernel_drops; /* --agent: drops come from pp_metrics_add_drops() only */
};

/* TOP: 1 .. PP_METRICS_MAX_TOP; IDLE: seconds, > 0. NULL on bad values or no memory. */
struct pp_metrics *pp_metrics_new(size_t top, double idle, const struct pp_mbuild *b);
void pp_metrics_free(struct pp_metrics *m);

/* Counts packet P, named with O's callbacks, at NOW (ns). */
void pp_metrics_add(struct pp_metrics *m, const struct pp_out *o, const struct pp_packet *p,
		    __u64 now);
/*
 * --agent: N drops at the place D (its labels: pp_metrics_drop_place())
 * at NOW (ns), counted in the kernel, not from packets; D NULL: drops the
 * kernel could not place, in "other".
 */
void pp_metrics_add_drops(struct pp_metrics *m, const struct pp_mdrop *d, __u64 n, __u64 now);
/* The labels of the kernel's drop place K, named with O's callbacks, and its id. */
void pp_metrics_drop_place(const struct pp_out *o, const struct pp_drop_key *k, struct pp_mdrop *d);

/* The reader's health at NOW (ns); its series idle past IDLE go too. */
void pp_metrics_health(struct pp_metrics *m, const struct pp_mhealth *h, __u64 now);
/*
 * /healthz: the reader is tracing and reported its health within the last
 * 10 s at NOW (ns, its clock): it is not stuck.
 */
bool pp_metrics_alive(struct pp_metrics *m, __u64 now);

/* The most series (sample lines) a render writes, nlost probes with losses aside. */
size_t pp_metrics_max_series(size_t top);

/*
 * The exposition, into a malloc()ed buffer (*len bytes, NUL-terminated):
 * pktpath's metrics, then the process metrics (PROC: a /proc directory,
 * "/proc/self"; NULL: none). NULL if out of memory.
 */
char *pp_metrics_render(struct pp_metrics *m, const char *proc, size_t *len);

/*
 * The process metrics (process_cpu_seconds_total, ..._resident_memory_bytes,
 * ..._open_fds) of the process whose /proc directory is PROC.
 */
void pp_metrics_proc(FILE *f, const char *proc, double start_time);

/* A family's HELP and TYPE lines. */
void pp_metrics_family(FILE *f, const char *name, const char *type, const char *help);
/* name{k="v",...} value; LABELS: NULL-terminated key, value pairs, values escaped. */
void pp_metrics_sample(FILE *f, const char *name, const char *const *labels, double v);
/* pktpath_path_step_seconds: each of the N paths' slowest step (metrics_steps.c). */
void pp_metrics_steps(FILE *f, const struct pp_mpath *paths, size_t n);

/* The upper bounds of the duration buckets, seconds. */
const double *pp_metrics_bounds(void);

#endif /* PP_METRICS_H */
