// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "filter/classifier.h"
#include "base/compat.h" /* tcx: Debian 12's uapi headers predate Linux 6.6 */
#include "tc/tc_attach.h"
#include "tc/iface_match.h"
#include "tc/tc_stale.h"
#include "base/log.h"

/* The filter reads Ethernet offsets: only devices that carry that header. */
static bool ethernet_framed(int sock, const char *name)
{
	struct ifreq ifr = {0};

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(sock, SIOCGIFHWADDR, &ifr) < 0)
		return false;
	return pp_iface_ethernet_framed(ifr.ifr_hwaddr.sa_family);
}

static struct pp_tc_hook *find_hook(struct pp_tc *tc, int ifindex)
{
	for (size_t i = 0; i < tc->n; i++)
		if (tc->v[i].ifindex == ifindex)
			return &tc->v[i];
	return NULL;
}

static int add_hook(struct pp_tc *tc, const char *name, int ifindex)
{
	struct pp_tc_hook *v;

	if (find_hook(tc, ifindex))
		return 0; /* a name and a pattern, or two patterns, chose it */
	v = realloc(tc->v, (tc->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	tc->v = v;
	v = &tc->v[tc->n++];
	memset(v, 0, sizeof(*v));
	v->ifindex = ifindex;
	v->link_fd[0] = v->link_fd[1] = -1;
	snprintf(v->ifname, sizeof(v->ifname), "%s", name);
	return 0;
}

bool pp_tc_wanted(const struct pp_tc *tc, const char *name, bool ethernet)
{
	return pp_iface_wanted(tc->words, tc->nwords, name, ethernet);
}

/* Every interface there is, chosen by pp_tc_wanted(): the default, or patterns. */
static int resolve_all(struct pp_tc *tc, char *err, size_t errlen)
{
	struct if_nameindex *all = if_nameindex(), *i;
	int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (!all || sock < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot list interfaces: %s", strerror(errno));
		goto cleanup;
	}
	for (i = all; i->if_index && !ret; i++)
		if (pp_tc_wanted(tc, i->if_name, ethernet_framed(sock, i->if_name)))
			ret = add_hook(tc, i->if_name, (int)i->if_index);
cleanup:
	if (sock >= 0)
		close(sock);
	if (all)
		if_freenameindex(all);
	return ret;
}

int pp_tc_resolve(struct pp_tc *tc, const char *const *words, int n, char *err, size_t errlen)
{
	bool patterns = n == 0;
	int ret = 0;

	memset(tc, 0, sizeof(*tc));
	tc->words = words;
	tc->nwords = n;
	/* A name must be there now (bad input); a pattern may match nothing yet. */
	for (int i = 0; i < n && !ret; i++) {
		unsigned int idx;

		if (pp_iface_is_pattern(words[i])) {
			patterns = true;
			continue;
		}
		idx = if_nametoindex(words[i]);
		if (!idx) {
			snprintf(err, errlen, "no interface \"%s\" in this network namespace",
				 words[i]);
			return -ENODEV;
		}
		ret = add_hook(tc, words[i], (int)idx);
	}
	return ret || !patterns ? ret : resolve_all(tc, err, errlen);
}

/* First in the chain, so no other program's verdict hides a packet from us. */
static int tcx_attach(struct pp_tc_hook *h, const struct pp_cls *cls, int dir)
{
	LIBBPF_OPTS(bpf_link_create_opts, o, .flags = BPF_F_BEFORE);
	int fd = bpf_link_create(pp_cls_prog_fd(cls, dir), h->ifindex,
				 dir ? BPF_TCX_EGRESS : BPF_TCX_INGRESS, &o);

	if (fd < 0)
		return -errno;
	h->link_fd[dir] = fd;
	return 0;
}

static int clsact_attach(struct pp_tc_hook *h, const struct pp_cls *cls, int dir)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = h->ifindex,
		    .attach_point = dir ? BPF_TC_EGRESS : BPF_TC_INGRESS);
	/* Our pid as the handle tells a killed run's filters from live ones. */
	LIBBPF_OPTS(bpf_tc_opts, opts, .prog_fd = pp_cls_prog_fd(cls, dir),
		    .handle = (__u32)getpid());
	int ret;

	pp_tc_remove_stale(h->ifindex, dir, h->ifname);
	if (dir == 0) {
		ret = bpf_tc_hook_create(&hook);
		if (ret && ret != -EEXIST)
			return ret;
		h->clsact_created = ret == 0;
	}
	/* No priority given: the kernel puts a new filter before the others. */
	ret = bpf_tc_attach(&hook, &opts);
	if (ret)
		return ret;
	h->handle[dir] = opts.handle;
	h->prio[dir] = opts.priority;
	return 0;
}

