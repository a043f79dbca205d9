// SPDX-License-Identifier: GPL-2.0
/*
 * libpcap's program, translated to eBPF, is put in front of each classifier
 * program as it loads (splice.h), on the maps that the probes share
 * (maps.h).
 */
#define _GNU_SOURCE /* vasprintf */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <bpf/btf.h>
#include "pktpath.h"
#include "filter/classifier.h"
#include "bpf_settings.h" /* the skeleton's rodata */
#include "classifier.skel.h"
#include "bpfobj/maps.h"
#include "bpfobj/splice.h"

/*
 * The verifier's limits, found in its log (which libbpf prints as a warning
 * when a load fails): a filter too large is the user's input, and the
 * message says which limit it reached. The first line that names one.
 */
static const char *const verifier_limits[] = {
	"BPF program is too large", /* BPF_COMPLEXITY_LIMIT_INSNS walked */
	"The sequence of",	    /* BPF_COMPLEXITY_LIMIT_JMP_SEQ pending branches */
};
static libbpf_print_fn_t print_next;
static char limit_line[160];

/* From the message's first word to the end of its line. */
static void find_limit(const char *log)
{
	for (size_t i = 0; i < sizeof(verifier_limits) / sizeof(verifier_limits[0]); i++) {
		const char *at = strstr(log, verifier_limits[i]);

		if (at && !limit_line[0])
			snprintf(limit_line, sizeof(limit_line), "%.*s", (int)strcspn(at, "\n"),
				 at);
	}
}

static int watch_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	va_list copy;
	char *text;
	int ret = 0;

	va_copy(copy, ap);
	if (level == LIBBPF_WARN && vasprintf(&text, fmt, copy) >= 0) {
		find_limit(text);
		free(text);
	}
	va_end(copy);
	if (print_next)
		ret = print_next(level, fmt, ap);
	return ret;
}

/*
 * The translation falls through past its end on a match with r1 = ctx and
 * exits with r0 = TC_ACT_UNSPEC otherwise (cbpf_xlate.h), the one exit it
 * has. In front of the classifier both go on into its C code, with r1 =
 * ctx and the verdict in r0: 1 on a match, TC_ACT_UNSPEC otherwise. The
 * exit becomes a jump to a tail of three instructions: "r0 = 1; goto +1;
 * r1 = ctx", the match falling into the first, the exit jumping to the
 * last. A malloc()ed copy in *OUT; -EINVAL if the translation is not
 * of that shape.
 */
static int with_verdict(const struct pp_filter *f, struct bpf_insn **out, size_t *cnt)
{
	struct bpf_insn *v = malloc((f->cnt + 3) * sizeof(*v));
	size_t n = f->cnt, exits = 0;

	if (!v)
		return -ENOMEM;
	memcpy(v, f->insns, n * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		if (v[i].code != (BPF_JMP | BPF_EXIT))
			continue;
		/* The epilogue's exit, a few instructions from the end. */
		if (++exits > 1 || n + 1 - i > 32767) {
			free(v);
			return -EINVAL;
		}
		v[i] = (struct bpf_insn){.code = BPF_JMP | BPF_JA, .off = (__s16)(n + 1 - i)};
	}
	v[n] = (struct bpf_insn){
		.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 1};
	v[n + 1] = (struct bpf_insn){.code = BPF_JMP | BPF_JA, .off = 1};
	v[n + 2] = (struct bpf_insn){
		.code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_1, .src_reg = PP_R_CTX};
	*out = v;
	/* A filter that matches everything has no exit: the tail's first only. */
	*cnt = exits ? n + 3 : n + 1;
	return 0;
}

/*
 * The classifier's C code reads the verdict in r0 before anything else
 * touches r0 (pp_filter_matched() in bpf/classifier.bpf.c): a compiler
 * that put something there first would make every verdict wrong, so this
 * is checked on the compiled code. Moves of registers or constants into
 * other registers may come first.
 */
static bool reads_verdict_first(const struct bpf_program *prog)
{
	const struct bpf_insn *v = bpf_program__insns(prog);
	size_t n = bpf_program__insn_cnt(prog);

	for (size_t i = 0; i < n; i++) {
		if ((v[i].code & ~BPF_X) != (BPF_ALU64 | BPF_MOV | BPF_K) ||
		    v[i].dst_reg == BPF_REG_0)
			return false;
		if (v[i].code == (BPF_ALU64 | BPF_MOV | BPF_X) && v[i].src_reg == BPF_REG_0)
			return true;
	}
	return false;
}

