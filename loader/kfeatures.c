// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include "kfeatures.h"

static const struct bpf_insn ret0[] = {
	{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
	{.code = BPF_JMP | BPF_EXIT},
};

/* A kprobe through the perf PMU, the path libbpf takes; no BPF involved. */
bool pp_has_kprobe(const char *func)
{
	struct perf_event_attr attr = {.size = sizeof(attr)};
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	int type = -1, fd;

	if (!f)
		return false;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	if (type < 0)
		return false;
	attr.type = (__u32)type;
	attr.config1 = (__u64)(unsigned long)func;
	fd = (int)syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

bool pp_has_kprobe_multi(const char *func)
{
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = BPF_TRACE_KPROBE_MULTI);
	LIBBPF_OPTS(bpf_link_create_opts, lo, .kprobe_multi.syms = &func, .kprobe_multi.cnt = 1);
	int prog, link;

	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "pp_feat_kmulti", "GPL", ret0, 2, &po);
	if (prog < 0)
		return false;
	link = bpf_link_create(prog, 0, BPF_TRACE_KPROBE_MULTI, &lo);
	close(prog);
	if (link < 0)
		return false;
	close(link);
	return true;
}

bool pp_has_fentry(__u32 func_btf_id)
{
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = func_btf_id);
	int prog, link;

	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "pp_feat_fentry", "GPL", ret0, 2, &po);
	if (prog < 0)
		return false;
	link = bpf_raw_tracepoint_open(NULL, prog);
	close(prog);
	if (link < 0)
		return false;
	close(link);
	return true;
}
