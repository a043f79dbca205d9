// SPDX-License-Identifier: GPL-2.0
/*
 * One scan: each /run/netns entry's inode (stat: `ip netns add` bind-mounts
 * the namespace there), then each process's /proc/PID/ns/net, and for a
 * process outside the host's namespace its /proc/PID/cgroup (ctr_id.c) and
 * the runtime's metadata (ctr_meta.c). The host's processes, most of them,
 * cost a readlink each.
 *
 * Namespace inodes are reused once a namespace is freed (the proc inode
 * numbers are an IDA), so a name is checked against its source again (the
 * process's or the bind mount's inode) at most every PP_NAMES_RECHECK_MS,
 * and dropped when the source has gone or moved.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "names/netns_names.h"

#define PP_NAMES_MIN_SLOTS 64
#define PP_NAMES_PATH	   512

struct entry {
	struct pp_ns_name n;
	bool used;
	bool known;		  /* false: a miss, remembered so as not to scan per record */
	__u64 checked_ms;	  /* when the source was last checked (or the miss seen) */
	int pid;		  /* the process it was named from, 0: none */
	char path[PP_NAMES_PATH]; /* else the namespace file it was named from */
};

struct pp_netns_cache {
	char root[256];
	struct entry *slots;
	size_t nslots, used;
	__u64 last_scan_ms;
	__u64 scans;
	bool scanned;
	__u32 host_ino; /* PID 1's namespace, 0 if unreadable */
};

static __u64 mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (__u64)ts.tv_sec * 1000 + (__u64)ts.tv_nsec / 1000000;
}

static size_t slot_of(const struct pp_netns_cache *n, __u32 inode)
{
	size_t i = (inode * 2654435761U) & (n->nslots - 1);

	while (n->slots[i].used && n->slots[i].n.inode != inode)
		i = (i + 1) & (n->nslots - 1);
	return i;
}

static struct entry *find(const struct pp_netns_cache *n, __u32 inode)
{
	struct entry *e = &n->slots[slot_of(n, inode)];

	return e->used ? e : NULL;
}

static int grow(struct pp_netns_cache *n)
{
	size_t old = n->nslots, want = old ? old * 2 : PP_NAMES_MIN_SLOTS;
	struct entry *was = n->slots, *now = calloc(want, sizeof(*now));

	if (!now)
		return -ENOMEM;
	n->slots = now;
	n->nslots = want;
	for (size_t i = 0; i < old; i++)
		if (was[i].used)
			now[slot_of(n, was[i].n.inode)] = was[i];
	free(was);
	return 0;
}

/* The entry of INODE, made if new (NULL on ENOMEM). */
static struct entry *get(struct pp_netns_cache *n, __u32 inode)
{
	struct entry *e;

	if ((n->used + 1) * 4 > n->nslots * 3 && grow(n))
		return NULL;
	e = &n->slots[slot_of(n, inode)];
	if (!e->used) {
		memset(e, 0, sizeof(*e));
		e->used = true;
		e->n.inode = inode;
		n->used++;
	}
	return e;
}

/* "net:[4026532177]" -> 4026532177; 0 if LINK is not a network namespace's. */
static __u32 ns_link_inode(const char *link)
{
	unsigned long v;
	char *end;

	if (strncmp(link, "net:[", 5))
		return 0;
	v = strtoul(link + 5, &end, 10);
	return *end == ']' && v <= 0xffffffffUL ? (__u32)v : 0;
}

__u32 pp_pid_netns(const char *root, int pid)
{
	char path[PP_NAMES_PATH], link[64];
	ssize_t len;

	snprintf(path, sizeof(path), "%s/proc/%d/ns/net", root, pid);
	len = readlink(path, link, sizeof(link) - 1);
	if (len <= 0)
		return 0;
	link[len] = 0;
	return ns_link_inode(link);
}

static __u32 netns_file_inode(const struct pp_netns_cache *n, const char *name)
{
	char path[PP_NAMES_PATH];
	int len = snprintf(path, sizeof(path), "%s/run/netns/%s", n->root, name);
	struct stat st;

	if (len < 0 || (size_t)len >= sizeof(path) || stat(path, &st))
		return 0;
	return (__u32)st.st_ino;
}

