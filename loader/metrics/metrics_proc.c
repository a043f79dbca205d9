// SPDX-License-Identifier: GPL-2.0
/*
 * The process metrics every Prometheus client library exports, by the same
 * names and units, read from /proc/PID (proc(5)): stat's utime and stime
 * (clock ticks), vsize (bytes) and rss (pages); the entries of fd/; the soft
 * limit of limits' "Max open files".
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "metrics/metrics.h"

static void one(FILE *f, const char *name, const char *type, const char *help, double v)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n%s %.15g\n", name, help, name, type, name, v);
}

/* Fields 14, 15, 23, 24 of stat, counted after the command's closing parenthesis. */
static int read_stat(const char *proc, double *cpu, double *vsize, double *rss)
{
	unsigned long long ut, st, vs;
	long long rs;
	char path[256], line[1024], *p;
	FILE *s;
	int n;

	snprintf(path, sizeof(path), "%s/stat", proc);
	s = fopen(path, "r");
	if (!s)
		return -1;
	p = fgets(line, sizeof(line), s) ? strrchr(line, ')') : NULL;
	fclose(s);
	if (!p)
		return -1;
	/* After ") ": state is field 3; utime 14, stime 15, vsize 23, rss 24. */
	n = sscanf(p + 2,
		   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d "
		   "%*d %*u %llu %lld",
		   &ut, &st, &vs, &rs);
	if (n != 4)
		return -1;
	*cpu = (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
	*vsize = (double)vs;
	*rss = (double)rs * (double)sysconf(_SC_PAGESIZE);
	return 0;
}

static long count_fds(const char *proc)
{
	char path[256];
	struct dirent *e;
	long n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/fd", proc);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* opendir()'s own */
}

static double max_fds(const char *proc)
{
	char path[256], line[256];
	double v = -1;
	FILE *s;

	snprintf(path, sizeof(path), "%s/limits", proc);
	s = fopen(path, "r");
	if (!s)
		return -1;
	while (fgets(line, sizeof(line), s))
		if (!strncmp(line, "Max open files", 14) && sscanf(line + 14, "%lf", &v) != 1)
			v = -1;
	fclose(s);
	return v;
}

void pp_metrics_proc(FILE *f, const char *proc, double start_time)
{
	double cpu, vsize, rss, mfd = max_fds(proc);
	long fds = count_fds(proc);

	if (!read_stat(proc, &cpu, &vsize, &rss)) {
		one(f, "process_cpu_seconds_total", "counter",
		    "Total user and system CPU time spent in seconds.", cpu);
		one(f, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.",
		    vsize);
		one(f, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
		    rss);
	}
	one(f, "process_start_time_seconds", "gauge",
	    "Start time of the process since unix epoch in seconds.", start_time);
	if (fds >= 0)
		one(f, "process_open_fds", "gauge", "Number of open file descriptors.",
		    (double)fds);
	if (mfd >= 0)
		one(f, "process_max_fds", "gauge", "Maximum number of open file descriptors.", mfd);
}
