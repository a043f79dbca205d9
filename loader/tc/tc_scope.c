// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tc/tc_scope.h"
#include "base/log.h"

/* Enter namespace FD; 0 or -errno. */
static int enter(int fd)
{
	return setns(fd, CLONE_NEWNET) ? -errno : 0;
}

static bool have(const struct pp_scope *s, __u32 inode)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].ns.inode == inode)
			return true;
	return false;
}

/* One namespace: opened, entered, its interfaces chosen; then back home. */
static int open_one(struct pp_scope *s, const struct pp_scope_ns *ns, const char *const *words,
		    int nwords, char *err, size_t errlen)
{
	struct pp_scope_tc *t = &s->v[s->n];
	char why[256];
	int ret;

	memset(t, 0, sizeof(*t));
	t->ns = *ns;
	t->fd = open(ns->path, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0) {
		snprintf(err, errlen, "network namespace %s (%s): %s", ns->label, ns->path,
			 strerror(errno));
		return -errno;
	}
	s->n++;
	ret = enter(t->fd);
	if (ret) {
		snprintf(err, errlen, "cannot enter network namespace %s: %s", ns->label,
			 strerror(-ret));
		return ret;
	}
	ret = pp_tc_resolve(&t->tc, words, nwords, why, sizeof(why));
	if (ret)
		snprintf(err, errlen, "network namespace %s: %s", ns->label, why);
	if (enter(s->self_fd) && !ret) {
		snprintf(err, errlen, "cannot enter pktpath's network namespace again: %s",
			 strerror(errno));
		ret = -EPERM;
	}
	return ret;
}

int pp_scope_tc_open(struct pp_scope *s, const struct pp_scope_ns *ns, size_t n,
		     const char *const *words, int nwords, char *err, size_t errlen)
{
	int ret = 0;

	memset(s, 0, sizeof(*s));
	s->self_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	s->v = calloc(n ? n : 1, sizeof(*s->v));
	if (s->self_fd < 0 || !s->v) {
		snprintf(err, errlen, "cannot open pktpath's network namespace: %s",
			 strerror(errno));
		return -ENOMEM;
	}
	for (size_t i = 0; i < n && !ret; i++)
		if (!have(s, ns[i].inode))
			ret = open_one(s, &ns[i], words, nwords, err, errlen);
	return ret;
}

int pp_scope_tc_attach(struct pp_scope *s, const struct pp_cls *cls, bool tcx, char *err,
		       size_t errlen)
{
	char why[256];
	int ret = 0;

	for (size_t i = 0; i < s->n && !ret; i++) {
		ret = enter(s->v[i].fd);
		if (ret) {
			snprintf(err, errlen, "cannot enter network namespace %s: %s",
				 s->v[i].ns.label, strerror(-ret));
			break;
		}
		s->v[i].tc.tcx = tcx;
		ret = pp_tc_attach(&s->v[i].tc, cls, why, sizeof(why));
		if (ret)
			snprintf(err, errlen, "network namespace %s: %s", s->v[i].ns.label, why);
		if (enter(s->self_fd) && !ret) {
			snprintf(err, errlen, "cannot enter pktpath's network namespace again");
			ret = -EPERM;
		}
	}
	return ret;
}

size_t pp_scope_tc_ifaces(const struct pp_scope *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += s->v[i].tc.n;
	return n;
}

size_t pp_scope_tc_clsact(const struct pp_scope *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += pp_tc_clsact_count(&s->v[i].tc);
	return n;
}

void pp_scope_tc_free(struct pp_scope *s)
{
	for (size_t i = 0; i < s->n; i++) {
		/* tcx links close from anywhere; clsact filters are asked for by ifindex. */
		bool in = pp_tc_clsact_count(&s->v[i].tc) == 0 || enter(s->v[i].fd) == 0;

		if (in)
			pp_tc_free(&s->v[i].tc);
		else
			pp_warn("cannot enter network namespace %s to remove its clsact "
				"filters\n",
				s->v[i].ns.label);
		close(s->v[i].fd);
	}
	if (s->n && s->self_fd >= 0)
		enter(s->self_fd);
	if (s->self_fd > 0)
		close(s->self_fd);
	free(s->v);
	memset(s, 0, sizeof(*s));
}
