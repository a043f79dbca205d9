// SPDX-License-Identifier: GPL-2.0
/* Which process holds a socket: see sock_owner.h. */
#include "names/sock_owner.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/grow.h"
#include "names/ctr_meta.h"

/* The most sockets kept; past it, what the last scan did not see goes. */
#define PP_SOCK_MAX    65536
#define PP_SOCK_MISSES 64

struct sock_ent {
	__u32 ino;
	__u32 gen; /* the scan that saw it last */
	struct pp_sock_owner o;
};

/* Processes' places, read once each (a pid's slot: pid % PP_SOCK_PLACES). */
#define PP_SOCK_PLACES 256

struct place_slot {
	__u32 pid; /* 0: empty */
	enum pp_place kind;
	char place[PP_SOCK_PLACELEN];
};

struct sock_miss {
	__u32 ino;
	__u64 ms;
};

struct pp_sock_owners {
	char root[PATH_MAX];
	char proc[PATH_MAX];
	struct sock_ent *ents;
	size_t n, cap;
	__u32 gen;
	__u64 window_ms; /* when the budget's second began */
	__u64 spent_us;	 /* the scans' time in it */
	struct sock_miss miss[PP_SOCK_MISSES];
	size_t next_miss;
	struct place_slot places[PP_SOCK_PLACES];
};

struct pp_sock_owners *pp_sock_owners_new(const char *root)
{
	struct pp_sock_owners *s = calloc(1, sizeof(*s));

	if (s) {
		snprintf(s->root, sizeof(s->root), "%s", root);
		snprintf(s->proc, sizeof(s->proc), "%s/proc", root);
	}
	return s;
}

void pp_sock_owners_free(struct pp_sock_owners *s)
{
	if (!s)
		return;
	free(s->ents);
	free(s);
}

int pp_sock_link_ino(const char *link, __u32 *ino)
{
	unsigned long v;
	char *end;

	if (strncmp(link, "socket:[", 8) != 0)
		return -1;
	v = strtoul(link + 8, &end, 10);
	if (end == link + 8 || strcmp(end, "]") != 0 || v > UINT32_MAX)
		return -1;
	*ino = (__u32)v;
	return 0;
}

static int add(struct pp_sock_owners *s, __u32 ino, const struct pp_sock_owner *o)
{
	if (pp_grow(&s->ents, &s->cap, s->n + 1, sizeof(*s->ents), 256, PP_SOCK_MAX * 2))
		return -1;
	s->ents[s->n++] = (struct sock_ent){.ino = ino, .gen = s->gen, .o = *o};
	return 0;
}

bool pp_proc_comm(int pidfd, char *comm)
{
	int fd = openat(pidfd, "comm", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, comm, PP_SOCK_COMMLEN - 1);
	close(fd);
	if (n <= 0)
		return false;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	return true;
}

void pp_sock_fds(int pidfd, bool (*cb)(void *arg, int fd, __u32 ino), void *arg)
{
	int fdfd = openat(pidfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fdfd < 0 ? NULL : fdopendir(fdfd);
	struct dirent *e;
	char link[64];

	if (!d) {
		if (fdfd >= 0)
			close(fdfd);
		return;
	}
	while ((e = readdir(d))) {
		ssize_t n = readlinkat(fdfd, e->d_name, link, sizeof(link) - 1);
		__u32 ino;

		if (n <= 0)
			continue;
		link[n] = '\0';
		if (!pp_sock_link_ino(link, &ino) && !cb(arg, atoi(e->d_name), ino))
			break;
	}
	closedir(d);
}

struct scan_ctx {
	struct pp_sock_owners *s;
	int pidfd;
	struct pp_sock_owner o;
};

/* One socket of the process scanned: its comm read at the first. */
static bool scan_one(void *arg, int fd, __u32 ino)
{
	struct scan_ctx *c = arg;

	(void)fd;
	if (!c->o.comm[0] && !pp_proc_comm(c->pidfd, c->o.comm))
		return false;
	return !add(c->s, ino, &c->o);
}

/* The sockets process PID (its /proc directory open as PIDFD) holds. */
static void scan_pid(struct pp_sock_owners *s, int pidfd, __u32 pid)
{
	struct scan_ctx c = {.s = s, .pidfd = pidfd, .o.pid = pid};

	pp_sock_fds(pidfd, scan_one, &c);
}

static int by_ino(const void *a, const void *b)
{
	const struct sock_ent *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->gen != y->gen) /* the newest scan first */
		return x->gen > y->gen ? -1 : 1;
	return x->o.pid < y->o.pid ? -1 : x->o.pid > y->o.pid;
}

/* Sorted by inode, one entry each (the newest scan's lowest pid); past PP_SOCK_MAX, only the newest
 * scan's. */
static void settle(struct pp_sock_owners *s)
{
	size_t k = 0;

	qsort(s->ents, s->n, sizeof(*s->ents), by_ino);
	for (size_t i = 0; i < s->n; i++) {
		if (k && s->ents[k - 1].ino == s->ents[i].ino)
			continue;
		s->ents[k++] = s->ents[i];
	}
	s->n = k;
	if (s->n <= PP_SOCK_MAX)
		return;
	k = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->ents[i].gen == s->gen)
			s->ents[k++] = s->ents[i];
	s->n = k;
}

