/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading an skb's device and namespace, the way each kind of program may
 * (enum pp_via): shared by the record core (record.bpf.h and its rooms) and the drop
 * counter (drops.bpf.c).
 */
#ifndef PP_SKB_READ_BPF_H
#define PP_SKB_READ_BPF_H

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "pktpath.h"
#include "settings.bpf.h"

/*
 * What a caller may read and record. Every function below takes it as a
 * compile-time constant, so clang keeps one way of reading per program.
 */
enum pp_via {
	/* The classifier: probed reads; no task helpers (see pp_fill_hop()). */
	PP_VIA_TC,
	/* kprobe, kprobe.multi: the skb is a plain integer, so probed reads. */
	PP_VIA_KPROBE,
	/*
	 * tp_btf, fentry: the skb is a BTF pointer, so direct loads, which the
	 * verifier turns into PROBE_MEM loads (a fault, NULL included, reads
	 * 0) and the JIT inlines: a hop's fields cost some 80 ns this way
	 * against 250 with a helper call each (bench/hop_floor.bpf.c).
	 */
	PP_VIA_BTF,
};

/* bpf_rdonly_cast() (Linux 6.2+, a register move once verified): where pp_cfg.rdonly_cast. */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/*
 * P, a tp_btf or fentry argument of struct TYPE, as an untrusted pointer.
 * The kernel hands those programs trusted pointers; since Linux 6.4 the
 * verifier, at every load of a pointer member through one, looks up the
 * struct's "__safe_trusted" annotations by name (btf_nested_type_is_trusted()),
 * each a walk over all of vmlinux's types, per load and per state it
 * explores: most of the programs' load time (a tracepoint copy of the hop
 * program took 24 ms on the 6.18 host, 3.9 ms so). An untrusted pointer's
 * loads are the same PROBE_MEM loads at run time; the cast costs nothing
 * there. Past the in-flight gate only: an untracked hit does not reach it.
 */
#define pp_untrusted(p, type)                                                                      \
	(pp_cfg.rdonly_cast ? (__u64)bpf_rdonly_cast((void *)(p), bpf_core_type_id_kernel(type))   \
			    : (__u64)(p))

/*
 * SRC->FIELD, one pointer step (FIELD may name a member of a member). Both
 * are CO-RE relocated: vmlinux.h marks its structs preserve_access_index.
 */
#define PP_READ(via, src, field) ((via) == PP_VIA_BTF ? (src)->field : BPF_CORE_READ(src, field))

/*
 * skb->dev, or NULL. Once UDP queues an skb to a socket, the same word holds
 * its dev_scratch (a length and flags: udp_set_dev_scratch()), which a
 * direct load would follow into a fault, about a microsecond each, where a
 * probed read fails at once. A kernel address has its top bit set (x86-64,
 * arm64); dev_scratch never has.
 */
static __always_inline struct net_device *pp_skb_dev(struct sk_buff *skb, const enum pp_via via)
{
	struct net_device *dev = PP_READ(via, skb, dev);

	if ((long)dev >= 0) {
		dev = NULL;
		/* A branch: clang's branch-free select would mask the pointer (s>>=, &=). */
		barrier_var(dev);
	}
	return dev;
}

static __always_inline __u32 pp_netns(struct sk_buff *skb, struct net_device *dev,
				      const enum pp_via via)
{
	struct sock *sk;
	struct net *net;

	if (dev) {
		net = PP_READ(via, dev, nd_net.net);
	} else {
		/* On the way down from a socket the skb has no device yet. */
		sk = PP_READ(via, skb, sk);
		if (!sk)
			return 0;
		net = PP_READ(via, sk, __sk_common.skc_net.net);
	}
	return PP_READ(via, net, ns.inum);
}

/*
 * The device's name. On a BTF pointer, two 8-byte loads (the verifier allows
 * any load within a member; memcpy() would make sixteen 1-byte ones): what
 * follows the NUL is copied too, and the loader stops at the NUL.
 */
static __always_inline void pp_ifname(char *dst, struct net_device *dev, const enum pp_via via)
{
	const __u64 *name;

	if (!dev) {
		dst[0] = 0;
	} else if (via == PP_VIA_BTF) {
		name = (const __u64 *)dev->name;
		((__u64 *)dst)[0] = name[0];
		((__u64 *)dst)[1] = name[1];
	} else if (bpf_probe_read_kernel_str(dst, PP_IFNAMSIZ, dev->name) < 0) {
		dst[0] = 0;
	}
}

#endif
