/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clsact filters that a killed pktpath left behind (tcx links die with the
 * process; clsact filters do not). pktpath's own filters carry its pid as
 * their handle, so a stale one is one whose pid is no longer a pktpath.
 */
#ifndef PP_TC_STALE_H
#define PP_TC_STALE_H

#include <stdio.h>

/* Remove the stale filters of one hook; report each on LOG. Count or -errno. */
int pp_tc_remove_stale(int ifindex, int egress, const char *ifname);

#endif
