// SPDX-License-Identifier: GPL-2.0
/*
 * Probe programs: one per backend and skb argument position, all over the
 * record core in record.bpf.h (and its rooms). kprobe and kprobe.multi find their probe
 * index in the bpf cookie. fentry and tp_btf programs are bound to one
 * target each, so the loader loads a copy of a template per target, with
 * the probe index patched into the PP_PROBE_MAGIC immediate; so it does
 * with pp_kprobe_imm* where the kernel has no bpf cookies (before 5.15).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "record.bpf.h"
#include "frames.bpf.h"
#include "free_fate.h"

char LICENSE[] SEC("license") = "GPL";

/* An immediate that the loader finds and replaces in each copy: the cookie. */
static __always_inline __u32 pp_probe_imm(void)
{
	__u64 v;

	asm volatile("%0 = %1" : "=r"(v) : "i"(PP_PROBE_MAGIC));
	return (__u32)v;
}

/* AT lies in one of the N ranges [LO[i], HI[i]) the loader set. */
static __always_inline bool pp_in_ranges(__u64 at, const volatile __u64 *lo,
					 const volatile __u64 *hi, int n)
{
	for (int i = 0; i < n; i++)
		if (at >= lo[i] && at < hi[i])
			return true;
	return false;
}

static __always_inline bool pp_merge_at(__u64 at)
{
	return pp_in_ranges(at, pp_cfg.merge_lo, pp_cfg.merge_hi, PP_MERGE_RANGES);
}

/* consume_skb's tracepoint without location: merged if pp_reasm_mark() said so. */
static __always_inline __u32 pp_consume_fate(__u64 skb)
{
	struct pp_skb_val *v;

	/* Called past the in-flight gate (pp_consumed()). */
	if (!pp_cfg.reasm_hook)
		return PP_FATE_CONSUMED;
	v = bpf_map_lookup_elem(&skb_map, &skb);
	return v && (v->flags & PP_SKB_MERGING) ? PP_FATE_MERGED : PP_FATE_CONSUMED;
}

/*
 * The reassembly queue's fragments sit in a red-black tree of runs, no
 * deeper than 2 * log2(runs + 1): 26 for 8192 runs, a 64 KiB datagram in
 * 8-byte fragments. Past this, the first is not looked for.
 */
#define PP_REASM_DEPTH 32

/* The sk_buff whose rbnode is N (rb_to_skb()). */
static __always_inline __u64 pp_rb_skb(struct rb_node *n)
{
	return n ? (__u64)n - bpf_core_field_offset(struct sk_buff, rbnode) : 0;
}

/*
 * inet_frag_reasm_prepare(q, skb, parent) (net/ipv4/inet_fragment.c) gives
 * the first fragment's data to SKB, the fragment that completed the
 * datagram (skb_morph()), and consumes the first: HEAD, if not SKB. Only
 * for a tracked HEAD.
 */
static __always_inline int pp_reasm_mark(__u64 head, __u64 skb)
{
	struct pp_skb_val *v;

	if (!head || head == skb)
		return 0;
	v = bpf_map_lookup_elem(&skb_map, &head);
	if (v)
		v->flags |= PP_SKB_MERGING;
	return 0;
}

/* The first fragment of queue Q (skb_rb_first()), by CO-RE reads. */
static __always_inline __u64 pp_reasm_head(struct inet_frag_queue *q)
{
	struct rb_node *n = BPF_CORE_READ(q, rb_fragments.rb_node), *l;

	for (int i = 0; n && i < PP_REASM_DEPTH; i++) {
		l = BPF_CORE_READ(n, rb_left);
		if (!l)
			return pp_rb_skb(n);
		n = l;
	}
	return 0;
}

/* inet_frag_reasm_prepare(Q, SKB, parent) entered: once per reassembled datagram. */
static __always_inline int pp_reasm_enter(struct inet_frag_queue *q, __u64 skb)
{
	if (!pp_busy(pp_state()))
		return 0;
	return pp_reasm_mark(pp_reasm_head(q), skb);
}

SEC("kprobe")
int pp_reasm_kprobe(struct pt_regs *ctx)
{
	return pp_reasm_enter((void *)PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx));
}

