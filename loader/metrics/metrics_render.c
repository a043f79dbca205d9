// SPDX-License-Identifier: GPL-2.0
/*
 * /metrics: the text exposition format, version 0.0.4 (Prometheus'
 * "Exposition formats"): a HELP and a TYPE line per family, then its
 * samples; label values escape backslash, double quote and newline.
 * Everything is rendered from a copy of the tables taken under the lock
 * (metrics.h), then the process metrics from /proc.
 */
#include <stdlib.h>
#include <string.h>
#include "metrics/metrics.h"

/* The copy a render works from. */
struct snap {
	struct pp_totals totals;
	struct pp_mpath *paths, other_path;
	size_t npaths;
	struct pp_mdrop *drops;
	size_t ndrops;
	__u64 other_drops, evicted;
	struct pp_mhealth health;
	struct pp_mbuild build;
};

static void snap_free(struct snap *s)
{
	free(s->paths);
	free(s->drops);
	free(s->health.lost);
}

/* Memory first, outside the lock: the tables never hold more than top entries. */
static int snap_take(struct pp_metrics *m, struct snap *s)
{
	struct pp_mlost *lost;
	size_t nlost;

	memset(s, 0, sizeof(*s));
	s->paths = malloc(m->top * sizeof(*s->paths));
	s->drops = malloc(m->top * sizeof(*s->drops));
	pthread_mutex_lock(&m->lock);
	nlost = m->health.nlost;
	pthread_mutex_unlock(&m->lock);
	lost = s->health.lost = malloc((nlost + 1) * sizeof(*lost));
	if (!s->paths || !s->drops || !lost)
		return -1;
	pthread_mutex_lock(&m->lock);
	s->totals = m->totals;
	s->npaths = m->paths.top.n;
	memcpy(s->paths, m->paths.top.v, s->npaths * sizeof(*s->paths));
	s->other_path = m->other_path;
	s->ndrops = m->drops.top.n;
	memcpy(s->drops, m->drops.top.v, s->ndrops * sizeof(*s->drops));
	s->other_drops = m->other_drops;
	s->evicted = m->evicted + m->paths.swaps + m->drops.swaps;
	nlost = m->health.nlost < nlost ? m->health.nlost : nlost;
	if (nlost) /* no list yet: m->health.lost is NULL */
		memcpy(lost, m->health.lost, nlost * sizeof(*lost));
	s->health = m->health;
	s->health.lost = lost;
	s->health.nlost = nlost;
	s->build = m->build;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

void pp_metrics_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* name{k="v",...} value; labels: NULL-terminated key, value pairs. */
void pp_metrics_sample(FILE *f, const char *name, const char *const *labels, double v)
{
	fputs(name, f);
	for (size_t i = 0; labels && labels[i]; i += 2) {
		fprintf(f, "%s%s=\"", i ? "," : "{", labels[i]);
		esc(f, labels[i + 1]);
		fputc('"', f);
	}
	if (labels && labels[0])
		fputc('}', f);
	fprintf(f, " %.15g\n", v);
}

static void counter(FILE *f, const char *name, const char *help, double v)
{
	pp_metrics_family(f, name, "counter", help);
	pp_metrics_sample(f, name, NULL, v);
}

static void gauge(FILE *f, const char *name, const char *help, double v)
{
	pp_metrics_family(f, name, "gauge", help);
	pp_metrics_sample(f, name, NULL, v);
}

static void fates(FILE *f, const struct pp_totals *s)
{
	const char *n = "pktpath_packets_total";

	pp_metrics_family(f, n, "counter", "Packets whose path ended, by fate.");
	for (size_t i = 0; i < pp_nfates; i++)
		if (pp_fates[i].flags & PP_FATE_F_METRIC)
			pp_metrics_sample(f, n,
					  (const char *const[]){"fate", pp_fates[i].key, NULL},
					  (double)s->fates[pp_fates[i].fate]);
	counter(f, "pktpath_tap_copies_total",
		"Copies packet sockets (tcpdump) took of the packets: observers, no fate.",
		(double)s->taps);
}

static void drops(FILE *f, const struct snap *s)
{
	const char *n = "pktpath_drops_total";

	pp_metrics_family(f, n, "counter",
			  "Dropped packets by reason and place (the top --metrics-top; the rest in "
			  "\"other\").");
	for (size_t i = 0; i < s->ndrops; i++) {
		const struct pp_mdrop *d = &s->drops[i];

		pp_metrics_sample(f, n,
				  (const char *const[]){"reason", d->reason, "function",
							d->function, "hook", d->hook, "netns",
							d->netns, "device", d->device,
							"bpf_programs", d->programs, NULL},
				  (double)d->h.count);
	}
	if (s->other_drops)
		pp_metrics_sample(f, n,
				  (const char *const[]){"reason", "other", "function", "other",
							"hook", "other", "netns", "other", "device",
							"other", "bpf_programs", "other", NULL},
				  (double)s->other_drops);
}

static void hist(FILE *f, const char *id, const struct pp_mpath *p)
{
	const char *n = "pktpath_path_duration_seconds";
	const double *b = pp_metrics_bounds();
	__u64 acc = 0;
	char le[32];

	for (size_t i = 0; i < PP_METRICS_BUCKETS; i++) {
		acc += p->buckets[i];
		snprintf(le, sizeof(le), "%g", b[i]);
		fprintf(f, "%s_bucket{path=\"%s\",le=\"%s\"} %llu\n", n, id, le,
			(unsigned long long)acc);
	}
	fprintf(f, "%s_bucket{path=\"%s\",le=\"+Inf\"} %llu\n", n, id,
		(unsigned long long)(acc + p->inf));
	fprintf(f, "%s_sum{path=\"%s\"} %.9g\n%s_count{path=\"%s\"} %llu\n", n, id, p->sum, n, id,
		(unsigned long long)p->h.count);
}

static void path_id(const struct pp_mpath *p, char *buf, size_t len)
{
	snprintf(buf, len, "%012llx", (unsigned long long)p->h.id);
}

static void paths(FILE *f, const struct snap *s)
{
	const char *n = "pktpath_path_packets_total", *info = "pktpath_path_info";
	char id[16];

	pp_metrics_family(
		f, n, "counter",
		"Packets by distinct path (the top --metrics-top; the rest in \"other\").");
	for (size_t i = 0; i < s->npaths; i++) {
		path_id(&s->paths[i], id, sizeof(id));
		pp_metrics_sample(f, n, (const char *const[]){"path", id, NULL},
				  (double)s->paths[i].h.count);
	}
	if (s->other_path.h.count)
		pp_metrics_sample(f, n, (const char *const[]){"path", "other", NULL},
				  (double)s->other_path.h.count);
	pp_metrics_family(f, info, "gauge",
			  "A path's probe points in time order, and its fate; always 1.");
	for (size_t i = 0; i < s->npaths; i++) {
		path_id(&s->paths[i], id, sizeof(id));
		pp_metrics_sample(f, info,
				  (const char *const[]){"path", id, "steps", s->paths[i].steps,
							"fate", s->paths[i].fate, NULL},
				  1);
	}
	pp_metrics_family(f, "pktpath_path_duration_seconds", "histogram",
			  "Time from a packet's first hop to its last, by path.");
	for (size_t i = 0; i < s->npaths; i++) {
		path_id(&s->paths[i], id, sizeof(id));
		hist(f, id, &s->paths[i]);
	}
	if (s->other_path.h.count)
		hist(f, "other", &s->other_path);
	pp_metrics_steps(f, s->paths, s->npaths);
}

static void build_info(FILE *f, const struct snap *s)
{
	pp_metrics_family(f, "pktpath_build_info", "gauge",
			  "pktpath's version, tracing backend and kernel release; always 1.");
	pp_metrics_sample(f, "pktpath_build_info",
			  (const char *const[]){"version", s->build.version, "backend",
						s->build.backend, "kernel", s->build.kernel, NULL},
			  1);
}

static void health(FILE *f, const struct snap *s)
{
	const struct pp_mhealth *h = &s->health;
	const char *lost = "pktpath_probe_records_lost_total";

	counter(f, "pktpath_records_lost_total",
		"Records lost to a full ring buffer (--ring-size).", (double)h->ring_lost);
	pp_metrics_family(f, lost, "counter",
			  "Records lost to a full ring buffer, by probe point.");
	for (size_t i = 0; i < h->nlost; i++)
		pp_metrics_sample(f, lost, (const char *const[]){"probe", h->lost[i].probe, NULL},
				  (double)h->lost[i].records);
	counter(f, "pktpath_packets_untracked_total",
		"Packets that matched the filter but found skb_map full (--max-packets).",
		(double)h->map_full);
	counter(f, "pktpath_probe_runs_skipped_total",
		"Probe runs the kernel skipped: a BPF program was already running on that CPU; "
		"hops and ends there were not seen.",
		(double)h->skipped);
	gauge(f, "pktpath_packets_tracked", "Packets in skb_map now.", (double)h->tracked);
	gauge(f, "pktpath_packets_open", "Packets being assembled now.", (double)h->open);
	counter(f, "pktpath_records_late_total",
		"Records that came after their packet was closed: not counted.", (double)h->late);
	counter(f, "pktpath_records_malformed_total", "Malformed records ignored.", (double)h->bad);
	gauge(f, "pktpath_probes_attached", "Probe points attached.", (double)h->probes);
	gauge(f, "pktpath_interfaces_attached", "Interfaces the classifier marks on.",
	      (double)h->interfaces);
	gauge(f, "pktpath_sample_period",
	      "1 matching packet in this many is followed now (--max-rate): the path "
	      "metrics times it estimate them all; 1: every one; 0: none (--agent).",
	      (double)h->sample_period);
	if (h->rate_limit)
		gauge(f, "pktpath_path_rate_limit",
		      "New paths a second followed at most now: --max-rate, or what "
		      "--cpu-budget allows at the CPU time a path costs.",
		      (double)h->rate_limit);
	counter(f, "pktpath_metrics_series_evicted_total",
		"Paths and drop places whose series went: --metrics-idle seconds without "
		"a packet, or a busier one took the place.",
		(double)s->evicted);
	build_info(f, s);
}

/* The fates with a series of their own (PP_FATE_F_METRIC): 6. */
static size_t fate_series(void)
{
	size_t n = 0;

	for (size_t i = 0; i < pp_nfates; i++)
		n += !!(pp_fates[i].flags & PP_FATE_F_METRIC);
	return n;
}

size_t pp_metrics_max_series(size_t top)
{
	/*
	 * The fates', tap copies 1, health 12, process 6; drops top + other;
	 * paths top + other, each with a count, and a histogram of
	 * PP_METRICS_BUCKETS + 1 buckets, a sum and a count; top info lines;
	 * top slowest steps, a sum and a count each.
	 */
	return fate_series() + 19 + (top + 1) * (2 + PP_METRICS_BUCKETS + 3) + top + 2 * top;
}

char *pp_metrics_render(struct pp_metrics *m, const char *proc, size_t *len)
{
	char *buf = NULL;
	struct snap s;
	FILE *f;

	if (snap_take(m, &s)) {
		snap_free(&s);
		return NULL;
	}
	f = open_memstream(&buf, len);
	if (f) {
		fates(f, &s.totals);
		drops(f, &s);
		paths(f, &s);
		health(f, &s);
		if (proc)
			pp_metrics_proc(f, proc, s.build.start_time);
		if (fclose(f)) {
			free(buf);
			buf = NULL;
		}
	}
	snap_free(&s);
	return buf;
}
