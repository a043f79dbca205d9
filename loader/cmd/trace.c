// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "pktpath.h"
#include "bpfobj/maps.h"
#include "metrics/metrics.h"
#include "output/output_summary.h"
#include "paths/path.h"
#include "cmd/trace.h"
#include "paths/budget.h"
#include "paths/sampler.h"
#include "base/log.h"
#include "cmd/scope_owner.h"

/*
 * Records come without a wakeup (pp_wake_flags() in bpf/hop.bpf.h),
 * so the loader polls: often while anything is in flight, so that a path
 * prints within some 10 ms of its end; seldom when idle, as the next
 * packet's mark then wakes it.
 */
#define PP_POLL_BUSY_MS 10
#define PP_POLL_IDLE_MS 250

struct trace {
	const struct pp_trace_cfg *cfg;
	struct pp_paths *paths;
	struct pp_totals totals;
	struct pp_summary *paths_sum; /* --summary, else NULL */
	__u64 start, next_report;     /* --interval */
	struct pp_state *state;	      /* mmap()ed state_map */
	struct pp_sampler sampler;    /* --max-rate, --cpu-budget */
	struct pp_budget budget;      /* --cpu-budget */
	int skb_map_fd, end_lost_fd, head_map_fd;
	__u64 swept;	 /* when head_map was last swept */
	__u64 health;	 /* when the metrics last had the health figures */
	__u64 rescanned; /* when cfg->rescan last ran */
	int lost_fd;
	__u64 now;
	__u64 late_named;	      /* late records named on stderr so far */
	struct pp_scope_owner *owner; /* a cgroup scope's processes */
	bool done;
};

static __u64 clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* bpf_ktime_get_ns() is CLOCK_MONOTONIC. */
static __u64 now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* Paths sampled: --max-rate or --cpu-budget. */
static bool sampling(const struct pp_trace_cfg *cfg)
{
	return cfg->max_rate || cfg->cpu_budget > 0;
}

static size_t pp_packet_live_skbs(const struct pp_packet *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nskbs; i++)
		n += !p->skbs[i].ended;
	return n;
}

/*
 * A packet timed out: its skb was freed where no probe saw it, or lives on.
 * Forget the skbs not seen freed, so the address is not mistaken for a new
 * skb's later; a freed one's address may already belong to a new packet.
 */
static void forget_skbs(struct trace *t, const struct pp_packet *p)
{
	for (size_t i = 0; i < p->nskbs; i++) {
		__u64 skb = p->skbs[i].skb;
		struct pp_skb_val v;

		/* Freed unseen and reused: the entry is another packet's now. */
		if (p->skbs[i].ended || bpf_map_lookup_elem(t->skb_map_fd, &skb, &v) ||
		    v.id != p->id)
			continue;
		if (bpf_map_delete_elem(t->skb_map_fd, &skb) == 0)
			__atomic_fetch_sub(&t->state->inflight, 1, __ATOMIC_RELAXED);
	}
}

/*
 * Whether packet ID waits in a qdisc: one of its skbs not seen freed is still
 * its in skb_map, and a qdisc took it at its last hop (PP_SKB_QDISC). A
 * shaper may hold a packet for seconds with no record; the packet is not
 * over, and letting go of its skb would lose the hops after the queue.
 */
static bool still_queued(__u64 id, const struct pp_skbref *skbs, __u32 nskbs, void *ctx)
{
	struct trace *t = ctx;

	for (__u32 i = 0; i < nskbs; i++) {
		struct pp_skb_val v;

		if (!skbs[i].ended && !bpf_map_lookup_elem(t->skb_map_fd, &skbs[i].skb, &v) &&
		    v.id == id && (v.flags & PP_SKB_QDISC))
			return true;
	}
	return false;
}

/* A packet whose END record was lost to a full ring: BPF noted how many hops. */
static __u32 end_lost(struct trace *t, __u64 id)
{
	__u32 lost = 0;

	if (bpf_map_lookup_elem(t->end_lost_fd, &id, &lost) == 0)
		bpf_map_delete_elem(t->end_lost_fd, &id);
	return lost;
}

static void print_packet(struct trace *t, const struct pp_packet *p)
{
	const struct pp_out *o = t->cfg->out;

	if (!t->totals.packets && o->ops->begin)
		o->ops->begin(o);
	o->ops->packet(o, p);
}

