// SPDX-License-Identifier: GPL-2.0
/*
 * The loader's user-space cost per record, without a kernel: a synthetic
 * stream of MARK/HOP/END records, shaped like a 64-byte UDP flow over veth,
 * goes through the same calls as loader/cmd/trace.c (pp_paths_add() per record,
 * pp_paths_expire() and fflush() per poll, pp_out_text() or pp_out_json()
 * per closed packet), with the output going to /dev/null.
 *
 * Stages, each a figure:
 *   gen       the generator alone (it writes every record, as the kernel
 *             would): the floor that the other stages are measured above
 *   assemble  + path assembly, emitted packets only counted
 *   summary   + --summary's aggregation (loader/output/summary.c), no packet printed
 *   text      + text output
 *   json      + JSON output
 *   pcapng    + the --pcapng export alone (no text or JSON)
 *   perfetto  + the --perfetto export alone
 *
 * Each run is a child process, so that its peak RSS (wait4's ru_maxrss) is
 * its own; the stages run in turn, ROUNDS times, and the figure is the median.
 * A run lasts SECONDS of the clock; its rate is records per second of its
 * own CPU time (CLOCK_PROCESS_CPUTIME_ID), which other load does not skew.
 * The clock the paths see is the real one, read once per poll, so closed
 * packets linger as tombstones for the packet timeout (1 s) as they do in
 * pktpath, and the table holds as many as one second of this rate makes.
 *
 * With PP_BENCH_NAMES=1 in the environment, the text and JSON stages name
 * the namespace as pktpath does (loader/names/netns_names.c, a scan of this
 * host's /run/netns and /proc at start), and the hops carry this process's
 * own namespace, a name found: the cost of naming per record is the
 * difference from a run without it.
 *
 * Usage: rec_bench [ROUNDS [SECONDS [HOPS [INFLIGHT]]]]
 *        rec_bench --only gen|assemble|summary|text|json|pcapng|perfetto [SECONDS]
 * The second form runs one stage in this process and prints its rate: the
 * form to run under perf or valgrind --tool=callgrind.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include "output/export_pcapng.h"
#include "output/export_perfetto.h"
#include "names/netns_names.h"
#include "output/output.h"
#include "paths/path.h"
#include "output/summary.h"

#define MAX_ROUNDS   64
#define CHUNK_RECS   4096	   /* records per "poll": a few hundred KiB, as a busy ring gives */
#define TIMEOUT_NS   1000000000ULL /* pktpath's default --packet-timeout */
#define TARGET_RATE  5e6	   /* records/s on one core: the loader's target */
#define MAX_HOPS     64
#define MAX_INFLIGHT 65536
#define FRAME_LEN    106 /* Ethernet + IPv4 + UDP + 64 bytes of payload */

enum stage { ST_GEN, ST_ASSEMBLE, ST_SUMMARY, ST_TEXT, ST_JSON, ST_PCAPNG, ST_PERFETTO, NSTAGES };

static const char *const stage_names[NSTAGES] = {
	"generator only (the floor)",
	"+ path assembly",
	"+ --summary aggregation",
	"+ text output",
	"+ JSON output",
	"+ --pcapng export",
	"+ --perfetto export",
};

/* The tracepoints a 64-byte UDP packet crosses over veth, in order. */
static const char *const probe_names[] = {
	"tp:net:net_dev_queue",
	"tp:net:net_dev_start_xmit",
	"tp:net:netif_rx_entry",
	"tp:net:netif_rx",
	"tp:net:net_dev_xmit",
	"tp:net:netif_receive_skb",
	"tp:skb:skb_copy_datagram_iovec",
	"tp:skb:consume_skb",
};
#define NPROBES (sizeof(probe_names) / sizeof(probe_names[0]))

struct cfg {
	double seconds;
	unsigned int hops;     /* records per packet: MARK, HOPs, END */
	unsigned int inflight; /* packets whose records interleave */
};

/* One packet being generated. */
struct gen_pkt {
	__u64 id, skb;
	unsigned int next; /* its next record: 0 MARK, hops - 1 END */
};

struct gen {
	const struct cfg *c;
	struct gen_pkt *pkts;
	unsigned int turn;
	__u64 next_id, ts;
	struct pp_mark mark; /* the template records */
	struct pp_hop hop;
};

