// SPDX-License-Identifier: GPL-2.0
/* Parse kp_func.list and --probe entries; no BPF, no BTF. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/types.h> /* before pktpath.h, which uses __u32 */
#include "base/grow.h"
#include "pktpath.h"
#include "probes/probe_list.h"

#define TP_PREFIX "tp:"

static void set_err(char *errbuf, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!errbuf || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(errbuf, errlen, fmt, ap);
	va_end(ap);
}

/* ^[A-Za-z_][A-Za-z0-9_.]*$: the dot is for compiler clones like foo.isra.0 */
static bool is_func_name(const char *s, size_t len)
{
	size_t i;

	if (!len || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (i = 1; i < len; i++) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.')
			return false;
	}
	return true;
}

/* Tracepoint categories are lower case in the kernel (TRACE_SYSTEM). */
static bool is_tp_category(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return false;
	for (i = 0; i < len; i++) {
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '_')
			return false;
	}
	return true;
}

static bool is_tp_name(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return false;
	for (i = 0; i < len; i++) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	}
	return true;
}

/* Cut the comment, trim whitespace; returns the length left at *start. */
static size_t strip_line(const char **start)
{
	const char *s = *start, *end;

	end = s + strcspn(s, "#");
	while (s < end && isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	*start = s;
	return end - s;
}

static struct pp_probe *find_probe(const struct pp_probe_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	}
	return NULL;
}

static int grow(struct pp_probe_list *l)
{
	return PP_GROW(l->v, l->cap, l->n + 1, 64);
}

/*
 * One allocation per entry: name, then for a tracepoint "CATEGORY\0NAME\0"
 * after it, so freeing name frees all three strings.
 */
static int fill_probe(struct pp_probe *p, const char *text, size_t len, size_t catlen)
{
	char *buf = malloc(2 * len + 2);

	if (!buf)
		return -ENOMEM;
	memset(p, 0, sizeof(*p));
	memcpy(buf, text, len + 1);
	p->name = buf;
	p->target = buf;
	p->kind = PP_PROBE_FUNC;
	p->argpos = -1;
	if (catlen) {
		p->kind = PP_PROBE_TP;
		p->category = buf + len + 1;
		memcpy(p->category, text + strlen(TP_PREFIX), catlen);
		p->category[catlen] = '\0';
		p->target = p->category + catlen + 1;
		strcpy(p->target, text + strlen(TP_PREFIX) + catlen + 1);
	}
	return 0;
}

/* Returns the CATEGORY length of "tp:CATEGORY:NAME", 0 for a function, -1 if neither. */
static int classify(const char *text, size_t len)
{
	size_t plen = strlen(TP_PREFIX), catlen;
	const char *cat, *colon;

	if (strncmp(text, TP_PREFIX, plen))
		return is_func_name(text, len) ? 0 : -1;
	cat = text + plen;
	colon = strchr(cat, ':');
	if (!colon)
		return -1;
	catlen = colon - cat;
	if (!is_tp_category(cat, catlen) || !is_tp_name(colon + 1, len - plen - catlen - 1))
		return -1;
	return catlen;
}

/*
 * Append a checked entry unless it is a duplicate (the first one stays,
 * on every backend if either asks for that).
 */
static int append(struct pp_probe_list *l, const char *text, size_t len, int catlen, bool tp_only,
		  const char *where, char *errbuf, size_t errlen)
{
	struct pp_probe *dup = find_probe(l, text);
	int err;

	if (dup) {
		dup->tp_backend_only &= tp_only;
		return 0;
	}
	/* Probe indexes must fit the BPF maps and the cookie range. */
	if (l->n >= PP_MAX_PROBES) {
		set_err(errbuf, errlen, "%s: more than %d probe points", where, PP_MAX_PROBES);
		return -E2BIG;
	}
	err = grow(l);
	if (!err)
		err = fill_probe(&l->v[l->n], text, len, catlen);
	if (err) {
		set_err(errbuf, errlen, "%s: out of memory", where);
		return err;
	}
	l->v[l->n++].tp_backend_only = tp_only;
	return 0;
}

/*
 * A byte of a bad line as the error message shows it: never a control byte
 * for the terminal, nor DEL, nor a byte above 0x7f (a C1 control such as
 * 0x9b, CSI, to some terminals).
 */
static char shown(char c)
{
	return (unsigned char)c < 0x20 || (unsigned char)c >= 0x7f ? '?' : c;
}

/*
 * The length of S (LEN bytes) without a last word PP_PROBE_TP_ONLY and the
 * blanks before it; *TP_ONLY says whether it had one. Any other second word
 * stays, for the name's check to refuse.
 */
