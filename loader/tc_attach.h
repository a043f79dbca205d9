/* SPDX-License-Identifier: GPL-2.0 */
/* The classifier on ingress and egress of interfaces: tcx links, else clsact. */
#ifndef PP_TC_ATTACH_H
#define PP_TC_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <net/if.h>

struct pp_cls;

struct pp_tc_hook {
	int ifindex;
	char ifname[IF_NAMESIZE];
	int link_fd[2];			 /* tcx links, ingress and egress; -1 if none */
	bool clsact_created;		 /* clsact: pktpath made the qdisc, so removes it */
	unsigned int handle[2], prio[2]; /* clsact: our filters, 0 if none */
};

struct pp_tc {
	struct pp_tc_hook *v;
	size_t n;
	bool tcx; /* false: this kernel has no tcx, clsact is used */
};

/*
 * Resolve interface names (NULL/0: every Ethernet-like interface of this
 * network namespace). An unknown name is -ENODEV with a message in ERR.
 * Nothing is attached yet.
 */
int pp_tc_resolve(struct pp_tc *tc, const char *const *names, int n, char *err, size_t errlen);
int pp_tc_attach(struct pp_tc *tc, const struct pp_cls *cls, char *err, size_t errlen);
/* Remove exactly what pp_tc_attach() added; safe to call twice. */
void pp_tc_detach(struct pp_tc *tc);
void pp_tc_free(struct pp_tc *tc);

#endif