/* A chunk of records, laid out like ring-buffer samples: 8-byte aligned. */
struct chunk {
	size_t n;
	const void *rec[CHUNK_RECS];
	size_t size[CHUNK_RECS];
	_Alignas(8) unsigned char buf[CHUNK_RECS * sizeof(struct pp_mark)];
};

struct run {
	enum stage st;
	FILE *out;
	struct pp_out o;
	struct pp_totals totals;
	struct pp_pcapng_out *pcap;
	struct pp_perfetto_out *perf;
	struct pp_summary *ps; /* ST_SUMMARY */
	__u64 touched;	       /* ST_GEN: keeps the reads of each record alive */
};

static __u64 clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static __u64 now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* UDP 198.18.0.1.40000 > 198.18.0.2.5201, 64 bytes of payload. */
static void frame_fill(__u8 *d)
{
	static const __u8 hdr[42] = {
		2,    0, 0,   0,  0, 2, 2,    0,    0,	  0,	0, 1,  0x08, 0x00,
		0x45, 0, 0,   92, 0, 1, 0x40, 0,    64,	  17,	0, 0,  198,  18,
		0,    1, 198, 18, 0, 2, 0x9c, 0x40, 0x14, 0x51, 0, 72, 0,    0,
	};

	memcpy(d, hdr, sizeof(hdr));
	memset(d + sizeof(hdr), 0xa5, FRAME_LEN - sizeof(hdr));
}

static bool names_on(void)
{
	const char *v = getenv("PP_BENCH_NAMES");

	return v && !strcmp(v, "1");
}

/* With names: this process's namespace, which the cache names; else a made-up inode. */
static __u32 bench_netns(void)
{
	char link[64];
	ssize_t n = names_on() ? readlink("/proc/self/ns/net", link, sizeof(link) - 1) : -1;

	if (n <= 5)
		return 4026532602U;
	link[n] = 0;
	return (__u32)strtoul(link + 5, NULL, 10);
}

static const struct pp_ns_name *bench_name(__u32 inode, void *arg)
{
	return pp_netns_cache_get(arg, inode);
}

static void gen_init(struct gen *g, const struct cfg *c, struct gen_pkt *pkts)
{
	memset(g, 0, sizeof(*g));
	g->c = c;
	g->pkts = pkts;
	g->ts = now_ns();
	g->hop = (struct pp_hop){
		.cpu = 1, .netns = bench_netns(), .ifindex = 2, .pid = 4242, .len = FRAME_LEN};
	strcpy(g->hop.ifname, "veth-c");
	strcpy(g->hop.comm, "iperf3");
	g->mark.hop = g->hop;
	g->mark.hop.type = PP_REC_MARK;
	g->mark.hop.probe = PP_PROBE_TC_EGRESS;
	g->mark.cap_len = FRAME_LEN;
	frame_fill(g->mark.data);
	for (unsigned int i = 0; i < c->inflight; i++)
		pkts[i] = (struct gen_pkt){.id = ++g->next_id,
					   .skb = 0xffff888100000000ULL + i * 256};
}

/* Writes the next record of the next packet in turn at dst; returns its size. */
static size_t gen_one(struct gen *g, void *dst)
{
	struct gen_pkt *p = &g->pkts[g->turn];
	struct pp_hop *h = dst;
	size_t size = sizeof(*h);

	if (++g->turn == g->c->inflight)
		g->turn = 0;
	if (p->next == 0) {
		/* The classifier reserves a whole struct pp_mark, whatever cap_len. */
		size = sizeof(g->mark);
		memcpy(dst, &g->mark, size);
	} else {
		*h = g->hop;
		h->type = p->next == g->c->hops - 1 ? PP_REC_END : PP_REC_HOP;
		h->probe = (p->next - 1) % NPROBES;
		if (h->type == PP_REC_END) {
			h->probe = NPROBES - 1;
			h->fate = PP_FATE_CONSUMED;
		}
	}
	h->id = p->id;
	h->skb = p->skb;
	h->ts = g->ts += 50;
	if (++p->next == g->c->hops)
		*p = (struct gen_pkt){.id = ++g->next_id, .skb = p->skb + 0x10000};
	return size;
}

static void gen_chunk(struct gen *g, struct chunk *ch)
{
	unsigned char *at = ch->buf;

	for (ch->n = 0; ch->n < CHUNK_RECS; ch->n++) {
		size_t size = gen_one(g, at);

		ch->rec[ch->n] = at;
		ch->size[ch->n] = size;
		at += (size + 7) & ~(size_t)7;
	}
}

