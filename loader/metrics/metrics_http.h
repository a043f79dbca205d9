/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HTTP side of --metrics: libmicrohttpd's own thread answers
 * GET /metrics (pp_metrics_render()), GET /healthz (200 while the reader
 * reports, 503 otherwise) and nothing else, on the socket that
 * pp_metrics_listen() bound.
 */
#ifndef PP_METRICS_HTTP_H
#define PP_METRICS_HTTP_H

#include <stddef.h>
#include "metrics/metrics.h"

struct pp_http;

/* Serves M on listening socket FD (taken over, closed by pp_http_stop()). NULL: see err. */
struct pp_http *pp_http_start(int fd, struct pp_metrics *m, char *err, size_t errlen);
void pp_http_stop(struct pp_http *h);

#endif
