// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <microhttpd.h>
#include "metrics/metrics_http.h"

/* Prometheus' text format, as its client libraries announce it. */
#define PP_CT_METRICS "text/plain; version=0.0.4; charset=utf-8"

struct pp_http {
	struct MHD_Daemon *d;
	struct pp_metrics *m;
	int fd;
};

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, char *body, size_t len,
			     enum MHD_ResponseMemoryMode mode, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned int status, const char *s)
{
	return reply(c, status, (char *)s, strlen(s), MHD_RESPMEM_PERSISTENT,
		     "text/plain; charset=utf-8");
}

static enum MHD_Result metrics(struct MHD_Connection *c, struct pp_metrics *m)
{
	size_t len = 0;
	char *body = pp_metrics_render(m, "/proc/self", &len);

	if (!body)
		return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return reply(c, MHD_HTTP_OK, body, len, MHD_RESPMEM_MUST_FREE, PP_CT_METRICS);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_len, void **state)
{
	struct pp_http *h = cls;

	(void)version;
	(void)upload;
	if (*upload_len)
		return MHD_NO; /* no request of ours has a body */
	(void)state;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only\n");
	if (!strcmp(url, "/metrics"))
		return metrics(c, h->m);
	if (!strcmp(url, "/healthz"))
		return pp_metrics_alive(h->m, mono_ns())
			       ? text(c, MHD_HTTP_OK, "ok\n")
			       : text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "not tracing\n");
	if (!strcmp(url, "/"))
		return text(c, MHD_HTTP_OK, "pktpath: /metrics, /healthz\n");
	return text(c, MHD_HTTP_NOT_FOUND, "not found: /metrics, /healthz\n");
}

struct pp_http *pp_http_start(int fd, struct pp_metrics *m, char *err, size_t errlen)
{
	struct pp_http *h = calloc(1, sizeof(*h));

	if (!h) {
		snprintf(err, errlen, "--metrics: out of memory");
		return NULL;
	}
	h->m = m;
	h->fd = fd;
	/*
	 * One thread of its own, epoll (fd numbers past FD_SETSIZE are common:
	 * every probe holds fds); a handful of scrapers at a time, none idle
	 * for more than 10 s.
	 */
	h->d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, on_request, h,
				MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT, 16U,
				MHD_OPTION_CONNECTION_TIMEOUT, 10U, MHD_OPTION_END);
	if (!h->d) {
		snprintf(err, errlen, "--metrics: cannot start the HTTP server");
		free(h);
		return NULL;
	}
	return h;
}

void pp_http_stop(struct pp_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d); /* closes the listening socket too */
	free(h);
}
