// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/compat.h"
#include "kernel/kfeatures.h"

static const struct bpf_insn ret0[] = {
	{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
	{.code = BPF_JMP | BPF_EXIT},
};

/* TC_ACT_UNSPEC / TCX_NEXT: the probe classifier decides nothing. */
static const struct bpf_insn next[] = {
	{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = -1},
	{.code = BPF_JMP | BPF_EXIT},
};

int pp_kfeatures_kprobe_open(const char *func)
{
	struct perf_event_attr attr = {.size = sizeof(attr)};
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	int type = -1, fd;

	if (!f)
		return -ENOENT;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	if (type < 0)
		return -ENOENT;
	attr.type = (__u32)type;
	attr.config1 = (__u64)(unsigned long)func;
	fd = (int)syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* A kprobe through the perf PMU, the path libbpf takes; no BPF involved. */
bool pp_kfeatures_has_kprobe(const char *func)
{
	int fd = pp_kfeatures_kprobe_open(func);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

bool pp_kfeatures_has_kprobe_multi(const char *func)
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

/* A BPF_PROG_TYPE_TRACING program of TYPE on BTF_ID, attached and let go. */
static bool try_tracing(enum bpf_attach_type type, __u32 btf_id)
{
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = type, .attach_btf_id = btf_id);
	int prog, link;

	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "pp_feat_tracing", "GPL", ret0, 2, &po);
	if (prog < 0)
		return false;
	link = bpf_raw_tracepoint_open(NULL, prog);
	close(prog);
	if (link < 0)
		return false;
	close(link);
	return true;
}

bool pp_kfeatures_has_fentry(__u32 func_btf_id)
{
	return try_tracing(BPF_TRACE_FENTRY, func_btf_id);
}

bool pp_kfeatures_has_tp_btf(__u32 typedef_btf_id)
{
	return try_tracing(BPF_TRACE_RAW_TP, typedef_btf_id);
}

bool pp_kfeatures_has_ringbuf(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "pp_feat_rb", 0, 0, 4096, NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* The verifier accepts bpf_get_attach_cookie() where the kernel has cookies. */
bool pp_kfeatures_has_attach_cookie(void)
{
	static const struct bpf_insn prog[] = {
		{.code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_attach_cookie},
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "pp_feat_cookie", "GPL", prog, 3, NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* A fetch-and-add on the stack; 5.10's verifier: "BPF_XADD uses reserved fields". */
bool pp_kfeatures_has_atomic_fetch(void)
{
	static const struct bpf_insn prog[] = {
		{.code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -8},
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1},
		{.code = BPF_STX | BPF_ATOMIC | BPF_DW,
		 .dst_reg = BPF_REG_10,
		 .src_reg = BPF_REG_1,
		 .off = -8,
		 .imm = BPF_ADD | BPF_FETCH},
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "pp_feat_fetch", "GPL", prog,
			       ARRAY_SIZE(prog), NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* The helper's availability is the same in every program type: the base set. */
bool pp_kfeatures_has_bpf_loop(void)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_SCHED_CLS, BPF_FUNC_loop, NULL) == 1;
}

static int try_tcx(void)
{
	int prog = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "pp_feat_tcx", "GPL", next, 2, NULL);
	int link = prog < 0 ? -1 : bpf_link_create(prog, 1, BPF_TCX_INGRESS, NULL);

	return link >= 0 ? 0 : 1;
}

static int try_clsact(void)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = 1, .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts);
	int prog = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "pp_feat_cls", "GPL", next, 2, NULL);

	if (prog < 0 || bpf_tc_hook_create(&hook))
		return 1;
	opts.prog_fd = prog;
	return bpf_tc_attach(&hook, &opts) ? 1 : 0;
}

/*
 * Run TRY in a child that has a network namespace of its own, on its
 * loopback (ifindex 1): what it attaches dies with the child's namespace.
 */
static bool in_new_netns(int (*try)(void))
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return false;
	if (pid == 0) {
		if (unshare(CLONE_NEWNET))
			_exit(1);
		_exit(try());
	}
	if (waitpid(pid, &status, 0) != pid)
		return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool pp_kfeatures_has_tcx(void)
{
	return in_new_netns(try_tcx);
}

bool pp_kfeatures_has_clsact(void)
{
	return in_new_netns(try_clsact);
}

bool pp_kfeatures_has_sock_maker(void)
{
	static const enum bpf_func_id need[] = {BPF_FUNC_get_current_pid_tgid,
						BPF_FUNC_get_current_comm, BPF_FUNC_sk_storage_get};

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_CGROUP_SOCK, need[i], NULL) != 1)
			return false;
	return true;
}