/* What loader/cmd/trace.c's emit() does, less the skb_map clean-up on timeout. */
static void emit(const struct pp_packet *p, void *ctx)
{
	struct run *r = ctx;

	if (r->st == ST_SUMMARY)
		pp_summary_add(r->ps, p);
	else if (r->st == ST_TEXT)
		pp_out_text(&r->o, p);
	else if (r->st == ST_JSON)
		pp_out_json(&r->o, p);
	else if (r->st == ST_PCAPNG)
		pp_pcapng_out_packet(r->pcap, &r->o, p);
	else if (r->st == ST_PERFETTO)
		pp_perfetto_out_packet(r->perf, &r->o, p);
	pp_totals_add(&r->totals, p);
}

static void consume(struct run *r, struct pp_paths *pp, const struct chunk *ch, __u64 now)
{
	for (size_t i = 0; i < ch->n; i++) {
		if (r->st == ST_GEN)
			r->touched += ((const struct pp_hop *)ch->rec[i])->ts;
		else
			pp_paths_add(pp, ch->rec[i], ch->size[i], now);
	}
	if (pp)
		pp_paths_expire(pp, now, TIMEOUT_NS);
	fflush(r->out);
}

/*
 * One timed run of one stage; returns records per second, 0 on failure.
 * *nrec (may be NULL): the records it went through.
 */
static double run_stage(enum stage st, const struct cfg *c, __u64 *nrec)
{
	struct run r = {.st = st};
	struct pp_paths *pp = NULL;
	struct gen_pkt *pkts = calloc(c->inflight, sizeof(*pkts));
	struct chunk *ch = malloc(sizeof(*ch));
	__u64 start, now, cpu0, limit = (__u64)(c->seconds * 1e9), n = 0;
	struct pp_netns_cache *names = NULL;
	struct pp_ns_told told = {0};
	struct gen g;
	double rate = 0;

	r.out = fopen("/dev/null", "w");
	r.o = (struct pp_out){.f = r.out, .probe_names = probe_names, .nprobes = NPROBES};
	if (names_on() && (st == ST_TEXT || st == ST_JSON)) {
		names = pp_netns_cache_new("/");
		r.o.netns_name = names ? bench_name : NULL;
		r.o.netns_arg = names;
		r.o.told = &told;
	}
	if (st != ST_GEN)
		pp = pp_paths_new(emit, &r);
	if (r.out && st == ST_PCAPNG)
		r.pcap = pp_pcapng_out_new(r.out, 0, 0, "rec_bench");
	if (r.out && st == ST_PERFETTO)
		r.perf = pp_perfetto_out_new(r.out, "rec_bench");
	if (st == ST_SUMMARY)
		r.ps = pp_summary_new(PP_SUM_DEF_PATHS, PP_SUM_DEF_DROPS);
	if (!pkts || !ch || !r.out || (st != ST_GEN && !pp) || (st == ST_PCAPNG && !r.pcap) ||
	    (st == ST_PERFETTO && !r.perf) || (st == ST_SUMMARY && !r.ps))
		goto cleanup;
	gen_init(&g, c, pkts);
	start = now = now_ns();
	cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	do {
		gen_chunk(&g, ch);
		consume(&r, pp, ch, now);
		n += ch->n;
		now = now_ns();
	} while (now - start < limit);
	/*
	 * Per second of this process's CPU time, not of the clock: the rate
	 * one core sustains, whatever else the machine runs meanwhile.
	 */
	rate = (double)n / ((double)(clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0) / 1e9);
	if (nrec)
		*nrec = n;
	/* A stage that emitted nothing measured nothing. */
	if (st != ST_GEN && !r.totals.packets)
		rate = 0;
	if (st == ST_GEN && !r.touched)
		rate = 0;
	/* The summary has every packet, in the one path the generator makes. */
	if (st == ST_SUMMARY && (r.ps->packets != r.totals.packets || r.ps->npaths != 1))
		rate = 0;
cleanup:
	pp_paths_free(pp);
	pp_pcapng_out_free(r.pcap);
	pp_perfetto_out_free(r.perf);
	pp_summary_free(r.ps);
	pp_netns_cache_free(names);
	pp_ns_told_free(&told);
	if (r.out)
		fclose(r.out);
	free(ch);
	free(pkts);
	return rate;
}

