// SPDX-License-Identifier: GPL-2.0
/*
 * Probe names are looked up at every hop of every packet (a file of a
 * million packets is some ten million lookups), so they are hashed; drop
 * reasons and locations come once per dropped packet and are few, so a
 * list does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "names/netns_names.h"
#include "report/report_names.h"

struct code_name {
	__u64 key;
	char *name;
};

struct pp_rnames {
	char **probes; /* probe index -> name */
	size_t nprobes, pcap;
	__u32 *slots; /* open addressing: probe index + 1, 0 empty */
	size_t nslots;
	struct code_name *reasons, *syms, *netns, *ifnames;
	size_t nreasons, rcap, nsyms, scap, nnetns, ncap, nifnames, icap;
	struct pp_ns_name named; /* what netns_name() returns */
};

/* The built-in points: their index in a live run, whatever the probe list. */
static const struct {
	const char *name;
	__u32 probe;
} builtin[] = {
	{"tc:ingress", PP_PROBE_TC_INGRESS},
	{"tc:egress", PP_PROBE_TC_EGRESS},
	{"tp:kmem:kmem_cache_free", PP_PROBE_KMEM_FREE},
	{"syscall:send", PP_PROBE_SEND},
	{"tp:sock:sock_recv_length", PP_PROBE_READ},
};

struct pp_rnames *pp_rnames_new(void)
{
	return calloc(1, sizeof(struct pp_rnames));
}

static void free_list(struct code_name *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

void pp_rnames_free(struct pp_rnames *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nprobes; i++)
		free(n->probes[i]);
	free(n->probes);
	free(n->slots);
	free_list(n->reasons, n->nreasons);
	free_list(n->syms, n->nsyms);
	free_list(n->netns, n->nnetns);
	free_list(n->ifnames, n->nifnames);
	free(n);
}

/* FNV-1a */
static __u64 hash(const char *s)
{
	__u64 h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static __u32 *slot_of(const struct pp_rnames *n, const char *name)
{
	size_t mask = n->nslots - 1, i = hash(name) & mask;

	while (n->slots[i] && strcmp(n->probes[n->slots[i] - 1], name))
		i = (i + 1) & mask;
	return &n->slots[i];
}

/* Twice the slots, kept at most half full. */
static int rehash(struct pp_rnames *n)
{
	size_t want = n->nslots ? n->nslots * 2 : 64;
	__u32 *old = n->slots;

	n->slots = calloc(want, sizeof(*n->slots));
	if (!n->slots) {
		n->slots = old;
		return -ENOMEM;
	}
	n->nslots = want;
	for (size_t i = 0; i < n->nprobes; i++)
		*slot_of(n, n->probes[i]) = (__u32)i + 1;
	free(old);
	return 0;
}

static long add_probe(struct pp_rnames *n, const char *name)
{
	if (n->nprobes == PP_MAX_PROBES)
		return -ENOSPC;
	if (PP_GROW(n->probes, n->pcap, n->nprobes + 1, 32))
		return -ENOMEM;
	n->probes[n->nprobes] = strdup(name);
	if (!n->probes[n->nprobes])
		return -ENOMEM;
	return (long)n->nprobes++;
}

long pp_rnames_probe(struct pp_rnames *n, const char *name)
{
	__u32 *slot;
	long idx;

	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		if (!strcmp(name, builtin[i].name))
			return builtin[i].probe;
	if (2 * (n->nprobes + 1) > n->nslots && rehash(n))
		return -ENOMEM;
	slot = slot_of(n, name);
	if (*slot)
		return *slot - 1;
	idx = add_probe(n, name);
	if (idx >= 0)
		*slot = (__u32)idx + 1;
	return idx;
}

static const char *find(const struct code_name *v, size_t n, __u64 key)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].key == key)
			return v[i].name;
	return NULL;
}

static int add(struct code_name **v, size_t *n, size_t *cap, __u64 key, const char *name)
{
	if (find(*v, *n, key))
		return 0;
	if (PP_GROW(*v, *cap, *n + 1, 16))
		return -ENOMEM;
	(*v)[*n].key = key;
	(*v)[*n].name = strdup(name);
	if (!(*v)[*n].name)
		return -ENOMEM;
	(*n)++;
	return 0;
}

int pp_rnames_reason(struct pp_rnames *n, __u32 code, const char *name)
{
	return add(&n->reasons, &n->nreasons, &n->rcap, code, name);
}

int pp_rnames_sym(struct pp_rnames *n, __u64 addr, const char *name)
{
	return add(&n->syms, &n->nsyms, &n->scap, addr, name);
}

int pp_rnames_netns(struct pp_rnames *n, __u32 inode, const char *name)
{
	return add(&n->netns, &n->nnetns, &n->ncap, inode, name);
}

int pp_rnames_ifname(struct pp_rnames *n, __u32 inode, __u32 ifindex, const char *name)
{
	return add(&n->ifnames, &n->nifnames, &n->icap, (__u64)inode << 32 | ifindex, name);
}

static const char *if_name(__u32 netns, __u32 ifindex, char *buf, void *arg)
{
	const struct pp_rnames *n = arg;
	const char *name = find(n->ifnames, n->nifnames, (__u64)netns << 32 | ifindex);

	if (!name)
		return NULL;
	snprintf(buf, PP_IFNAMSIZ + 1, "%s", name);
	return buf;
}

/* The name the recording gave; only the name: the rest of the hop says the rest. */
static const struct pp_ns_name *netns_name(__u32 inode, void *arg)
{
	struct pp_rnames *n = arg;
	const char *name = find(n->netns, n->nnetns, inode);

	if (!name)
		return NULL;
	n->named.inode = inode;
	snprintf(n->named.name, sizeof(n->named.name), "%s", name);
	return &n->named;
}

static const char *reason_name(__u32 reason, void *arg)
{
	const struct pp_rnames *n = arg;

	return find(n->reasons, n->nreasons, reason);
}

static const char *sym_name(__u64 addr, void *arg)
{
	const struct pp_rnames *n = arg;

	return find(n->syms, n->nsyms, addr);
}

void pp_rnames_out(const struct pp_rnames *n, struct pp_out *o)
{
	o->probe_names = (const char *const *)n->probes;
	o->nprobes = n->nprobes;
	o->reason_name = reason_name;
	o->reason_arg = (void *)n;
	o->sym_name = sym_name;
	o->sym_arg = (void *)n;
	o->netns_name = netns_name;
	o->netns_arg = (void *)n;
	o->if_name = if_name;
	o->if_arg = (void *)n;
}
