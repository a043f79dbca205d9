// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "metrics/metrics_listen.h"

static int bad(char *err, size_t errlen, const char *arg, const char *why)
{
	snprintf(err, errlen, "--metrics \"%s\": %s", arg, why);
	return -EINVAL;
}

static int parse_port(const char *s, in_port_t *port)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 1 || v > 65535)
		return -1;
	*port = htons((unsigned short)v);
	return 0;
}

int pp_metrics_parse_addr(const char *arg, struct sockaddr_storage *sa, socklen_t *len, char *err,
			  size_t errlen)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;
	struct sockaddr_in *s4 = (struct sockaddr_in *)sa;
	const char *colon = strrchr(arg, ':');
	char host[INET6_ADDRSTRLEN + 2];
	size_t hl;

	memset(sa, 0, sizeof(*sa));
	s6->sin6_family = AF_INET6;
	s6->sin6_addr = in6addr_any;
	*len = sizeof(*s6);
	if (parse_port(colon ? colon + 1 : arg, &s6->sin6_port))
		return bad(err, errlen, arg, "wants [ADDR:]PORT, a port from 1 to 65535");
	if (!colon)
		return 0;
	hl = (size_t)(colon - arg);
	if (hl + 1 > sizeof(host))
		return bad(err, errlen, arg, "not a numeric IPv4 or [IPv6] address");
	memcpy(host, arg, hl);
	host[hl] = '\0';
	if (hl > 2 && host[0] == '[' && host[hl - 1] == ']') {
		host[hl - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &s6->sin6_addr) == 1)
			return 0;
	} else if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		in_port_t port = s6->sin6_port;

		s4->sin_family = AF_INET;
		s4->sin_port = port;
		*len = sizeof(*s4);
		return 0;
	}
	return bad(err, errlen, arg, "not a numeric IPv4 or [IPv6] address");
}

/* "PORT" alone: both families on one IPv6 socket; IPv4 alone where IPv6 is off. */
static int open_socket(struct sockaddr_storage *sa, socklen_t *len)
{
	int fd = socket(sa->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), off = 0, on = 1;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;

	if (fd < 0 && errno == EAFNOSUPPORT && sa->ss_family == AF_INET6 &&
	    IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr)) {
		struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = s6->sin6_port};

		memcpy(sa, &s4, sizeof(s4));
		*len = sizeof(s4);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	}
	if (fd < 0)
		return -1;
	if (sa->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	return fd;
}

int pp_metrics_listen(const char *arg, char *err, size_t errlen)
{
	struct sockaddr_storage sa;
	socklen_t len;
	int fd, ret = pp_metrics_parse_addr(arg, &sa, &len, err, errlen);

	if (ret)
		return ret;
	fd = open_socket(&sa, &len);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, len) || listen(fd, 64)) {
		ret = -errno;
		snprintf(err, errlen, "--metrics \"%s\": cannot listen: %s", arg, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	return fd;
}