/*
 * Names are file names and the runtimes' strings: any byte but '/' and NUL.
 * A space, a control byte or a non-ASCII one becomes '?', as in device
 * names, so that a name can neither split a column nor move the terminal.
 */
static void printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
			*s = '?';
}

/* The display name, from what is known: host, container (pod), ip netns name. */
static void label(struct entry *e)
{
	struct pp_ctr *c = &e->n.ctr;

	printable(e->n.netns);
	printable(c->name);
	printable(c->pod);
	printable(c->pod_ns);
	if (e->n.host)
		snprintf(e->n.name, sizeof(e->n.name), "host");
	else if (e->n.has_ctr && c->pod[0])
		snprintf(e->n.name, sizeof(e->n.name), "%s", c->pod);
	else if (e->n.has_ctr && c->name[0])
		snprintf(e->n.name, sizeof(e->n.name), "%s", c->name);
	else if (e->n.has_ctr)
		snprintf(e->n.name, sizeof(e->n.name), "%.*s", PP_CTR_SHORT_ID, c->id);
	else
		snprintf(e->n.name, sizeof(e->n.name), "%s", e->n.netns);
	e->known = e->n.name[0] != 0;
}

static void scan_run_netns(struct pp_netns_cache *n, __u64 now)
{
	char dir[PP_NAMES_PATH];
	struct dirent *d;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/run/netns", n->root);
	dp = opendir(dir);
	while (dp && (d = readdir(dp))) {
		__u32 ino = d->d_name[0] != '.' ? netns_file_inode(n, d->d_name) : 0;
		struct entry *e = ino ? get(n, ino) : NULL;

		/* Longer names than PP_NETNS_NAME_MAX would print cut: left unnamed. */
		if (!e || e->n.netns[0] || strlen(d->d_name) >= sizeof(e->n.netns))
			continue;
		memcpy(e->n.netns, d->d_name, strlen(d->d_name) + 1);
		e->checked_ms = now;
		label(e);
	}
	if (dp)
		closedir(dp);
}

/* The container of process PID, into E if it is one (a sandbox only if E has none). */
static void pid_ctr(struct pp_netns_cache *n, struct entry *e, int pid)
{
	struct pp_ctr c;

	if (pp_pid_ctr(n->root, pid, &c))
		return;
	e->n.ctr = c;
	e->n.has_ctr = true;
	e->pid = pid;
	e->path[0] = 0;
	label(e);
}

struct spec_walk {
	struct pp_netns_cache *n;
	__u64 now;
};

/* A container's namespace file, from its runtime's files (ctr_meta.c). */
static void spec_netns(enum pp_rt rt, const char *id, const char *path, void *arg)
{
	struct spec_walk *sw = arg;
	char full[PP_NAMES_PATH];
	int len = snprintf(full, sizeof(full), "%s%s", sw->n->root, path);
	struct entry *e;
	struct stat st;
	struct pp_ctr c;

	if (len < 0 || (size_t)len >= sizeof(full) || stat(full, &st))
		return;
	e = get(sw->n, (__u32)st.st_ino);
	if (!e || (e->n.has_ctr && !e->n.ctr.sandbox) || pp_ctr_meta(sw->n->root, rt, id, &c))
		return;
	if (e->n.has_ctr && !c.sandbox)
		return;
	e->n.ctr = c;
	e->n.has_ctr = true;
	e->checked_ms = sw->now;
	snprintf(e->path, sizeof(e->path), "%s", full);
	label(e);
}

static void scan_proc(struct pp_netns_cache *n, __u64 now)
{
	char dir[PP_NAMES_PATH];
	struct dirent *d;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/proc", n->root);
	dp = opendir(dir);
	while (dp && (d = readdir(dp))) {
		int pid = atoi(d->d_name);
		__u32 ino = pid > 0 ? pp_pid_netns(n->root, pid) : 0;
		struct entry *e;

		if (!ino || ino == n->host_ino || ino == PP_NET_INIT_INO)
			continue;
		e = get(n, ino);
		/* A pod's sandbox names it until one of its containers is found. */
		if (!e || (e->n.has_ctr && !e->n.ctr.sandbox))
			continue;
		if (!e->pid)
			e->pid = pid;
		e->checked_ms = now;
		pid_ctr(n, e, pid);
	}
	if (dp)
		closedir(dp);
}

