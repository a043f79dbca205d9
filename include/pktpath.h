/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ABI shared by the BPF programs and user space: ring-buffer records,
 * map keys and values, limits. Plain __u32/__u64 fields only, so that both
 * vmlinux.h (BPF side) and <linux/types.h> (user side) can include it.
 */
#ifndef PKTPATH_H
#define PKTPATH_H

#define PP_IFNAMSIZ   16
#define PP_COMMLEN    16
#define PP_HDR_BYTES  128  /* packet bytes copied when a packet is marked */
#define PP_MAX_PROBES 8192 /* probe indexes are 0 .. PP_MAX_PROBES - 1 */
#define PP_MAX_ARGPOS 5	   /* an skb argument is one of the first five */

/* Probe indexes of the classifier's own hops, past every list entry. */
#define PP_PROBE_TC_INGRESS (PP_MAX_PROBES + 0)
#define PP_PROBE_TC_EGRESS  (PP_MAX_PROBES + 1)
/* The slab tracepoints that see sk_buffs freed and reallocated (no kprobes). */
#define PP_PROBE_KMEM_FREE  (PP_MAX_PROBES + 2)
#define PP_PROBE_KMEM_ALLOC (PP_MAX_PROBES + 3)
/* The send system call that made a locally sent packet (its entry's time). */
#define PP_PROBE_SEND (PP_MAX_PROBES + 4)
/* The end of a reader's receive call (sock:sock_recv_length): a delivery's END. */
#define PP_PROBE_READ (PP_MAX_PROBES + 5)
#define PP_PROBES_ALL (PP_MAX_PROBES + 6) /* probe indexes, the built-in ones too */

/*
 * Probe programs loaded once per attach point (fentry, tp_btf) carry their
 * probe index as this immediate, patched in each copy before load.
 */
#define PP_PROBE_MAGIC 0x5eadbeef

/*
 * A probe's bpf cookie (or patched immediate): the probe index in the low
 * 16 bits; for a point where the kernel releases an sk_buff, the fate it
 * gives (enum pp_fate) above it, and PP_END_DATA if the skb still holds its
 * data there (so that a data buffer still shared can be told).
 */
#define PP_COOKIE_PROBE	     0xffffU
#define PP_COOKIE_FATE_SHIFT 16
#define PP_END_DATA	     (1U << 24)
/*
 * A function that returns new skbs made from its skb argument (a copy, or
 * GSO's list of segments): its entry remembers the argument, its return
 * joins the new skbs to the argument's packet. PP_COOKIE_SEGMENTS: the
 * argument's own data goes on in them, so its free ends it as segmented.
 */
#define PP_COOKIE_COPIES   (1U << 25)
#define PP_COOKIE_SEGMENTS (1U << 26)
#define PP_MAX_COPIES	   256 /* new skbs joined per call: GSO makes up to 64 (BIG TCP more) */
#define PP_COPY_POINTS	   4   /* copying functions (loader/probes/end_points.c) */
/* --stack: the probe's hops carry the kernel stack (pp_hop.stack). */
#define PP_COOKIE_STACK (1U << 27)
/*
 * Where an skb's life as one packet is known to be over, or to begin, when
 * its free is not seen (loader/probes/life_points.c): PP_COOKIE_TAKES, a
 * socket takes it; PP_COOKIE_STARTS, a packet's way starts (a device's
 * transmit queue, a receive entry): a taken skb met there carries another
 * packet.
 */
#define PP_COOKIE_TAKES	 (1U << 28)
#define PP_COOKIE_STARTS (1U << 29)
/*
 * A reader's copy of an skb's data to its process (a PP_COOKIE_TAKES point
 * that reads): a copy that leaves nothing of the skb unread is its delivery,
 * which the receive call's end confirms (read_map).
 */
#define PP_COOKIE_READS (1U << 30)
#define PP_READ_SLOTS	8 /* skbs a receive call may read before its end confirms them */
/*
 * A qdisc holds the skb after this point (tp:qdisc:qdisc_enqueue fires once
 * the enqueue succeeded): it may wait there long, with no record; the next
 * hop anywhere takes it out (loader/probes/life_points.c).
 */
#define PP_COOKIE_QUEUES (1U << 31)
#define PP_STACK_DEPTH	 32 /* frames kept of a stack (stack_map's value) */
/* --netns/--container: the namespaces (inodes) a scoped run records hops in, at most. */
#define PP_SCOPE_MAX 16

/* In the placeholder body of pp_filter_l3(), which the loader replaces. */
#define PP_FILTER_MAGIC 0x5eadf117