static void scan(struct pp_sock_owners *s)
{
	int procfd = open(s->proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *e;
	DIR *d;

	s->gen++;
	if (procfd < 0)
		return;
	d = fdopendir(procfd);
	if (!d) {
		close(procfd);
		return;
	}
	while ((e = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(e->d_name, &end, 10);
		int pidfd;

		if (*end || end == e->d_name || pid > UINT32_MAX)
			continue;
		pidfd = openat(procfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (pidfd < 0)
			continue;
		scan_pid(s, pidfd, (__u32)pid);
		close(pidfd);
	}
	closedir(d);
	settle(s);
}

static const struct sock_ent *find(const struct pp_sock_owners *s, __u32 ino)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ents[mid].ino == ino)
			return &s->ents[mid];
		if (s->ents[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Whether INO missed a scan less than PP_SOCK_MISS_MS ago. */
static bool missed(const struct pp_sock_owners *s, __u32 ino, __u64 now_ms)
{
	for (size_t i = 0; i < PP_SOCK_MISSES; i++)
		if (s->miss[i].ino == ino && now_ms - s->miss[i].ms < PP_SOCK_MISS_MS)
			return true;
	return false;
}

static __u64 mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000 + (__u64)ts.tv_nsec / 1000;
}

/* Whether a scan now keeps the last second's within PP_SOCK_SCAN_BUDGET_MS. */
static bool scan_allowed(struct pp_sock_owners *s, __u64 now_ms)
{
	if (now_ms - s->window_ms >= 1000) {
		s->window_ms = now_ms;
		s->spent_us = 0;
	}
	return s->spent_us < PP_SOCK_SCAN_BUDGET_MS * 1000;
}

bool pp_cgroup_unit(const char *path, char *unit, size_t len)
{
	const char *best = NULL, *p = path;
	size_t n = 0;

	while (*p) {
		size_t k;

		p += strspn(p, "/");
		k = strcspn(p, "/\n");
		if (k > 8 && !strncmp(p + k - 8, ".service", 8)) {
			best = p;
			n = k;
		}
		p += k;
		if (*p == '\n')
			break;
	}
	if (!best || n >= len)
		return false;
	memcpy(unit, best, n);
	unit[n] = '\0';
	return true;
}

/* The cgroup v2 line's path ("0::/PATH") of process PID into BUF: false if gone. */
static bool cgroup_path(const struct pp_sock_owners *s, __u32 pid, char *buf, size_t len)
{
	char path[PATH_MAX + 32], text[4096], *at;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u/cgroup", s->proc, pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	at = !strncmp(text, "0::", 3) ? text : strstr(text, "\n0::");
	if (!at)
		return false;
	at += at == text ? 3 : 4;
	snprintf(buf, len, "%.*s", (int)strcspn(at, "\n"), at);
	return true;
}

/* O's container or unit into O->place (ctr_meta.h; else its cgroup's service). */
static void place(const struct pp_sock_owners *s, struct pp_sock_owner *o)
{
	char cg[1024];
	struct pp_ctr c;

	o->place_kind = PP_PLACE_NONE;
	o->place[0] = '\0';
	if (!pp_pid_ctr(s->root, (int)o->pid, &c)) {
		o->place_kind = PP_PLACE_CONTAINER;
		if (c.name[0] || c.pod[0])
			snprintf(o->place, sizeof(o->place), "%.*s", (int)sizeof(o->place) - 1,
				 c.name[0] ? c.name : c.pod);
		else
			snprintf(o->place, sizeof(o->place), "%.12s", c.id);
	} else if (cgroup_path(s, o->pid, cg, sizeof(cg)) &&
		   pp_cgroup_unit(cg, o->place, sizeof(o->place))) {
		o->place_kind = PP_PLACE_UNIT;
	}
}

bool pp_sock_owner(struct pp_sock_owners *s, __u32 ino, __u64 now_ms, struct pp_sock_owner *o)
{
	const struct sock_ent *e = ino ? find(s, ino) : NULL;
	__u64 t0;

	if (!e && ino && !missed(s, ino, now_ms) && scan_allowed(s, now_ms)) {
		t0 = mono_us();
		scan(s);
		s->spent_us += mono_us() - t0;
		e = find(s, ino);
		if (!e) {
			s->miss[s->next_miss] = (struct sock_miss){.ino = ino, .ms = now_ms};
			s->next_miss = (s->next_miss + 1) % PP_SOCK_MISSES;
		}
	}
	if (!e)
		return false;
	*o = e->o;
	pp_sock_owner_place(s, o);
	return true;
}

void pp_sock_owner_place(struct pp_sock_owners *s, struct pp_sock_owner *o)
{
	struct place_slot *p = &s->places[o->pid % PP_SOCK_PLACES];

	if (p->pid != o->pid) {
		place(s, o);
		*p = (struct place_slot){.pid = o->pid, .kind = o->place_kind};
		memcpy(p->place, o->place, sizeof(p->place));
		return;
	}
	o->place_kind = p->kind;
	memcpy(o->place, p->place, sizeof(o->place));
}

void pp_sock_owner_note(struct pp_sock_owners *s, __u32 ino, const struct pp_sock_owner *o)
{
	if (!ino || find(s, ino) || add(s, ino, o))
		return;
	settle(s);
}
