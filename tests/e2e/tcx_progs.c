// SPDX-License-Identifier: GPL-2.0
/*
 * tcx_progs IFACE: the names of the programs on IFACE's tcx ingress and
 * egress, one "DIR NAME" line each, in the order they run. Debian 12's
 * bpftool (7.1) predates tcx and shows none of them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <bpf/bpf.h>

#ifndef BPF_TCX_INGRESS
#define BPF_TCX_INGRESS 46
#define BPF_TCX_EGRESS	47
#endif

static int show(int ifindex, int type, const char *dir)
{
	__u32 ids[64];
	LIBBPF_OPTS(bpf_prog_query_opts, q, .prog_ids = ids, .prog_cnt = 64);

	if (bpf_prog_query_opts(ifindex, type, &q)) {
		fprintf(stderr, "tcx_progs: query %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (__u32 i = 0; i < q.prog_cnt; i++) {
		struct bpf_prog_info info = {0};
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(ids[i]);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			snprintf((char *)info.name, sizeof(info.name), "?");
		if (fd >= 0)
			close(fd);
		printf("%s %s\n", dir, info.name);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int ifindex = argc == 2 ? if_nametoindex(argv[1]) : 0;

	if (!ifindex) {
		fprintf(stderr, "usage: tcx_progs IFACE (an interface of this namespace)\n");
		return 2;
	}
	return show((int)ifindex, BPF_TCX_INGRESS, "ingress") |
	       show((int)ifindex, BPF_TCX_EGRESS, "egress");
}