/* The first field of every ring-buffer record. */
enum pp_rec_type {
	PP_REC_MARK = 1, /* the classifier marked a new packet: struct pp_mark */
	PP_REC_HOP = 2,	 /* a probe saw a tracked packet: struct pp_hop */
	PP_REC_END = 3,	 /* the packet's skb was freed: struct pp_hop, last hop */
	/*
	 * A probe saw an skb that shares a tracked skb's data (a clone): it
	 * joins that packet. struct pp_hop; location holds the skb it came from.
	 */
	PP_REC_COPY = 4,
	/*
	 * A HOP at a TC hook where the packet's addresses, protocol or ports
	 * differ from what they were at its mark (NAT, a router's rewrite):
	 * struct pp_mark, its data the packet's bytes there.
	 */
	PP_REC_HOP_BYTES = 5,
};

/* How a packet's life ended. */
enum pp_fate {
	PP_FATE_NONE = 0,
	PP_FATE_CONSUMED = 1,  /* freed as done with: delivered or sent */
	PP_FATE_DROPPED = 2,   /* kfree_skb with a drop reason */
	PP_FATE_UNSEEN = 3,    /* no free seen within --packet-timeout */
	PP_FATE_MERGED = 4,    /* its data went on in another skb (GRO, TCP coalescing) */
	PP_FATE_SEGMENTED = 5, /* freed after GSO cut its data into segments (its copies) */
	/*
	 * --netns/--container: first seen in a namespace outside the scope,
	 * where tracking stops; the END is that first hop outside.
	 */
	PP_FATE_LEFT = 6,
	/*
	 * Its data went on past XDP, not followed: consumed where a driver
	 * copied it for its XDP program (veth's page-pool copy), or sent back
	 * or redirected from there as an XDP frame.
	 */
	PP_FATE_XDP = 7,
	PP_FATE_MAX = PP_FATE_XDP,
};

/* pp_hop.flags */
#define PP_HOP_SHARED	 1U /* END: another skb still holds this skb's data */
#define PP_HOP_NF_CALLER 2U /* END: caller is nf_hook_slow()'s, which ran the dropper */
/*
 * END: a packet socket's copy (a tap: tcpdump, any AF_PACKET capture), an
 * observer whose free says nothing of the packet's fate: freed by af_packet's
 * receive functions, or owned by an AF_PACKET socket for reading (queued to
 * it, read or purged there), or (no free location known) a copy that
 * dev_queue_xmit_nit() made for the taps of a device it leaves by (pkt_type
 * PACKET_OUTGOING). Never a frame a packet socket sends: that is the packet.
 */
#define PP_HOP_TAP 4U
/*
 * HOP or END: the packet left the device whose qdisc took it (this record
 * is elsewhere) with no hop of it seen on that device since the enqueue:
 * the hops in between (the transmit, the peer's receive) were not recorded.
 * Seen on Linux 6.18 under a tbf qdisc: the kernel fired the tracepoints
 * (a tracefs instance counted them), and the programs did not run for them
 * (their run_cnt stayed short by as many, no recursion miss counted):
 * docs/packet-life.md's limits.
 */
#define PP_HOP_GAP 8U
/*
 * END: the reader's own free of the datagram it was given: consume_skb()
 * called from skb_consume_udp(), which udp_recvmsg() and udpv6_recvmsg()
 * call only after the copy to the reader succeeded (a failed copy is a
 * kfree_skb(), a peek holds a reference and frees nothing). This record's
 * task is the reader. Known from the tracepoint's location (Linux 6.3+).
 */
#define PP_HOP_READ 16U
/*
 * END: an IPv4 fragment with more after it (MF) whose data did not go on in
 * a reassembled datagram (sent, dropped, left the scope, cut again): its
 * datagram's later fragments may still come, as copies of the packet. The
 * sender's ip_do_fragment() sends them one at a time, so the first can
 * leave the traced scope (or, on a NIC, be sent and freed) before the next
 * crosses its first hook: the loader keeps the packet open for them, as
 * for a shared END (PP_HOP_SHARED), up to --packet-timeout.
 */
#define PP_HOP_FRAGS 32U
/*
 * MARK: a reply to a tracked packet that a NAT rewrote, marked where it
 * entered still addressed to the rewritten tuple, which the filter may not
 * match (reply_map); location holds the id of the tracked packet whose
 * rewrite told it.
 */
#define PP_HOP_REPLY 64U
/*
 * HOP: another BPF program (a TC or XDP program of the host's datapath)
 * returned its verdict on the packet: reason holds the program's return
 * value, the probe names the program (fexit on it, loader/probes/verdicts.h).
 */