/*
 * Another program on tcx of this interface runs before any clsact filter:
 * only a tcx link put first sees every packet there.
 */
static bool others_on_tcx(int ifindex)
{
	for (int dir = 0; dir < 2; dir++) {
		LIBBPF_OPTS(bpf_prog_query_opts, q);

		if (!bpf_prog_query_opts(ifindex, dir ? BPF_TCX_EGRESS : BPF_TCX_INGRESS, &q) &&
		    q.prog_cnt)
			return true;
	}
	return false;
}

/*
 * A tcx link waits for an RCU grace period under RTNL when it is made and
 * when it is closed (24 and 20 ms each here, docs/PERFORMANCE.md "Many
 * interfaces"); a clsact filter does not. So tcx while pktpath holds at
 * most PP_TCX_MAX interfaces, clsact past that, except where another
 * program is on tcx.
 */
static bool use_tcx(const struct pp_tc *tc, const struct pp_tc_hook *h)
{
	return tc->tcx && (tc->n <= PP_TCX_MAX || others_on_tcx(h->ifindex));
}

/* One direction of one interface: tcx, or clsact where tcx is unknown. */
static int attach_dir(struct pp_tc *tc, struct pp_tc_hook *h, int dir, bool tcx)
{
	int ret;

	if (tcx && tc->tcx) {
		ret = tcx_attach(h, tc->cls, dir);
		tc->tcx_works |= ret == 0;
		/* Before 6.6 the attach type is unknown: clsact from then on. */
		if (ret != -EINVAL || tc->tcx_works)
			return ret;
		tc->tcx = false;
	}
	return clsact_attach(h, tc->cls, dir);
}

static void hook_detach(struct pp_tc_hook *h);

/* Both directions, or neither: a half-attached interface is detached again. */
static int hook_attach(struct pp_tc *tc, struct pp_tc_hook *h)
{
	bool tcx = use_tcx(tc, h);
	int ret = attach_dir(tc, h, 0, tcx);

	if (!ret)
		ret = attach_dir(tc, h, 1, tcx);
	if (ret)
		hook_detach(h);
	return ret;
}

size_t pp_tc_clsact_count(const struct pp_tc *tc)
{
	size_t n = 0;

	for (size_t i = 0; i < tc->n; i++)
		n += tc->v[i].link_fd[0] < 0;
	return n;
}

const char *pp_tc_mode(const struct pp_tc *tc, char *buf, size_t len)
{
	size_t clsact = pp_tc_clsact_count(tc);

	if (clsact && clsact < tc->n)
		snprintf(buf, len, "tcx %zu, clsact %zu", tc->n - clsact, clsact);
	else
		snprintf(buf, len, "%s", clsact || !tc->tcx ? "clsact" : "tcx");
	return buf;
}

static void drop_hook(struct pp_tc *tc, struct pp_tc_hook *h)
{
	*h = tc->v[--tc->n];
}

int pp_tc_attach(struct pp_tc *tc, const struct pp_cls *cls, char *err, size_t errlen)
{
	int ret = 0;

	tc->cls = cls;
	for (size_t i = 0; i < tc->n;) {
		ret = hook_attach(tc, &tc->v[i]);
		if (ret == -ENODEV) { /* deleted since it was listed */
			pp_debug("%s went away before its attach\n", tc->v[i].ifname);
			drop_hook(tc, &tc->v[i]);
			continue;
		}
		if (ret) {
			snprintf(err, errlen, "cannot attach the classifier to %s: %s",
				 tc->v[i].ifname, strerror(-ret));
			return ret;
		}
		i++;
	}
	return 0;
}

