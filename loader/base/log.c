// SPDX-License-Identifier: GPL-2.0
/* The logger of log.h: one place that writes pktpath's messages to stderr. */
#include <stdio.h>
#include <bpf/libbpf.h>
#include "base/log.h"

static int verbose;
static const char *name = "pktpath";

void pp_log_setup(int v, const char *n)
{
	verbose = v;
	if (n)
		name = n;
}

int pp_log_verbose(void)
{
	return verbose;
}

/*
 * One message: "LEAD NAME: " and FMT, as one piece even when the follower
 * thread (tc_follow.c) writes at the same time: stderr is unbuffered, so
 * each call is a write of its own.
 */
static int say(const char *lead, const char *fmt, va_list ap)
{
	int n;

	flockfile(stderr);
	n = fprintf(stderr, "%s%s: ", lead, name);
	n += vfprintf(stderr, fmt, ap);
	funlockfile(stderr);
	return n;
}

int pp_vwarn(const char *fmt, va_list ap)
{
	return say("", fmt, ap);
}

/* FN(fmt, ...): say() with LEAD, only from -v's count MIN_VERBOSE on. */
#define PP_LOG_FN(fn, lead, min_verbose)                                                           \
	int fn(const char *fmt, ...)                                                               \
	{                                                                                          \
		va_list ap;                                                                        \
		int n;                                                                             \
                                                                                                   \
		if (verbose < (min_verbose))                                                       \
			return 0;                                                                  \
		va_start(ap, fmt);                                                                 \
		n = say(lead, fmt, ap);                                                            \
		va_end(ap);                                                                        \
		return n;                                                                          \
	}

PP_LOG_FN(pp_warn, "", 0)
PP_LOG_FN(pp_info, "", 0)
PP_LOG_FN(pp_info_cr, "\r", 0)
PP_LOG_FN(pp_debug, "", 1)

/* libbpf's lines are its own, without our name: its warnings with -v, the rest with -vv. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (verbose < (level == LIBBPF_WARN ? 1 : 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void pp_log_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}