#define PP_HOP_VERDICT 128U
/* With PP_HOP_VERDICT: the program is an XDP program (generic mode), its verdict an XDP action. */
#define PP_HOP_XDP 256U
/*
 * MARK and END: a frame an XDP program dropped, sent back or redirected
 * before the kernel made an skb of it (bpf/frames.bpf.h); the END repeats
 * the MARK's hop, and the text leaves its line out.
 */
#define PP_HOP_FRAME 512U
/*
 * END of a frame its XDP program redirected (PP_HOP_FRAME), as the xdp
 * redirect tracepoint that followed told it: out_ifindex is the target
 * device (0: not a device, as a CPU or an AF_XDP socket), redirect_map the
 * map it went through (0: none, bpf_redirect()), redirect_err the error
 * the redirect failed with (0: none; the frame was dropped).
 */
#define PP_HOP_REDIRECT 1024U
/* Other programs whose verdicts are recorded, at most (loader/probes/verdicts.h). */
#define PP_VERDICT_PROGS 64
/* How many text ranges of af_packet's receive functions the probes know. */
#define PP_TAP_RANGES 6
/* How many text ranges of functions whose frees are merges the probes know (pp_merge_at()). */
#define PP_MERGE_RANGES 5
/* How many text ranges of functions whose consume_skb() is a reader's (PP_HOP_READ) they know. */
#define PP_READ_RANGES 3
/* Where a consume_skb() hands the skb's data on past XDP (PP_FATE_XDP). */
#define PP_XDP_RANGES 4
/* The first of them, where the skb is copied before the XDP program runs (bpf/frames.bpf.h). */
#define PP_XDP_COPY_RANGES 3

/* One step of one packet. 128 bytes, no holes. */
struct pp_hop {
	__u32 type;	/* enum pp_rec_type */
	__u32 probe;	/* probe index, or PP_PROBE_TC_* */
	__u64 id;	/* packet id, from 1 */
	__u64 ts;	/* bpf_ktime_get_ns() */
	__u64 skb;	/* skb address: tells clones apart */
	__u64 location; /* END by kfree_skb: the caller's address; COPY: the parent skb */
	__u32 cpu;
	__u32 netns;   /* network namespace inode, 0 if unknown */
	__u32 ifindex; /* 0 if the skb has no device yet */
	__u32 pid;     /* tgid of the current task */
	__u32 fate;    /* END: enum pp_fate */
	union {
		__u32 reason; /* END: enum skb_drop_reason value */
		/*
		 * COPY: how long (ns) before ts its parent (location) was last
		 * seen alive; 0: at ts. A parent freed since may have left its
		 * address to another skb of the packet.
		 */
		__u32 parent_age;
	};
	__u32 len;   /* skb->len */
	__u32 lost;  /* END: hops of this packet lost to a full ring buffer */
	__u32 flags; /* PP_HOP_* */
	__u32 stack; /* --stack: 1 + its kernel stack's id in stack_map; 0: none */
	/*
	 * END by kfree_skb: where the function that dropped the skb was called
	 * from, or with PP_HOP_NF_CALLER where nf_hook_slow() was, as an offset
	 * from location (return addresses both); 0 if not found. nf_hook_slow's
	 * caller names the netfilter hook of a drop (ip_forward: forward),
	 * which no tracepoint argument does.
	 */
	union {
		__s32 caller;
		__s32 redirect_err; /* PP_HOP_REDIRECT */
	};
	/*
	 * END for PKT_TOO_BIG: the way out the packet was too big for, from
	 * its route (skb->dev is still the way in): that device's ifindex, and
	 * the MTU the kernel held it to (the route's mtu metric, else the
	 * device's: ip_dst_mtu_maybe_forward()). 0: not known.
	 */
	__u32 out_ifindex;
	char ifname[PP_IFNAMSIZ];
	char comm[PP_COMMLEN];
	union {
		__u32 out_mtu;
		__u32 redirect_map; /* PP_HOP_REDIRECT */
	};
	/*
	 * MARK in a cgroup scope: the inode of the scope's socket that sent the
	 * packet, or whose conversation it answers (/proc/PID/fd: socket:[N]);
	 * 0: none, or not known.
	 */
	__u32 sock_ino;
};

/*
 * sock_maker_map's value: the process that made a socket of a cgroup scope
 * (its socket(2)'s caller), or for a socket older than pktpath, a process
 * that held it when pktpath started.
 */
struct pp_sock_maker {
	__u32 pid; /* tgid */
	char comm[PP_COMMLEN];
};

