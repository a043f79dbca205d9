// SPDX-License-Identifier: GPL-2.0
/*
 * When "A or B" may be cut into A and B. In libpcap's grammar "and" and "or"
 * have the same precedence and bind left to right ("A or B and C" is
 * "(A or B) and C"), so a chain is cut only if no "and" ("&&") stands at its
 * top level. A bare value after "or" takes the qualifiers of the term before
 * it ("host A or B", "port 1 or not 2", "host A or (B or C)"), so a chain is
 * cut only before a term that starts with a keyword. Anything unusual keeps
 * the expression whole: libpcap then compiles it as tcpdump would.
 *
 * Joined chunks decide as the whole does: a term's "no match" goes on to the
 * next term in both, and a load past the end of the packet ends the whole
 * program with no match in both (libpcap's bpf_filter(), the translation).
 */
#define _GNU_SOURCE /* memmem */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include "base/compat.h"
#include "filter/filter_split.h"
#include "filter/pcap_io.h"

/* Words that start a term with its own qualifiers (libpcap's scanner). */
static const char *const term_keywords[] = {
	"host",	     "net",	"port",	    "portrange", "src",	    "dst",     "ether", "ip",
	"ip6",	     "arp",	"rarp",	    "tcp",	 "udp",	    "sctp",    "icmp",	"icmp6",
	"igmp",	     "vlan",	"mpls",	    "less",	 "greater", "gateway", "proto", "broadcast",
	"multicast", "inbound", "outbound", "len",	 "pppoed",  "pppoes",
};

struct word {
	size_t begin, end;
};

static bool word_is(const char *s, struct word w, const char *lit)
{
	return w.end - w.begin == strlen(lit) && !memcmp(s + w.begin, lit, w.end - w.begin);
}

static bool starts_term(const char *s, struct word w)
{
	for (size_t i = 0; i < ARRAY_SIZE(term_keywords); i++)
		if (word_is(s, w, term_keywords[i]))
			return true;
	return false;
}

static bool is_delim(char c)
{
	return !c || isspace((unsigned char)c) || strchr("()[]", c);
}

/*
 * The next top-level word at or after *I, or a bracket (a 1-byte word);
 * false at the end or on unbalanced brackets (*BAD).
 */
static bool next_word(const char *s, size_t *i, int *depth, struct word *w, bool *bad)
{
	while (s[*i]) {
		char c = s[*i];

		if (isspace((unsigned char)c)) {
			(*i)++;
			continue;
		}
		*w = (struct word){*i, *i + 1};
		if (c == '(' || c == '[') {
			(*depth)++;
			(*i)++;
			return true;
		}
		if (c == ')' || c == ']') {
			*bad |= --(*depth) < 0;
			(*i)++;
			return true;
		}
		while (!is_delim(s[*i]))
			(*i)++;
		w->end = *i;
		return true;
	}
	return false;
}

static bool add_term(struct pp_span **v, size_t *n, size_t begin, size_t end)
{
	struct pp_span *p = realloc(*v, (*n + 1) * sizeof(**v));

	if (!p)
		return false;
	p[(*n)++] = (struct pp_span){begin, end};
	*v = p;
	return true;
}

static bool is_and(const char *s, struct word w)
{
	return word_is(s, w, "and") || memmem(s + w.begin, w.end - w.begin, "&&", 2);
}

/* The whole expression as its one term. */
static size_t one_term(const char *expr, struct pp_span **terms)
{
	free(*terms);
	*terms = malloc(sizeof(**terms));
	if (!*terms)
		return 0;
	(*terms)[0] = (struct pp_span){0, strlen(expr)};
	return 1;
}

size_t pp_split_or(const char *expr, struct pp_span **terms)
{
	size_t i = 0, n = 0, begin = 0, end = 0;
	int depth = 0;
	bool bad = false, after_or = false;
	struct word w;

	*terms = NULL;
	while (!bad && next_word(expr, &i, &depth, &w, &bad)) {
		int d = depth - (expr[w.begin] == '(' || expr[w.begin] == '[');

		bad |= d == 0 && is_and(expr, w);
		if (after_or && starts_term(expr, w)) {
			bad |= begin == end; /* an empty term: libpcap says why */
			if (!bad && !add_term(terms, &n, begin, end))
				goto nomem;
			begin = w.begin;
		}
		after_or = d == 0 && (word_is(expr, w, "or") || word_is(expr, w, "||"));
		if (!after_or)
			end = w.end;
	}
	/* A trailing "or" is a syntax error for libpcap to report. */
	if (bad || after_or || depth != 0 || begin == end)
		return one_term(expr, terms);
	if (!add_term(terms, &n, begin, end))
		goto nomem;
	return n;
nomem:
	free(*terms);
	*terms = NULL;
	return 0;
}

