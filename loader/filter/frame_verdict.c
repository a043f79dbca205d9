// SPDX-License-Identifier: GPL-2.0
/*
 * What a real classifier sees of a frame the kernel will not test-run: on
 * ingress (tcx or clsact, after eth_type_trans()), skb->len is the whole
 * frame and ctx->data..data_end its linear part, and the IPv4/IPv6 header
 * checks come later, in ip_rcv() and ipv6_rcv(). So a frame with a truncated
 * IP header does reach the classifier, whose loads past its end fail: a
 * direct load fails the data_end check, bpf_skb_load_bytes() returns -EFAULT
 * past skb->len, and the translation then returns "no match", as libpcap's
 * bpf_filter() does on a load past the captured bytes. The interpreter runs
 * the same translated instructions on exactly that model of the skb.
 *
 * Ethernet devices do not hand the stack frames shorter than 14 bytes (the
 * packet socket refuses to send them: dev_validate_header()), so for those
 * there is no kernel behaviour to follow; the same model gives tcpdump's
 * answer.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "filter/ebpf_interp.h"
#include "filter/frame_verdict.h"

int pp_frame_verdict_user(const struct pp_cls *c, const __u8 *data, __u32 caplen, __u32 wirelen,
			  int *match, char *err, size_t errlen)
{
	struct pp_vm_pkt pkt = {.data = data, .caplen = caplen, .len = wirelen};
	char why[256];

	/* A frame longer on the wire than captured: "len" is the wire's. */
	if (wirelen < caplen)
		pkt.len = caplen;
	if (pp_ebpf_run(c->filter.insns, c->filter.cnt, PP_VM_TC, &pkt, match, NULL, why,
			sizeof(why))) {
		snprintf(err, errlen, "the filter cannot run in user space: %s", why);
		return -EFAULT;
	}
	return 0;
}

int pp_frame_verdict(const struct pp_cls *c, const __u8 *data, __u32 caplen, __u32 wirelen,
		     int *match, enum pp_decider *by, char *err, size_t errlen)
{
	int ret;

	if (caplen < wirelen && pp_filter_reads_len(&c->filter)) {
		*by = PP_BY_USER_CUT;
		return pp_frame_verdict_user(c, data, caplen, wirelen, match, err, errlen);
	}
	*by = PP_BY_KERNEL;
	ret = pp_cls_run(c, data, caplen, match);
	if (ret == -EINVAL) {
		*by = PP_BY_USER_REFUSED;
		return pp_frame_verdict_user(c, data, caplen, wirelen, match, err, errlen);
	}
	if (ret)
		snprintf(err, errlen, "test run failed: %s", strerror(-ret));
	return ret;
}
