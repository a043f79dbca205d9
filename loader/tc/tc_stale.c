// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <bpf/libbpf.h>
#include "tc/tc_stale.h"
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

static int bpf_name_cb(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) == TCA_BPF_NAME &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
		*(const char **)data = mnl_attr_get_str(attr);
	return MNL_CB_OK;
}

/* One filter of the dump: ours (by program name) and its owner gone? */
static int filter_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	struct stale *st = data;
	const char *kind = NULL, *name = NULL;
	struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, sizeof(*tcm)) {
		if (mnl_attr_get_type(attr) == TCA_KIND)
			kind = mnl_attr_get_str(attr);
		else if (mnl_attr_get_type(attr) == TCA_OPTIONS)
			mnl_attr_parse_nested(attr, bpf_name_cb, &name);
	}
	if (!kind || strcmp(kind, "bpf") || !name || !tcm->tcm_handle ||
	    strncmp(name, PP_CLS_PREFIX, strlen(PP_CLS_PREFIX)) || !owner_gone(tcm->tcm_handle))
		return MNL_CB_OK;
	if (st->n < PP_MAX_STALE) {
		st->handle[st->n] = tcm->tcm_handle;
		st->prio[st->n++] = TC_H_MAJ(tcm->tcm_info) >> 16;
	}
	return MNL_CB_OK;
}

static int dump_filters(int ifindex, int egress, struct stale *st)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);
	unsigned int seq = (unsigned int)time(NULL), portid;
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *tcm;
	int ret;

	if (!nl)
		return -errno;
	nlh->nlmsg_type = RTM_GETTFILTER;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = TC_H_MAKE(TC_H_CLSACT, egress ? TC_H_MIN_EGRESS : TC_H_MIN_INGRESS);
	/* errno as the failing call left it: read before anything else can change it. */
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0 ||
	    mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto cleanup;
	}
	portid = mnl_socket_get_portid(nl);
	do {
		ret = (int)mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (ret > 0)
			ret = mnl_cb_run(buf, (size_t)ret, seq, portid, filter_cb, st);
	} while (ret > 0);
	ret = ret < 0 ? -errno : 0;
cleanup:
	mnl_socket_close(nl);
	return ret;
}

int pp_tc_remove_stale(int ifindex, int egress, const char *ifname)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = egress ? BPF_TC_EGRESS : BPF_TC_INGRESS);
	struct stale st = {0};
	int ret = dump_filters(ifindex, egress, &st), removed = 0;

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