/*
 * --summary and --metrics alone print no packet; with --packets they do,
 * and --metrics with a format for programs (--json) writes its lines.
 */
static bool prints_packets(const struct pp_trace_cfg *cfg)
{
	if (cfg->packets)
		return true;
	if (cfg->metrics)
		return cfg->out->ops->machine;
	return !cfg->summary;
}

static void emit(const struct pp_packet *pkt, void *ctx)
{
	struct pp_packet copy = *pkt, *p = &copy;
	struct trace *t = ctx;

	if (pp_packet_live_skbs(p)) {
		forget_skbs(t, p);
		p->lost += end_lost(t, p->id);
	}
	if (t->done)
		return;
	if (!pp_scope_owner_keep(t->owner, p))
		return;
	pp_scope_owner_name(t->owner, p, t->now / 1000000);
	if (t->paths_sum)
		pp_summary_add(t->paths_sum, p);
	if (t->cfg->metrics)
		pp_metrics_add(t->cfg->metrics, t->cfg->out, p, t->now);
	if (prints_packets(t->cfg))
		print_packet(t, p);
	if (t->cfg->also)
		t->cfg->also(p, t->cfg->also_ctx);
	pp_totals_add(&t->totals, p);
	if (t->cfg->count && t->totals.packets >= t->cfg->count)
		t->done = true;
}

/* The late records named one by one, the first PP_LATE_NAMED of a run. */
#define PP_LATE_NAMED 20

static const char *rec_kind(__u32 type)
{
	switch (type) {
	case PP_REC_END:
		return "end";
	case PP_REC_COPY:
		return "copy";
	case PP_REC_MARK:
		return "mark";
	default:
		return "hop";
	}
}

/*
 * A record whose packet was printed before it came (past the grace the
 * assembler gives an ended packet): what it was and which packet it missed.
 */
static void on_late(__u64 id, const struct pp_hop *h, __u64 ago_ns, void *ctx)
{
	struct trace *t = ctx;
	char buf[64];

	if (t->late_named >= PP_LATE_NAMED)
		return;
	t->late_named++;
	pp_warn("packet %llu: its %s at %s came %llu us after the packet was printed: not shown\n",
		(unsigned long long)id, rec_kind(h->type),
		pp_out_probe_name(t->cfg->out, h->probe, buf, sizeof(buf)),
		(unsigned long long)(ago_ns / 1000));
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct trace *t = ctx;

	if (size >= sizeof(struct pp_mark) && ((struct pp_hop *)data)->type == PP_REC_MARK)
		pp_scope_owner_mark(t->owner, data, t->now / 1000000);

	pp_paths_add(t->paths, data, size, t->now);
	return t->done ? 1 : 0; /* stop consuming once -c is reached */
}

/*
 * I, or the next probe index in use after it: the list's are 0 .. nprobes - 1,
 * the built-in ones (tc:ingress, ...) from PP_MAX_PROBES; between them no
 * probe ever counts (lost_probes() skips them too). Each lookup is a
 * syscall: the whole lost_map at every exit was 8198 of them.
 */
static __u32 probe_index_used(const struct pp_out *o, __u32 i)
{
	return i >= o->nprobes && i < PP_MAX_PROBES ? PP_MAX_PROBES : i;
}

/* Loss is never silent: per probe, at exit. */
static void report_lost(const struct pp_maps *maps, const struct pp_trace_cfg *cfg)
{
	int fd = maps->lost_map;
	char buf[64];

	for (__u32 i = 0; (i = probe_index_used(cfg->out, i)) < PP_PROBES_ALL; i++) {
		__u64 n = 0;

		if (bpf_map_lookup_elem(fd, &i, &n) || !n)
			continue;
		pp_warn("lost %llu records at %s\n", (unsigned long long)n,
			pp_out_probe_name(cfg->out, i, buf, sizeof(buf)));
	}
}

/* Records the path assembler set aside are not silent either. */
static void report_paths(const struct trace *t)
{
	struct pp_paths_stats st;

	pp_paths_stats(t->paths, &st);
	if (pp_paths_open(t->paths))
		pp_warn("%zu packets still open at exit: not shown\n", pp_paths_open(t->paths));
	if (st.late > t->late_named)
		pp_warn("%llu records came after their packet was printed (%llu named above): "
			"not shown\n",
			(unsigned long long)st.late, (unsigned long long)t->late_named);
	if (st.bad)
		pp_warn("%llu malformed records ignored\n", (unsigned long long)st.bad);
	/* What the grace for ended packets did (PP_END_GRACE_NS). */
	pp_debug("%llu records joined an ended packet in its grace, %llu of them an skb's "
		 "second end (its read's and its free's)\n",
		 (unsigned long long)st.graced, (unsigned long long)st.ends_joined);
}

