// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_dropper IFACE HOOK PORT NAME: a BPF program named NAME that drops
 * IPv4 UDP to PORT and passes everything else, at HOOK of IFACE
 * (clsact-ingress, clsact-egress, tcx-ingress, tcx-egress, xdp-generic),
 * as a node's datapath programs would. Prints "id N" on stderr once
 * attached, holds it until SIGINT or SIGTERM, then takes it away. Its
 * instructions are written here, so that no BPF compiler runs for tests.
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
#include <bpf/libbpf.h>

#ifndef BPF_TCX_INGRESS
#define BPF_TCX_INGRESS 46
#define BPF_TCX_EGRESS	47
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
#define JA(o)  ((struct bpf_insn){.code = BPF_JMP | BPF_JA, .off = o})
#define EXIT() ((struct bpf_insn){.code = BPF_JMP | BPF_EXIT})

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * Drop (DROP) an Ethernet frame with an IPv4 header of 20 bytes, UDP, to
 * PORT; else PASS. DATA and END: the context's offsets of the packet's
 * start and end (struct __sk_buff's, struct xdp_md's).
 */
static int load(enum bpf_prog_type type, const char *name, int data, int end, __u16 port, int drop,
		int pass)
{
	struct bpf_insn p[] = {
		LDX(W, 2, 1, data),
		LDX(W, 3, 1, end),
		MOV_REG(4, 2),
		ADD_IMM(4, 14 + 20 + 4),
		JGT_REG(4, 3, 10), /* each "pass" jump lands on p[15] */
		LDX(H, 5, 2, 12),
		JNE_IMM(5, htons(0x0800), 8),
		LDX(B, 5, 2, 14),
		JNE_IMM(5, 0x45, 6),
		LDX(B, 5, 2, 14 + 9),
		JNE_IMM(5, 17, 4),
		LDX(H, 5, 2, 14 + 20 + 2),
		JNE_IMM(5, htons(port), 2),
		MOV_IMM(0, drop),
		JA(1),
		MOV_IMM(0, pass),
		EXIT(),
	};

	return bpf_prog_load(type, name, "GPL", p, sizeof(p) / sizeof(p[0]), NULL);
}

int main(int argc, char **argv)
{
	const char *hook = argc == 5 ? argv[2] : "";
	int ifindex = argc == 5 ? (int)if_nametoindex(argv[1]) : 0, fd, link = -1, err;
	bool xdp = !strcmp(hook, "xdp-generic"), egress = strstr(hook, "egress") != NULL;
	LIBBPF_OPTS(bpf_tc_hook, tc, .ifindex = ifindex,
		    .attach_point = egress ? BPF_TC_EGRESS : BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .priority = 1);
	__u16 port = argc == 5 ? (__u16)atoi(argv[3]) : 0;
	struct bpf_prog_info info = {0};
	__u32 len = sizeof(info);

	if (!ifindex || !port) {
		fprintf(stderr, "usage: bpf_dropper IFACE HOOK PORT NAME\n");
		return 2;
	}
	fd = xdp ? load(BPF_PROG_TYPE_XDP, argv[4], 0, 4, port, XDP_DROP, XDP_PASS)
		 : load(BPF_PROG_TYPE_SCHED_CLS, argv[4], 76, 80, port, TC_ACT_SHOT, TC_ACT_OK);
	if (fd < 0) {
		fprintf(stderr, "bpf_dropper: load: %s\n", strerror(errno));
		return 1;
	}
	if (xdp) {
		err = bpf_xdp_attach(ifindex, fd, XDP_FLAGS_SKB_MODE, NULL);
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
		bpf_xdp_detach(ifindex, XDP_FLAGS_SKB_MODE, NULL);
	else if (link < 0) {
		/* Detach names the filter by handle and priority alone. */
		opts.prog_fd = opts.prog_id = opts.flags = 0;
		bpf_tc_detach(&tc, &opts);
	}
	return 0;
}
