/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One logger for what pktpath says on stderr: "NAME: " and the message,
 * NAME "pktpath" (or "pktpath report"). Warnings and notes always print;
 * debug lines only with -v. libbpf's own messages come through here too,
 * as libbpf wrote them: its warnings with -v, the rest with -vv (failures
 * are reported by pktpath's own words).
 * A message carries its own "\n", as printf's would; each returns the
 * characters written (a warning wrapped to a width counts them), 0 if none.
 */
#ifndef PP_LOG_H
#define PP_LOG_H

#include <stdarg.h>
#include <stdbool.h>

#define PP_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* -v's count; and the name before each message ("pktpath" until set). */
void pp_log_setup(int verbose, const char *name);
int pp_log_verbose(void);
static inline bool pp_log_debug_on(void)
{
	return pp_log_verbose() > 0;
}

int pp_warn(const char *fmt, ...) PP_PRINTF(1, 2);  /* something failed or is missing */
int pp_info(const char *fmt, ...) PP_PRINTF(1, 2);  /* what pktpath did, said always */
int pp_debug(const char *fmt, ...) PP_PRINTF(1, 2); /* only with -v */
int pp_vwarn(const char *fmt, va_list ap) PP_PRINTF(1, 0);
/* A note that starts with "\r": it overwrites a progress line. */
int pp_info_cr(const char *fmt, ...) PP_PRINTF(1, 2);

/* libbpf_set_print() to the logger. */
void pp_log_libbpf(void);

#endif /* PP_LOG_H */
