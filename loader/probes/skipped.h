/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Program runs the kernel skipped: a kprobe (and, from Linux 6.7, counted)
 * does not run on a CPU where a BPF program is already running, nor a raw
 * tracepoint or fentry program inside itself (bpf_prog_info.recursion_misses).
 * The packet work they would have seen (an interrupt's softirq) goes unseen.
 */
#ifndef PP_SKIPPED_H
#define PP_SKIPPED_H

#include <linux/types.h>

struct bpf_object;

/* Runs skipped of the program FD; 0 if FD is none (-1) or cannot be read. */
__u64 pp_prog_skipped(int fd);

/* The sum over OBJ's loaded programs. */
__u64 pp_object_skipped(const struct bpf_object *obj);

#endif