static size_t cut_tp_only(const char *s, size_t len, bool *tp_only)
{
	size_t qlen = strlen(PP_PROBE_TP_ONLY), n;

	*tp_only = false;
	if (len <= qlen || strncmp(s + len - qlen, PP_PROBE_TP_ONLY, qlen))
		return len;
	n = len - qlen;
	if (!isspace((unsigned char)s[n - 1]))
		return len;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	*tp_only = true;
	return n;
}

int pp_probe_list_add(struct pp_probe_list *l, const char *line, const char *where, char *errbuf,
		      size_t errlen)
{
	char text[PP_PROBE_NAME_MAX + 1];
	const char *s = line;
	size_t len = strip_line(&s);
	bool tp_only;
	int catlen;

	if (!len)
		return 0;
	len = cut_tp_only(s, len, &tp_only);
	if (len > PP_PROBE_NAME_MAX) {
		set_err(errbuf, errlen, "%s: longer than %d characters", where, PP_PROBE_NAME_MAX);
		return -EINVAL;
	}
	memcpy(text, s, len);
	text[len] = '\0';
	catlen = classify(text, len);
	if (catlen < 0) {
		for (size_t i = 0; i < len; i++)
			text[i] = shown(text[i]);
		set_err(errbuf, errlen, "%s: not a function name or tp:CATEGORY:NAME: \"%s\"",
			where, text);
		return -EINVAL;
	}
	/* A function line is skipped by the tracepoint backend: it would attach nowhere. */
	if (tp_only && !catlen) {
		set_err(errbuf, errlen, "%s: %s follows a tp:CATEGORY:NAME, not \"%s\"", where,
			PP_PROBE_TP_ONLY, text);
		return -EINVAL;
	}
	return append(l, text, len, catlen, tp_only, where, errbuf, errlen);
}

/* A line longer than this is no probe point: reading stops there (/dev/zero). */
#define PP_LINE_MAX 1024

static int open_list(const char *path, FILE **f, char *errbuf, size_t errlen)
{
	struct stat st;

	*f = fopen(path, "r");
	if (!*f) {
		set_err(errbuf, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (fstat(fileno(*f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(*f);
		set_err(errbuf, errlen, "%s: a directory, not a probe list", path);
		return -EISDIR;
	}
	return 0;
}

/*
 * One line into BUF: its length, -1 at the end, -E2BIG past CAP - 1 bytes.
 * Byte by byte, so that neither a NUL nor a line that never ends (/dev/zero)
 * goes unnoticed; a NUL becomes '?', which no name holds.
 */
static int read_line(FILE *f, char *buf, size_t cap)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF && c != '\n') {
		if (n + 1 >= cap)
			return -E2BIG;
		buf[n++] = c ? (char)c : '?';
	}
	if (c == EOF && n == 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

int pp_probe_list_load(struct pp_probe_list *l, const char *path, char *errbuf, size_t errlen)
{
	char where[PATH_MAX + 16], line[PP_LINE_MAX + 1];
	unsigned int lineno = 0;
	FILE *f;
	int err = open_list(path, &f, errbuf, errlen), n;

	if (err)
		return err;
	while ((n = read_line(f, line, sizeof(line))) >= 0) {
		snprintf(where, sizeof(where), "%s:%u", path, ++lineno);
		err = pp_probe_list_add(l, line, where, errbuf, errlen);
		if (err)
			break;
	}
	if (n == -E2BIG) {
		set_err(errbuf, errlen, "%s:%u: line longer than %d characters", path, lineno + 1,
			PP_LINE_MAX);
		err = -EINVAL;
	} else if (!err && ferror(f)) {
		err = -EIO;
		set_err(errbuf, errlen, "%s: read error: %s", path, strerror(errno));
	}
	fclose(f);
	return err;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

const char *pp_probe_list_locate(const char *explicit_path, const char *file, const char *datadir)
{
	static char buf[PATH_MAX];
	int n;

	if (explicit_path)
		return explicit_path;
	if (exists(file))
		return file;
	if (!datadir)
		return NULL;
	n = snprintf(buf, sizeof(buf), "%s/%s", datadir, file);
	if (n < 0 || (size_t)n >= sizeof(buf) || !exists(buf))
		return NULL;
	return buf;
}

size_t pp_probe_list_nskipped(const struct pp_probe_list *l)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++)
		n += l->v[i].skip != PP_SKIP_NONE;
	return n;
}

void pp_probe_list_free(struct pp_probe_list *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