SEC("kprobe.multi")
int pp_reasm_kmulti(struct pt_regs *ctx)
{
	return pp_reasm_enter((void *)PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx));
}

SEC("fentry/inet_frag_reasm_prepare")
int BPF_PROG(pp_reasm_fentry, struct inet_frag_queue *q, struct sk_buff *skb)
{
	return pp_reasm_enter(q, (__u64)skb);
}

#define PP_KPROBES(N)                                                                              \
	SEC("kprobe.multi")                                                                        \
	int pp_kmulti##N(struct pt_regs *ctx)                                                      \
	{                                                                                          \
		__u64 skb = PT_REGS_PARM##N(ctx);                                                  \
                                                                                                   \
		return pp_hop_gate(skb) ? pp_on_hop(ctx, skb, bpf_get_attach_cookie(ctx)) : 0;     \
	}                                                                                          \
	SEC("kprobe")                                                                              \
	int pp_kprobe##N(struct pt_regs *ctx)                                                      \
	{                                                                                          \
		__u64 skb = PT_REGS_PARM##N(ctx);                                                  \
                                                                                                   \
		return pp_hop_gate(skb) ? pp_on_hop(ctx, skb, bpf_get_attach_cookie(ctx)) : 0;     \
	}                                                                                          \
	SEC("kprobe")                                                                              \
	int pp_kprobe_imm##N(struct pt_regs *ctx)                                                  \
	{                                                                                          \
		__u64 skb = PT_REGS_PARM##N(ctx);                                                  \
                                                                                                   \
		return pp_hop_gate(skb) ? pp_on_hop(ctx, skb, pp_probe_imm()) : 0;                 \
	}                                                                                          \
	SEC("fentry")                                                                              \
	int pp_fentry##N(__u64 *ctx)                                                               \
	{                                                                                          \
		return pp_hop_gate(ctx[N - 1]) ? pp_on_btf_hop(ctx, ctx[N - 1], pp_probe_imm())    \
					       : 0;                                                \
	}                                                                                          \
	SEC("tp_btf")                                                                              \
	int pp_tp##N(__u64 *ctx)                                                                   \
	{                                                                                          \
		return pp_hop_gate(ctx[N - 1]) ? pp_on_btf_hop(ctx, ctx[N - 1], pp_probe_imm())    \
					       : 0;                                                \
	}

PP_KPROBES(1)
PP_KPROBES(2)
PP_KPROBES(3)
PP_KPROBES(4)
PP_KPROBES(5)

/*
 * Another BPF program's return on a tracked packet: fexit on a TC program
 * (loader/probes/verdicts.c loads a copy per program, its probe index in the
 * immediate). Its one argument, struct __sk_buff *, is the kernel's skb;
 * ctx[1] is what it returned.
 */
SEC("fexit")
int pp_verdict_tc(__u64 *ctx)
{
	return pp_hop_gate(ctx[0]) ? pp_on_verdict(ctx[0], pp_probe_imm() & PP_COOKIE_PROBE,
						   (__u32)ctx[1], PP_HOP_VERDICT)
				   : 0;
}

/*
 * XDP in generic mode runs on an skb: bpf_prog_run_generic_xdp(skb, xdp,
 * prog[, rxq]) returns PROG's action on it (RET). One fexit for every such
 * program, where the kernel has the function (5.16+), instead of one per
 * program, whose context (an xdp_buff) does not lead to the skb.
 */
static __always_inline int pp_xdp_generic(__u64 *ctx, __u64 ret)
{
	struct bpf_prog *prog = (struct bpf_prog *)ctx[2];
	__u32 id = BPF_CORE_READ(prog, aux, id), *probe;

	probe = bpf_map_lookup_elem(&xdp_probe_map, &id);
	return probe ? pp_on_verdict(ctx[0], *probe, (__u32)ret, PP_HOP_VERDICT | PP_HOP_XDP) : 0;
}

/*
 * The return follows the arguments: three of them, or four where rxq was
 * added. The frames' note first (frames.bpf.h): an untracked skb's frame
 * the program did not pass and the filter matched.
 */