static void mark_host(struct pp_netns_cache *n, __u32 ino, __u64 now)
{
	struct entry *e = ino ? get(n, ino) : NULL;

	if (!e)
		return;
	e->n.host = true;
	e->checked_ms = now;
	label(e);
}

static void scan(struct pp_netns_cache *n, __u64 now)
{
	n->host_ino = pp_pid_netns(n->root, 1);
	mark_host(n, n->host_ino, now);
	mark_host(n, PP_NET_INIT_INO, now);
	struct spec_walk sw = {.n = n, .now = now};

	scan_run_netns(n, now);
	pp_ctr_each_netns(n->root, spec_netns, &sw);
	scan_proc(n, now);
	n->last_scan_ms = now;
	n->scanned = true;
	n->scans++;
}

struct pp_netns_cache *pp_netns_cache_new(const char *root)
{
	struct pp_netns_cache *n = calloc(1, sizeof(*n));

	if (!n || grow(n)) {
		free(n);
		return NULL;
	}
	snprintf(n->root, sizeof(n->root), "%s", root && strcmp(root, "/") ? root : "");
	scan(n, mono_ms());
	return n;
}

void pp_netns_cache_free(struct pp_netns_cache *n)
{
	if (!n)
		return;
	free(n->slots);
	free(n);
}

__u64 pp_netns_cache_scans(const struct pp_netns_cache *n)
{
	return n->scans;
}

/* Is E's name still true: its process or bind mount still in that namespace? */
static bool still_true(const struct pp_netns_cache *n, const struct entry *e)
{
	struct stat st;

	if (e->n.host)
		return true;
	if (e->n.has_ctr && e->path[0])
		return !stat(e->path, &st) && (__u32)st.st_ino == e->n.inode;
	if (e->n.has_ctr || (e->pid && !e->n.netns[0]))
		return pp_pid_netns(n->root, e->pid) == e->n.inode;
	return netns_file_inode(n, e->n.netns) == e->n.inode;
}

static void forget(struct pp_netns_cache *n, struct entry *e)
{
	/* Open addressing: take the entry out, then put back the run after it. */
	e->used = false;
	n->used--;
	for (size_t i = (size_t)(e - n->slots + 1) & (n->nslots - 1); n->slots[i].used;
	     i = (i + 1) & (n->nslots - 1)) {
		struct entry moved = n->slots[i];

		n->slots[i].used = false;
		n->slots[slot_of(n, moved.n.inode)] = moved;
	}
}

const struct pp_ns_name *pp_netns_cache_get_at(struct pp_netns_cache *n, __u32 inode, __u64 now_ms)
{
	struct entry *e;

	if (!n || !inode)
		return NULL;
	e = find(n, inode);
	if (e && e->known && now_ms - e->checked_ms < PP_NAMES_RECHECK_MS)
		return &e->n;
	if (e && e->known && still_true(n, e)) {
		e->checked_ms = now_ms;
		return &e->n;
	}
	if (e && e->known)
		forget(n, e);
	else if (e && now_ms - e->checked_ms < PP_NAMES_RECHECK_MS)
		return NULL; /* a recent miss: no scan per record */
	if (now_ms - n->last_scan_ms < PP_NAMES_RESCAN_MS)
		return NULL;
	scan(n, now_ms);
	e = get(n, inode);
	if (e && !e->known)
		e->checked_ms = now_ms;
	return e && e->known ? &e->n : NULL;
}

const struct pp_ns_name *pp_netns_cache_get(struct pp_netns_cache *n, __u32 inode)
{
	return pp_netns_cache_get_at(n, inode, mono_ms());
}

static bool matches(const struct entry *e, const char *name)
{
	if (!strcmp(name, e->n.name) || !strcmp(name, e->n.netns))
		return true;
	return e->n.has_ctr && pp_ctr_matches(&e->n.ctr, name);
}

size_t pp_netns_cache_find(struct pp_netns_cache *n, const char *name, __u32 *inodes, size_t max)
{
	size_t got = 0;

	if (!name[0])
		return 0;
	for (size_t i = 0; i < n->nslots; i++) {
		const struct entry *e = &n->slots[i];

		if (!e->used || !e->known || !matches(e, name))
			continue;
		if (got < max)
			inodes[got] = e->n.inode;
		got++;
	}
	return got;
}
