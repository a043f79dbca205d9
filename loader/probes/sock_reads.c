// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "probes/attach.h"
#include "kernel/cgroup_scope.h"
#include "bpf_settings.h" /* the skeleton's rodata */
#include "probes.skel.h"
#include "probes/sock_reads.h"
#include "base/log.h"

int pp_sock_reads_attach(struct pp_probes *p)
{
	struct bpf_program *prog = p->skel->progs.pp_cg_ingress;
	struct bpf_link *link;
	int fd;

	if (!bpf_program__autoload(prog))
		return 0;
	fd = pp_cgroup2_open_root();
	if (fd < 0) {
		pp_debug("no cgroup v2 hierarchy: datagrams read inline "
			 "end unseen\n");
		return 0;
	}
	link = bpf_program__attach_cgroup(prog, fd);
	close(fd);
	if (!link) {
		pp_debug("cgroup_skb ingress: not attached: %s\n", strerror(errno));
		return 0;
	}
	if (pp_probes_keep_link(p, link)) {
		bpf_link__destroy(link);
		return -ENOMEM;
	}
	return 1;
}
