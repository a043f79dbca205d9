// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <bpf/bpf.h>
#include "stacks.h"

/* "function+0x1b", or the address where kallsyms does not say. */
static void name_frame(const struct pp_ksyms *k, __u64 ip, char *buf)
{
	__u64 off = 0;
	const char *sym = k ? pp_ksym_name(k, ip, &off) : NULL;

	if (sym)
		snprintf(buf, PP_FRAME_NAME, "%s+0x%llx", sym, (unsigned long long)off);
	else
		snprintf(buf, PP_FRAME_NAME, "0x%llx", (unsigned long long)ip);
}

size_t pp_stacks_frames(__u32 id, const char **frames, size_t max, void *arg)
{
	struct pp_stacks *s = arg;
	__u64 ips[PP_STACK_DEPTH];
	size_t n;

	if (bpf_map_lookup_elem(s->fd, &id, ips))
		return 0;
	/* A stack shorter than the map's depth ends with zeros. */
	for (n = 0; n < PP_STACK_DEPTH && n < max && ips[n]; n++) {
		name_frame(s->ksyms, ips[n], s->names[n]);
		frames[n] = s->names[n];
	}
	return n;
}