static __always_inline int pp_xdp_generic_ret(__u64 *ctx, __u64 ret)
{
	if (pp_cfg.frames)
		pp_frame_generic(ctx[0], (struct xdp_buff *)ctx[1], (__u32)ret);
	return pp_hop_gate(ctx[0]) ? pp_xdp_generic(ctx, ret) : 0;
}

SEC("fexit/bpf_prog_run_generic_xdp")
int pp_xdp_generic3(__u64 *ctx)
{
	return pp_xdp_generic_ret(ctx, ctx[3]);
}

SEC("fexit/bpf_prog_run_generic_xdp")
int pp_xdp_generic4(__u64 *ctx)
{
	return pp_xdp_generic_ret(ctx, ctx[4]);
}

/*
 * An XDP program's return on a frame (frames.bpf.h): fexit on the program
 * (loader/probes/verdicts.c loads a copy per XDP program with BTF, its
 * probe index in the immediate). Its argument is the xdp_buff; ctx[1] what
 * it returned. In a section of its own: the loader splices the filter in.
 */
SEC("pktpath_frame")
int pp_verdict_frame(__u64 *ctx)
{
	return pp_on_frame((struct xdp_buff *)ctx[0], pp_probe_imm(), (__u32)ctx[1], true);
}

SEC("pktpath_frame")
int pp_verdict_frame_nofetch(__u64 *ctx)
{
	return pp_on_frame((struct xdp_buff *)ctx[0], pp_probe_imm(), (__u32)ctx[1], false);
}

/*
 * Where a frame its program redirected went (frames.bpf.h): raw
 * tracepoints, attached to the four xdp redirect ones (xdp_redirect,
 * _err, _map, _map_err), the one whose arguments this kernel has.
 */
SEC("raw_tp")
int pp_xdp_redirect7(struct bpf_raw_tracepoint_args *ctx)
{
	return pp_xdp_redirect_id(ctx->args);
}

SEC("raw_tp")
int pp_xdp_redirect6(struct bpf_raw_tracepoint_args *ctx)
{
	return pp_xdp_redirect_map(ctx->args);
}

/* The returns of the copying functions (PP_COOKIE_COPIES), per backend. */
SEC("kretprobe.multi")
int pp_kmulti_ret(struct pt_regs *ctx)
{
	return pp_on_copy_ret(PT_REGS_RC(ctx), bpf_get_attach_cookie(ctx));
}

SEC("kretprobe")
int pp_kret(struct pt_regs *ctx)
{
	return pp_on_copy_ret(PT_REGS_RC(ctx), bpf_get_attach_cookie(ctx));
}

#define PP_FEXIT_RET(K)                                                                            \
	SEC("fexit")                                                                               \
	int pp_fexit_ret##K(__u64 *ctx)                                                            \
	{                                                                                          \
		__u64 ret = 0;                                                                     \
                                                                                                   \
		bpf_get_func_ret(ctx, &ret);                                                       \
		return pp_on_copy_ret(ret, pp_cfg.copy_cookie[K]);                                 \
	}

PP_FEXIT_RET(0)
PP_FEXIT_RET(1)
PP_FEXIT_RET(2)
PP_FEXIT_RET(3)

/*
 * While packets are in flight, the slab programs' test of an object's cache.
 * The slab's tracepoints fire for every object of every cache on the host;
 * only the sk_buff caches (pp_cfg.skb_cache, fclone_cache) concern pktpath.
 * The loader attaches these programs only if both are known, and the _any
 * ones below otherwise. The slab programs test the in-flight gate first, as
 * the hop programs do; past it, they go on only for these caches' objects.
 */
static __always_inline bool pp_skb_slab(__u64 s)
{
	return s == pp_cfg.skb_cache || s == pp_cfg.fclone_cache;
}

static __always_inline __u32 pp_tap_at(__u64 at)
{
	return pp_in_ranges(at, pp_cfg.tap_lo, pp_cfg.tap_hi, PP_TAP_RANGES) ? PP_HOP_TAP : 0;
}

static __always_inline __u32 pp_read_at(__u64 at)
{
	return pp_in_ranges(at, pp_cfg.read_lo, pp_cfg.read_hi, PP_READ_RANGES) ? PP_HOP_READ : 0;
}

