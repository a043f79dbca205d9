// SPDX-License-Identifier: GPL-2.0
/*
 * Big filters: "host A or host B or ..." with N hosts, for each N given:
 * how long pktpath's compile takes (libpcap in chunks, filter/
 * filter_split.h), how long libpcap's optimised compile of the whole takes
 * (tcpdump's program; only up to --whole-max terms, it grows too fast), the
 * classic and eBPF sizes, the instructions the verifier walked for the
 * ingress program, and the load (translation, and both classifier programs
 * through the verifier). One JSON line per N. A frame to the last host
 * must match and one to no host must not, or the exit status is 1.
 * --inner: with the inner view (PP_XLATE_INNER), as pktpath loads it
 * unless --no-inner.
 *
 *   filter_scale [--inner] [--whole-max N] N...
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "filter/classifier.h"
#include "filter/filter_split.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The I-th host: 198.19.X.Y, never an address the frames below use by chance. */
static __u32 host(size_t i)
{
	return (198u << 24) | (19u << 16) | (__u32)(i / 250 % 250) << 8 | (__u32)(i % 250 + 1);
}

static char *chain(size_t n)
{
	char *e = malloc(n * 24 + 1);
	size_t at = 0;

	for (size_t i = 0; e && i < n; i++) {
		__u32 h = host(i);

		at += (size_t)sprintf(e + at, "%shost %u.%u.%u.%u", i ? " or " : "", h >> 24,
				      h >> 16 & 0xff, h >> 8 & 0xff, h & 0xff);
	}
	return e;
}

/* UDP 198.18.0.99 > DST, 60 bytes. */
static void frame(unsigned char *f, __u32 dst)
{
	static const unsigned char head[] = {2,	   0, 0,    0,	0,    2, 2,   0,  0, 0,
					     0,	   1, 0x08, 0,	0x45, 0, 0,   46, 0, 1,
					     0x40, 0, 64,   17, 0,    0, 198, 18, 0, 99};

	memset(f, 0, 60);
	memcpy(f, head, sizeof(head));
	for (int i = 0; i < 4; i++)
		f[30 + i] = (unsigned char)(dst >> (24 - 8 * i));
	f[34] = f[36] = 0x30;
	f[39] = 26;
}

static __u32 verified_insns(const struct pp_cls *c)
{
	struct bpf_prog_info info = {0};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(pp_cls_prog_fd(c, 0), &info, &len))
		return 0;
	return info.verified_insns;
}

/* The verdicts on a frame to the last host and on one to none. */
static int verdicts_ok(const struct pp_cls *c, size_t n)
{
	unsigned char f[60];
	int in = -1, out = -1;

	frame(f, host(n - 1));
	if (pp_cls_run(c, f, sizeof(f), &in))
		return 0;
	frame(f, host(n));
	if (n < 62500 && pp_cls_run(c, f, sizeof(f), &out))
		return 0;
	return in == 1 && (n >= 62500 || out == 0);
}

static double whole_compile(const char *expr)
{
	struct sock_filter *p;
	size_t len;
	char err[256];
	double t0 = now_s();

	if (pp_pcap_compile(expr, &p, &len, err, sizeof(err)))
		return -1;
	free(p);
	return now_s() - t0;
}

static unsigned int xlate_flags;

static int measure(size_t n, size_t whole_max)
{
	char *expr = chain(n), err[512] = "";
	struct sock_filter *p = NULL;
	size_t len = 0, chunks = 0;
	struct pp_cls cls;
	double t0, compile_s, load_s = -1, whole_s = -1;
	int ret, ok = 0;

	if (!expr)
		return 1;
	t0 = now_s();
	ret = pp_compile_split(expr, false, &p, &len, &chunks, err, sizeof(err));
	compile_s = now_s() - t0;
	if (n <= whole_max)
		whole_s = whole_compile(expr);
	if (!ret) {
		struct pp_cls_opts o = {.cbpf = p, .cbpf_len = len, .xlate_flags = xlate_flags};

		t0 = now_s();
		ret = pp_cls_load(&cls, &o, err, sizeof(err));
		load_s = now_s() - t0;
	}
	printf("{\"terms\":%zu,\"chunks\":%zu,\"compile_s\":%.4f,\"tcpdump_compile_s\":", n, chunks,
	       compile_s);
	printf(whole_s < 0 ? "null" : "%.4f", whole_s);
	printf(",\"classic\":%zu", len);
	if (!ret) {
		ok = verdicts_ok(&cls, n);
		printf(",\"ebpf\":%zu,\"verified\":%u,\"load_s\":%.4f,\"verdicts_ok\":%s}\n",
		       cls.filter.cnt, verified_insns(&cls), load_s, ok ? "true" : "false");
		pp_cls_destroy(&cls);
	} else {
		for (char *q = strchr(err, '"'); q; q = strchr(q, '"'))
			*q = '\''; /* JSON string */
		printf(",\"error\":\"%s\"}\n", err);
		fprintf(stderr, "filter_scale: %zu terms: %s\n", n, err);
		ok = ret == -E2BIG; /* a verifier limit, reported: a result */
	}
	fflush(stdout);
	free(p);
	free(expr);
	return ok ? 0 : 1;
}

/* The verifier's log of a refused load is pages long: the error line says it. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int main(int argc, char **argv)
{
	size_t whole_max = 0;
	int i = 1, failed = 0;

	libbpf_set_print(quiet);
	if (argc > 1 && !strcmp(argv[1], "--inner")) {
		xlate_flags = PP_XLATE_INNER;
		argv++;
		argc--;
	}
	if (argc > 2 && !strcmp(argv[1], "--whole-max")) {
		whole_max = strtoul(argv[2], NULL, 10);
		i = 3;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: filter_scale [--inner] [--whole-max N] TERMS...\n");
		return 2;
	}
	for (; i < argc; i++)
		failed |= measure(strtoul(argv[i], NULL, 10), whole_max);
	return failed;
}
