/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sockets a cgroup scope's processes hold when pktpath starts: each is
 * given its holder as maker in sock_maker_map (include/pktpath.h), as
 * pp_sock_create() gives the sockets made later. On ingress the classifier
 * knows the scope's sockets by that storage: a running server's listener
 * then takes its inbound SYNs into the scope.
 */
#ifndef PP_SCOPE_SOCKS_H
#define PP_SCOPE_SOCKS_H

/*
 * Every socket that a process of the cgroup open as CGROUP_FD (or of one
 * below it) holds: its holder into the storage of map MAP_FD (a
 * BPF_MAP_TYPE_SK_STORAGE whose value is struct pp_sock_maker). The number
 * of sockets given one. Needs CAP_SYS_PTRACE (pidfd_getfd(2)).
 */
int pp_scope_socks_fill(int map_fd, int cgroup_fd);

#endif /* PP_SCOPE_SOCKS_H */