/*
 * The free tracepoints test the in-flight gate before anything else: the
 * settings' ranges (pp_cfg) are const volatile, and clang keeps volatile loads in order,
 * so loads written before the gate's would run for every free of the host
 * (3 ns a free above an empty program, bench/host_cost.sh).
 */
static __always_inline bool pp_idle_free(void)
{
	return !pp_busy(pp_state());
}

/*
 * consume_skb(skb, location) while packets are in flight. A subprogram, as
 * the hop programs' recording (pp_on_btf_hop()): the program the
 * tracepoint enters for every free of the host stays a few instructions,
 * without the recording's register saves and stack frame.
 */
static __noinline int pp_consumed_at(__u64 *ctx)
{
	struct pp_skb_val *v;
	__u64 at = ctx[1];
	__u32 fate;

	fate = at >= pp_cfg.gso_lo && at < pp_cfg.gso_hi ? PP_FATE_SEGMENTED : PP_FATE_CONSUMED;
	if (pp_merge_at(at))
		fate = PP_FATE_MERGED;
	if (pp_in_ranges(at, pp_cfg.xdp_lo, pp_cfg.xdp_hi, PP_XDP_RANGES)) {
		fate = PP_FATE_XDP;
		/* Copied for the program, which runs next: its frame is this packet's. */
		v = pp_cfg.frames && pp_in_ranges(at, pp_cfg.xdp_lo, pp_cfg.xdp_hi,
						  PP_XDP_COPY_RANGES)
			    ? pp_skb_entry(ctx[0])
			    : NULL;
		if (v)
			pp_frame_copy_next((struct sk_buff *)ctx[0], v->id);
	}
	return pp_on_free(ctx[0], pp_cfg.consume_probe, fate, 0, at, 0,
			  pp_tap_at(at) | pp_read_at(at), PP_VIA_BTF);
}

/* consume_skb(skb) before Linux 6.3, while packets are in flight (pp_consumed_at()). */
static __noinline int pp_consumed(__u64 *ctx)
{
	return pp_on_free(ctx[0], pp_cfg.consume_probe, pp_consume_fate(ctx[0]), 0, 0, 0, 0,
			  PP_VIA_BTF);
}

/* consume_skb's arguments differ across kernels; only the skb is common. */
SEC("tp_btf/consume_skb")
int pp_tp_consume(__u64 *ctx)
{
	return pp_idle_free() ? 0 : pp_consumed(ctx);
}

/* consume_skb(skb, location): Linux 6.3 and later. */
SEC("tp_btf/consume_skb")
int pp_tp_consume_at(__u64 *ctx)
{
	return pp_idle_free() ? 0 : pp_consumed_at(ctx);
}

/*
 * The end of a receive call (Linux 6.3+: sock_recvmsg_nosec(), for every
 * recvmsg, recvfrom, read and io_uring receive on a socket): the reader's
 * copies so far are confirmed (pp_read_confirm()). Read-only: it sees the
 * socket, the call's result and flags, and changes nothing.
 */
SEC("tp_btf/sock_recv_length")
int pp_tp_recv_done(__u64 *ctx)
{
	return pp_on_recv_done((struct sock *)ctx[0], (int)ctx[1], (int)ctx[2]);
}

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym __weak;

/*
 * Every skb that the kernel is about to queue to a socket of a cgroup under
 * the root (cgroup v2, attached with BPF_F_ALLOW_MULTI semantics, a link):
 * a tracked datagram's socket (pp_queue_note()). It returns 1, always: it
 * never changes the verdict, and other programs attached there still run.
 * __cgroup_bpf_run_filter_skb() sets skb->sk to the socket while it runs.
 */
SEC("cgroup_skb/ingress")
int pp_cg_ingress(struct __sk_buff *ctx)
{
	struct pp_state *st = pp_state();
	struct sk_buff *skb;

	if (!pp_busy(st))
		return 1;
	skb = (struct sk_buff *)pp_untrusted(bpf_cast_to_kern_ctx(ctx), struct sk_buff);
	pp_queue_note(st, ctx, skb, skb->sk);
	return 1;
}

