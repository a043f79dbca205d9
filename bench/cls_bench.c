// SPDX-License-Identifier: GPL-2.0
/*
 * The classifier's cost per packet: BPF_PROG_TEST_RUN with repeat, for five
 * filters on a frame none of them matches (the traffic pktpath ignores,
 * which is nearly all of it). Runs alternate between filters; each figure is the
 * median of ROUNDS, raw and net of a "ret #0" program measured in the same
 * rounds (the test-run harness's own cost per run).
 *
 *   cls_bench [ROUNDS [REPEAT]]
 *   cls_bench --inner [ROUNDS [REPEAT]]
 *   cls_bench --busy [ROUNDS [REPEAT]]
 *   cls_bench --scope [ROUNDS [REPEAT]]
 *
 * --inner: each filter without and with the inner view (PP_XLATE_INNER,
 * pktpath's default), on that frame and on the same frame inside a VXLAN
 * header (UDP 8472), which none matches either: what the view adds to
 * traffic pktpath ignores, bare and encapsulated.
 *
 * --busy: the filter "icmp" on that frame (untracked, unmatched) while
 * packets are in flight, the state bpf/frag.bpf.h looks at: none tracked;
 * some, no fragmentable one in the last second (frag_ts 0); one just
 * now, on the frame and on the frame as an IPv4 fragment (MF) of no
 * datagram frag_map knows. Then the state the ingress's reply lookup
 * looks at (pp_reply_open(), pp_reply_of() in bpf/classifier.bpf.c): a
 * tracked packet's NAT rewrite noted just now (reply_ts) on the frame's
 * device, with none tracked and some, the frame no reply reply_map knows;
 * and noted on another device only.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include "filter/classifier.h"
#include "pktpath.h"

#define MAX_ROUNDS 64

static const char *const filters[] = {
	"icmp",
	"icmp and src 198.18.0.1",
	"tcp port 443 and (tcp[tcpflags] & tcp-syn != 0)",
	"ip6 and udp and dst port 53",
	"host 198.18.0.1 or host 198.18.0.2 or host 198.18.0.3 or host 198.18.0.4 or "
	"host 198.18.0.5 or host 198.18.0.6 or host 198.18.0.7 or host 198.18.0.8 or "
	"net 10.0.0.0/8 or port 8080",
};
#define NFILTERS (sizeof(filters) / sizeof(filters[0]))

/*
 * UDP 198.18.0.9.5353 > 198.18.1.2.5353: none of the filters matches it, and
 * the long chain tests every host, the net and the ports before saying no.
 */
static unsigned char frame[98] = {
	2,    0, 0,  0,	 0, 2, 2,   0,	0, 0, 0,   1,  0x08, 0x00, 0x45, 0,    0,    84,   0, 1,
	0x40, 0, 64, 17, 0, 0, 198, 18, 0, 9, 198, 18, 1,    2,	   0x14, 0xe9, 0x14, 0xe9, 0, 64,
};

/* The frame above after an outer Ethernet, IPv4, UDP (to 8472) and VXLAN header. */
static unsigned char vxlan_frame[50 + sizeof(frame)];

static void make_vxlan_frame(void)
{
	static const unsigned char outer[50] = {
		2,    0,    0,	0,    0,   0x12, 2,  0,	   0,	 0,    0,    0x11, 0x08,
		0x00, 0x45, 0,	0,    134, 0,	 2,  0x40, 0,	 64,   17,   0,	   0,
		192,  168,  50, 1,    192, 168,	 50, 2,	   0x9c, 0x40, 0x21, 0x18, 0,
		114,  0,    0,	0x08, 0,   0,	 0,  0,	   0,	 42,   0};

	memcpy(vxlan_frame, outer, sizeof(outer));
	memcpy(vxlan_frame + sizeof(outer), frame, sizeof(frame));
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

static __u32 median(__u32 *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_u32);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int run_on(const struct pp_cls *c, const void *data, __u32 len, int repeat, __u32 *ns)
{
	LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = data, .data_size_in = len, .repeat = repeat);

	if (bpf_prog_test_run_opts(pp_cls_prog_fd(c, 0), &t))
		return -errno;
	*ns = t.duration;
	return 0;
}

static int run_once(const struct pp_cls *c, int repeat, __u32 *ns)
{
	return run_on(c, frame, sizeof(frame), repeat, ns);
}

static int load_flags(struct pp_cls *c, const char *expr, const struct sock_filter *cbpf,
		      unsigned int flags)
{
	struct pp_cls_opts o = {
		.expr = expr, .cbpf = cbpf, .cbpf_len = cbpf ? 1 : 0, .xlate_flags = flags};
	char err[512];
	int ret = pp_cls_load(c, &o, err, sizeof(err));

	if (ret)
		fprintf(stderr, "cls_bench: %s\n", err);
	return ret;
}

