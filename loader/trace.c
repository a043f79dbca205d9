// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "pktpath.h"
#include "classifier.h"
#include "classifier.skel.h"
#include "path.h"
#include "trace.h"

#define PP_POLL_MS 100

struct trace {
	const struct pp_trace_cfg *cfg;
	struct pp_paths *paths;
	struct pp_summary sum;
	struct pp_state *state; /* mmap()ed state_map */
	int skb_map_fd, end_lost_fd;
	__u64 now;
	bool done;
};

static __u64 now_ns(void)
{
	struct timespec ts;

	/* bpf_ktime_get_ns() is CLOCK_MONOTONIC. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
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

/* A packet whose END record was lost to a full ring: BPF noted how many hops. */
static __u32 end_lost(struct trace *t, __u64 id)
{
	__u32 lost = 0;

	if (bpf_map_lookup_elem(t->end_lost_fd, &id, &lost) == 0)
		bpf_map_delete_elem(t->end_lost_fd, &id);
	return lost;
}

static void emit(const struct pp_packet *pkt, void *ctx)
{
	struct pp_packet copy = *pkt, *p = &copy;
	struct trace *t = ctx;

	if (p->fate == PP_FATE_TIMEOUT) {
		forget_skbs(t, p);
		p->lost += end_lost(t, p->id);
	}
	if (t->done)
		return;
	if (t->cfg->json) {
		pp_out_json(t->cfg->out, p);
	} else {
		if (!t->sum.packets)
			pp_out_text_header(t->cfg->out);
		pp_out_text(t->cfg->out, p);
	}
	pp_summary_add(&t->sum, p);
	if (t->cfg->count && t->sum.packets >= t->cfg->count)
		t->done = true;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct trace *t = ctx;

	pp_paths_add(t->paths, data, size, t->now);
	return t->done ? 1 : 0; /* stop consuming once -c is reached */
}

/* Loss is never silent: per probe, at exit. */
static void report_lost(const struct pp_cls *cls, const struct pp_trace_cfg *cfg)
{
	int fd = bpf_map__fd(cls->skel->maps.lost_map);
	char buf[64];

	for (__u32 i = 0; i < PP_MAX_PROBES + 2; i++) {
		__u64 n = 0;

		if (bpf_map_lookup_elem(fd, &i, &n) || !n)
			continue;
		fprintf(stderr, "pktpath: lost %llu records at %s\n", (unsigned long long)n,
			pp_out_probe_name(cfg->out, i, buf, sizeof(buf)));
	}
}

static void finish(struct trace *t, const struct pp_cls *cls)
{
	t->sum.lost = t->state->ring_lost;
	t->sum.map_full = t->state->map_full;
	if (t->cfg->json)
		pp_out_summary_json(t->cfg->out, &t->sum);
	else
		pp_out_summary_text(t->cfg->out, &t->sum);
	fflush(t->cfg->out->f);
	report_lost(cls, t->cfg);
	if (t->state->map_full)
		fprintf(stderr, "pktpath: %llu packets not tracked: skb_map full (--max-packets)\n",
			(unsigned long long)t->state->map_full);
}

static int loop(struct trace *t, struct ring_buffer *rb, volatile sig_atomic_t *stop)
{
	__u64 start = now_ns(), timeout = (__u64)(t->cfg->packet_timeout * 1e9);
	__u64 limit = (__u64)(t->cfg->duration * 1e9);
	int n;

	while (!*stop && !t->done) {
		n = ring_buffer__poll(rb, PP_POLL_MS);
		if (n < 0 && n != -EINTR)
			return n;
		t->now = now_ns();
		pp_paths_expire(t->paths, t->now, timeout);
		fflush(t->cfg->out->f);
		if (limit && t->now - start >= limit)
			break;
	}
	return 0;
}

int pp_trace_run(const struct pp_cls *cls, const struct pp_trace_cfg *cfg,
		 volatile sig_atomic_t *stop)
{
	struct trace t = {.cfg = cfg, .now = now_ns()};
	struct ring_buffer *rb = NULL;
	long page = sysconf(_SC_PAGESIZE);
	int err;

	t.skb_map_fd = bpf_map__fd(cls->skel->maps.skb_map);
	t.end_lost_fd = bpf_map__fd(cls->skel->maps.end_lost_map);
	t.state = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED,
		       bpf_map__fd(cls->skel->maps.state_map), 0);
	if (t.state == MAP_FAILED)
		return -errno;
	t.paths = pp_paths_new(emit, &t);
	rb = ring_buffer__new(bpf_map__fd(cls->skel->maps.path_map), on_record, &t, NULL);
	if (!t.paths || !rb) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = loop(&t, rb, stop);
	if (!err && !t.done)
		ring_buffer__consume(rb);
	finish(&t, cls);
cleanup:
	ring_buffer__free(rb);
	pp_paths_free(t.paths);
	munmap(t.state, (size_t)page);
	return err;
}
