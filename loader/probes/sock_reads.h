/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The socket end of a received packet where no function probe sees it: a
 * cgroup_skb ingress program on the root cgroup (v2) sees a tracked skb
 * queued to a datagram socket, and the sock:sock_recv_length tracepoint the
 * receive call that read it (bpf/reads.bpf.h).
 */
#ifndef PP_SOCK_READS_H
#define PP_SOCK_READS_H

struct pp_probes;

/*
 * Attach pp_cg_ingress to the root cgroup v2 with a link (several programs
 * may share the hook, and it goes when pktpath does). Returns 1 if
 * attached, 0 where the kernel or the host cannot (no cgroup v2, no
 * bpf_cast_to_kern_ctx): datagrams read inline then end as before. -ENOMEM
 * only is an error.
 */
int pp_sock_reads_attach(struct pp_probes *p);

#endif /* PP_SOCK_READS_H */