static int load(struct pp_cls *c, const char *expr, const struct sock_filter *cbpf)
{
	return load_flags(c, expr, cbpf, 0);
}

/* cls[f][view], ns[f][view][frame][round]: each run in turn, every round. */
static struct pp_cls inner_cls[NFILTERS][2];
static __u32 inner_ns[NFILTERS][2][2][MAX_ROUNDS];

static int inner_runs(int rounds, int repeat)
{
	const void *data[2] = {frame, vxlan_frame};
	const __u32 len[2] = {sizeof(frame), sizeof(vxlan_frame)};
	int err = 0;

	for (int r = 0; r < rounds && !err; r++)
		for (size_t f = 0; f < NFILTERS && !err; f++)
			for (int v = 0; v < 2 && !err; v++)
				for (int d = 0; d < 2 && !err; d++)
					err = run_on(&inner_cls[f][v], data[d], len[d], repeat,
						     &inner_ns[f][v][d][r]);
	return err;
}

static int inner_main(int rounds, int repeat)
{
	int err = 0;

	make_vxlan_frame();
	for (size_t f = 0; f < NFILTERS && !err; f++)
		for (int v = 0; v < 2 && !err; v++)
			err = load_flags(&inner_cls[f][v], filters[f], NULL,
					 v ? PP_XLATE_INNER : 0);
	if (err || (err = inner_runs(rounds, repeat))) {
		fprintf(stderr, "cls_bench: %s\n", err < 0 ? strerror(-err) : "load failed");
		return 1;
	}
	printf("| filter | eBPF insns (without / with the view) | UDP frame: ns without | with "
	       "| the same in VXLAN: ns without | with |\n");
	printf("|---|---|---|---|---|---|\n");
	for (size_t f = 0; f < NFILTERS; f++) {
		printf("| `%s` | %zu / %zu", filters[f], inner_cls[f][0].filter.cnt,
		       inner_cls[f][1].filter.cnt);
		for (int d = 0; d < 2; d++)
			for (int v = 0; v < 2; v++)
				printf(" | %u", median(inner_ns[f][v][d], rounds));
		printf(" |\n");
		pp_cls_destroy(&inner_cls[f][0]);
		pp_cls_destroy(&inner_cls[f][1]);
	}
	return 0;
}

static __u64 mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (__u64)t.tv_sec * 1000000000ULL + (__u64)t.tv_nsec;
}

/* One state of --busy: what state_map holds while the frame runs. */
struct busy_case {
	const char *name;
	bool inflight, frag_now, reply_now, frag_frame;
	__u64 reply_devs; /* the test run's device is lo: bit 1 */
};

static const struct busy_case busy_cases[] = {
	{"idle (nothing tracked)", false, false, false, false, 0},
	{"busy, frag_ts 0", true, false, false, false, 0},
	{"busy, frag_ts now", true, true, false, false, 0},
	{"busy, frag_ts now, an IPv4 fragment (MF)", true, true, false, true, 0},
	{"idle, reply_ts now", false, false, true, false, 1ULL << 1},
	{"busy, reply_ts now", true, false, true, false, 1ULL << 1},
	{"idle, reply_ts now, another device", false, false, true, false, 1ULL << 2},
};
#define NBUSY (sizeof(busy_cases) / sizeof(busy_cases[0]))

/* The classifier's state_map as case K has it. */
static int set_state(const struct pp_cls *c, const struct busy_case *k)
{
	struct pp_state st = {.inflight = k->inflight,
			      .frag_ts = k->frag_now ? mono_ns() : 0,
			      .reply_ts = k->reply_now ? mono_ns() : 0,
			      .reply_devs = k->reply_devs};
	__u32 zero = 0;

	return bpf_map_update_elem(c->maps->state_map, &zero, &st, BPF_ANY) ? -errno : 0;
}

static int busy_main(int rounds, int repeat)
{
	static const struct busy_case none = {0};
	static unsigned char frag[sizeof(frame)];
	__u32 ns[NBUSY][MAX_ROUNDS];
	struct pp_cls c;
	int err = 0;

	memcpy(frag, frame, sizeof(frame));
	frag[20] = 0x20; /* MF, not DF; offset 0 (the checksum is not looked at) */
	if (load(&c, "icmp", NULL))
		return 1;
	for (int r = 0; r < rounds && !err; r++)
		for (size_t k = 0; k < NBUSY && !err; k++) {
			err = set_state(&c, &busy_cases[k]);
			if (!err)
				err = run_on(&c, busy_cases[k].frag_frame ? frag : frame,
					     sizeof(frame), repeat, &ns[k][r]);
		}
	set_state(&c, &none);
	pp_cls_destroy(&c);
	if (err) {
		fprintf(stderr, "cls_bench: test run: %s\n", strerror(-err));
		return 1;
	}
	printf("| `icmp`, an untracked UDP frame | ns/packet (raw) |\n|---|---|\n");
	for (size_t k = 0; k < NBUSY; k++)
		printf("| %s | %u |\n", busy_cases[k].name, median(ns[k], rounds));
	return 0;
}

