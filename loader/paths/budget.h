/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --cpu-budget: the paths a second that keep pktpath's own CPU time within
 * a share of one CPU. Once a second the loader gives its CPU time (the
 * process's, and its programs' estimated from the records they made) and
 * the paths followed so far. The CPU time is taken as a fixed
 * part (the loop's, learned in the seconds that followed no path) plus a
 * cost per path (the rest of a second that followed some, per path; the
 * whole of it while the fixed part is unknown: the estimate errs high),
 * each averaged with its last value. The rate becomes what the budget left
 * by the fixed part buys at that cost, at most PP_BUDGET_STEP times the last
 * rate (a wrong estimate cannot flood the loader), never above the ceiling
 * (--max-rate) nor below one path a second. BPF-free.
 */
#ifndef PP_BUDGET_H
#define PP_BUDGET_H

#include <linux/types.h>

#define PP_BUDGET_TICK_NS 1000000000ULL
#define PP_BUDGET_START	  100	       /* paths a second before any cost is known */
#define PP_BUDGET_CEILING 100000000ULL /* paths a second at most without --max-rate */
#define PP_BUDGET_STEP	  4	       /* the most the rate grows in a tick */
/*
 * The probe programs' time per record: their work for a followed packet
 * runs in other tasks, not pktpath's. bench/cpu_budget.sh measured the
 * programs' time above the untracked floor at about a microsecond a path
 * followed, of three to four records (docs/PERFORMANCE.md, "A CPU budget
 * for paths").
 */
#define PP_BUDGET_PROG_NS 300

struct pp_budget {
	double share;	   /* of one CPU: 0.05 is 5% */
	__u64 ceiling;	   /* paths a second at most */
	__u64 rate;	   /* paths a second allowed now */
	double fixed_ns;   /* CPU time a second with no path; 0: not known yet */
	double cost_ns;	   /* CPU time per path; 0: not known yet */
	__u64 last_ns;	   /* the last tick */
	__u64 last_cpu_ns; /* the process's CPU time then */
	__u64 last_paths;  /* paths followed by then */
	__u64 over;	   /* ticks whose CPU time passed the budget */
};

/* A budget of SHARE of one CPU, CEILING paths a second at most, from NOW and CPU_NS. */
void pp_budget_init(struct pp_budget *b, double share, __u64 ceiling, __u64 cpu_ns, __u64 now);

/*
 * CPU_NS: the process's CPU time, PATHS: paths followed since the start,
 * at NOW (ns). Returns the paths a second for the next second, or 0 if it
 * is not time for a tick.
 */
__u64 pp_budget_tick(struct pp_budget *b, __u64 cpu_ns, __u64 paths, __u64 now);

#endif
