// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include "kernel/ftrace_funcs.h"
#include "probes/tp_link.h"

/* The tracepoint's id in tracefs, or a negative errno. */
static long tp_id(const char *event)
{
	char rel[96], *buf;
	long id;

	snprintf(rel, sizeof(rel), "events/%s/id", event);
	if (pp_tracefs_read(rel, &buf))
		return -ENOENT;
	id = strtol(buf, NULL, 10);
	free(buf);
	return id > 0 ? id : -ENOENT;
}

bool pp_tp_exists(const char *event)
{
	return tp_id(event) > 0;
}

/*
 * A tracepoint perf event on CPU 0 runs its BPF program on every CPU (the
 * program hangs off the event's class, as libbpf's own attach does).
 */
struct bpf_link *pp_tp_link(struct bpf_program *prog, const char *event)
{
	struct perf_event_attr attr = {.type = PERF_TYPE_TRACEPOINT, .size = sizeof(attr)};
	long id = tp_id(event);
	struct bpf_link *link;
	int fd;

	if (id < 0) {
		errno = ENOENT;
		return NULL;
	}
	attr.config = (__u64)id;
	fd = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return NULL;
	link = bpf_program__attach_perf_event(prog, fd);
	if (!link)
		close(fd);
	return link;
}