/* The distinct paths so far (cumulative: every report covers the whole run). */
static void report_summary(struct trace *t, bool final)
{
	struct pp_sum_when when = {.elapsed = (double)(now_ns() - t->start) / 1e9, .final = final};

	t->cfg->out->ops->summary(t->cfg->out, t->paths_sum, &when);
}

/* --interval: a report when one is due; due times keep their pace. */
static void maybe_report(struct trace *t)
{
	__u64 step = (__u64)(t->cfg->interval * 1e9);

	if (!t->paths_sum || !step || t->now < t->next_report)
		return;
	report_summary(t, false);
	while (t->next_report <= t->now)
		t->next_report += step;
}

static void finish(struct trace *t, const struct pp_maps *maps)
{
	if (t->paths_sum)
		report_summary(t, true);
	t->totals.lost = t->state->ring_lost;
	t->totals.map_full = t->state->map_full;
	t->totals.skipped = t->cfg->skipped ? t->cfg->skipped(t->cfg->rescan_ctx) : 0;
	t->totals.sample_period = sampling(t->cfg) ? t->sampler.max_period : 0;
	t->cfg->out->ops->totals(t->cfg->out, &t->totals);
	fflush(t->cfg->out->f);
	report_lost(maps, t->cfg);
	report_paths(t);
	if (t->state->map_full)
		pp_warn("%llu packets not tracked: skb_map full (--max-packets)\n",
			(unsigned long long)t->state->map_full);
	if (t->totals.skipped)
		pp_warn("the kernel skipped %llu runs of the probes: a BPF program was already "
			"running on that CPU (packet work in an interrupt of one); hops and ends "
			"there were not seen\n",
			(unsigned long long)t->totals.skipped);
	if (t->cfg->pid_only)
		pp_info("--pid-only: %llu packets of other processes of pid %u's cgroup not "
			"shown\n",
			(unsigned long long)pp_scope_owner_kept_back(t->owner), t->cfg->pid_only);
}

#define PP_HEALTH_NS 1000000000ULL /* the metrics' health figures: every second */

/* The probes that lost records, into H (room for PP_METRICS_LOST_MAX). */
static void lost_probes(const struct trace *t, struct pp_mhealth *h)
{
	const struct pp_out *o = t->cfg->out;
	char buf[PP_METRICS_LABEL];

	/* The list's probes, then the built-in ones (tc:ingress, ...). */
	for (__u32 i = 0; i < PP_PROBES_ALL && h->nlost < PP_METRICS_LOST_MAX; i++) {
		__u64 n = 0;

		if (i == o->nprobes && i < PP_MAX_PROBES)
			i = PP_MAX_PROBES;
		if (bpf_map_lookup_elem(t->lost_fd, &i, &n) || !n)
			continue;
		h->lost[h->nlost].records = n;
		snprintf(h->lost[h->nlost++].probe, PP_METRICS_LABEL, "%s",
			 pp_out_probe_name(o, i, buf, sizeof(buf)));
	}
}

/*
 * --cpu-budget: once a second, the paths a second pktpath's CPU time allows:
 * its threads' (the reader's, the metrics server's), and its programs'
 * estimated from the records they made.
 */
static void budget(struct trace *t)
{
	struct pp_paths_stats st;
	__u64 rate;

	if (t->cfg->cpu_budget <= 0)
		return;
	pp_paths_stats(t->paths, &st);
	rate = pp_budget_tick(&t->budget,
			      clock_ns(CLOCK_PROCESS_CPUTIME_ID) + st.records * PP_BUDGET_PROG_NS,
			      __atomic_load_n(&t->state->marked, __ATOMIC_RELAXED), t->now);
	if (rate)
		pp_sampler_set_rate(&t->sampler, rate);
}

