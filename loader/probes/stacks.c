// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include "probes/stacks.h"

/*
 * "function+0x1b", or the address where kallsyms does not say. Returns
 * whether the frame is BPF's own, above the probed function: the program,
 * fentry's trampoline, or the tracepoint's call into BPF. bpf_get_stackid()
 * skips those by count, but 5.10's fentry leaves its trampoline on top, an
 * address kallsyms has no name for there: it reads as the symbol before it,
 * at an offset no function has (seen: "ipgre_fini+0x1e9b4d",
 * "bpf_prog_..._pp_cls_egress+0x200eb6"); and a kernel that calls its
 * tracepoints' functions through __traceiter_NAME (no static calls) has
 * that frame more (seen on a 6.18 build: "__traceiter_net_dev_queue+0x29").
 */
static bool name_frame(const struct pp_ksyms *k, __u64 ip, char *buf)
{
	__u64 off = 0;
	const char *sym = k ? pp_ksym_name(k, ip, &off) : NULL;

	if (!sym) {
		snprintf(buf, PP_FRAME_NAME, "0x%llx", (unsigned long long)ip);
		return false;
	}
	snprintf(buf, PP_FRAME_NAME, "%s+0x%llx", sym, (unsigned long long)off);
	return !strncmp(sym, "bpf_prog_", 9) || !strncmp(sym, "bpf_trampoline_", 15) ||
	       !strncmp(sym, "__traceiter_", 12) || !strncmp(sym, "__bpf_trace_", 12) ||
	       !strncmp(sym, "bpf_trace_run", 13) || off >= PP_FRAME_FAR;
}

size_t pp_stacks_frames(__u32 id, const char **frames, size_t max, void *arg)
{
	struct pp_stacks *s = arg;
	__u64 ips[PP_STACK_DEPTH];
	size_t i = 0, n = 0;

	if (bpf_map_lookup_elem(s->fd, &id, ips))
		return 0;
	/* A stack shorter than the map's depth ends with zeros. */
	for (; i < PP_STACK_DEPTH && n < max && ips[i]; i++) {
		if (name_frame(s->ksyms, ips[i], s->names[n]) && n == 0)
			continue; /* BPF's frames on top: not the kernel's path */
		frames[n] = s->names[n];
		n++;
	}
	return n;
}