/* The first record of a packet: its mark hop and its leading bytes. */
struct pp_mark {
	struct pp_hop hop; /* type PP_REC_MARK, probe PP_PROBE_TC_* */
	__u32 cap_len;	   /* bytes of data[] that hold packet bytes */
	/*
	 * The outer VLAN tag when the kernel held it in metadata at the mark
	 * (TPID << 16 | TCI; 0: none), which data[] then lacks: every received
	 * frame's, as __netif_receive_skb_core() untags before TC.
	 */
	__u32 vlan;
	/*
	 * In a cgroup scope, on egress: the process that made the packet's
	 * socket (its tgid and comm; 0: not known), kept since its socket(2).
	 */
	__u32 maker_pid;
	char maker_comm[PP_COMMLEN];
	__u32 pad;
	__u8 data[PP_HDR_BYTES]; /* from the Ethernet header on */
};

/*
 * --agent: one place where the kernel drops skbs (skb:kfree_skb), the key
 * of drops.bpf.c's counters. LOCATION: the dropping code's address;
 * REASON: enum skb_drop_reason (0 before 5.17); the skb's device then
 * (IFNAME "" and IFINDEX 0 on the way down from a socket) and namespace.
 */
struct pp_drop_key {
	__u64 location;
	__u32 reason;
	__u32 ifindex;
	__u32 netns;
	__u32 pad;
	char ifname[PP_IFNAMSIZ];
};

#define PP_DROP_PLACES 4096 /* drop_counts' entries; past them, drop_unkeyed counts */

#define PP_TC_HOOKS 4

/*
 * skb_map: skb address -> the packet it belongs to. The address is the
 * identity from the mark to the free, whatever happens to the data
 * (pskb_expand_head() reallocates it on a live skb: a router forwarding a
 * cloned TCP segment, NAT, encapsulation).
 */
struct pp_skb_val {
	__u64 id;
	__u64 first_ts;
	__u64 head; /* skb->head when last seen: head_map's key */
	__u32 lost; /* hops of this skb lost to a full ring buffer */
	/*
	 * The TC hooks it crossed. Where a free is invisible (no kprobes), an
	 * sk_buff can be reused at the same address: crossing the same hook
	 * twice is then another packet.
	 */
	__u32 tc_hook[PP_TC_HOOKS]; /* ifindex << 1 | egress, ^ netns << 16; 0: free */
	__u32 flags;		    /* PP_SKB_* */
	/*
	 * The packet's addresses, protocol and ports at its mark, folded
	 * (pp_tc_tuple() in bpf/classifier.bpf.c); 0: not known. A TC hop
	 * that reads another sends the bytes it sees (PP_REC_HOP_BYTES).
	 */
	__u64 tuple;
	/*
	 * Once a socket took it (PP_SKB_TAKEN), the skb stays in that socket's
	 * namespace and its length only grows (TCP coalescing appends to a
	 * queued skb): what a record must find for the skb to be this packet's,
	 * as its free may go unseen and the address be reused. 0: unknown.
	 */
	__u32 taken_netns;
	__u32 read_len; /* skb->len at its first read (PP_COOKIE_READS) */
	__u64 sock;	/* PP_SKB_RING: the socket it was queued to */
	__u32 qslot;	/* PP_SKB_RING: its index in that socket's queue_map ring */
	/*
	 * The device whose qdisc took it, until a hop on that device follows
	 * (pp_queue_left() in bpf/hop.bpf.h): ifindex ^ netns << 16; 0: none.
	 */
	__u32 qdev;
	/*
	 * At its mark: skb->len, and its source address and port folded
	 * (pp_reply_src() in bpf/classifier.bpf.c; 0: no reply could be told).
	 * A tracked packet that leaves by TC egress with its source no longer
	 * the mark's and its length unchanged was rewritten by a source NAT,
	 * not encapsulated: its reply's tuple goes into reply_map.
	 */
	__u32 mark_len;
	__u32 mark_src;
};

/*
 * full_map: skb address -> an skb that matched while skb_map was full, so
 * that its packet counts once in map_full, not at each hook it crosses.
 */
struct pp_full_val {
	__u64 ts;		    /* when it was counted */
	__u32 tc_hook[PP_TC_HOOKS]; /* as pp_skb_val's; PP_HOOK_LOCAL: marked in a probe */
};

/*
 * reply_map's key: a packet's addresses, protocol and ports (ICMP echo: the
 * identifier in both) as they are on the wire, and the device it crosses.
 */
struct pp_reply_key {
	__u32 saddr[4]; /* network order; IPv4: saddr[0], the rest 0 */
	__u32 daddr[4];
	__u16 sport, dport; /* network order */
	__u8 proto;
	__u8 family; /* 4 or 6 */
	__u16 pad;
	__u32 dev; /* ifindex << 1 ^ netns << 16, as a TC hook's identity without its direction */
};

/* reply_map's value: the tracked packet whose rewrite made the entry, and when. */
struct pp_reply_val {
	__u64 id;
	__u64 ts;
};