/* --max-rate: N and the share of paths for the next quarter second. */
static void sample(struct trace *t)
{
	__u64 n =
		pp_sampler_tick(&t->sampler, __atomic_load_n(&t->state->marked, __ATOMIC_RELAXED),
				__atomic_load_n(&t->state->sample_left, __ATOMIC_RELAXED), t->now);

	if (!n)
		return;
	__atomic_store_n(&t->state->sample_period, n, __ATOMIC_RELAXED);
	__atomic_store_n(&t->state->sample_left, (__s64)t->sampler.share, __ATOMIC_RELAXED);
}

/* --metrics: the reader's own figures, about once a second. */
static void report_health(struct trace *t)
{
	static struct pp_mlost lost[PP_METRICS_LOST_MAX];
	struct pp_mhealth h = {.lost = lost};
	struct pp_paths_stats st;

	if (!t->cfg->metrics || t->now - t->health < PP_HEALTH_NS)
		return;
	t->health = t->now;
	pp_paths_stats(t->paths, &st);
	h.ring_lost = t->state->ring_lost;
	h.map_full = t->state->map_full;
	h.skipped = t->cfg->skipped ? t->cfg->skipped(t->cfg->rescan_ctx) : 0;
	h.tracked = __atomic_load_n(&t->state->inflight, __ATOMIC_RELAXED);
	h.open = pp_paths_open(t->paths);
	h.late = st.late;
	h.bad = st.bad;
	h.probes = t->cfg->probes;
	h.interfaces = t->cfg->interfaces;
	h.sample_period = sampling(t->cfg) ? t->sampler.period : 1;
	h.rate_limit = sampling(t->cfg) ? t->sampler.rate : 0;
	lost_probes(t, &h);
	if (t->cfg->tick)
		t->cfg->tick(t->cfg->tick_ctx, t->now);
	pp_metrics_health(t->cfg->metrics, &h, t->now);
}

#define PP_RESCAN_NS 1000000000ULL

/* cfg->rescan, about once a second. */
static void rescan(struct trace *t)
{
	if (!t->cfg->rescan || t->now - t->rescanned < PP_RESCAN_NS)
		return;
	t->rescanned = t->now;
	t->cfg->rescan(t->cfg->rescan_ctx);
}

/*
 * Orphaned head_map entries keep every probe's gate open. When nothing is in
 * flight, drop those too old to give a copy (BPF drops the ones it meets),
 * at most every 100 ms. BPF counts orphans up and down as it goes, so the
 * count is only lowered: by the entries deleted here, and to 0 when none is
 * left, unless BPF orphaned another meanwhile (compare and swap).
 */
