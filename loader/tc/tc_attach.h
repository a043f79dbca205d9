/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The classifier on ingress and egress of interfaces: tcx links for a few,
 * clsact filters for many or where the kernel has no tcx.
 */
#ifndef PP_TC_ATTACH_H
#define PP_TC_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <net/if.h>

struct pp_cls;

/* tcx for at most this many interfaces (use_tcx() in tc_attach.c says why). */
#define PP_TCX_MAX 16

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
	bool tcx;		  /* tcx may be used: set before pp_tc_attach(); false if unknown */
	bool tcx_works;		  /* a tcx link was made: an error is no unknown type */
	const char *const *words; /* -i names and patterns (iface_match.h) */
	int nwords;
	const struct pp_cls *cls; /* for interfaces that come later */
};

/*
 * Resolve -i WORDS (none: every interface of this network namespace with
 * Ethernet framing, lo too; a pattern: those that match now). An unknown name is -ENODEV
 * with a message in ERR. Nothing is attached yet. WORDS must outlive TC.
 */
int pp_tc_resolve(struct pp_tc *tc, const char *const *words, int n, char *err, size_t errlen);
/* An interface that went away before its attach is let go (-v says so). */
int pp_tc_attach(struct pp_tc *tc, const struct pp_cls *cls, char *err, size_t errlen);
/* Interfaces on clsact, not tcx. */
size_t pp_tc_clsact_count(const struct pp_tc *tc);
/* "tcx", "clsact" or both with counts: for the ready line. */
const char *pp_tc_mode(const struct pp_tc *tc, char *buf, size_t len);
/* Does interface NAME, Ethernet-framed (pp_iface_ethernet_framed()) or not, get the classifier? */
bool pp_tc_wanted(const struct pp_tc *tc, const char *name, bool ethernet);
/*
 * An interface that appeared while tracing: attach to it (nothing if it
 * has the classifier already; a rename is noted). -ENODEV: gone again.
 */
int pp_tc_add(struct pp_tc *tc, int ifindex, const char *name, char *err, size_t errlen);
/*
 * An interface that went away: its tcx links or clsact filters went with
 * it. Close the links, forget the filters without touching the ifindex
 * (another device may get it), and drop the hook. Returns false if it had
 * none.
 */
bool pp_tc_gone(struct pp_tc *tc, int ifindex);
/*
 * Notifications were lost: compare with the interfaces there are now,
 * attach to the wanted ones missing, let go of those gone. Returns how
 * many attaches failed.
 */
int pp_tc_sync(struct pp_tc *tc);
/* Remove exactly what pp_tc_attach() and pp_tc_add() added; safe to call twice. */
void pp_tc_detach(struct pp_tc *tc);
void pp_tc_free(struct pp_tc *tc);

#endif