/*
 * How long a reply_map entry marks replies after a tracked packet of its
 * conversation last refreshed it: conntrack's shortest TCP timeout (CLOSE,
 * 10 s), before which the kernel gives its reply tuple to no other flow.
 * The loader clears pp_state.reply_ts once older, so that untracked traffic
 * stops reading the clock.
 */
#define PP_REPLY_NS 10000000000ULL

/* ip_output's mark (pp_kmark), as a hook: no ifindex is 0, so no TC hook is 1. */
#define PP_HOOK_LOCAL 1U

/* pp_skb_val.flags */
#define PP_SKB_SEND_LOOKED 1U  /* its send call was looked for (locally sent packets) */
#define PP_SKB_SEGMENTED   2U  /* GSO made segments of it: its free is no delivery */
#define PP_SKB_TAKEN	   4U  /* a socket took it (PP_COOKIE_TAKES) */
#define PP_SKB_COPY	   8U  /* it joined as a copy of a tracked skb */
#define PP_SKB_QUEUED	   16U /* in its TCP socket's queue_map ring, with data */
#define PP_SKB_QDISC	   32U /* in a qdisc since its last hop (PP_COOKIE_QUEUES) */
#define PP_SKB_FCLONE2	   64U /* an fclone pair's second skb (settings: fclone_note) */
/* It left its qdisc's device unseen: its next record says so (PP_HOP_GAP). */
#define PP_SKB_GAP 128U
/*
 * The reassembly hook saw inet_frag_reasm_prepare() about to consume it,
 * its data gone to the fragment that completed the datagram: the
 * consume_skb tracepoint that follows, which carries no location before
 * Linux 6.3, ends it merged (pp_reasm_mark(), bpf/probes.bpf.c).
 */
#define PP_SKB_MERGING 256U
/*
 * In a socket's queue_map ring (a datagram, a segment with data or a FIN):
 * sock and qslot say where. Freed other than consumed, or read with its END
 * sent from the reader's copy, its slot is emptied (id 0): that END was its
 * last, the ring's walk sends none (pp_queue_clear()).
 */
#define PP_SKB_RING 512U
/* Marked as a reply (PP_HOP_REPLY): its own rewrite makes no reply_map entry. */
#define PP_SKB_REPLY 1024U

/*
 * head_map: data buffer (skb->head) -> the tracked skb that holds it. A clone
 * shares its original's data, so an unknown skb with a tracked head is a copy
 * of that packet, however it was made.
 */
struct pp_head_val {
	__u64 id;
	__u64 skb;     /* the first tracked skb seen with it: copies come from it */
	__u64 ts;      /* when that was; entries older than orphan_ns are stale */
	__u64 fp;      /* the data's fingerprint (pp_fingerprint()), 0 if unknown */
	__u32 holders; /* tracked skbs holding this head */
	__u16 orphan;  /* none does, but an skb not seen yet still holds the data */
	/*
	 * Where in the data fp was read (a network header's offset from head): a
	 * copy's bytes are compared there, wherever its own headers begin (a
	 * tunnel's push or pull moves them, not the bytes).
	 */
	__u16 nh;
	/*
	 * The end of the linear data (skb->tail, an offset from head) when noted.
	 * A clone shares it, whatever headers were pushed or pulled since; a new
	 * packet in a freed buffer that is used again has its own, and its
	 * headroom may still hold the old packet's bytes where fp was read.
	 */
	__u32 tail;
	__u32 pad;
};

/* copy_map's key: a thread in a call of a copying function (PP_COOKIE_COPIES). */
struct pp_copy_key {
	__u64 tid;   /* pid_tgid */
	__u32 probe; /* the function's probe index: calls of two may nest */
	__u32 pad;
};

/*
 * read_map: a thread's receive call in progress -> the tracked skbs it
 * copied out whole so far. Each END is made at the copy, where the skb is
 * still the packet's, and sent when the call's end (or the thread's next
 * copy) confirms the delivery: the skb still tracked as that packet (no
 * drop after a failed copy), and for TCP the socket's copied_seq past the
 * skb's data (MSG_PEEK copies without moving it).
 */
struct pp_read_slot {
	__u64 skb;
	__u64 id;      /* the packet the skb was at the copy */
	__u64 sk;      /* TCP: the socket; 0: a datagram, read whole by one copy */
	__u32 end_seq; /* TCP: the sequence number after the skb's data */
	__u32 pad;
	struct pp_hop end; /* the END record, as at the copy */
};

struct pp_read_val {
	__u32 n; /* slots used */
	__u32 pad;
	struct pp_read_slot slot[PP_READ_SLOTS];
};

