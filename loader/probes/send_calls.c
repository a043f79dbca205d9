// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "base/compat.h"
#include "probes/attach.h"
#include "bpf_settings.h" /* the skeleton's rodata */
#include "probes.skel.h"
#include "probes/send_calls.h"
#include "probes/tp_link.h"
#include "base/log.h"

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

		snprintf(event, sizeof(event), "syscalls/sys_%s_%s", i % 2 ? "exit" : "enter",
			 pp_send_calls[i / 2]);
		link = pp_tp_link(progs[i], event);
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
