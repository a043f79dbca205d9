/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The settings the loader gives the BPF objects: one struct in each
 * object's rodata (pp_cfg, bpf/settings.bpf.h), written once between open
 * and load. Read-only once loaded, so the verifier sees each field as a
 * constant and prunes what a setting turns off (an empty scope, a range
 * of 0, 0) as dead code. Plain __u32/__u64 fields, as pktpath.h.
 *
 * A new setting: a field here, and the place in the loader that decides it
 * (loader/probes/attacher.c from the kernel, loader/probes/attach.c from
 * the probes chosen, loader/filter/classifier.c for the classifier).
 */
#ifndef PP_BPF_SETTINGS_H
#define PP_BPF_SETTINGS_H

#include "pktpath.h"

struct pp_bpf_settings {
	/* --- Scope: which packets are marked, and where hops are recorded. --- */
	/*
	 * --cgroup/--pid (classifier): the cgroup v2, its id and its level
	 * below the root, whose sockets' packets are marked. 0: no such scope.
	 */
	__u64 scope_cgid;
	__u32 scope_cglevel;
	/* --netns/--container (probes): the namespaces (inodes) whose hops are recorded; 0: all. */
	__u32 scope_n;
	__u32 scope_netns[PP_SCOPE_MAX];
	/*
	 * The network namespace (inode) whose sent packets pp_kmark marks, and
	 * whose XDP frames --verdicts takes (frames.bpf.h), as TC marks only on
	 * pktpath's own interfaces: one scope. 0 (--all-netns): all. With
	 * --netns/--container, the scope's namespaces instead.
	 */
	__u32 mark_netns;

	/* --- The probes the loader chose (loader/probes/attach.c). --- */
	__u32 consume_probe, kfree_probe; /* probe indexes of the two free tracepoints */
	/*
	 * Without bpf cookies (Linux before 5.15), pp_kmark's probe index: the
	 * loader's for ip_output and for ip6_output, told apart by the version
	 * in the IP header, where skb->data points when they are called.
	 */
	__u32 no_cookie;
	__u32 mark_probe4, mark_probe6;
	/* fexit programs are bound to one function each: each copy return's cookie. */
	__u32 copy_cookie[PP_COPY_POINTS];
	/*
	 * Where consume_skb's tracepoint carries no location (before Linux 6.3)
	 * and a function backend attaches pp_reasm_*: the fragment
	 * inet_frag_reasm_prepare() consumes is marked there, and the
	 * tracepoint ends it merged.
	 */
	__u32 reasm_hook;
	/*
	 * Where the slab's tracepoints pass no cache (before 6.1), the free of
	 * an fclone pair names only the pair's object, which starts at its
	 * first skb; TCP sends the second. Each hop then notes whether its skb
	 * is a pair's second, so that the pair's free ends it too
	 * (pp_tp_kmem_free_any()); else a reused pair carries the next segment,
	 * or the peer's reply, into this packet.
	 */
	__u32 fclone_note;
	/* bpf_rdonly_cast() (Linux 6.2+, a register move once verified): the kernel has it. */
	__u32 rdonly_cast;
	/*
	 * --verdicts: XDP programs' frames are watched (bpf/frames.bpf.h), and
	 * the kernel's SKB_DROP_REASON_XDP (0: none) for the frames they drop.
	 */
	__u32 frames, frame_drop_reason;
	/*
	 * The xdp redirect tracepoints are attached: a redirected frame's END
	 * waits for the one that follows, which says where it went.
	 */
	__u32 frame_redirect;

	/*
	 * --- Where things are in this kernel, from kallsyms. Each range is
	 * [lo, hi); 0, 0: unknown (inlined, or not there). ---
	 */
	/*
	 * The sk_buff slab caches (kmem_cache pointers), learnt before the
	 * probes load (bpf/slab_learn.bpf.c): the slab's tracepoints fire for
	 * every object of every cache, and only these concern pktpath.
	 */
	__u64 skb_cache, fclone_cache;
	/*
	 * Where GSO's caller consumes the skb it cut into segments, so that the
	 * tracepoint backend, which cannot see __skb_gso_segment() return,
	 * still tells a segmented skb from one sent.
	 */
	__u64 gso_lo, gso_hi;
	__u64 nf_lo, nf_hi; /* nf_hook_slow(): its caller names a netfilter drop's hook */
	/*
	 * af_packet's receive functions (tpacket_rcv, packet_rcv,
	 * packet_rcv_spkt and their split-off .cold parts). A tracked skb they
	 * free is a tap's: dev_queue_xmit_nit()'s clone for the packet sockets
	 * of a device the packet leaves by, once copied into tcpdump's ring
	 * (tpacket_rcv) or refused by its filter; on the way in the taps get the
	 * packet itself with a reference taken (deliver_skb()), whose release
	 * frees nothing and fires no tracepoint.
	 */
	__u64 tap_lo[PP_TAP_RANGES], tap_hi[PP_TAP_RANGES];
	/* sock_rfree(): the destructor of an skb a socket owns for reading (skb_set_owner_r()). */
	__u64 sock_rfree;
	/*
	 * Where a free means that the skb's data went on in another skb
	 * (PP_FATE_MERGED): inet_frag_reasm_prepare() consumes the first
	 * fragment after skb_morph() gave its data to the fragment that
	 * completed the datagram (ip_defrag(), net/ipv4/inet_fragment.c);
	 * skb_release_data() and kfree_skb_list_reason() free the skbs of a
	 * frag_list (the reassembled datagram's other fragments, a GRO frag
	 * list) with the skb that carries them; kfree_skb_partial() frees an
	 * skb whose data skb_try_coalesce() moved into another (reassembly, TCP,
	 * GRO), seen by the slab's tracepoint only, its call site:
	 * inet_frag_reasm_finish() where it is inlined there (6.18: the
	 * fragments after the first).
	 */
	__u64 merge_lo[PP_MERGE_RANGES], merge_hi[PP_MERGE_RANGES];
	/*
	 * Where a consume_skb() is the reader's free of the datagram it was
	 * given (PP_HOP_READ): skb_consume_udp(), and the receive calls it may
	 * be inlined into.
	 */
	__u64 read_lo[PP_READ_RANGES], read_hi[PP_READ_RANGES];
	/*
	 * Where a consume_skb() hands the skb's data on past XDP (PP_FATE_XDP):
	 * skb_pp_cow_data() and skb_cow_data_for_xdp() consume the skb they
	 * copied for an XDP program (veth's native XDP, generic XDP), as
	 * veth_convert_skb_to_xdp_buff() does where it copies itself: those
	 * first (PP_XDP_COPY_RANGES), before the program runs; then veth's
	 * receive, which consumes one it sends back or redirects as an XDP
	 * frame (veth_xdp_rcv_skb()).
	 */
	__u64 xdp_lo[PP_XDP_RANGES], xdp_hi[PP_XDP_RANGES];
};

#endif