#define PP_DROP_FRAMES 24 /* the tracing frames above the dropper, and some */

/*
 * Where the function that dropped a tracked skb was called from: the frame
 * after LOCATION's in the kernel stack; or, when nf_hook_slow() is further
 * up (a netfilter verdict: nftables drops in nft_do_chain()), the frame
 * after its, with PP_HOP_NF_CALLER in *flags. An offset from LOCATION
 * (pp_hop.caller), 0 if not found. Only for tracked skbs that netfilter
 * dropped: the stack costs about 1.3 us (docs/PERFORMANCE.md), and only the
 * hook needs it; other drops and untracked skbs pay nothing.
 */
static __always_inline __s32 pp_drop_caller(__u64 *ctx, __u64 skb, __u64 location, __u32 *flags)
{
	__u64 frames[PP_DROP_FRAMES], at = 0;
	__u32 n, i;
	long got;
	__s64 off;

	if (!location || !pp_busy(pp_state()) || !pp_skb_entry(skb))
		return 0;
	got = bpf_get_stack(ctx, frames, sizeof(frames), 0);
	if (got <= 0)
		return 0;
	n = (__u32)got / 8;
	for (i = 0; i + 1 < n && i + 1 < PP_DROP_FRAMES; i++) {
		if (!at && frames[i] == location)
			at = frames[i + 1];
		if (at && frames[i] >= pp_cfg.nf_lo && frames[i] < pp_cfg.nf_hi) {
			at = frames[i + 1];
			*flags = PP_HOP_NF_CALLER;
			break;
		}
	}
	off = (__s64)(at - location);
	return at && off == (__s32)off ? (__s32)off : 0;
}

/*
 * kfree_skb(skb, location, reason[, rx_sk]) of a skb freed while packets
 * are in flight: reason since 5.17. REASONS:
 * the tracepoint passes one (pp_tp_kfree); without (pp_tp_kfree_noreason)
 * the verifier refuses a read of ctx[2].
 */
static __always_inline int pp_kfree(__u64 *ctx, const bool reasons)
{
	__u32 reason = reasons ? (__u32)ctx[2] : 0;
	bool consumed = false, reasoned = reasons;
	__u32 flags = 0, fate;
	__s32 caller = 0;

	if (bpf_core_enum_value_exists(enum skb_drop_reason, SKB_CONSUMED) &&
	    reason == bpf_core_enum_value(enum skb_drop_reason, SKB_CONSUMED))
		consumed = true;
	if (bpf_core_enum_value_exists(enum skb_drop_reason, SKB_DROP_REASON_NOT_SPECIFIED) &&
	    reason == bpf_core_enum_value(enum skb_drop_reason, SKB_DROP_REASON_NOT_SPECIFIED))
		reasoned = false;
	fate = pp_kfree_fate(reasoned, consumed, pp_merge_at(ctx[1]));
	if (bpf_core_enum_value_exists(enum skb_drop_reason, SKB_DROP_REASON_NETFILTER_DROP) &&
	    reason == bpf_core_enum_value(enum skb_drop_reason, SKB_DROP_REASON_NETFILTER_DROP))
		caller = pp_drop_caller(ctx, ctx[0], ctx[1], &flags);
	/* No reasons (before 5.17): nf_hook_slow() frees only on an NF_DROP verdict. */
	if (!reasons && ctx[1] >= pp_cfg.nf_lo && ctx[1] < pp_cfg.nf_hi)
		caller = pp_drop_caller(ctx, ctx[0], ctx[1], &flags);
	return pp_on_free(ctx[0], pp_cfg.kfree_probe, fate, reason, ctx[1], caller,
			  flags | pp_tap_at(ctx[1]), PP_VIA_BTF);
}

/* The recordings, subprograms (pp_consumed_at()); the programs, the gate. */
static __noinline int pp_kfreed(__u64 *ctx)
{
	return pp_kfree(ctx, true);
}

static __noinline int pp_kfreed_noreason(__u64 *ctx)
{
	return pp_kfree(ctx, false);
}

