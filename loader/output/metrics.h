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
 * of their own; the packets of the rest are summed in path="other" and
 * in the drop labels "other". A path or drop place that saw no packet for
 * IDLE seconds loses its series (its slot goes to the next new one):
 * Prometheus takes the series' end as such, and rate() over the sum of the
 * others is unaffected. pp_metrics_max_series() is the bound.
 */
#ifndef PP_METRICS_H
#define PP_METRICS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "output.h"

#define PP_METRICS_DEF_TOP  100
#define PP_METRICS_MAX_TOP  10000
#define PP_METRICS_DEF_IDLE 900.0 /* seconds */
#define PP_METRICS_BUCKETS  15	  /* pktpath_path_duration_seconds, +Inf not counted */
#define PP_METRICS_STEPS    512	  /* bytes of a path's steps label, "..." past it */
#define PP_METRICS_LABEL    64	  /* bytes of any other label value */
#define PP_METRICS_LOST_MAX 256	  /* probe points with a lost-records series */

/* A distinct path: the ordered probe points and the fate kind. */
struct pp_mpath {
	__u64 id; /* FNV-1a of steps and fate: the path label, 12 hex digits */
	__u64 count;
	__u64 buckets[PP_METRICS_BUCKETS]; /* cumulative counts at render; here per bucket */
	__u64 inf;			   /* past the last bucket */
	double sum;			   /* seconds */
	__u64 last;			   /* ns (the reader's clock) of its last packet */
	char fate[12];
	char steps[PP_METRICS_STEPS];
};

/* A drop place: reason x function x netfilter hook x namespace x device. */
struct pp_mdrop {
	__u64 id;
	__u64 count;
	__u64 last;
	char reason[PP_METRICS_LABEL];
	char function[PP_METRICS_LABEL];
	char hook[PP_METRICS_LABEL];
	char netns[PP_METRICS_LABEL];
	char device[PP_METRICS_LABEL];
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
	__u64 tracked;	       /* packets in skb_map now */
	__u64 open;	       /* packets being assembled now */
	__u64 late, bad;       /* records the path assembler set aside */
	size_t probes;	       /* probe points attached */
	size_t interfaces;     /* interfaces the classifier is on */
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

struct pp_metrics {
	pthread_mutex_t lock;
	size_t top;
	__u64 idle_ns;
	struct pp_summary sum; /* the packets by fate: pp_summary_add(), as the exit line */
	struct pp_mtable paths, drops;
	struct pp_mpath other_path;
	__u64 other_drops;
	__u64 evicted;		  /* entries dropped for idleness */
	struct pp_mhealth health; /* its lost[] is owned here */
	size_t lost_cap;
	struct pp_mbuild build;
	__u64 health_at; /* ns of the last pp_metrics_health(), 0: none yet */
};

/* TOP: 1 .. PP_METRICS_MAX_TOP; IDLE: seconds, > 0. NULL on bad values or no memory. */
struct pp_metrics *pp_metrics_new(size_t top, double idle, const struct pp_mbuild *b);
void pp_metrics_free(struct pp_metrics *m);

/* Counts packet P, named with O's callbacks, at NOW (ns). */
void pp_metrics_add(struct pp_metrics *m, const struct pp_out *o, const struct pp_packet *p,
		    __u64 now);
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

/* The upper bounds of the duration buckets, seconds. */
const double *pp_metrics_bounds(void);

/* The path id of P's steps and fate, as the path label prints it. */
__u64 pp_metrics_path_id(const struct pp_out *o, const struct pp_packet *p);

#endif /* PP_METRICS_H */
