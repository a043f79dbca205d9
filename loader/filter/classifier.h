/* SPDX-License-Identifier: GPL-2.0 */
/* Load the TC classifier with a filter spliced in front of it. */
#ifndef PP_CLASSIFIER_H
#define PP_CLASSIFIER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "filter/filter.h"

#include "bpfobj/maps.h"

struct classifier;

struct bpf_program;
struct bpf_link;

struct pp_cls {
	struct classifier *skel;
	/* The pair loaded: pp_cls_{ingress,egress}, or their *_nofetch builds. */
	struct bpf_program *ingress, *egress;
	struct pp_filter filter;
	const struct pp_maps *maps; /* the maps it runs on */
	struct pp_maps own;	    /* made for a classifier that was given none */
	/* PP_XLATE_INNER was asked for, but only the filter without it fit. */
	bool outer_only;
	struct bpf_link *maker; /* pp_sock_create on the cgroup scope; NULL: none */
};

struct pp_cls_opts {
	const char *expr;		/* tcpdump filter, "" for everything */
	const struct sock_filter *cbpf; /* or a classic program as is (tests) */
	size_t cbpf_len;
	unsigned int xlate_flags;   /* enum pp_xlate_flags */
	const struct pp_maps *maps; /* the shared maps; NULL: its own (test runs) */
	bool no_fetch;	 /* the kernel has no atomic fetch: the *_nofetch pair (identity.bpf.h) */
	__u64 cgroup_id; /* --cgroup/--pid: only its sockets' packets; 0: all */
	unsigned int cgroup_level; /* that cgroup's level below the root */
	/* Load pp_sock_create (pp_cls_attach_maker()): kfeatures' has_sock_maker. */
	bool keep_makers;
	/* Load pp_cls_xdp_anchor (pp_cls_frame_anchor_fd()): --verdicts. */
	bool frame_anchor;
};

/*
 * Compile, open and load. A bad filter is -EINVAL, with "bad filter "EXPR":
 * why" in ERR, and nothing has been loaded; a filter past one of the
 * verifier's limits is -E2BIG, with the limit and the filter's size in ERR;
 * other failures, another -errno.
 */
int pp_cls_load(struct pp_cls *c, const struct pp_cls_opts *o, char *err, size_t errlen);
void pp_cls_destroy(struct pp_cls *c);

/*
 * In a cgroup scope (pp_cls_opts.cgroup_id, open as CGROUP_FD), keep the
 * maker of each socket made from now on in the scope (bpf/classifier.bpf.c
 * pp_sock_create()): 1 if attached, 0 if not loaded (pp_cls_opts
 * .keep_makers: this kernel cannot), or -errno.
 */
int pp_cls_attach_maker(struct pp_cls *c, int cgroup_fd);
int pp_cls_prog_fd(const struct pp_cls *c, int egress);

/* The XDP program loaded for --verdicts' frame template to bind to: its fd, or -1. */
int pp_cls_frame_anchor_fd(const struct pp_cls *c);

/*
 * Run the ingress program once on a frame (BPF_PROG_TEST_RUN) and tell
 * whether the filter matched, judged by the real side effect: a new entry
 * in skb_map, which this function then removes.
 */
int pp_cls_run(const struct pp_cls *c, const void *data, __u32 len, int *match);

#endif