/* The filter before each program, the verifier's log watched for a limit. */
static int load_watched(struct pp_cls *c)
{
	struct bpf_insn *pre = NULL;
	size_t cnt = 0;
	int ret = with_verdict(&c->filter, &pre, &cnt);
	const struct pp_splice edits[] = {
		{bpf_program__name(c->ingress), PP_SPLICE_PREPEND, pre, cnt},
		{bpf_program__name(c->egress), PP_SPLICE_PREPEND, pre, cnt},
	};

	if (!ret && (!reads_verdict_first(c->ingress) || !reads_verdict_first(c->egress)))
		ret = -ENOEXEC;
	if (!ret) {
		limit_line[0] = '\0';
		print_next = libbpf_set_print(watch_log);
		ret = pp_splice_load(c->skel->skeleton, edits, sizeof(edits) / sizeof(edits[0]));
		libbpf_set_print(print_next);
	}
	free(pre);
	return ret;
}

/* The two programs the kernel takes (bpf/identity.bpf.h, pp_next_id()); the others stay out. */
static void choose_pair(struct pp_cls *c, bool no_fetch)
{
	struct classifier *s = c->skel;

	c->ingress = no_fetch ? s->progs.pp_cls_ingress_nofetch : s->progs.pp_cls_ingress;
	c->egress = no_fetch ? s->progs.pp_cls_egress_nofetch : s->progs.pp_cls_egress;
	bpf_program__set_autoload(s->progs.pp_cls_ingress, !no_fetch);
	bpf_program__set_autoload(s->progs.pp_cls_egress, !no_fetch);
	bpf_program__set_autoload(s->progs.pp_cls_ingress_nofetch, no_fetch);
	bpf_program__set_autoload(s->progs.pp_cls_egress_nofetch, no_fetch);
}

/* The maps given, or (a classifier run alone) its own. */
static int use_maps(struct pp_cls *c, const struct pp_maps *maps)
{
	const struct pp_maps_opts defaults = {0};
	int ret = 0;

	if (!maps) {
		ret = pp_maps_create(&c->own, &defaults);
		maps = &c->own;
	}
	c->maps = maps;
	return ret ? ret : pp_maps_share(maps, c->skel->obj);
}

/*
 * The filter compiled and translated with FLAGS; a bad one is -EINVAL (or
 * -ENOMEM) with ERR said, one too large with the inner view -E2BIG alone.
 */
static int build_filter(struct pp_cls *c, const struct pp_cls_opts *o, unsigned int flags,
			char *err, size_t errlen)
{
	char msg[256];
	int ret;

	if (o->cbpf)
		ret = pp_filter_from_cbpf(&c->filter, o->cbpf, o->cbpf_len, flags, msg,
					  sizeof(msg));
	else
		ret = pp_filter_build(&c->filter, o->expr, flags, msg, sizeof(msg));
	if (ret == -E2BIG && (flags & PP_XLATE_INNER))
		return ret; /* tried again without the inner view */
	if (ret) {
		snprintf(err, errlen, "bad filter \"%s\": %s", o->cbpf ? "(classic)" : o->expr,
			 msg);
		return ret == -ENOMEM ? ret : -EINVAL;
	}
	return 0;
}

/* Open -> configure: the program pair, the scope's cgroup, the socket maker's probe, the maps. */
static int open_skel(struct pp_cls *c, const struct pp_cls_opts *o)
{
	c->skel = classifier__open();
	if (!c->skel)
		return -errno;
	choose_pair(c, o->no_fetch);
	c->skel->rodata->pp_cfg = (struct pp_bpf_settings){
		.scope_cgid = o->cgroup_id,
		.scope_cglevel = o->cgroup_level,
	};
	bpf_program__set_autoload(c->skel->progs.pp_sock_create, o->keep_makers);
	bpf_program__set_autoload(c->skel->progs.pp_cls_xdp_anchor, o->frame_anchor);
	return use_maps(c, o->maps);
}