/*
 * --scope: what a cgroup scope (--cgroup, --pid, -- COMMAND) adds: "icmp"
 * (no match) and "udp" (a match) on the frame, without a scope and with
 * one the frame is not in (the test run's skb has no socket), on both
 * hooks. On egress every packet pays the socket's cgroup and a lookup of
 * its conversation; on ingress a packet the filter matched pays the
 * lookup. "udp" without a scope tracks the packet: not comparable, not run.
 */
static const struct scope_case {
	const char *expr;
	__u64 cgroup_id;
} scope_cases[] = {{"icmp", 0}, {"icmp", 12345}, {"udp", 12345}};
#define NSCOPE (sizeof(scope_cases) / sizeof(scope_cases[0]))

static int scope_main(int rounds, int repeat)
{
	static __u32 ns[NSCOPE][2][MAX_ROUNDS];
	struct pp_cls cls[NSCOPE];
	int err = 0;

	for (size_t k = 0; k < NSCOPE && !err; k++) {
		struct pp_cls_opts o = {.expr = scope_cases[k].expr,
					.cgroup_id = scope_cases[k].cgroup_id,
					.cgroup_level = 1};
		char msg[512];

		err = pp_cls_load(&cls[k], &o, msg, sizeof(msg));
		if (err)
			fprintf(stderr, "cls_bench: %s\n", msg);
	}
	if (err)
		return 1;
	for (int r = 0; r < rounds && !err; r++)
		for (size_t k = 0; k < NSCOPE && !err; k++)
			for (int e = 0; e < 2 && !err; e++) {
				LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = frame,
					    .data_size_in = sizeof(frame), .repeat = repeat);

				err = bpf_prog_test_run_opts(pp_cls_prog_fd(&cls[k], e), &t)
					      ? -errno
					      : 0;
				ns[k][e][r] = t.duration;
			}
	if (err) {
		fprintf(stderr, "cls_bench: test run: %s\n", strerror(-err));
		return 1;
	}
	printf("| filter | scope | ingress ns/packet | egress ns/packet |\n|---|---|---|---|\n");
	for (size_t k = 0; k < NSCOPE; k++) {
		printf("| `%s` | %s | %u | %u |\n", scope_cases[k].expr,
		       scope_cases[k].cgroup_id ? "a cgroup (the frame not in it)" : "none",
		       median(ns[k][0], rounds), median(ns[k][1], rounds));
		pp_cls_destroy(&cls[k]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct sock_filter ret0 = {BPF_RET | BPF_K, 0, 0, 0};
	bool inner = argc > 1 && !strcmp(argv[1], "--inner");
	bool busy = argc > 1 && !strcmp(argv[1], "--busy");
	bool scope = argc > 1 && !strcmp(argv[1], "--scope");
	int a = inner || busy || scope ? 2 : 1;
	int rounds = argc > a ? atoi(argv[a]) : 9,
	    repeat = argc > a + 1 ? atoi(argv[a + 1]) : 1000000;
	__u32 ns[NFILTERS + 1][MAX_ROUNDS], floor_ns;
	struct pp_cls cls[NFILTERS + 1];
	int err = 0;

	if (rounds < 1 || rounds > MAX_ROUNDS || repeat < 1)
		return 2;
	if (inner)
		return inner_main(rounds, repeat);
	if (busy)
		return busy_main(rounds, repeat);
	if (scope)
		return scope_main(rounds, repeat);
	for (size_t f = 0; f < NFILTERS && !err; f++)
		err = load(&cls[f], filters[f], NULL);
	if (err || load(&cls[NFILTERS], NULL, &ret0))
		return 1;
	for (int r = 0; r < rounds && !err; r++)
		for (size_t f = 0; f <= NFILTERS && !err; f++)
			err = run_once(&cls[f], repeat, &ns[f][r]);
	if (err) {
		fprintf(stderr, "cls_bench: test run: %s\n", strerror(-err));
		return 1;
	}
	floor_ns = median(ns[NFILTERS], rounds);
	printf("| filter | eBPF insns | ns/packet (raw) | ns/packet (net of ret #0) |\n");
	printf("|---|---|---|---|\n");
	printf("| `ret #0` (the harness floor) | %zu | %u | 0 |\n", cls[NFILTERS].filter.cnt,
	       floor_ns);
	for (size_t f = 0; f < NFILTERS; f++) {
		__u32 m = median(ns[f], rounds);

		printf("| `%s` | %zu | %u | %d |\n", filters[f], cls[f].filter.cnt, m,
		       (int)m - (int)floor_ns);
	}
	for (size_t f = 0; f <= NFILTERS; f++)
		pp_cls_destroy(&cls[f]);
	return 0;
}
