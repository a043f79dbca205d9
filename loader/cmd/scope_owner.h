/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cgroup scope's packets and their processes: who holds each mark's
 * socket (names/sock_owner.h, else the maker the kernel kept), learned at
 * the mark while a short-lived sender still runs and given to the packet
 * when it is printed; and --pid-only's choice of packets
 * (names/pid_socks.h).
 */
#ifndef PP_SCOPE_OWNER_H
#define PP_SCOPE_OWNER_H

#include <stdbool.h>
#include <linux/types.h>
#include "paths/path.h"

struct pp_scope_owner;

/* PID_ONLY: --pid-only's process, 0: none. NULL if out of memory. */
struct pp_scope_owner *pp_scope_owner_new(__u32 pid_only);
void pp_scope_owner_free(struct pp_scope_owner *s);

/* At mark M (NOW_MS: CLOCK_MONOTONIC in ms): its socket's holder looked for. */
void pp_scope_owner_mark(struct pp_scope_owner *s, const struct pp_mark *m, __u64 now_ms);

/*
 * Whether packet P is shown: with --pid-only, only if its socket is the
 * process's (else counted, pp_scope_owner_kept_back()).
 */
bool pp_scope_owner_keep(struct pp_scope_owner *s, const struct pp_packet *p);

/* P's process and where it runs (p->owner_*), if known. */
void pp_scope_owner_name(struct pp_scope_owner *s, struct pp_packet *p, __u64 now_ms);

/* The packets pp_scope_owner_keep() did not show. */
__u64 pp_scope_owner_kept_back(const struct pp_scope_owner *s);

#endif /* PP_SCOPE_OWNER_H */
