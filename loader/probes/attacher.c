// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include "probes/attacher.h"
#include "kernel/ksyms.h"
#include "probes/end_points.h"
#include "probes/kfacts.h"
#include "probes/probe_btf.h"
#include "kernel/kfeatures.h"

struct pp_attacher *pp_attacher_new(void)
{
	struct pp_attacher *at = calloc(1, sizeof(*at));

	if (at)
		at->probes.set = &at->set;
	return at;
}

struct pp_reads_plan pp_attacher_reads(const struct btf *btf, enum pp_backend backend,
				       const struct pp_kfacts *k)
{
	return pp_plan_reads(backend, pp_btf_tp_nargs(btf, "sock_recv_length") >= 3,
			     btf__find_by_name_kind(btf, "bpf_cast_to_kern_ctx", BTF_KIND_FUNC) > 0,
			     k);
}

/* [LO, HI) of each of the N functions NAMES; 0, 0 for those kallsyms lacks (inlined). */
static void ranges(const struct pp_ksyms *ksyms, const char *const *names, int n, __u64 *lo,
		   __u64 *hi)
{
	for (int i = 0; i < n; i++)
		if (pp_ksym_range(ksyms, names[i], &lo[i], &hi[i]))
			lo[i] = hi[i] = 0;
}

/*
 * Where a free tracepoint's location says a tap's copy ends (PP_HOP_TAP):
 * af_packet's receive functions, which free the clone that
 * dev_queue_xmit_nit() made for them (net/packet/af_packet.c); their
 * error paths may sit in a split-off .cold part.
 */
static void prepare_tap_free(struct pp_probe_settings *s, const struct pp_ksyms *ksyms)
{
	static const char *const names[PP_TAP_RANGES] = {
		"tpacket_rcv",	   "tpacket_rcv.cold", "packet_rcv",
		"packet_rcv.cold", "packet_rcv_spkt",  "packet_rcv_spkt.cold",
	};
	__u64 hi;

	ranges(ksyms, names, PP_TAP_RANGES, s->cfg.tap_lo, s->cfg.tap_hi);
	/*
	 * A packet socket owns its copies for reading (skb_set_owner_r(),
	 * destructor sock_rfree()), and the frames it sends for writing: those
	 * are packets, not taps (pp_is_tap() in bpf/end.bpf.h).
	 */
	if (pp_ksym_range(ksyms, "sock_rfree", &s->cfg.sock_rfree, &hi))
		s->cfg.sock_rfree = 0;
}

/*
 * Where a free's location says the skb's data went on in another skb
 * (PP_FATE_MERGED, bpf/probes.bpf.c): reassembly and the frag_list frees.
 * Unknown (inlined) ones are left out: their frees stay consumed.
 */
static void prepare_merge_free(struct pp_probe_settings *s, const struct pp_ksyms *ksyms)
{
	ranges(ksyms, pp_merge_frees, PP_MERGE_RANGES, s->cfg.merge_lo, s->cfg.merge_hi);
}

/*
 * Where a consume_skb() is the reader's free of the datagram it was given
 * (PP_HOP_READ): skb_consume_udp(), called by udp_recvmsg() and
 * udpv6_recvmsg() after the copy succeeded (Linux 6.3 to 6.17; 6.18 hands
 * the datagram to skb_attempt_defer_free() instead), and those two, where
 * it may be inlined. Unknown ones are left out: their reads stay unnamed.
 */
static void prepare_read_free(struct pp_probe_settings *s, const struct pp_ksyms *ksyms)
{
	static const char *const names[PP_READ_RANGES] = {
		"skb_consume_udp",
		"udp_recvmsg",
		"udpv6_recvmsg",
	};

	ranges(ksyms, names, PP_READ_RANGES, s->cfg.read_lo, s->cfg.read_hi);
}

/* Where a consume_skb() hands the skb's data on past XDP (PP_FATE_XDP, bpf_settings.h). */
static void prepare_xdp_free(struct pp_probe_settings *s, const struct pp_ksyms *ksyms)
{
	static const char *const names[PP_XDP_RANGES] = {
		/* The first PP_XDP_COPY_RANGES copy before the program runs. */
		"skb_pp_cow_data",
		"skb_cow_data_for_xdp",
		"veth_convert_skb_to_xdp_buff",
		"veth_xdp_rcv_skb",
	};

	ranges(ksyms, names, PP_XDP_RANGES, s->cfg.xdp_lo, s->cfg.xdp_hi);
}

/*
 * Where the consume_skb tracepoint says a packet was cut into GSO segments
 * (validate_xmit_skb() consumes the original): without it, the tracepoint
 * backend would call such a packet sent. Unknown (inlined) is left out.
 * Netfilter drops name their hook by nf_hook_slow()'s caller (drop_hint.c).
 */
static void prepare_frees(struct pp_probe_settings *s, const struct btf *btf,
			  const struct pp_ksyms *ksyms)
{
	s->consume_at = pp_btf_tp_nargs(btf, "consume_skb") >= 2;
	if (s->consume_at &&
	    pp_ksym_range(ksyms, "validate_xmit_skb", &s->cfg.gso_lo, &s->cfg.gso_hi))
		s->cfg.gso_lo = s->cfg.gso_hi = 0;
	if (pp_ksym_range(ksyms, "nf_hook_slow", &s->cfg.nf_lo, &s->cfg.nf_hi))
		s->cfg.nf_lo = s->cfg.nf_hi = 0;
	prepare_tap_free(s, ksyms);
	prepare_merge_free(s, ksyms);
	prepare_read_free(s, ksyms);
	if (s->consume_at)
		prepare_xdp_free(s, ksyms);
}

