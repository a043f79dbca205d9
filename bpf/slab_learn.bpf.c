// SPDX-License-Identifier: GPL-2.0
/*
 * The two sk_buff caches, learned before the probes load, so that the slab
 * programs (probes.bpf.c, pp_tp_kmem_*) compare an object's cache with two
 * constants and the free tracepoints learn nothing on every hit.
 *
 * The caches' kmem_cache pointers are not exported (kallsyms has no data
 * symbols on most kernels, BTF no global variables). An skb freed at the
 * skb tracepoints is, on the same CPU and right after, the object that
 * kfree_skbmem() hands to kmem_cache_free() with its cache: the head cache
 * for an skb of no fclone pair, the fclone cache (whose object starts at
 * the pair's first skb) otherwise. The loader makes such frees while this
 * object is attached, and reads the result from its .bss
 * (loader/probes/slab_learn.c).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

/* The learned caches: the loader's to read. */
__u64 pp_skb_cache = 0;
__u64 pp_fclone_cache = 0;

/* Per CPU, the object the skb tracepoint just saw freed there, and whether it is a pair's. */
#define PP_LEARN_CPUS 256
__u64 pp_learn_obj[PP_LEARN_CPUS] = {};
__u8 pp_learn_fclone[PP_LEARN_CPUS] = {};

/*
 * This CPU's slot, as an index the verifier can bound (Linux 6.1 does not
 * learn the bound of the copy clang compares): PP_LEARN_CPUS if past them.
 */
static __always_inline __u32 pp_learn_slot(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if (cpu >= PP_LEARN_CPUS)
		return PP_LEARN_CPUS;
	barrier_var(cpu);
	return cpu & (PP_LEARN_CPUS - 1);
}

/* An skb freed: remember its object, if its cache is still unknown. */
static __always_inline int pp_learn_skb(struct sk_buff *skb)
{
	__u64 obj = (__u64)skb;
	__u8 fclone;
	__u32 l;

	if (!skb)
		return 0;
	fclone = (__u8)BPF_CORE_READ_BITFIELD(skb, fclone);
	if (fclone == SKB_FCLONE_UNAVAILABLE ? pp_skb_cache : pp_fclone_cache)
		return 0;
	l = pp_learn_slot();
	if (l >= PP_LEARN_CPUS)
		return 0;
	pp_learn_fclone[l] = fclone != SKB_FCLONE_UNAVAILABLE;
	/* The second skb of a pair lives right after the first, where the object starts. */
	if (fclone == SKB_FCLONE_CLONE)
		obj -= bpf_core_type_size(struct sk_buff);
	pp_learn_obj[l] = obj;
	return 0;
}

SEC("tp_btf/kfree_skb")
int BPF_PROG(pp_learn_kfree, struct sk_buff *skb)
{
	return pp_learn_skb(skb);
}

SEC("tp_btf/consume_skb")
int BPF_PROG(pp_learn_consume, struct sk_buff *skb)
{
	return pp_learn_skb(skb);
}

/* kmem_cache_free(call_site, obj, cache) of Linux 6.1 and later. */
SEC("raw_tp/kmem_cache_free")
int pp_learn_cache(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 obj = ctx->args[1], cache = ctx->args[2];
	__u32 l = pp_learn_slot();

	if (l >= PP_LEARN_CPUS || !obj || pp_learn_obj[l] != obj)
		return 0;
	if (pp_learn_fclone[l])
		pp_fclone_cache = cache;
	else
		pp_skb_cache = cache;
	pp_learn_obj[l] = 0;
	return 0;
}
