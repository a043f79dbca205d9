/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interfaces that come and go while pktpath traces: netlink link
 * notifications of pktpath's network namespace (libmnl). A new interface
 * that -i wants gets the classifier; one that goes away is let go.
 */
#ifndef PP_TC_FOLLOW_H
#define PP_TC_FOLLOW_H

#include <stdbool.h>
#include <stdio.h>

struct mnl_socket;
struct pp_tc;

struct pp_follow {
	struct mnl_socket *nl;
	struct pp_tc *tc;
	FILE *log;
	bool verbose;
	unsigned long added, gone, failed, resyncs;
};

/*
 * Subscribe before the interfaces are listed (pp_tc_resolve()), so that
 * none appears unseen between the list and the first pp_follow_poll().
 */
int pp_follow_open(struct pp_follow *f, struct pp_tc *tc, FILE *log, bool verbose, char *err,
		   size_t errlen);
/* Take every notification queued, without waiting. */
void pp_follow_poll(struct pp_follow *f);
void pp_follow_close(struct pp_follow *f);

#endif