int pp_cbpf_join(struct sock_filter **progs, const size_t *lens, size_t n, struct sock_filter **out,
		 size_t *outlen)
{
	size_t total = 0, at = 0;
	struct sock_filter *v;

	for (size_t c = 0; c < n; c++)
		total += lens[c] + (c ? 2 : 0);
	v = malloc(total * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t c = 0; c < n; c++) {
		size_t next = at + lens[c]; /* where the next chunk starts */

		if (c) {
			v[at++] = (struct sock_filter){BPF_LD | BPF_IMM, 0, 0, 0};
			v[at++] = (struct sock_filter){BPF_LDX | BPF_IMM, 0, 0, 0};
			next += 2;
		}
		for (size_t pc = 0; pc < lens[c]; pc++, at++) {
			struct sock_filter f = progs[c][pc];

			if (f.code == (BPF_RET | BPF_A) && c + 1 < n) {
				free(v);
				return -EINVAL;
			}
			if (f.code == (BPF_RET | BPF_K) && f.k == 0 && c + 1 < n)
				f = (struct sock_filter){BPF_JMP | BPF_JA, 0, 0,
							 (__u32)(next - at - 1)};
			v[at] = f;
		}
	}
	*out = v;
	*outlen = total;
	return 0;
}

static int compile_one(const char *expr, bool l3, struct sock_filter **out, size_t *len, char *err,
		       size_t errlen)
{
	return l3 ? pp_pcap_compile_l3(expr, out, len, err, errlen)
		  : pp_pcap_compile(expr, out, len, err, errlen);
}

/* Chunk C of the terms: its text, compiled. */
static int compile_chunk(const char *expr, const struct pp_span *t, size_t nterms, size_t c,
			 bool l3, struct sock_filter **out, size_t *len, char *err, size_t errlen)
{
	size_t first = c * PP_SPLIT_CHUNK, last = first + PP_SPLIT_CHUNK - 1;
	char *text;
	int ret;

	if (last >= nterms)
		last = nterms - 1;
	text = strndup(expr + t[first].begin, t[last].end - t[first].begin);
	if (!text)
		return -ENOMEM;
	ret = compile_one(text, l3, out, len, err, errlen);
	free(text);
	return ret;
}

static int compile_chunks(const char *expr, const struct pp_span *t, size_t nterms, bool l3,
			  struct sock_filter **out, size_t *len, size_t *chunks, char *err,
			  size_t errlen)
{
	size_t n = (nterms + PP_SPLIT_CHUNK - 1) / PP_SPLIT_CHUNK;
	struct sock_filter **progs = calloc(n, sizeof(*progs));
	size_t *lens = calloc(n, sizeof(*lens));
	int ret = progs && lens ? 0 : -ENOMEM;

	for (size_t c = 0; c < n && !ret; c++)
		ret = compile_chunk(expr, t, nterms, c, l3, &progs[c], &lens[c], err, errlen);
	if (!ret)
		ret = pp_cbpf_join(progs, lens, n, out, len);
	if (!ret)
		*chunks = n;
	for (size_t c = 0; progs && c < n; c++)
		free(progs[c]);
	free(progs);
	free(lens);
	return ret;
}

int pp_compile_split(const char *expr, bool l3, struct sock_filter **out, size_t *len,
		     size_t *chunks, char *err, size_t errlen)
{
	struct pp_span *t = NULL;
	size_t n = pp_split_or(expr, &t);
	int ret = -EAGAIN;

	if (!n) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (n > PP_SPLIT_CHUNK)
		ret = compile_chunks(expr, t, n, l3, out, len, chunks, err, errlen);
	free(t);
	/* Short, or a RET A that joining cannot keep: the whole, as tcpdump would. */
	if (ret == -EAGAIN || ret == -EINVAL) {
		*chunks = 1;
		ret = compile_one(expr, l3, out, len, err, errlen);
	}
	return ret;
}