/* Runs a stage in a child; *rate in records/s, *rss_kib its peak RSS. */
static int run_child(enum stage st, const struct cfg *c, double *rate, long *rss_kib)
{
	struct rusage ru;
	int fd[2], status;
	ssize_t got;
	pid_t pid;

	if (pipe(fd))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		double v = run_stage(st, c, NULL);

		close(fd[0]);
		_exit(write(fd[1], &v, sizeof(v)) == sizeof(v) && v > 0 ? 0 : 1);
	}
	close(fd[1]);
	got = read(fd[0], rate, sizeof(*rate));
	close(fd[0]);
	if (wait4(pid, &status, 0, &ru) < 0)
		return -errno;
	if (got != sizeof(*rate) || !WIFEXITED(status) || WEXITSTATUS(status))
		return -EIO;
	*rss_kib = ru.ru_maxrss;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void print_table(double rate[NSTAGES][MAX_ROUNDS], double rss[NSTAGES][MAX_ROUNDS],
			int rounds, const struct cfg *c)
{
	double floor_ns, med[NSTAGES];

	for (int s = 0; s < NSTAGES; s++)
		med[s] = median(rate[s], rounds);
	floor_ns = 1e9 / med[ST_GEN];
	printf("| stage | M records/s | ns/record | ns/record above the generator | "
	       "x target (5 M/s) | k packets/s | peak RSS MiB |\n");
	printf("|---|---|---|---|---|---|---|\n");
	for (int s = 0; s < NSTAGES; s++)
		printf("| %s | %.2f | %.1f | %.1f | %.2f | %.0f | %.1f |\n", stage_names[s],
		       med[s] / 1e6, 1e9 / med[s], 1e9 / med[s] - floor_ns, med[s] / TARGET_RATE,
		       med[s] / c->hops / 1e3, median(rss[s], rounds) / 1024);
}

static const char *const stage_keys[NSTAGES] = {"gen",	"assemble", "summary", "text",
						"json", "pcapng",   "perfetto"};

/* --only STAGE [SECONDS]: one stage, in process, for a profiler. */
static int run_only(int argc, char **argv)
{
	struct cfg c = {.seconds = argc > 3 ? atof(argv[3]) : 3, .hops = 9, .inflight = 64};

	for (int s = 0; s < NSTAGES; s++) {
		if (argc < 3 || strcmp(argv[2], stage_keys[s]))
			continue;
		if (c.seconds <= 0 || c.seconds > 60)
			break;
		__u64 n = 0;
		double v = run_stage(s, &c, &n);

		printf("%s: %.3f M records/s, %llu records\n", stage_keys[s], v / 1e6,
		       (unsigned long long)n);
		return v > 0 ? 0 : 1;
	}
	fprintf(stderr, "usage: rec_bench --only "
			"gen|assemble|summary|text|json|pcapng|perfetto [SECONDS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static double rate[NSTAGES][MAX_ROUNDS], rss[NSTAGES][MAX_ROUNDS];
	struct cfg c;
	int rounds;

	if (argc > 1 && !strcmp(argv[1], "--only"))
		return run_only(argc, argv);
	rounds = argc > 1 ? atoi(argv[1]) : 5;
	c = (struct cfg){
		.seconds = argc > 2 ? atof(argv[2]) : 3,
		.hops = argc > 3 ? (unsigned int)atoi(argv[3]) : 9,
		.inflight = argc > 4 ? (unsigned int)atoi(argv[4]) : 64,
	};
	if (rounds < 1 || rounds > MAX_ROUNDS || c.seconds <= 0 || c.seconds > 60 || c.hops < 2 ||
	    c.hops > MAX_HOPS || c.inflight < 1 || c.inflight > MAX_INFLIGHT) {
		fprintf(stderr, "usage: rec_bench [ROUNDS [SECONDS [HOPS [INFLIGHT]]]]\n");
		return 2;
	}
	/* Stages in turn within each round, so drift hits all of them alike. */
	for (int r = 0; r < rounds; r++) {
		for (int s = 0; s < NSTAGES; s++) {
			long kib = 0;
			int err = run_child(s, &c, &rate[s][r], &kib);

			if (err) {
				fprintf(stderr, "rec_bench: %s run failed: %s\n", stage_names[s],
					strerror(-err));
				return 1;
			}
			rss[s][r] = (double)kib;
		}
	}
	print_table(rate, rss, rounds, &c);
	return 0;
}
