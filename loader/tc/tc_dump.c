// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <time.h>
#include <libmnl/libmnl.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include "tc/tc_dump.h"

struct dump {
	void (*fn)(const struct pp_tc_filter *f, void *arg);
	void *arg;
};

static int bpf_opt_cb(const struct nlattr *attr, void *data)
{
	struct pp_tc_filter *f = data;

	if (mnl_attr_get_type(attr) == TCA_BPF_NAME &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
		f->name = mnl_attr_get_str(attr);
	else if (mnl_attr_get_type(attr) == TCA_BPF_ID &&
		 mnl_attr_validate(attr, MNL_TYPE_U32) >= 0)
		f->id = mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

/* One filter of the dump, if it is a BPF one. */
static int filter_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	struct pp_tc_filter f = {
		.handle = tcm->tcm_handle, .prio = TC_H_MAJ(tcm->tcm_info) >> 16, .name = ""};
	const struct dump *d = data;
	const char *kind = NULL;
	struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, sizeof(*tcm)) {
		if (mnl_attr_get_type(attr) == TCA_KIND)
			kind = mnl_attr_get_str(attr);
		else if (mnl_attr_get_type(attr) == TCA_OPTIONS)
			mnl_attr_parse_nested(attr, bpf_opt_cb, &f);
	}
	/* The chain's head (handle 0) carries no program. */
	if (kind && !strcmp(kind, "bpf") && f.handle)
		d->fn(&f, d->arg);
	return MNL_CB_OK;
}

int pp_tc_bpf_filters(int ifindex, int egress, void (*fn)(const struct pp_tc_filter *f, void *arg),
		      void *arg)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);
	unsigned int seq = (unsigned int)time(NULL), portid;
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct dump d = {.fn = fn, .arg = arg};
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
			ret = mnl_cb_run(buf, (size_t)ret, seq, portid, filter_cb, &d);
	} while (ret > 0);
	ret = ret < 0 ? -errno : 0;
cleanup:
	mnl_socket_close(nl);
	return ret;
}