bool pp_attacher_reasm(const struct btf *btf, enum pp_backend backend)
{
	return pp_reasm_point_wanted(
		pp_backends[backend].attach, pp_btf_tp_nargs(btf, "consume_skb") >= 2,
		btf__find_by_name_kind(btf, PP_REASM_POINT, BTF_KIND_FUNC) > 0);
}

/* The inode of pktpath's network namespace, as the probes see namespaces. */
static __u32 own_netns(void)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) ? 0 : (__u32)st.st_ino;
}

/* How many arguments function NAME takes, by BTF; 0: not there. */
static int func_args(const struct btf *btf, const char *name)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (__u32)id) : NULL;

	t = t ? btf__type_by_id(btf, t->type) : NULL;
	return t && btf_is_func_proto(t) ? btf_vlen(t) : 0;
}

/* How many arguments raw tracepoint NAME passes (its btf_trace_NAME, __data first); 0: none. */
static int tp_args(const struct btf *btf, const char *name)
{
	char tname[64];
	int id;
	const struct btf_type *t;

	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	id = btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF);
	t = id > 0 ? btf__type_by_id(btf, (__u32)id) : NULL;
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	t = t && btf_is_ptr(t) ? btf__type_by_id(btf, t->type) : NULL;
	return t && btf_is_func_proto(t) ? btf_vlen(t) : 0;
}

/* The value of enum skb_drop_reason's NAME; 0 where the kernel has none. */
static __u32 drop_reason(const struct btf *btf, const char *name)
{
	int id = btf__find_by_name_kind(btf, "skb_drop_reason", BTF_KIND_ENUM);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, btf_enum(t)[i].name_off), name))
			return (__u32)btf_enum(t)[i].val;
	return 0;
}

void pp_attacher_prepare(struct pp_attacher *at, const struct btf *btf,
			 const struct pp_ksyms *ksyms, struct pp_kfacts *k)
{
	struct pp_probe_settings *s = &at->set;
	struct pp_reads_plan r;

	/*
	 * Locally sent packets are marked where IP sends them (ip_output):
	 * pp_kmark; --verdicts' frames where XDP judges them. Both in TC's scope.
	 */
	pp_kfacts_marking(k, s->backend);
	s->marks = pp_plan_marks_in_probes(s->backend, k);
	s->verdicts = s->verdicts && pp_attacher_verdicts_possible(btf, k);
	if (s->marks || s->verdicts)
		s->cfg.mark_netns = s->all_netns ? 0 : own_netns();
	r = pp_attacher_reads(btf, s->backend, k);
	s->recv_done = pp_reads_recv_done(&r);
	s->cg_ingress = pp_reads_cg_ingress(&r);
	prepare_frees(s, btf, ksyms);
	s->reasm = pp_attacher_reasm(btf, s->backend);
	s->no_fetch = !k->fetch;
	s->no_cookie = !k->cookie;
	s->no_loop = !k->loop;
	s->no_reasons = !k->reasons;
	s->no_slab = !k->slab;
	s->cfg.rdonly_cast = btf__find_by_name_kind(btf, "bpf_rdonly_cast", BTF_KIND_FUNC) > 0;
	s->xdp_generic_args = s->verdicts ? func_args(btf, "bpf_prog_run_generic_xdp") : 0;
	s->xdp_redirect_args = s->verdicts ? tp_args(btf, "xdp_redirect") : 0;
	s->cfg.frame_drop_reason = s->verdicts ? drop_reason(btf, "SKB_DROP_REASON_XDP") : 0;
}

bool pp_attacher_verdicts_possible(const struct btf *btf, const struct pp_kfacts *k)
{
	int func = btf__find_by_name_kind(btf, "consume_skb", BTF_KIND_FUNC);

	/* fexit on a program takes the trampoline an fentry on a function does. */
	return k->fentry || (func > 0 && pp_kfeatures_has_fentry((__u32)func));
}

const struct pp_verdicts *pp_attacher_verdicts(const struct pp_attacher *at)
{
	return &at->probes.verdicts;
}

size_t pp_attacher_verdicts_rescan(struct pp_attacher *at)
{
	return pp_probes_verdicts_rescan(&at->probes);
}

__u64 pp_attacher_skipped(const struct pp_attacher *at)
{
	return pp_probes_skipped(&at->probes);
}

bool pp_attacher_marks(const struct pp_attacher *at)
{
	return at->set.marks;
}

int pp_attacher_load(struct pp_attacher *at, const struct pp_maps *maps, struct pp_probe_list *l,
		     char *err, size_t errlen)
{
	return pp_probes_load(&at->probes, maps, l, err, errlen);
}

int pp_attacher_attach(struct pp_attacher *at, struct pp_probe_list *l, char *err, size_t errlen)
{
	return pp_probes_attach(&at->probes, l, err, errlen);
}

size_t pp_attacher_attached(const struct pp_attacher *at)
{
	return at ? at->probes.attached : 0;
}

void pp_attacher_destroy(struct pp_attacher *at)
{
	if (!at)
		return;
	pp_probes_destroy(&at->probes);
	free(at);
}
