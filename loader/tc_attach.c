// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "classifier.h"
#include "tc_attach.h"
#include "tc_stale.h"

/* Debian 12's uapi headers predate tcx (Linux 6.6). */
#ifndef BPF_TCX_INGRESS
#define BPF_TCX_INGRESS 46
#define BPF_TCX_EGRESS	47
#endif
#ifndef BPF_F_BEFORE
#define BPF_F_BEFORE (1U << 3)
#endif

/* The filter reads Ethernet offsets: only devices that carry that header. */
static bool ethernet_like(int sock, const char *name)
{
	struct ifreq ifr = {0};

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(sock, SIOCGIFHWADDR, &ifr) < 0)
		return false;
	return ifr.ifr_hwaddr.sa_family == ARPHRD_ETHER ||
	       ifr.ifr_hwaddr.sa_family == ARPHRD_LOOPBACK;
}

static int add_hook(struct pp_tc *tc, const char *name, int ifindex)
{
	struct pp_tc_hook *v = realloc(tc->v, (tc->n + 1) * sizeof(*v));

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
		if (ethernet_like(sock, i->if_name))
			ret = add_hook(tc, i->if_name, (int)i->if_index);
cleanup:
	if (sock >= 0)
		close(sock);
	if (all)
		if_freenameindex(all);
	return ret;
}

int pp_tc_resolve(struct pp_tc *tc, const char *const *names, int n, char *err, size_t errlen)
{
	int ret = 0;

	memset(tc, 0, sizeof(*tc));
	if (n == 0)
		return resolve_all(tc, err, errlen);
	for (int i = 0; i < n && !ret; i++) {
		unsigned int idx = if_nametoindex(names[i]);

		if (!idx) {
			snprintf(err, errlen, "no interface \"%s\" in this network namespace",
				 names[i]);
			return -ENODEV;
		}
		ret = add_hook(tc, names[i], (int)idx);
	}
	return ret;
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

	pp_tc_remove_stale(h->ifindex, dir, h->ifname, stderr);
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

int pp_tc_attach(struct pp_tc *tc, const struct pp_cls *cls, char *err, size_t errlen)
{
	int ret = 0;

	/* PKTPATH_NO_TCX=1 takes clsact where tcx exists too (tests, old tools). */
	tc->tcx = !getenv("PKTPATH_NO_TCX");
	for (size_t i = 0; i < tc->n && !ret; i++) {
		for (int dir = 0; dir < 2 && !ret; dir++) {
			if (tc->tcx) {
				ret = tcx_attach(&tc->v[i], cls, dir);
				/* Before 6.6 the attach type is unknown: use clsact. */
				if (ret == -EINVAL && i == 0 && dir == 0)
					tc->tcx = false;
				else if (ret)
					break;
			}
			if (!tc->tcx)
				ret = clsact_attach(&tc->v[i], cls, dir);
		}
		if (ret)
			snprintf(err, errlen, "cannot attach the classifier to %s: %s",
				 tc->v[i].ifname, strerror(-ret));
	}
	return ret;
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

void pp_tc_detach(struct pp_tc *tc)
{
	for (size_t i = 0; i < tc->n; i++) {
		struct pp_tc_hook *h = &tc->v[i];

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
}

void pp_tc_free(struct pp_tc *tc)
{
	pp_tc_detach(tc);
	free(tc->v);
	memset(tc, 0, sizeof(*tc));
}
