// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include "base/compat.h"
#include "probes/attach.h"
#include "kernel/ftrace_funcs.h"
#include "bpf_settings.h" /* the skeleton's rodata */
#include "probes.skel.h"
#include "probes/send_calls.h"
#include "base/log.h"

/* The tracepoint's id in tracefs, or a negative errno. */
static long tp_id(const char *event)
{
	char rel[96], *buf;
	long id;

	snprintf(rel, sizeof(rel), "events/syscalls/%s/id", event);
	if (pp_tracefs_read(rel, &buf))
		return -ENOENT;
	id = strtol(buf, NULL, 10);
	free(buf);
	return id > 0 ? id : -ENOENT;
}

/*
 * A tracepoint perf event on CPU 0 runs its BPF program on every CPU (the
 * program hangs off the event's class, as libbpf's own attach does).
 */
static struct bpf_link *attach_tp(struct bpf_program *prog, const char *event)
{
	struct perf_event_attr attr = {.type = PERF_TYPE_TRACEPOINT, .size = sizeof(attr)};
	long id = tp_id(event);
	struct bpf_link *link;
	int fd;

	if (id < 0)
		return NULL;
	attr.config = (__u64)id;
	fd = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return NULL;
	link = bpf_program__attach_perf_event(prog, fd);
	if (!link)
		close(fd);
	return link;
}

const char *const pp_send_calls[PP_SEND_CALLS] = {"sendto", "sendmsg", "sendmmsg"};

int pp_send_calls_attach(struct pp_probes *p)
{
	struct probes *s = p->skel;
	/* Each call's entry and exit programs, in pp_send_calls[]' order. */
	struct bpf_program *progs[PP_SEND_CALLS * 2] = {
		s->progs.pp_enter_sendto, s->progs.pp_exit_sendto,    s->progs.pp_enter_sendmsg,
		s->progs.pp_exit_sendmsg, s->progs.pp_enter_sendmmsg, s->progs.pp_exit_sendmmsg,
	};
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(progs); i++) {
		char event[40];
		struct bpf_link *link;

		snprintf(event, sizeof(event), "sys_%s_%s", i % 2 ? "exit" : "enter",
			 pp_send_calls[i / 2]);
		link = attach_tp(progs[i], event);
		if (!link) {
			pp_debug("%s: not attached\n", event);
			continue;
		}
		if (pp_probes_keep_link(p, link)) {
			bpf_link__destroy(link);
			return -ENOMEM;
		}
		n++;
	}
	return n;
}
