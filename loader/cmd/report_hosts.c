// SPDX-License-Identifier: GPL-2.0
/*
 * Each packet line with a "key" and a "real_ns" becomes a part: its host
 * ("host": name and boot id; a file without it is a host named after the
 * file), its wall-clock span (real_ns, plus its last hop's t_ns), and the
 * line itself, kept to print. Lines of other kinds, and packet lines
 * without a key (no mark, not IP) or a time, are counted, not joined.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "cmd/cli.h"
#include "cmd/report_hosts.h"
#include "report/report_join.h"
#include "base/log.h"

struct host {
	char name[256];
	char boot_id[64];
};

struct hosts;
struct totals;

/* A format's printers of the joins: each joined packet, then the totals. */
struct join_ops {
	const char *format;
	void (*joined)(struct hosts *s, const struct pp_jpart *p, size_t n, __u64 skew, size_t at,
		       enum pp_skew_by by);
	void (*totals)(struct hosts *s, const struct totals *t);
};

struct hosts {
	const struct pp_hosts_opts *o;
	const struct join_ops *ops; /* by o->format */
	struct host h[PP_JOIN_MAX_HOSTS];
	size_t nh;
	json_object **lines; /* the parts' lines, by pp_jpart.src */
	struct pp_jpart *parts;
	size_t n, cap;
	unsigned long long unkeyed, others;
};

static const char *str_at(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : NULL;
}

static bool u64_at(json_object *o, const char *key, __u64 *out)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return false;
	*out = (__u64)json_object_get_uint64(v);
	return true;
}

/* The host of line O of FILE: its "host" object, else FILE itself. -1: too many. */
static int host_of(struct hosts *s, json_object *o, const char *file)
{
	json_object *h = NULL;
	const char *name = file, *boot = "";

	if (json_object_object_get_ex(o, "host", &h) && str_at(h, "name")) {
		name = str_at(h, "name");
		boot = str_at(h, "boot_id") ? str_at(h, "boot_id") : "";
	}
	for (size_t i = 0; i < s->nh; i++)
		if (!strcmp(s->h[i].name, name) && !strcmp(s->h[i].boot_id, boot))
			return (int)i;
	if (s->nh == PP_JOIN_MAX_HOSTS)
		return -1;
	snprintf(s->h[s->nh].name, sizeof(s->h[0].name), "%s", name);
	snprintf(s->h[s->nh].boot_id, sizeof(s->h[0].boot_id), "%s", boot);
	return (int)s->nh++;
}

/* The boot id, hashed: inodes compare only within one boot. 0: none. */
static __u64 boot_of(json_object *o)
{
	json_object *h;
	const char *b;
	__u64 x = 0xcbf29ce484222325ULL;

	if (!json_object_object_get_ex(o, "host", &h) || !(b = str_at(h, "boot_id")) || !*b)
		return 0;
	for (; *b; b++)
		x = (x ^ (unsigned char)*b) * 0x100000001b3ULL;
	return x ? x : 1;
}

/* Hop I's netns inode (-1: the last), 0 if none. */
static __u32 netns_at(json_object *o, long i)
{
	json_object *hops, *h;
	size_t n;
	__u64 v = 0;

	if (!json_object_object_get_ex(o, "hops", &hops) ||
	    !json_object_is_type(hops, json_type_array))
		return 0;
	n = json_object_array_length(hops);
	if (!n)
		return 0;
	h = json_object_array_get_idx(hops, i < 0 ? n - 1 : (size_t)i);
	return h && u64_at(h, "netns", &v) ? (__u32)v : 0;
}

static bool left_scope(json_object *o)
{
	json_object *f;
	const char *k;

	return json_object_object_get_ex(o, "fate", &f) && (k = str_at(f, "kind")) &&
	       !strcmp(k, "left");
}

/* The wall-clock end: real_ns plus the last hop's t_ns. */
static __u64 end_of(json_object *o, __u64 start)
{
	json_object *hops, *last;
	__u64 t = 0;
	size_t n;

	if (!json_object_object_get_ex(o, "hops", &hops) ||
	    !json_object_is_type(hops, json_type_array))
		return start;
	n = json_object_array_length(hops);
	last = n ? json_object_array_get_idx(hops, n - 1) : NULL;
	if (last)
		u64_at(last, "t_ns", &t);
	return start + t;
}

static int grow(struct hosts *s)
{
	size_t cap = s->cap ? 2 * s->cap : 1024;
	struct pp_jpart *p = realloc(s->parts, cap * sizeof(*p));
	json_object **l;

	if (!p)
		return -ENOMEM;
	s->parts = p;
	l = realloc(s->lines, cap * sizeof(*l));
	if (!l)
		return -ENOMEM;
	s->lines = l;
	s->cap = cap;
	return 0;
}

