// SPDX-License-Identifier: GPL-2.0
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "probes/skipped.h"

__u64 pp_prog_skipped(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) ? info.recursion_misses : 0;
}

__u64 pp_object_skipped(const struct bpf_object *obj)
{
	struct bpf_program *prog;
	__u64 n = 0;

	bpf_object__for_each_program(prog, obj)
		n += pp_prog_skipped(bpf_program__fd(prog));
	return n;
}
