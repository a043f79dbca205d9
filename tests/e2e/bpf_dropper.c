// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_dropper IFACE HOOK PORT NAME [TO]: a BPF program named NAME that
 * drops IPv4 UDP to PORT (an XDP one with TO: redirects it to interface
 * TO, "redirected N" at exit) and passes everything else, at HOOK of IFACE
 * (clsact-ingress, clsact-egress, tcx-ingress, tcx-egress, xdp-generic,
 * xdp-native: the driver's mode, which veth has),
 * as a node's datapath programs would. Prints "id N" on stderr once
 * attached, holds it until SIGINT or SIGTERM, then takes it away and
 * prints "dropped N", the drops it counted itself. Its instructions are
 * written here, so that no BPF compiler runs for tests; its BTF too, one
 * function NAME, so that fentry and fexit attach to it.
 *
 * HOOK test-run (IFACE any, unused): the TC program attached nowhere
 * (test-run-xdp: the XDP program); for each line of stdin, a number
 * REPEAT, BPF_PROG_TEST_RUN runs it REPEAT times on a 64-byte UDP frame to
 * PORT + 1 (one it passes) and "ns N" on stdout is the kernel's mean time
 * per run: what tracing it costs it. test-run-xdp-drop: the XDP program
 * on frames to PORT, which it drops; test-run-xdp-redirect: which it
 * redirects to IFACE, as live frames (Linux 5.18+: the kernel redirects
 * them as a driver would).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#ifndef BPF_TCX_INGRESS
#define BPF_TCX_INGRESS 46
#define BPF_TCX_EGRESS	47
#endif
#ifndef BPF_ATOMIC
#define BPF_ATOMIC BPF_XADD /* the same encoding, renamed in 5.12 */
#endif

/* The instructions used below (the kernel's filter.h macros are not UAPI). */
#define LDX(sz, d, s, o)                                                                           \
	((struct bpf_insn){                                                                        \
		.code = BPF_LDX | BPF_##sz | BPF_MEM, .dst_reg = d, .src_reg = s, .off = o})
#define MOV_REG(d, s)                                                                              \
	((struct bpf_insn){.code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = d, .src_reg = s})
#define MOV_IMM(d, i)                                                                              \
	((struct bpf_insn){.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = d, .imm = i})
#define ADD_IMM(d, i)                                                                              \
	((struct bpf_insn){.code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = d, .imm = i})
#define JGT_REG(d, s, o)                                                                           \
	((struct bpf_insn){.code = BPF_JMP | BPF_JGT | BPF_X, .dst_reg = d, .src_reg = s, .off = o})
#define JNE_IMM(d, i, o)                                                                           \
	((struct bpf_insn){.code = BPF_JMP | BPF_JNE | BPF_K, .dst_reg = d, .imm = i, .off = o})
#define JEQ_IMM(d, i, o)                                                                           \
	((struct bpf_insn){.code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = d, .imm = i, .off = o})
#define ST_IMM(sz, d, o, i)                                                                        \
	((struct bpf_insn){.code = BPF_ST | BPF_##sz | BPF_MEM, .dst_reg = d, .off = o, .imm = i})
/* Two instructions: the second holds the upper half of a 64-bit immediate. */
#define LD_MAP_FD(d, fd)                                                                           \
	((struct bpf_insn){.code = BPF_LD | BPF_DW | BPF_IMM,                                      \
			   .dst_reg = d,                                                           \
			   .src_reg = BPF_PSEUDO_MAP_FD,                                           \
			   .imm = fd}),                                                            \
		((struct bpf_insn){0})
#define CALL(f) ((struct bpf_insn){.code = BPF_JMP | BPF_CALL, .imm = f})
#define ADD_ATOMIC_DW(d, s, o)                                                                     \
	((struct bpf_insn){.code = BPF_STX | BPF_ATOMIC | BPF_DW,                                  \
			   .dst_reg = d,                                                           \
			   .src_reg = s,                                                           \
			   .off = o,                                                               \
			   .imm = BPF_ADD})
#define EXIT() ((struct bpf_insn){.code = BPF_JMP | BPF_EXIT})

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * The kernel's BTF for the program: one function NAME(struct CTX *ctx)
 * returning int. The kernel matches the context's struct by name alone,
 * so it needs no members. Its fd, and the function's type id in FUNC.
 */
static int prog_btf(const char *ctx, const char *name, __u32 *func)
{
	struct btf *btf = btf__new_empty();
	int ptr, proto, id, fd = -1;

	if (!btf)
		return -1;
	/* A failed step's negative id fails the steps that use it. */
	ptr = btf__add_ptr(btf, btf__add_struct(btf, ctx, 0));
	proto = btf__add_func_proto(btf, btf__add_int(btf, "int", 4, BTF_INT_SIGNED));
	id = btf__add_func_param(btf, "ctx", ptr);
	id = id ? id : btf__add_func(btf, name, BTF_FUNC_STATIC, proto);
	if (id > 0 && !btf__load_into_kernel(btf)) {
		*func = id;
		/* btf__free() closes its own. */
		fd = dup(btf__fd(btf));
	}
	btf__free(btf);
	return fd;
}

/*
 * Drop (DROP) an Ethernet frame with an IPv4 header of 20 bytes, UDP, to
 * PORT, or redirect it to interface TO (not 0), adding 1 to MAP's one
 * __u64; else PASS. DATA and END: the
 * context's offsets of the packet's start and end (struct __sk_buff's,
 * struct xdp_md's).
 */
static int load(enum bpf_prog_type type, const char *name, int data, int end, __u16 port, int drop,
		int pass, int map, int to)
{
	struct bpf_insn p[] = {
		LDX(W, 2, 1, data),
		LDX(W, 3, 1, end),
		MOV_REG(4, 2),
		ADD_IMM(4, 14 + 20 + 4),
		JGT_REG(4, 3, 21), /* each "pass" jump lands on p[26] */
		LDX(H, 5, 2, 12),
		JNE_IMM(5, htons(0x0800), 19),
		LDX(B, 5, 2, 14),
		JNE_IMM(5, 0x45, 17),
		LDX(B, 5, 2, 14 + 9),
		JNE_IMM(5, 17, 15),
		LDX(H, 5, 2, 14 + 20 + 2),
		JNE_IMM(5, htons(port), 13),
		/* p[13]: a drop, counted. The call takes r1-r5, so only now. */
		ST_IMM(W, 10, -4, 0),
		MOV_REG(2, 10),
		ADD_IMM(2, -4),
		LD_MAP_FD(1, map),
		CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(0, 0, 2), /* to p[22]: the verifier wants NULL checked */
		MOV_IMM(1, 1),
		ADD_ATOMIC_DW(0, 1, 0),
		/* p[22]: bpf_redirect(TO, 0), which returns XDP_REDIRECT; or DROP. */
		MOV_IMM(1, to),
		MOV_IMM(2, 0),
		to ? CALL(BPF_FUNC_redirect) : MOV_IMM(0, drop),
		EXIT(),
		MOV_IMM(0, pass),
		EXIT(),
	};
	struct bpf_func_info func = {0};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .func_info = &func,
		    .func_info_rec_size = sizeof(func), .func_info_cnt = 1);
	int btf, fd;

	btf = prog_btf(type == BPF_PROG_TYPE_XDP ? "xdp_md" : "__sk_buff", name, &func.type_id);
	if (btf < 0) {
		fprintf(stderr, "bpf_dropper: btf: %s\n", strerror(errno));
		return -1;
	}
	opts.prog_btf_fd = btf;
	fd = bpf_prog_load(type, name, "GPL", p, sizeof(p) / sizeof(p[0]), &opts);
	if (fd < 0)
		fprintf(stderr, "bpf_dropper: load: %s\n", strerror(errno));
	close(btf);
	return fd;
}

/*
 * test-run: the mean ns per run of program FD on a frame to PORT, per line
 * of stdin; LIVE: as live frames, which the kernel redirects.
 */
static int test_runs(int fd, __u16 port, bool live)
{
	unsigned char frame[64] = {[12] = 0x08, [14] = 0x45, [23] = 17};
	__u16 dport = htons(port);
	char line[32];

	memcpy(frame + 14 + 20 + 2, &dport, sizeof(dport));
	while (fgets(line, sizeof(line), stdin)) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame, .data_size_in = sizeof(frame),
			    .repeat = (__u32)atoi(line),
			    .flags = live ? BPF_F_TEST_XDP_LIVE_FRAMES : 0);

		if (bpf_prog_test_run_opts(fd, &o)) {
			fprintf(stderr, "bpf_dropper: test run: %s\n", strerror(errno));
			return 1;
		}
		printf("ns %u\n", o.duration);
		fflush(stdout);
	}
	return 0;
}

int main(int argc, char **argv)
{
	bool args = argc == 5 || argc == 6;
	const char *hook = args ? argv[2] : "";
	int ifindex = args ? (int)if_nametoindex(argv[1]) : 0, fd, link = -1, err, map;
	bool live = !strcmp(hook, "test-run-xdp-redirect");
	bool judged = live || !strcmp(hook, "test-run-xdp-drop");
	int to = argc == 6 ? (int)if_nametoindex(argv[5]) : (live ? ifindex : 0);
	__u32 xdp_mode = !strcmp(hook, "xdp-generic")  ? XDP_FLAGS_SKB_MODE
			 : !strcmp(hook, "xdp-native") ? XDP_FLAGS_DRV_MODE
						       : 0;
	bool test_run = !strncmp(hook, "test-run", 8);
	bool xdp = xdp_mode != 0 || !strncmp(hook, "test-run-xdp", 12);
	bool egress = strstr(hook, "egress") != NULL;
	LIBBPF_OPTS(bpf_tc_hook, tc, .ifindex = ifindex,
		    .attach_point = egress ? BPF_TC_EGRESS : BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .priority = 1);
	__u16 port = args ? (__u16)atoi(argv[3]) : 0;
	struct bpf_prog_info info = {0};
	__u32 len = sizeof(info), key = 0;
	__u64 dropped = 0;

	if (!ifindex || !port || (argc == 6 && (!to || !xdp))) {
		fprintf(stderr, "usage: bpf_dropper IFACE HOOK PORT NAME [REDIRECT-TO]\n");
		return 2;
	}
	map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "dropped", sizeof(key), sizeof(dropped), 1, NULL);
	if (map < 0) {
		fprintf(stderr, "bpf_dropper: map: %s\n", strerror(errno));
		return 1;
	}
	fd = xdp ? load(BPF_PROG_TYPE_XDP, argv[4], 0, 4, port, XDP_DROP, XDP_PASS, map, to)
		 : load(BPF_PROG_TYPE_SCHED_CLS, argv[4], 76, 80, port, TC_ACT_SHOT, TC_ACT_OK, map,
			0);
	if (fd < 0)
		return 1;
	if (test_run) {
		err = bpf_obj_get_info_by_fd(fd, &info, &len);
		fprintf(stderr, "id %u\n", info.id);
		return err ? 1 : test_runs(fd, judged ? port : (__u16)(port + 1), live);
	} else if (xdp) {
		err = bpf_xdp_attach(ifindex, fd, xdp_mode, NULL);
	} else if (!strncmp(hook, "tcx-", 4)) {
		link = bpf_link_create(fd, ifindex, egress ? BPF_TCX_EGRESS : BPF_TCX_INGRESS,
				       NULL);
		err = link < 0 ? link : 0;
	} else {
		err = bpf_tc_hook_create(&tc);
		opts.prog_fd = fd;
		err = err && err != -EEXIST ? err : bpf_tc_attach(&tc, &opts);
	}
	if (err || bpf_obj_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "bpf_dropper: attach at %s: %s\n", hook, strerror(errno));
		return 1;
	}
	fprintf(stderr, "id %u\n", info.id);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	while (!stop)
		pause();
	if (xdp)
		bpf_xdp_detach(ifindex, xdp_mode, NULL);
	else if (link < 0) {
		/* Detach names the filter by handle and priority alone. */
		opts.prog_fd = opts.prog_id = opts.flags = 0;
		bpf_tc_detach(&tc, &opts);
	}
	if (bpf_map_lookup_elem(map, &key, &dropped)) {
		fprintf(stderr, "bpf_dropper: read the count: %s\n", strerror(errno));
		return 1;
	}
	fprintf(stderr, "%s %llu\n", to ? "redirected" : "dropped", (unsigned long long)dropped);
	return 0;
}