/*
 * queue_map: a socket -> the tracked skbs queued to it, oldest first (a
 * ring: head and tail count up). UDP copies a linear datagram to its reader
 * inline (copy_linear_skb()), where no tracepoint fires: a queued datagram
 * that the socket's queue no longer holds when a receive call on it ends
 * was read by that call. TCP may coalesce a segment's data into the skb
 * queued before it (tcp_try_coalesce()) and free it: a segment is read
 * when the socket's copied_seq passes its end, whichever skb held it.
 */
#define PP_QUEUE_SLOTS 256 /* a default UDP receive buffer holds some 270 small datagrams */

struct pp_queue_slot {
	__u64 skb;
	__u64 id;
	__u32 len : 31;	  /* skb->len as queued */
	__u32 merged : 1; /* TCP: its skb was freed, its data coalesced into another */
	__u32 end_seq;	  /* TCP: the sequence number after its data */
};

struct pp_queue_val {
	__u32 head, tail;
	/*
	 * The socket's cookie (SO_COOKIE, never reused): the ring is that
	 * socket's, not a later one's that the kernel put at its address.
	 */
	__u64 cookie;
	__u32 merged_n; /* its slots marked merged, not yet read: in pp_state.waiting */
	__u32 pad;
	struct pp_queue_slot slot[PP_QUEUE_SLOTS];
};

/* send_map: a thread's send call in progress. */
struct pp_send_val {
	__u64 ts; /* when the call began */
	__u64 fd; /* the socket it sends on */
};

/*
 * frag_map: an IPv4 datagram (its addresses, IP id and protocol) -> the
 * packet whose skbs carry it, and the byte ranges of the fragments seen on
 * them (bpf/frag.bpf.h). A fragment that a sender or a router cuts is a new
 * skb with its own data: it joins the packet of the skb whose range holds
 * its first byte, as a copy.
 */
struct pp_frag_key {
	__u32 saddr, daddr; /* network order */
	__u16 ip_id;	    /* network order */
	__u8 proto;
	__u8 pad;
};

#define PP_FRAG_SLOTS 8 /* fragments remembered per datagram (include/frag_pick.h) */

struct pp_frag_slot {
	__u64 skb;
	__u64 ts;	  /* when noted: the skb was alive then */
	__u32 first, end; /* its payload's bytes in the datagram: [first, end) */
	__u32 seq;	  /* the value's n when last written; 0: free */
	__u32 pad;
};

struct pp_frag_val {
	__u64 id;
	__u64 ts;   /* when a tracked skb of it last crossed a TC hook */
	__u32 n;    /* notes, ever */
	__u32 ring; /* notes that took a slot of 1.. round robin (slot 0: the first fragment) */
	struct pp_frag_slot slot[PP_FRAG_SLOTS];
};

/* state_map's single entry, shared by the classifier and every probe. */
struct pp_state {
	__u64 inflight;	 /* entries in skb_map: zero lets every probe return at once */
	__u64 next_id;	 /* the last packet id given out */
	__u64 marked;	 /* packets put into skb_map */
	__u64 map_full;	 /* packets that matched but found skb_map full */
	__u64 ring_lost; /* records lost to a full ring buffer, all probes */
	/*
	 * Set by the loader before it sleeps with nothing in flight: the next
	 * record wakes it (pp_wake_flags() in bpf/hop.bpf.h).
	 */
	__u64 loader_asleep;
	/* How long a head_map entry may give copies to its packet (--packet-timeout). */
	__u64 orphan_ns;
	/*
	 * head_map entries whose last tracked holder is freed while a copy not
	 * yet seen holds the data: they keep the probes' gate open, as the copy
	 * may be seen only after every tracked skb is gone (ping reads the raw
	 * socket's clone after the original was dropped). The loader sweeps the
	 * stale ones when idle.
	 */
	__u64 orphans;
	/*
	 * When a tracked IPv4 packet that may be cut (no DF) or is a fragment
	 * last crossed a TC hook (frag_map); 0: never. Untracked skbs look for
	 * fragments only shortly after (bpf/frag.bpf.h).
	 */
	__u64 frag_ts;
	/*
	 * Sockets' ring slots marked merged (pp_queue_merged()): their skbs are
	 * forgotten, so inflight no longer counts them, and only the reader's
	 * receive call can end them: it keeps that program's gate open
	 * (pp_on_recv_done()). A socket closed unread, or a ring the LRU pushes
	 * out, leaves its share counted: the loader clears what no open packet
	 * explains (loader/cmd/trace.c).
	 */
	__u64 waiting;
	/*
	 * --max-rate: 1 matched packet in this many starts a path (0, 1: every
	 * one), set each second by the loader from the rate of marks.
	 */
	__u64 sample_period;
	/*
	 * --max-rate: the paths still allowed until the loader's next tick
	 * (signed: CPUs racing past 0 leave it below): a flood is capped from
	 * its first packet, before the period adapts.
	 */
	__s64 sample_left;
	/*
	 * When a tracked packet's rewrite last put a reply's tuple into
	 * reply_map (PP_REPLY_NS); 0: never, or long ago. Untracked packets
	 * the filter does not match look there on ingress only while it is set.
	 */
	__u64 reply_ts;
	/*
	 * The devices such a reply may enter by: bit ifindex % 64 of each
	 * device a noted packet left by, never cleared. Untracked packets on
	 * other devices do not read the clock for reply_ts.
	 */
	__u64 reply_devs;
};

