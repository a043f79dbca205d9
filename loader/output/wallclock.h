/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wall-clock times for the probes' times. bpf_ktime_get_ns() is
 * CLOCK_MONOTONIC; a date is CLOCK_MONOTONIC plus CLOCK_REALTIME -
 * CLOCK_MONOTONIC, measured once at the start. Both clocks are slewed
 * alike by NTP (adjtimex), so the offset holds until the wall clock is
 * stepped (settimeofday, clock_settime, an NTP step) or the host suspends
 * (CLOCK_MONOTONIC stops, CLOCK_REALTIME does not): pp_wallclock_moved()
 * tells at the end.
 */
#ifndef PP_WALLCLOCK_H
#define PP_WALLCLOCK_H

#include <stddef.h>
#include <linux/types.h>

struct pp_wallclock {
	__s64 off;    /* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
	__u64 err_ns; /* off is within +-err_ns of the true offset at the measure */
};

/*
 * Measure the offset: each try reads CLOCK_MONOTONIC, CLOCK_REALTIME,
 * CLOCK_MONOTONIC, and the tightest bracket wins (a preemption between
 * two reads only widens a try). Also reads the time zone now, while files
 * may still be opened (privs.h: pktpath's seccomp filter).
 */
void pp_wallclock_measure(struct pp_wallclock *w);

/*
 * How far the offset moved since W was measured, in ns (0 when within
 * the two measures' error and a microsecond): the wall clock was stepped
 * or the host slept.
 */
__s64 pp_wallclock_moved(const struct pp_wallclock *w);

#define PP_HMS_LEN 16 /* "HH:MM:SS.uuuuuu" and its NUL */

/* REAL_NS (ns since 1970) as local time "HH:MM:SS.uuuuuu", as tcpdump's. */
void pp_wallclock_hms(__u64 real_ns, char buf[PP_HMS_LEN]);

#endif /* PP_WALLCLOCK_H */
