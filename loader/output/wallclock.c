// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <time.h>
#include "output/wallclock.h"

#define PP_WALLCLOCK_TRIES 16
/* Below the text's microseconds: a smaller move is not worth a word. */
#define PP_WALLCLOCK_SLACK_NS 1000

static __s64 ns_of(const struct timespec *t)
{
	return (__s64)t->tv_sec * 1000000000LL + t->tv_nsec;
}

void pp_wallclock_measure(struct pp_wallclock *w)
{
	struct timespec m1, r, m2;
	__u64 best = ~0ULL;

	for (int i = 0; i < PP_WALLCLOCK_TRIES; i++) {
		clock_gettime(CLOCK_MONOTONIC, &m1);
		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &m2);
		if ((__u64)(ns_of(&m2) - ns_of(&m1)) >= best)
			continue;
		best = (__u64)(ns_of(&m2) - ns_of(&m1));
		/* REALTIME was read within [m1, m2]: the middle is off by best / 2 at most. */
		w->off = ns_of(&r) - (ns_of(&m1) + (__s64)best / 2);
		w->err_ns = (best + 1) / 2;
	}
	tzset();
}

__s64 pp_wallclock_moved(const struct pp_wallclock *w)
{
	struct pp_wallclock now;
	__s64 d;

	pp_wallclock_measure(&now);
	d = now.off - w->off;
	if ((__u64)(d < 0 ? -d : d) <= now.err_ns + w->err_ns + PP_WALLCLOCK_SLACK_NS)
		return 0;
	return d;
}

void pp_wallclock_hms(__u64 real_ns, char buf[PP_HMS_LEN])
{
	/* Lines come in bursts within a second: localtime_r() once a second. */
	static __thread time_t last = -1;
	static __thread struct tm tm;
	time_t sec = (time_t)(real_ns / 1000000000ULL);

	if (sec != last && localtime_r(&sec, &tm))
		last = sec;
	if (sec != last) {
		snprintf(buf, PP_HMS_LEN, "??:??:??.%06u",
			 (unsigned int)(real_ns / 1000 % 1000000));
		return;
	}
	/* The modulos only tell the compiler that each field has two digits. */
	snprintf(buf, PP_HMS_LEN, "%02u:%02u:%02u.%06u", (unsigned int)tm.tm_hour % 100,
		 (unsigned int)tm.tm_min % 100, (unsigned int)tm.tm_sec % 100,
		 (unsigned int)(real_ns / 1000 % 1000000));
}