static void sweep_heads(struct trace *t)
{
	__u64 key, next, live = 0, deleted = 0, now = now_ns(), count;
	struct pp_head_val hv;
	bool more;

	count = __atomic_load_n(&t->state->orphans, __ATOMIC_SEQ_CST);
	if (!count || __atomic_load_n(&t->state->inflight, __ATOMIC_RELAXED) ||
	    now - t->swept < 100000000)
		return;
	t->swept = now;
	for (more = !bpf_map_get_next_key(t->head_map_fd, NULL, &next); more;) {
		key = next;
		more = !bpf_map_get_next_key(t->head_map_fd, &key, &next);
		if (bpf_map_lookup_elem(t->head_map_fd, &key, &hv) || !hv.orphan)
			continue;
		if (now - hv.ts <= t->state->orphan_ns)
			live++;
		else if (!bpf_map_delete_elem(t->head_map_fd, &key))
			deleted++;
	}
	if (deleted)
		count = __atomic_sub_fetch(&t->state->orphans, deleted, __ATOMIC_SEQ_CST);
	if (!live)
		__atomic_compare_exchange_n(&t->state->orphans, &count, 0, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
}

/*
 * Once set, frag_ts would make the classifier read the clock for every
 * untracked packet for good (pp_frag_recent()): cleared once older than
 * PP_FRAG_NS, unless BPF noted a datagram meanwhile (compare and swap).
 */
static void clear_frag_ts(struct trace *t)
{
	__u64 seen = __atomic_load_n(&t->state->frag_ts, __ATOMIC_SEQ_CST);

	if (seen && (__s64)(t->now - seen) > (__s64)PP_FRAG_NS)
		__atomic_compare_exchange_n(&t->state->frag_ts, &seen, 0, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
}

/*
 * reply_ts likewise (pp_reply_recent() in bpf/classifier.bpf.c): cleared
 * once older than PP_REPLY_NS, when no entry of reply_map marks replies.
 */
static void clear_reply_ts(struct trace *t)
{
	__u64 seen = __atomic_load_n(&t->state->reply_ts, __ATOMIC_SEQ_CST);

	if (seen && (__s64)(t->now - seen) > (__s64)PP_REPLY_NS)
		__atomic_compare_exchange_n(&t->state->reply_ts, &seen, 0, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
}

/*
 * pp_state.waiting keeps the receive calls' program looking while merged TCP
 * segments wait in a ring for their reader. Those of a socket closed unread,
 * or of a ring the LRU pushed out, are never read: their packets end here by
 * the timeout, and the count would keep that gate open for good. With
 * nothing in flight and no packet open, what is left is theirs: cleared,
 * unless BPF changed it meanwhile (compare and swap).
 */
static void clear_waiting(struct trace *t)
{
	__u64 seen = __atomic_load_n(&t->state->waiting, __ATOMIC_SEQ_CST);

	if (!seen || __atomic_load_n(&t->state->inflight, __ATOMIC_SEQ_CST) ||
	    pp_paths_open(t->paths))
		return;
	__atomic_compare_exchange_n(&t->state->waiting, &seen, 0, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
}

/*
 * Nothing in flight, nothing open: the loader may sleep long, flagged so
 * that the next record wakes it. The flag is stored before inflight is
 * read, and pp_track() raises inflight before the mark reads the flag: a
 * packet marked meanwhile is seen here or sees the flag.
 */
static bool go_idle(struct trace *t, struct ring_buffer *rb)
{
	if (__atomic_load_n(&t->state->inflight, __ATOMIC_RELAXED) || pp_paths_open(t->paths))
		return false;
	__atomic_store_n(&t->state->loader_asleep, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&t->state->inflight, __ATOMIC_SEQ_CST)) {
		/* What packets that ended since the last poll left without a wakeup. */
		ring_buffer__consume(rb);
		if (!pp_paths_open(t->paths) && !t->done)
			return true;
	}
	__atomic_store_n(&t->state->loader_asleep, 0, __ATOMIC_RELAXED);
	return false;
}

/* Waits for records, up to END (ns, 0: no limit), and takes what came. */
static int wait_records(struct trace *t, struct ring_buffer *rb, __u64 end)
{
	bool idle = go_idle(t, rb);
	__u64 ms = idle ? PP_POLL_IDLE_MS : PP_POLL_BUSY_MS, now = now_ns(), left;
	struct epoll_event ev;
	int n;

	if (t->done)
		return 0;
	if (end) {
		left = end > now ? (end - now + 999999) / 1000000 : 0;
		ms = left < ms ? left : ms;
	}
	/*
	 * The wait, then the records: their arrival time is taken after the
	 * wait (a stop, Ctrl-Z, must not make them look old), and a signal
	 * (EINTR) still lets what came be taken in before any expiry.
	 */
	n = epoll_wait(ring_buffer__epoll_fd(rb), &ev, 1, (int)ms);
	n = n < 0 ? -errno : 0;
	if (idle)
		__atomic_store_n(&t->state->loader_asleep, 0, __ATOMIC_RELAXED);
	t->now = now_ns();
	/* Timed out, woken or interrupted: take what came without a wakeup. */
	if ((n == 0 || n == -EINTR) && !t->done) {
		int got = ring_buffer__consume(rb);

		n = got < 0 ? got : n;
	}
	return n;
}

static __u64 timeout_ns(const struct pp_trace_cfg *cfg)
{
	return (__u64)(cfg->packet_timeout * 1e9);
}

/*
 * -- COMMAND ended at ENDED (0: not yet): the run is over once nothing is
 * open or in flight after a quiet poll's time (the last replies may still
 * be on their way in), or a packet timeout after it.
 */
static bool command_done(struct trace *t, __u64 ended, __u64 timeout)
{
	if (!ended)
		return false;
	if (t->now >= ended + timeout)
		return true;
	return t->now >= ended + PP_POLL_IDLE_MS * 1000000ULL &&
	       !__atomic_load_n(&t->state->inflight, __ATOMIC_RELAXED) && !pp_paths_open(t->paths);
}

static int loop(struct trace *t, struct ring_buffer *rb, volatile sig_atomic_t *stop)
{
	__u64 start = now_ns(), timeout = timeout_ns(t->cfg), ended = 0;
	__u64 end = t->cfg->duration > 0 ? start + (__u64)(t->cfg->duration * 1e9) : 0;
	int n;

	while (!*stop && !t->done) {
		if (!ended && t->cfg->ended && t->cfg->ended(t->cfg->ended_ctx))
			ended = t->now;
		n = wait_records(t, rb, end);
		if (n < 0 && n != -EINTR)
			return n;
		pp_paths_expire(t->paths, t->now, timeout);
		maybe_report(t);
		budget(t);
		sample(t);
		report_health(t);
		rescan(t);
		sweep_heads(t);
		clear_frag_ts(t);
		clear_reply_ts(t);
		clear_waiting(t);
		fflush(t->cfg->out->f);
		if ((end && t->now >= end) || command_done(t, ended, timeout))
			break;
	}
	return 0;
}

/*
 * --max-rate is the rate, or under --cpu-budget its ceiling (none if not
 * given); the budget starts at PP_BUDGET_START paths a second.
 */
static void start_sampling(struct trace *t)
{
	const struct pp_trace_cfg *cfg = t->cfg;
	__u64 ceiling = cfg->max_rate ? cfg->max_rate : PP_BUDGET_CEILING;

	pp_sampler_init(&t->sampler, cfg->max_rate, t->now);
	if (cfg->cpu_budget > 0) {
		pp_budget_init(&t->budget, cfg->cpu_budget, ceiling,
			       clock_ns(CLOCK_PROCESS_CPUTIME_ID), t->now);
		pp_sampler_set_rate(&t->sampler, t->budget.rate);
	}
	t->state->sample_left = (__s64)t->sampler.share;
	t->state->sample_period = sampling(cfg) ? 1 : 0;
}

/* The maps the loop reads, and state_map's entry mapped: what the probes count. */
static int use_maps(struct trace *t, const struct pp_maps *maps, size_t page)
{
	t->skb_map_fd = maps->skb_map;
	t->end_lost_fd = maps->end_lost_map;
	t->head_map_fd = maps->head_map;
	t->lost_fd = maps->lost_map;
	t->state = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, maps->state_map, 0);
	return t->state == MAP_FAILED ? -errno : 0;
}

/*
 * The packets being assembled: one whose skb waits in a qdisc stays open
 * (still_queued()), an ended one waits a grace, a record that comes after
 * its packet was printed is named (on_late()).
 */
static struct pp_paths *new_paths(struct trace *t)
{
	struct pp_paths *paths = pp_paths_new(emit, t);

	if (paths) {
		pp_paths_set_hold(paths, still_queued);
		pp_paths_set_grace(paths, PP_END_GRACE_NS);
		pp_paths_set_late(paths, on_late);
	}
	return paths;
}

int pp_trace_run(const struct pp_maps *maps, const struct pp_trace_cfg *cfg,
		 volatile sig_atomic_t *stop)
{
	struct trace t = {.cfg = cfg, .now = now_ns(), .start = now_ns()};
	struct ring_buffer *rb = NULL;
	long page = sysconf(_SC_PAGESIZE);
	int err = use_maps(&t, maps, (size_t)page);

	if (err)
		return err;
	start_sampling(&t);
	t.paths = new_paths(&t);
	t.owner = pp_scope_owner_new(cfg->pid_only);
	rb = ring_buffer__new(maps->path_map, on_record, &t, NULL);
	if (cfg->summary) {
		t.paths_sum = pp_summary_new(PP_SUM_DEF_PATHS, PP_SUM_DEF_DROPS);
		t.next_report = t.start + (__u64)(cfg->interval * 1e9);
	}
	if (!t.paths || !rb || (cfg->summary && !t.paths_sum) || !t.owner) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = loop(&t, rb, stop);
	/*
	 * Ctrl-C or --duration: what came is taken in, and the packets still
	 * open are printed too, their ends not seen (-c has printed its N).
	 */
	if (!err && !t.done) {
		ring_buffer__consume(rb);
		pp_paths_flush(t.paths);
	}
	finish(&t, maps);
cleanup:
	ring_buffer__free(rb);
	pp_paths_free(t.paths);
	pp_scope_owner_free(t.owner);
	pp_summary_free(t.paths_sum);
	munmap(t.state, (size_t)page);
	return err;
}