SEC("tp_btf/kfree_skb")
int pp_tp_kfree(__u64 *ctx)
{
	return pp_idle_free() ? 0 : pp_kfreed(ctx);
}

SEC("tp_btf/kfree_skb")
int pp_tp_kfree_noreason(__u64 *ctx)
{
	return pp_idle_free() ? 0 : pp_kfreed_noreason(ctx);
}

/*
 * Without kprobes, the slab's own tracepoints see the sk_buff frees that
 * fire no skb tracepoint (__kfree_skb(): TCP's pure ACKs; kfree_skb_partial())
 * and the reuse of an address whose free went unseen. PTR is a plain void *,
 * which 6.1's tp_btf refuses (a pointer to no struct): raw tracepoints and
 * probed reads. A tracked skb is an object of an skb cache, or the second
 * skb of an fclone pair, which is freed and allocated as one object: that
 * second skb is looked at only inside objects that have room for two skbs,
 * never past an object's end (the slab merges the fclone cache with others
 * of its size, so the cache's name or object_size does not tell it).
 */
static __always_inline __u64 pp_fclone_second(__u64 obj, const struct kmem_cache *s)
{
	if (BPF_CORE_READ(s, size) < 2 * bpf_core_type_size(struct sk_buff))
		return 0;
	return obj + bpf_core_type_size(struct sk_buff);
}

/* An object of an skb cache freed while packets are in flight: a subprogram (pp_consumed_at()). */
static __noinline int pp_kmem_freed(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 skb = ctx->args[1];
	struct pp_state *st = pp_state();

	if (!st)
		return 0;
	pp_end(st, skb, PP_PROBE_KMEM_FREE,
	       pp_merge_at(ctx->args[0]) ? PP_FATE_MERGED : PP_FATE_CONSUMED, 0, 0, 0, 0, false,
	       PP_VIA_KPROBE);
	skb = pp_fclone_second(skb, (const struct kmem_cache *)ctx->args[2]);
	if (skb)
		pp_end(st, skb, PP_PROBE_KMEM_FREE, PP_FATE_CONSUMED, 0, 0, 0, 0, false,
		       PP_VIA_KPROBE);
	return 0;
}

SEC("raw_tp/kmem_cache_free")
int pp_tp_kmem_free(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 skb = ctx->args[1], cache = ctx->args[2];

	/* The gate first: nothing in flight is every hit's case, and the hop programs' test. */
	if (!pp_busy(pp_state()))
		return 0;
	return skb && pp_skb_slab(cache) ? pp_kmem_freed(ctx) : 0;
}

/*
 * A tracked address handed out again: its skb was freed unseen; the loader
 * says so, unless its socket's ring ends it (pp_forget_reused()).
 */
static __always_inline void pp_handed_out(struct pp_state *st, __u64 skb)
{
	struct pp_skb_val *v = pp_skb_entry(skb);

	if (!v)
		return;
	pp_queue_merged(st, v);
	pp_forget(st, skb, v->id);
}

/* An object of an skb cache handed out while packets are in flight: a subprogram
 * (pp_consumed_at()). */
static __noinline int pp_kmem_handed(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 skb = ctx->args[1];
	struct pp_state *st = pp_state();

	if (!st)
		return 0;
	pp_handed_out(st, skb);
	skb = pp_fclone_second(skb, (const struct kmem_cache *)ctx->args[2]);
	if (skb)
		pp_handed_out(st, skb);
	return 0;
}

SEC("raw_tp/kmem_cache_alloc")
int pp_tp_kmem_alloc(struct bpf_raw_tracepoint_args *ctx)
{
	if (!pp_busy(pp_state()))
		return 0;
	return ctx->args[1] && pp_skb_slab(ctx->args[2]) ? pp_kmem_handed(ctx) : 0;
}

/*
 * Slab tracepoints that pass no cache (before 6.1: kmem_cache_free(call_site,
 * ptr), kmem_cache_alloc[_node](call_site, ptr, bytes_req, ...)): while
 * packets are in flight, every object freed or handed out on the host is
 * looked up. Without the cache's size, an fclone pair's second skb cannot be
 * told from the next object: the skb right after OBJ counts only if its hops
 * saw it to be a pair's second (pp_cfg.fclone_note), and then OBJ is its pair.
 */