int pp_tc_add(struct pp_tc *tc, int ifindex, const char *name, char *err, size_t errlen)
{
	struct pp_tc_hook *h = find_hook(tc, ifindex);
	int ret;

	if (h) { /* known: a state change, or a rename */
		snprintf(h->ifname, sizeof(h->ifname), "%s", name);
		return 0;
	}
	ret = add_hook(tc, name, ifindex);
	if (ret)
		return ret;
	h = &tc->v[tc->n - 1];
	ret = hook_attach(tc, h);
	if (ret) {
		snprintf(err, errlen, "cannot attach the classifier to %s: %s", name,
			 strerror(-ret));
		drop_hook(tc, h);
	}
	return ret;
}

bool pp_tc_gone(struct pp_tc *tc, int ifindex)
{
	struct pp_tc_hook *h = find_hook(tc, ifindex);

	if (!h)
		return false;
	/* The kernel unlinked them (tcx_uninstall): closing is quick. */
	for (int dir = 0; dir < 2; dir++)
		if (h->link_fd[dir] >= 0)
			close(h->link_fd[dir]);
	drop_hook(tc, h);
	return true;
}

/* Hooks whose interface is not in ALL any more: gone. */
static void sync_gone(struct pp_tc *tc, const struct if_nameindex *all)
{
	for (size_t i = 0; i < tc->n;) {
		const struct if_nameindex *x = all;

		while (x->if_index && (int)x->if_index != tc->v[i].ifindex)
			x++;
		if (x->if_index) {
			i++;
			continue;
		}
		pp_debug("%s went away\n", tc->v[i].ifname);
		pp_tc_gone(tc, tc->v[i].ifindex);
	}
}

int pp_tc_sync(struct pp_tc *tc)
{
	struct if_nameindex *all = if_nameindex(), *i;
	int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), failed = 0;
	char err[256];

	if (!all || sock < 0) {
		pp_warn("cannot list interfaces: %s\n", strerror(errno));
		failed++;
		goto cleanup;
	}
	sync_gone(tc, all);
	for (i = all; i->if_index; i++) {
		if (find_hook(tc, (int)i->if_index) ||
		    !pp_tc_wanted(tc, i->if_name, ethernet_framed(sock, i->if_name)))
			continue;
		if (pp_tc_add(tc, (int)i->if_index, i->if_name, err, sizeof(err)) == 0) {
			pp_debug("%s: classifier attached\n", i->if_name);
		} else if (if_nametoindex(i->if_name) == i->if_index) {
			pp_warn("%s\n", err); /* not merely gone again */
			failed++;
		}
	}
cleanup:
	if (sock >= 0)
		close(sock);
	if (all)
		if_freenameindex(all);
	return failed;
}

static void clsact_detach(struct pp_tc_hook *h, int dir)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = h->ifindex,
		    .attach_point = dir ? BPF_TC_EGRESS : BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = h->handle[dir], .priority = h->prio[dir]);

	if (!h->handle[dir])
		return;
	bpf_tc_detach(&hook, &opts);
	h->handle[dir] = h->prio[dir] = 0;
}

static void hook_detach(struct pp_tc_hook *h)
{
	for (int dir = 0; dir < 2; dir++) {
		if (h->link_fd[dir] >= 0)
			close(h->link_fd[dir]);
		h->link_fd[dir] = -1;
		clsact_detach(h, dir);
	}
	if (h->clsact_created) {
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = h->ifindex,
			    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);

		bpf_tc_hook_destroy(&hook);
		h->clsact_created = false;
	}
}

void pp_tc_detach(struct pp_tc *tc)
{
	for (size_t i = 0; i < tc->n; i++)
		hook_detach(&tc->v[i]);
}

void pp_tc_free(struct pp_tc *tc)
{
	pp_tc_detach(tc);
	free(tc->v);
	memset(tc, 0, sizeof(*tc));
}
