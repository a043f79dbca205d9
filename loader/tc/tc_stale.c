// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "tc/tc_stale.h"
#include "tc/tc_dump.h"
#include "base/log.h"

#define PP_CLS_PREFIX "pp_cls_"
#define PP_MAX_STALE  64

struct stale {
	unsigned int handle[PP_MAX_STALE], prio[PP_MAX_STALE];
	int n;
};

/* A pid that is not (any more) a running pktpath. */
static bool owner_gone(unsigned int pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return true;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	return strncmp(comm, "pktpath", 7) != 0;
}

/* One BPF filter of the hook: ours (by program name) and its owner gone? */
static void filter_cb(const struct pp_tc_filter *f, void *data)
{
	struct stale *st = data;

	if (strncmp(f->name, PP_CLS_PREFIX, strlen(PP_CLS_PREFIX)) || !owner_gone(f->handle))
		return;
	if (st->n < PP_MAX_STALE) {
		st->handle[st->n] = f->handle;
		st->prio[st->n++] = f->prio;
	}
}

int pp_tc_remove_stale(int ifindex, int egress, const char *ifname)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = egress ? BPF_TC_EGRESS : BPF_TC_INGRESS);
	struct stale st = {0};
	int ret = pp_tc_bpf_filters(ifindex, egress, filter_cb, &st), removed = 0;

	/* No clsact qdisc here: nothing can be stale. */
	if (ret == -EINVAL || ret == -ENOENT)
		return 0;
	for (int i = 0; i < st.n; i++) {
		LIBBPF_OPTS(bpf_tc_opts, opts, .handle = st.handle[i], .priority = st.prio[i]);

		if (bpf_tc_detach(&hook, &opts))
			continue;
		removed++;
		pp_warn("removed a filter left by a killed pktpath (pid %u) on %s %s\n",
			st.handle[i], ifname, egress ? "egress" : "ingress");
	}
	return ret < 0 ? ret : removed;
}