static __always_inline __u64 pp_fclone_noted(__u64 obj)
{
	__u64 skb = obj + bpf_core_type_size(struct sk_buff);
	struct pp_skb_val *v = bpf_map_lookup_elem(&skb_map, &skb);

	return v && (v->flags & PP_SKB_FCLONE2) ? skb : 0;
}

SEC("raw_tp/kmem_cache_free")
int pp_tp_kmem_free_any(struct bpf_raw_tracepoint_args *ctx)
{
	struct pp_state *st = pp_state();
	__u64 obj = ctx->args[1];

	if (!obj || !pp_busy(st))
		return 0;
	pp_end(st, obj, PP_PROBE_KMEM_FREE, PP_FATE_CONSUMED, 0, 0, 0, 0, false, PP_VIA_KPROBE);
	obj = pp_fclone_noted(obj);
	if (obj)
		pp_end(st, obj, PP_PROBE_KMEM_FREE, PP_FATE_CONSUMED, 0, 0, 0, 0, false,
		       PP_VIA_KPROBE);
	return 0;
}

SEC("raw_tp/kmem_cache_alloc")
int pp_tp_kmem_alloc_any(struct bpf_raw_tracepoint_args *ctx)
{
	struct pp_state *st = pp_state();
	__u64 obj = ctx->args[1];

	if (!obj || !pp_busy(st))
		return 0;
	pp_handed_out(st, obj);
	obj = pp_fclone_noted(obj);
	if (obj)
		pp_handed_out(st, obj);
	return 0;
}

/*
 * Marking in probes: a locally sent packet meets TC only after ip_output,
 * __dev_queue_xmit and the rest. The loader splices the filter, compiled
 * for packets that start at the IP header, over this placeholder's body;
 * the asm keeps the arguments alive, so that the caller passes them.
 */
static __noinline int pp_filter_l3(const void *data, __u64 len, __u64 headlen)
{
	__u64 v;

	asm volatile("%0 = %1" : "=r"(v) : "i"(PP_FILTER_MAGIC), "r"(data), "r"(len), "r"(headlen));
	return (int)v;
}

#define PP_ETH_HLEN 14

/* The mark record: a zeroed Ethernet header (none exists yet), then the IP packet. */
static __always_inline void pp_emit_l3_mark(struct pp_state *st, struct sk_buff *skb,
					    const void *data, __u64 headlen, __u64 id, __u32 probe)
{
	struct pp_mark *m = bpf_ringbuf_reserve(&path_map, sizeof(*m), 0);
	__u64 n = headlen;
	__u8 ver = 0;

	if (!m) {
		pp_count_lost(st, NULL, probe);
		return;
	}
	pp_fill_hop(&m->hop, PP_REC_MARK, probe, id, skb, PP_VIA_KPROBE);
	__builtin_memset(m->data, 0, PP_ETH_HLEN);
	if (n > PP_HDR_BYTES - PP_ETH_HLEN)
		n = PP_HDR_BYTES - PP_ETH_HLEN;
	if (bpf_probe_read_kernel(m->data + PP_ETH_HLEN, n, data))
		n = 0;
	ver = n ? m->data[PP_ETH_HLEN] >> 4 : 0;
	m->data[12] = ver == 6 ? 0x86 : 0x08;
	m->data[13] = ver == 6 ? 0xdd : 0x00;
	m->cap_len = PP_ETH_HLEN + n;
	m->vlan = 0; /* a packet this host sends: its tag comes later */
	pp_submit_mark(st, m);
}