/* One line of FILE: a part, or counted. 0, -ENOMEM, or -E2BIG (too many hosts). */
static int add_line(struct hosts *s, json_object *o, const char *file)
{
	const char *key = str_at(o, "key");
	struct pp_jpart *p;
	__u64 real;
	int host;

	if (!json_object_object_get_ex(o, "id", NULL) ||
	    !json_object_object_get_ex(o, "hops", NULL)) {
		s->others++;
		return 1;
	}
	if (!key || strlen(key) != 16 || !u64_at(o, "real_ns", &real)) {
		s->unkeyed++;
		return 1;
	}
	host = host_of(s, o, file);
	if (host < 0)
		return -E2BIG;
	if (s->n == s->cap && grow(s))
		return -ENOMEM;
	p = &s->parts[s->n];
	*p = (struct pp_jpart){.key = strtoull(key, NULL, 16),
			       .start_ns = real,
			       .end_ns = end_of(o, real),
			       .host = (__u32)host,
			       .netns = netns_at(o, 0),
			       .left_to = left_scope(o) ? netns_at(o, -1) : 0,
			       .boot = boot_of(o),
			       .src = s->n};
	s->lines[s->n++] = o;
	return 0;
}

static int read_file(struct hosts *s, const char *file)
{
	FILE *f = fopen(file, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = 0;

	if (!f) {
		pp_warn("cannot read %s: %s\n", file, strerror(errno));
		return PP_EXIT_USAGE;
	}
	while (!ret && (len = getline(&line, &cap, f)) > 0) {
		json_object *o = json_tokener_parse(line);

		if (!o) {
			s->others++;
			continue;
		}
		ret = add_line(s, o, file);
		if (ret)
			json_object_put(o);
		ret = ret > 0 ? 0 : ret;
	}
	free(line);
	fclose(f);
	if (ret == -E2BIG)
		pp_warn("more than %d hosts\n", PP_JOIN_MAX_HOSTS);
	if (ret == -ENOMEM)
		pp_warn("out of memory\n");
	return ret == -E2BIG ? PP_EXIT_USAGE : ret ? PP_EXIT_FAIL : PP_EXIT_OK;
}

/* Text: a part's hops, each with its host and its time since the packet's first hop. */
static void text_part(struct hosts *s, const struct pp_jpart *p, __u64 t0)
{
	json_object *o = s->lines[p->src], *hops, *fate;
	const char *host = s->h[p->host].name;
	size_t n;

	json_object_object_get_ex(o, "hops", &hops);
	n = json_object_array_length(hops);
	for (size_t i = 0; i < n; i++) {
		json_object *h = json_object_array_get_idx(hops, i);
		const char *ns = str_at(h, "netns_name"), *dev = str_at(h, "ifname");
		__u64 t = 0;

		u64_at(h, "t_ns", &t);
		/* In integers: a double holds a wall-clock time to 256 ns only. */
		fprintf(s->o->out, "  %-10s %+11.3f us  %-28s %-12s %s\n", host,
			(double)(__s64)(p->start_ns + t - t0) / 1e3,
			str_at(h, "func") ? str_at(h, "func") : "?", dev ? dev : "-",
			ns ? ns : "-");
	}
	json_object_object_get_ex(o, "fate", &fate);
	fprintf(s->o->out, "  %-10s packet %s: %s\n", host,
		json_object_to_json_string(json_object_object_get(o, "id")),
		fate && str_at(fate, "kind") ? str_at(fate, "kind") : "?");
}

static void text_skew(struct hosts *s, const struct pp_jpart *p, __u64 skew, size_t at,
		      enum pp_skew_by by)
{
	const char *later = s->h[p[at].host].name, *before = s->h[p[at - 1].host].name;

	if (by == PP_SKEW_ORDER)
		fprintf(s->o->out,
			"  clocks disagree: %s's part left into %s's namespace, so came first, but "
			"ends %.3f us after %s's starts (tolerance %.3f us)\n",
			later, before, (double)skew / 1e3, before, (double)s->o->tol_ns / 1e3);
	else
		fprintf(s->o->out,
			"  clocks disagree: %s's part starts %.3f us before %s's part ends "
			"(tolerance %.3f us): the order shown may not be the packet's\n",
			later, (double)skew / 1e3, before, (double)s->o->tol_ns / 1e3);
}

static void text_joined(struct hosts *s, const struct pp_jpart *p, size_t n, __u64 skew, size_t at,
			enum pp_skew_by by)
{
	fprintf(s->o->out, "key %016llx: %zu hosts, %.3f us from the first hop to the last\n",
		(unsigned long long)p->key, n,
		(double)(p[n - 1].end_ns > p[0].start_ns ? p[n - 1].end_ns - p[0].start_ns : 0) /
			1e3);
	for (size_t i = 0; i < n; i++)
		text_part(s, &p[i], p[0].start_ns);
	if (skew)
		text_skew(s, p, skew, at, by);
	fputc('\n', s->o->out);
}

/* JSON: {"joined":{"key":...,"parts":[{"host":...,the part's line...}],"clock_skew_ns":N}} */
static void json_joined(struct hosts *s, const struct pp_jpart *p, size_t n, __u64 skew, size_t at,
			enum pp_skew_by by)
{
	json_object *top = json_object_new_object(), *j = json_object_new_object();
	json_object *parts = json_object_new_array();
	char key[17];

	snprintf(key, sizeof(key), "%016llx", (unsigned long long)p->key);
	json_object_object_add(j, "key", json_object_new_string(key));
	json_object_object_add(j, "hosts", json_object_new_int64((int64_t)n));
	for (size_t i = 0; i < n; i++)
		json_object_array_add(parts, json_object_get(s->lines[p[i].src]));
	json_object_object_add(j, "parts", parts);
	if (skew) {
		json_object_object_add(j, "clock_skew_ns", json_object_new_uint64(skew));
		json_object_object_add(j, "skew_at", json_object_new_int64((int64_t)at));
		json_object_object_add(
			j, "skew_by",
			json_object_new_string(by == PP_SKEW_ORDER ? "path order" : "overlap"));
	}
	json_object_object_add(top, "joined", j);
	fprintf(s->o->out, "%s\n", json_object_to_json_string_ext(top, JSON_C_TO_STRING_PLAIN));
	json_object_put(top);
}

struct totals {
	unsigned long long joined, alone, skewed;
};

static void print_all(struct hosts *s, struct totals *t)
{
	for (size_t i = 0, j; i < s->n; i = j) {
		enum pp_skew_by by = PP_SKEW_OVERLAP;
		size_t at = 0;
		__u64 skew;

		for (j = i + 1; j < s->n && s->parts[j].chain == s->parts[i].chain; j++)
			;
		if (j - i < 2) {
			t->alone++;
			continue;
		}
		t->joined++;
		skew = pp_join_skew(s->parts + i, j - i, s->o->tol_ns, &at, &by);
		t->skewed += skew != 0;
		s->ops->joined(s, s->parts + i, j - i, skew, at, by);
	}
}

static void json_totals(struct hosts *s, const struct totals *t)
{
	fprintf(s->o->out,
		"{\"join_summary\":{\"hosts\":%zu,\"joined\":%llu,\"alone\":%llu,"
		"\"clock_skew\":%llu,\"unkeyed\":%llu}}\n",
		s->nh, t->joined, t->alone, t->skewed, s->unkeyed);
}

static void text_totals(struct hosts *s, const struct totals *t)
{
	fprintf(s->o->out,
		"pktpath report: %llu joined packets (%zu hosts), %llu parts alone, %llu clocks "
		"disagreeing, %llu lines unkeyed\n",
		t->joined, s->nh, t->alone, t->skewed, s->unkeyed);
}

/* The joins' printers, by output format (output_formats.c's names); the first: any other. */
static const struct join_ops join_formats[] = {
	{"text", text_joined, text_totals},
	{"json", json_joined, json_totals},
};

static const struct join_ops *join_ops_of(const char *format)
{
	for (size_t i = 0; i < sizeof(join_formats) / sizeof(join_formats[0]); i++)
		if (!strcmp(join_formats[i].format, format))
			return &join_formats[i];
	return &join_formats[0];
}

int pp_report_hosts(const struct pp_hosts_opts *o)
{
	struct hosts s = {.o = o, .ops = join_ops_of(o->format)};
	struct totals t = {0};
	int ret = PP_EXIT_OK;
	long chains;

	for (int i = 0; i < o->nfiles && !ret; i++)
		ret = read_file(&s, o->files[i]);
	if (!ret) {
		chains = pp_join(s.parts, s.n, o->window_ns);
		if (chains < 0) {
			pp_warn("out of memory\n");
			ret = PP_EXIT_FAIL;
		}
	}
	if (!ret) {
		print_all(&s, &t);
		s.ops->totals(&s, &t);
	}
	for (size_t i = 0; i < s.n; i++)
		json_object_put(s.lines[i]);
	free(s.lines);
	free(s.parts);
	return ret;
}
