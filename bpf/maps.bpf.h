/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps that the classifier and the probe programs share. Every object
 * declares them; the loader creates them once, from maps.bpf.c, and hands
 * the same file descriptors to each object by name (loader/bpfobj/maps.c).
 */
#ifndef PP_MAPS_BPF_H
#define PP_MAPS_BPF_H

#include "pktpath.h"

/* skb address -> packet id; sized by the loader (--max-packets). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct pp_skb_val);
} skb_map SEC(".maps");

/*
 * The XDP programs whose generic-mode verdicts are recorded: program id ->
 * probe index (loader/probes/verdicts.c). The probes' alone, here as every
 * map is.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PP_VERDICT_PROGS);
	__type(key, __u32);
	__type(value, __u32);
} xdp_probe_map SEC(".maps");

/*
 * The tracked skb this CPU last ended where it was copied for XDP
 * (PP_FATE_XDP): the XDP program's frame that follows is that copy, which
 * joins its packet (bpf/frames.bpf.h).
 */
struct pp_frame_note {
	__u64 ts;      /* when; 0: taken */
	__u64 id;      /* its packet */
	__u64 parent;  /* the skb copied */
	__u32 ifindex; /* its device: the frame's */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pp_frame_note);
} frame_copy_map SEC(".maps");

/*
 * A frame of XDP's generic mode that the program did not pass and the
 * filter matched, noted by the program's frame fexit for the fexit on
 * bpf_prog_run_generic_xdp() that follows, which knows whether its skb is
 * tracked (bpf/frames.bpf.h).
 */
struct pp_generic_note {
	__u64 ts;    /* when; 0: taken */
	__u32 probe; /* the program's probe index */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pp_generic_note);
} frame_generic_map SEC(".maps");

/*
 * The END of a frame its program redirected, held by its fexit until the
 * xdp redirect tracepoint that follows on this CPU says where it went
 * (bpf/frames.bpf.h); ts 0: none held.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pp_hop);
} frame_redirect_map SEC(".maps");

/* skb->head -> the packet whose data it is; sized like skb_map. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct pp_head_val);
} head_map SEC(".maps");

/*
 * skb address -> an skb counted in map_full (pp_count_full()). LRU: an
 * entry pushed out early only counts its packet again.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct pp_full_val);
} full_map SEC(".maps");

/*
 * Thread (pid_tgid) -> when its send system call (sendto, sendmsg, sendmmsg)
 * began, while it runs: a packet it sends starts there.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct pp_send_val);
} send_map SEC(".maps");

/*
 * A thread in a copying function (skb_copy, GSO...) -> the tracked skb it
 * was given, until the function returns the new skbs.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct pp_copy_key);
	__type(value, __u64);
} copy_map SEC(".maps");

/*
 * --stack: kernel stacks by id, for the hops of the probes named. The
 * loader sizes it (1 entry when no --stack is given). Ids are not reused:
 * a full map or a hash collision leaves a hop without its stack.
 */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PP_STACK_DEPTH * sizeof(__u64));
} stack_map SEC(".maps");

/* Thread (pid_tgid) -> the whole reads of its receive call in progress (struct pp_read_val). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 512);
	__type(key, __u64);
	__type(value, struct pp_read_val);
} read_map SEC(".maps");

/* A zeroed pp_read_val: a thread's first entry in read_map, too large for the stack. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pp_read_val);
} read_zero SEC(".maps");

/* A socket -> the tracked skbs queued to it (struct pp_queue_val). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 256);
	__type(key, __u64);
	__type(value, struct pp_queue_val);
} queue_map SEC(".maps");

/* A zeroed pp_queue_val: a socket's first entry in queue_map, too large for the stack. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pp_queue_val);
} queue_zero SEC(".maps");

/* An IPv4 datagram -> its packet and fragments (struct pp_frag_val). LRU: old ones go. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct pp_frag_key);
	__type(value, struct pp_frag_val);
} frag_map SEC(".maps");

/*
 * A reply's tuple on the wire (its device too) -> the tracked packet whose
 * NAT rewrite made it so (bpf/classifier.bpf.c). LRU: a conversation not
 * refreshed goes first.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct pp_reply_key);
	__type(value, struct pp_reply_val);
} reply_map SEC(".maps");

/*
 * --cgroup/--pid: the conversations whose packets a socket of the scope
 * sent, keyed as their replies come in (bpf/classifier.bpf.c). LRU: the
 * idle ones go first. One entry a CPU (the least) without a cgroup scope.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, struct pp_reply_key);
	__type(value, __u32); /* the inode of the scope's socket (pp_sock_ino()), 0: unknown */
} scope_flow_map SEC(".maps");

/*
 * A cgroup scope's sockets: the process that made each (socket(2)'s
 * caller, pp_sock_create(); for a socket older than pktpath, a process that
 * held it at start, from the loader). Its presence puts a socket in the
 * scope on ingress; the classifier copies it into marks: TC may not ask
 * for the current task, and a sender that exits within milliseconds is
 * gone from /proc before the loader looks.
 */
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	/* CLONE: a listener's accepted sockets keep its maker. */
	__uint(map_flags, BPF_F_NO_PREALLOC | BPF_F_CLONE);
	__type(key, int);
	__type(value, struct pp_sock_maker); /* include/pktpath.h */
} sock_maker_map SEC(".maps");

/* Every record, in one ring so that a packet's records stay in order. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} path_map SEC(".maps");

/* Memory-mapped: the loader drops inflight atomically when it times a packet out. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pp_state);
} state_map SEC(".maps");

/*
 * Packet id -> hops lost, for packets whose END record itself was lost: the
 * loader reads it when it times such a packet out.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u32);
} end_lost_map SEC(".maps");

/*
 * Per CPU, the packet ids given out there: used only where the kernel
 * refuses atomics that return the old value (pp_next_id() in identity.bpf.h).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} id_map SEC(".maps");
/* Records lost to a full ring buffer, per probe index. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PP_PROBES_ALL);
	__type(key, __u32);
	__type(value, __u64);
} lost_map SEC(".maps");

#endif
