/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interfaces that come and go while pktpath traces: netlink link
 * notifications of pktpath's network namespace (libmnl). A new interface
 * that -i wants gets the classifier; one that goes away is let go. A
 * thread of its own does it: a tcx attach waits for an RCU grace period,
 * and a burst of them must not hold up the ring buffer's reader.
 */
#ifndef PP_TC_FOLLOW_H
#define PP_TC_FOLLOW_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

struct mnl_socket;
struct pp_tc;

struct pp_follow {
	struct mnl_socket *nl;
	int wake_fd;	      /* eventfd: pp_follow_close() ends the thread */
	atomic_bool stopping; /* checked between two notifications */
	pthread_t thread;
	bool running;
	struct pp_tc *tc;
	unsigned long added, gone, failed, resyncs;
};

/*
 * Subscribe before the interfaces are listed (pp_tc_resolve()), so that
 * none appears unseen between the list and the first pp_follow_poll().
 */
int pp_follow_open(struct pp_follow *f, struct pp_tc *tc, char *err, size_t errlen);
/*
 * From here on the thread owns TC (pp_tc_*) until pp_follow_close(). Start
 * it once privileges are dropped: the thread takes the credentials and the
 * seccomp filter of its creator. Signals stay with the main thread.
 */
int pp_follow_start(struct pp_follow *f, char *err, size_t errlen);
/* Ends the thread (the attach under way finishes first) and the socket. */
void pp_follow_close(struct pp_follow *f);

#endif
