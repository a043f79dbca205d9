// SPDX-License-Identifier: GPL-2.0
/* The logger of log.h: one place that writes pktpath's messages to stderr. */
#include <stdio.h>
#include <bpf/libbpf.h>
#include "log.h"

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

static int say(const char *lead, const char *fmt, va_list ap)
{
	int n = fprintf(stderr, "%s%s: ", lead, name);

	return n + vfprintf(stderr, fmt, ap);
}

int pp_vwarn(const char *fmt, va_list ap)
{
	return say("", fmt, ap);
}

int pp_warn(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = say("", fmt, ap);
	va_end(ap);
	return n;
}

int pp_info(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = say("", fmt, ap);
	va_end(ap);
	return n;
}

int pp_info_cr(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = say("\r", fmt, ap);
	va_end(ap);
	return n;
}

int pp_debug(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (verbose < 1)
		return 0;
	va_start(ap, fmt);
	n = say("", fmt, ap);
	va_end(ap);
	return n;
}

/* libbpf's lines are its own, without our name: its warnings with -v, the rest with -vv. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (verbose < 2 && level != LIBBPF_WARN)
		return 0;
	if (verbose < 1)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void pp_log_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}
