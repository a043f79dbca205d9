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

/*
 * Probe programs loaded once per attach point (fentry, tp_btf) carry their
 * probe index as this immediate, patched in each copy before load.
 */
#define PP_PROBE_MAGIC 0x5eadbeef

/* In the placeholder body of pp_filter_l3(), which the loader replaces. */
#define PP_FILTER_MAGIC 0x5eadf117

/* The first field of every ring-buffer record. */
enum pp_rec_type {
	PP_REC_MARK = 1, /* the classifier marked a new packet: struct pp_mark */
	PP_REC_HOP = 2,	 /* a probe saw a tracked packet: struct pp_hop */
	PP_REC_END = 3,	 /* the packet's skb was freed: struct pp_hop, last hop */
};

/* How a packet's life ended. */
enum pp_fate {
	PP_FATE_NONE = 0,
	PP_FATE_CONSUMED = 1, /* consume_skb: delivered or sent */
	PP_FATE_DROPPED = 2,  /* kfree_skb with a drop reason */
	PP_FATE_TIMEOUT = 3,  /* never freed within --packet-timeout */
};

/* One step of one packet. 104 bytes, no holes. */
struct pp_hop {
	__u32 type;	/* enum pp_rec_type */
	__u32 probe;	/* probe index, or PP_PROBE_TC_* */
	__u64 id;	/* packet id, from 1 */
	__u64 ts;	/* bpf_ktime_get_ns() */
	__u64 skb;	/* skb address: tells clones apart */
	__u64 location; /* END by kfree_skb: the caller's address */
	__u32 cpu;
	__u32 netns;   /* network namespace inode, 0 if unknown */
	__u32 ifindex; /* 0 if the skb has no device yet */
	__u32 pid;     /* tgid of the current task */
	__u32 fate;    /* END: enum pp_fate */
	__u32 reason;  /* END: enum skb_drop_reason value */
	__u32 len;     /* skb->len */
	__u32 lost;    /* END: hops of this packet lost to a full ring buffer */
	char ifname[PP_IFNAMSIZ];
	char comm[PP_COMMLEN];
};

/* The first record of a packet: its mark hop and its leading bytes. */
struct pp_mark {
	struct pp_hop hop; /* type PP_REC_MARK, probe PP_PROBE_TC_* */
	__u32 cap_len;	   /* bytes of data[] that hold packet bytes */
	__u32 pad;
	__u8 data[PP_HDR_BYTES]; /* from the Ethernet header on */
};

#define PP_TC_HOOKS 4

/* skb_map: skb address -> the packet it belongs to. */
struct pp_skb_val {
	__u64 id;
	__u64 first_ts;
	/*
	 * Some frees fire no tracepoint (a datagram freed by its socket through
	 * a deferred path): the sk_buff is then reused at the same address, and
	 * the allocators' LIFO order often hands back the same data buffer too.
	 * So a packet is also told by its IPv4 ID (ip_id: 0x10000 | ID, 0 if
	 * not IPv4) and by the TC hooks it crossed: the same hook twice, or
	 * another ID, is another packet.
	 */
	__u64 head; /* skb->head when marked */
	__u32 ip_id;
	__u32 lost;		    /* hops of this packet lost to a full ring buffer */
	__u32 tc_hook[PP_TC_HOOKS]; /* ifindex << 1 | egress, 0: free slot */
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
	 * record wakes it (pp_wake_flags() in kprobes/record.bpf.h).
	 */
	__u64 loader_asleep;
};

#endif /* PKTPATH_H */