/* ip_output / ip6_output: a hop for a tracked packet, a mark for a new match. */
static __always_inline int pp_mark_local(struct sk_buff *skb, __u32 probe, const bool fetch)
{
	struct pp_state *st = pp_state();
	__u64 key = (__u64)skb, id, len, headlen;
	struct pp_skb_val *v;
	const void *data;

	if (!skb || !st)
		return 0;
	v = bpf_map_lookup_elem(&skb_map, &key);
	if (v && pp_out_of_scope(skb, PP_VIA_KPROBE))
		return pp_leave_scope(st, key, probe, PP_VIA_KPROBE);
	if (v) {
		pp_head_follow(st, v, key, PP_VIA_KPROBE);
		pp_emit_hop(st, v, PP_REC_HOP, probe, skb, 0, 0, PP_VIA_KPROBE);
		return 0;
	}
	if (pp_busy(st) && pp_join_copy(st, key, probe, 0, PP_VIA_KPROBE))
		return 0;
	if (pp_cfg.scope_n
		    ? !pp_in_scope(pp_netns(skb, pp_skb_dev(skb, PP_VIA_KPROBE), PP_VIA_KPROBE))
		    : pp_cfg.mark_netns && pp_netns(skb, pp_skb_dev(skb, PP_VIA_KPROBE),
						    PP_VIA_KPROBE) != pp_cfg.mark_netns)
		return 0;
	data = BPF_CORE_READ(skb, data);
	len = BPF_CORE_READ(skb, len);
	headlen = len - BPF_CORE_READ(skb, data_len);
	if (!pp_filter_l3(data, len, headlen))
		return 0;
	if (pp_track(st, key, 0, &id, PP_VIA_KPROBE, fetch) != 0)
		return 0;
	pp_emit_l3_mark(st, skb, data, headlen, id, probe);
	v = bpf_map_lookup_elem(&skb_map, &key);
	if (v)
		pp_send_start(st, v, skb, PP_VIA_KPROBE);
	return 0;
}

/*
 * The send system calls: their entries are remembered per thread until they
 * return, whatever is in flight (the packet is marked after the call began).
 * One hash update per call: sendto, sendmsg and sendmmsg only, not write().
 */
static __always_inline int pp_send_enter(struct trace_event_raw_sys_enter *ctx)
{
	struct pp_send_val v = {.ts = bpf_ktime_get_ns(), .fd = ctx->args[0]};
	__u64 tid = bpf_get_current_pid_tgid();

	bpf_map_update_elem(&send_map, &tid, &v, BPF_ANY);
	return 0;
}

static __always_inline int pp_send_exit(void)
{
	__u64 tid = bpf_get_current_pid_tgid();

	bpf_map_delete_elem(&send_map, &tid);
	return 0;
}

#define PP_SEND_CALL(NAME)                                                                         \
	SEC("tracepoint/syscalls/sys_enter_" #NAME)                                                \
	int pp_enter_##NAME(struct trace_event_raw_sys_enter *ctx)                                 \
	{                                                                                          \
		return pp_send_enter(ctx);                                                         \
	}                                                                                          \
	SEC("tracepoint/syscalls/sys_exit_" #NAME)                                                 \
	int pp_exit_##NAME(void *ctx)                                                              \
	{                                                                                          \
		return pp_send_exit();                                                             \
	}

PP_SEND_CALL(sendto)
PP_SEND_CALL(sendmsg)
PP_SEND_CALL(sendmmsg)

static __always_inline __u32 pp_mark_probe(struct sk_buff *skb)
{
	__u8 ver = 0;

	bpf_probe_read_kernel(&ver, 1, BPF_CORE_READ(skb, data));
	return ver >> 4 == 6 ? pp_cfg.mark_probe6 : pp_cfg.mark_probe4;
}

/* A helper call in dead code passes 5.10's verifier, unlike BPF_FETCH (pp_next_id()). */
static __always_inline int pp_kmark_at(struct pt_regs *ctx, const bool fetch)
{
	struct sk_buff *skb = (struct sk_buff *)PT_REGS_PARM3(ctx);
	__u32 probe;

	if (pp_cfg.no_cookie)
		probe = pp_mark_probe(skb);
	else
		probe = bpf_get_attach_cookie(ctx) & PP_COOKIE_PROBE;
	return pp_mark_local(skb, probe, fetch);
}

SEC("pktpath_kmark")
int pp_kmark(struct pt_regs *ctx)
{
	return pp_kmark_at(ctx, true);
}

SEC("pktpath_kmark")
int pp_kmark_nofetch(struct pt_regs *ctx)
{
	return pp_kmark_at(ctx, false);
}
