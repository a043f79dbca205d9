// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <net/if.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>
#include "tc/tc_attach.h"
#include "tc/iface_match.h"
#include "tc/tc_follow.h"
#include "base/log.h"

/*
 * A burst (a host starting many containers) queues a few hundred messages
 * while tcx attaches take a grace period each; past the buffer the kernel
 * drops them and says ENOBUFS, and pp_tc_sync() catches up.
 */
#define PP_FOLLOW_RCVBUF (4 << 20)

int pp_follow_open(struct pp_follow *f, struct pp_tc *tc, char *err, size_t errlen)
{
	int size = PP_FOLLOW_RCVBUF, fd;

	memset(f, 0, sizeof(*f));
	f->wake_fd = -1;
	f->tc = tc;
	f->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
	f->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (!f->nl || f->wake_fd < 0 ||
	    mnl_socket_bind(f->nl, RTMGRP_LINK, MNL_SOCKET_AUTOPID) < 0) {
		int e = errno;

		snprintf(err, errlen, "cannot follow interfaces (netlink): %s", strerror(e));
		pp_follow_close(f);
		return -e;
	}
	fd = mnl_socket_get_fd(f->nl);
	/* FORCE: past net.core.rmem_max, with CAP_NET_ADMIN; else what the limit allows. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	return 0;
}

static void link_new(struct pp_follow *f, int ifindex, const char *name, bool ethernet)
{
	char err[256];

	if (!pp_tc_wanted(f->tc, name, ethernet)) {
		/* Renamed away from the patterns: it keeps the classifier, as -i chose it. */
		return;
	}
	if (pp_tc_add(f->tc, ifindex, name, err, sizeof(err)) == 0) {
		pp_debug("%s: classifier attached\n", name);
		return;
	}
	/* Gone again before the attach: its RTM_DELLINK follows. */
	if ((int)if_nametoindex(name) != ifindex)
		return;
	f->failed++;
	pp_warn("%s\n", err);
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct pp_follow *f = data;
	const char *name = NULL;
	struct nlattr *attr;
	size_t before = f->tc->n;

	if (nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK)
		return MNL_CB_OK;
	mnl_attr_for_each(attr, nlh, sizeof(*ifi)) {
		if (mnl_attr_get_type(attr) == IFLA_IFNAME &&
		    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
			name = mnl_attr_get_str(attr);
	}
	if (nlh->nlmsg_type == RTM_DELLINK) {
		if (pp_tc_gone(f->tc, ifi->ifi_index)) {
			f->gone++;
			pp_debug("%s went away\n", name ? name : "?");
		}
		return MNL_CB_OK;
	}
	if (name)
		link_new(f, ifi->ifi_index, name, pp_iface_ethernet_framed(ifi->ifi_type));
	f->added += f->tc->n > before;
	return MNL_CB_OK;
}

/* Take every notification queued, without waiting. */
static void follow_poll(struct pp_follow *f)
{
	/* One message per read; a device's RTM_NEWLINK can pass a 4K page. */
	char buf[32768];
	ssize_t n;

	while (!atomic_load(&f->stopping)) {
		n = mnl_socket_recvfrom(f->nl, buf, sizeof(buf));
		if (n < 0 && errno == ENOBUFS) {
			/* Notifications were dropped: what is there now tells. */
			f->resyncs++;
			f->failed += (unsigned long)pp_tc_sync(f->tc);
			continue;
		}
		if (n <= 0)
			return; /* EAGAIN: all taken */
		mnl_cb_run(buf, (size_t)n, 0, 0, link_cb, f);
	}
}

static void *follow_thread(void *arg)
{
	struct pp_follow *f = arg;
	struct pollfd p[2] = {{.fd = mnl_socket_get_fd(f->nl), .events = POLLIN},
			      {.fd = f->wake_fd, .events = POLLIN}};

	while (!atomic_load(&f->stopping)) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			follow_poll(f);
	}
	return NULL;
}

int pp_follow_start(struct pp_follow *f, char *err, size_t errlen)
{
	sigset_t all, old;
	int ret;

	/* Created with every signal blocked: SIGINT and SIGTERM wake the ring loop. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = pthread_create(&f->thread, NULL, follow_thread, f);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		snprintf(err, errlen, "cannot follow interfaces (thread): %s", strerror(ret));
		return -ret;
	}
	f->running = true;
	return 0;
}

void pp_follow_close(struct pp_follow *f)
{
	uint64_t one = 1;

	if (!f->tc) /* never opened (zeroed): no descriptor of ours to close */
		return;
	if (f->running) {
		atomic_store(&f->stopping, true);
		/* An eventfd refuses a write only past a count of 2^64 - 2. */
		(void)!write(f->wake_fd, &one, sizeof(one));
		pthread_join(f->thread, NULL);
		f->running = false;
	}
	if (f->nl)
		mnl_socket_close(f->nl);
	f->nl = NULL;
	if (f->wake_fd >= 0)
		close(f->wake_fd);
	f->wake_fd = -1;
	f->tc = NULL;
}
