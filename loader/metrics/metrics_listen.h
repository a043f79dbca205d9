/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --metrics [ADDR:]PORT: the listening socket, bound while pktpath still
 * has every capability and nothing is attached (a port in use is bad input,
 * exit 2); the HTTP thread (metrics_http.h) takes it over once privileges
 * are dropped, so that it runs with what the reader keeps and under the
 * same seccomp filter.
 */
#ifndef PP_METRICS_LISTEN_H
#define PP_METRICS_LISTEN_H

#include <stddef.h>
#include <sys/socket.h>

/*
 * "9464": every address, IPv6 and IPv4; "127.0.0.1:9464"; "[::1]:9464".
 * Numeric addresses only. Returns 0, or -EINVAL with a message in err.
 */
int pp_metrics_parse_addr(const char *arg, struct sockaddr_storage *sa, socklen_t *len, char *err,
			  size_t errlen);

/* A listening TCP socket on ARG; -errno with a message in err. */
int pp_metrics_listen(const char *arg, char *err, size_t errlen);

#endif