static int cls_load(struct pp_cls *c, const struct pp_cls_opts *o, unsigned int flags, char *err,
		    size_t errlen)
{
	int ret;

	memset(c, 0, sizeof(*c));
	ret = build_filter(c, o, flags, err, errlen);
	if (ret)
		return ret;
	ret = pp_splice_register();
	if (ret) {
		snprintf(err, errlen, "cannot register the classifier section: %s", strerror(-ret));
		goto fail;
	}
	ret = open_skel(c, o);
	if (!ret)
		ret = load_watched(c);
	if (ret && limit_line[0]) {
		snprintf(err, errlen,
			 "filter too large for the kernel's verifier (\"%s\"): %zu classic "
			 "instructions, %zu eBPF",
			 limit_line, c->filter.cbpf_len, c->filter.cnt);
		ret = -E2BIG;
		goto fail;
	}
	if (ret) {
		snprintf(err, errlen, "cannot load the classifier: %s", strerror(-ret));
		/* -EINVAL is kept for a bad filter: the kernel refused our program. */
		ret = ret == -EINVAL ? -ENOEXEC : ret;
		goto fail;
	}
	return 0;
fail:
	pp_cls_destroy(c);
	return ret;
}

/*
 * The inner view about doubles the instructions and the verifier's walk
 * (docs/PERFORMANCE.md): a filter that fits only without it loses it, and
 * says so, rather than being refused.
 */
int pp_cls_load(struct pp_cls *c, const struct pp_cls_opts *o, char *err, size_t errlen)
{
	int ret = cls_load(c, o, o->xlate_flags, err, errlen);

	if (ret != -E2BIG || !(o->xlate_flags & PP_XLATE_INNER))
		return ret;
	ret = cls_load(c, o, o->xlate_flags & ~PP_XLATE_INNER, err, errlen);
	c->outer_only = !ret;
	return ret;
}

int pp_cls_attach_maker(struct pp_cls *c, int cgroup_fd)
{
	struct bpf_program *prog = c->skel->progs.pp_sock_create;

	if (!bpf_program__autoload(prog))
		return 0;
	c->maker = bpf_program__attach_cgroup(prog, cgroup_fd);
	return c->maker ? 1 : -errno;
}

void pp_cls_destroy(struct pp_cls *c)
{
	bpf_link__destroy(c->maker);
	c->maker = NULL;
	classifier__destroy(c->skel);
	c->skel = NULL;
	pp_maps_destroy(&c->own);
	c->maps = NULL;
	pp_filter_free(&c->filter);
}

int pp_cls_prog_fd(const struct pp_cls *c, int egress)
{
	return bpf_program__fd(egress ? c->egress : c->ingress);
}

int pp_cls_frame_anchor_fd(const struct pp_cls *c)
{
	struct bpf_program *p = c->skel ? c->skel->progs.pp_cls_xdp_anchor : NULL;

	return p && bpf_program__autoload(p) ? bpf_program__fd(p) : -1;
}

static int read_state(const struct pp_cls *c, struct pp_state *st)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(c->maps->state_map, &zero, st) ? -errno : 0;
}

static void clear_map(int fd)
{
	__u64 key;

	while (bpf_map_get_next_key(fd, NULL, &key) == 0)
		if (bpf_map_delete_elem(fd, &key))
			break;
}

/* Test runs free their skb at once: its entries must not outlive it. */
static void clear_skb_map(const struct pp_cls *c)
{
	clear_map(c->maps->skb_map);
	clear_map(c->maps->head_map);
}

/*
 * Each test run is a packet of its own: a fragment must not join, as a
 * copy, a datagram an earlier run marked (bpf/frag.bpf.h). That join is
 * refused only while the earlier run's skb address is the new one's,
 * which depends on the slab: under load it was not, and a later fragment
 * counted as a match.
 */
static int forget_fragments(const struct pp_cls *c, struct pp_state *st)
{
	__u32 zero = 0;

	if (!st->frag_ts)
		return 0;
	st->frag_ts = 0;
	return bpf_map_update_elem(c->maps->state_map, &zero, st, BPF_ANY) ? -errno : 0;
}

int pp_cls_run(const struct pp_cls *c, const void *data, __u32 len, int *match)
{
	LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = data, .data_size_in = len, .repeat = 1);
	struct pp_state before, after;
	int err;

	err = read_state(c, &before);
	if (!err)
		err = forget_fragments(c, &before);
	if (!err && bpf_prog_test_run_opts(pp_cls_prog_fd(c, 0), &t))
		err = -errno;
	if (!err)
		err = read_state(c, &after);
	if (err)
		return err;
	*match = after.marked + after.map_full != before.marked + before.map_full;
	if (*match)
		clear_skb_map(c);
	return 0;
}