/*
 * How long after frag_ts a fragment may join its datagram's packet: a
 * fragment is cut where a tracked skb of its datagram has just crossed a
 * hook (the sender's egress, a router's ingress), within the same softirq or
 * system call; a second is far more than that takes, and keeps an IP id
 * that the sender reuses later from joining an old packet. The loader
 * clears a frag_ts older than this, so that untracked traffic stops reading
 * the clock (bpf/frag.bpf.h).
 */
#define PP_FRAG_NS 1000000000ULL

/*
 * The layout both sides compile: the BPF programs (clang -target bpf) and the
 * loader (gcc or clang on the host) must agree on every size and offset, with
 * no hole that one compiler pads differently.
 */
#define PP_ABI_SIZE(type, size) _Static_assert(sizeof(struct type) == (size), #type " size")
/* The message names the field: "pp_hop.ts". */
#define PP_ABI_AT(type, field, off)                                                                \
	_Static_assert(__builtin_offsetof(struct type, field) == (off), #type "." #field)

PP_ABI_SIZE(pp_hop, 128);
PP_ABI_AT(pp_hop, type, 0);
PP_ABI_AT(pp_hop, probe, 4);
PP_ABI_AT(pp_hop, id, 8);
PP_ABI_AT(pp_hop, ts, 16);
PP_ABI_AT(pp_hop, skb, 24);
PP_ABI_AT(pp_hop, location, 32);
PP_ABI_AT(pp_hop, cpu, 40);
PP_ABI_AT(pp_hop, netns, 44);
PP_ABI_AT(pp_hop, ifindex, 48);
PP_ABI_AT(pp_hop, pid, 52);
PP_ABI_AT(pp_hop, fate, 56);
PP_ABI_AT(pp_hop, reason, 60);
PP_ABI_AT(pp_hop, parent_age, 60);
PP_ABI_AT(pp_hop, len, 64);
PP_ABI_AT(pp_hop, lost, 68);
PP_ABI_AT(pp_hop, flags, 72);
PP_ABI_AT(pp_hop, stack, 76);
PP_ABI_AT(pp_hop, caller, 80);
PP_ABI_AT(pp_hop, out_ifindex, 84);
PP_ABI_AT(pp_hop, ifname, 88);
PP_ABI_AT(pp_hop, comm, 104);
PP_ABI_AT(pp_hop, out_mtu, 120);
PP_ABI_AT(pp_hop, sock_ino, 124);

PP_ABI_SIZE(pp_mark, 128 + 32 + PP_HDR_BYTES);
PP_ABI_AT(pp_mark, hop, 0);
PP_ABI_AT(pp_mark, cap_len, 128);
PP_ABI_AT(pp_mark, vlan, 132);
PP_ABI_AT(pp_mark, maker_pid, 136);
PP_ABI_AT(pp_mark, maker_comm, 140);
PP_ABI_AT(pp_mark, pad, 156);
PP_ABI_AT(pp_mark, data, 160);

PP_ABI_SIZE(pp_sock_maker, 20);
PP_ABI_AT(pp_sock_maker, comm, 4);

PP_ABI_SIZE(pp_skb_val, 88);
PP_ABI_AT(pp_skb_val, id, 0);
PP_ABI_AT(pp_skb_val, first_ts, 8);
PP_ABI_AT(pp_skb_val, head, 16);
PP_ABI_AT(pp_skb_val, lost, 24);
PP_ABI_AT(pp_skb_val, tc_hook, 28);
PP_ABI_AT(pp_skb_val, flags, 44);
PP_ABI_AT(pp_skb_val, tuple, 48);
PP_ABI_AT(pp_skb_val, taken_netns, 56);
PP_ABI_AT(pp_skb_val, read_len, 60);
PP_ABI_AT(pp_skb_val, sock, 64);
PP_ABI_AT(pp_skb_val, qslot, 72);
PP_ABI_AT(pp_skb_val, qdev, 76);
PP_ABI_AT(pp_skb_val, mark_len, 80);
PP_ABI_AT(pp_skb_val, mark_src, 84);

PP_ABI_SIZE(pp_read_slot, 32 + 128);
PP_ABI_AT(pp_read_slot, skb, 0);
PP_ABI_AT(pp_read_slot, id, 8);
PP_ABI_AT(pp_read_slot, sk, 16);
PP_ABI_AT(pp_read_slot, end_seq, 24);
PP_ABI_AT(pp_read_slot, pad, 28);
PP_ABI_AT(pp_read_slot, end, 32);
PP_ABI_SIZE(pp_read_val, 8 + PP_READ_SLOTS * (32 + 128));
PP_ABI_AT(pp_read_val, n, 0);
PP_ABI_AT(pp_read_val, pad, 4);
PP_ABI_AT(pp_read_val, slot, 8);

PP_ABI_SIZE(pp_full_val, 24);
PP_ABI_AT(pp_full_val, ts, 0);
PP_ABI_AT(pp_full_val, tc_hook, 8);

PP_ABI_SIZE(pp_head_val, 48);
PP_ABI_AT(pp_head_val, id, 0);
PP_ABI_AT(pp_head_val, skb, 8);
PP_ABI_AT(pp_head_val, ts, 16);
PP_ABI_AT(pp_head_val, fp, 24);
PP_ABI_AT(pp_head_val, holders, 32);
PP_ABI_AT(pp_head_val, orphan, 36);
PP_ABI_AT(pp_head_val, nh, 38);
PP_ABI_AT(pp_head_val, tail, 40);
PP_ABI_AT(pp_head_val, pad, 44);

PP_ABI_SIZE(pp_copy_key, 16);
PP_ABI_AT(pp_copy_key, tid, 0);
PP_ABI_AT(pp_copy_key, probe, 8);
PP_ABI_AT(pp_copy_key, pad, 12);

PP_ABI_SIZE(pp_queue_slot, 24);
PP_ABI_AT(pp_queue_slot, skb, 0);
PP_ABI_AT(pp_queue_slot, id, 8);
PP_ABI_AT(pp_queue_slot, end_seq, 20);
PP_ABI_SIZE(pp_queue_val, 24 + PP_QUEUE_SLOTS * 24);
PP_ABI_AT(pp_queue_val, head, 0);
PP_ABI_AT(pp_queue_val, tail, 4);
PP_ABI_AT(pp_queue_val, cookie, 8);
PP_ABI_AT(pp_queue_val, merged_n, 16);
PP_ABI_AT(pp_queue_val, slot, 24);

PP_ABI_SIZE(pp_send_val, 16);
PP_ABI_AT(pp_send_val, ts, 0);
PP_ABI_AT(pp_send_val, fd, 8);

PP_ABI_SIZE(pp_frag_key, 12);
PP_ABI_AT(pp_frag_key, ip_id, 8);
PP_ABI_AT(pp_frag_key, proto, 10);
PP_ABI_SIZE(pp_frag_slot, 32);
PP_ABI_AT(pp_frag_slot, seq, 24);
PP_ABI_SIZE(pp_frag_val, 24 + PP_FRAG_SLOTS * 32);
PP_ABI_AT(pp_frag_val, ts, 8);
PP_ABI_AT(pp_frag_val, n, 16);
PP_ABI_AT(pp_frag_val, ring, 20);
PP_ABI_AT(pp_frag_val, slot, 24);

PP_ABI_SIZE(pp_state, 112);
PP_ABI_AT(pp_state, inflight, 0);
PP_ABI_AT(pp_state, next_id, 8);
PP_ABI_AT(pp_state, marked, 16);
PP_ABI_AT(pp_state, map_full, 24);
PP_ABI_AT(pp_state, ring_lost, 32);
PP_ABI_AT(pp_state, loader_asleep, 40);
PP_ABI_AT(pp_state, orphan_ns, 48);
PP_ABI_AT(pp_state, orphans, 56);
PP_ABI_AT(pp_state, frag_ts, 64);
PP_ABI_AT(pp_state, waiting, 72);
PP_ABI_AT(pp_state, sample_period, 80);
PP_ABI_AT(pp_state, sample_left, 88);
PP_ABI_AT(pp_state, reply_ts, 96);
PP_ABI_AT(pp_state, reply_devs, 104);

PP_ABI_SIZE(pp_reply_key, 44);
PP_ABI_AT(pp_reply_key, daddr, 16);
PP_ABI_AT(pp_reply_key, sport, 32);
PP_ABI_AT(pp_reply_key, proto, 36);
PP_ABI_AT(pp_reply_key, family, 37);
PP_ABI_AT(pp_reply_key, dev, 40);
PP_ABI_SIZE(pp_reply_val, 16);

#endif /* PKTPATH_H */
