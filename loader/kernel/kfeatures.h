/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What this kernel can attach, found by trying the real thing on one
 * function (never by reading version numbers). Nothing stays attached.
 */
#ifndef PP_KFEATURES_H
#define PP_KFEATURES_H

#include <stdbool.h>
#include <linux/types.h>

bool pp_kfeatures_has_kprobe(const char *func);
/* A kprobe perf event on FUNC's entry (a program set on it runs on every CPU): fd or -errno. */
int pp_kfeatures_kprobe_open(const char *func);
bool pp_kfeatures_has_kprobe_multi(const char *func);
bool pp_kfeatures_has_fentry(__u32 func_btf_id);
bool pp_kfeatures_has_tp_btf(__u32 typedef_btf_id);
bool pp_kfeatures_has_ringbuf(void);
bool pp_kfeatures_has_attach_cookie(void);
/* Atomics that return the old value (BPF_FETCH): the packet id counter. */
bool pp_kfeatures_has_atomic_fetch(void);
/* bpf_loop(): walking the skbs a copying function made. */
bool pp_kfeatures_has_bpf_loop(void);
/*
 * A cgroup sock program may ask for the current task and keep it in the
 * socket's storage (6.1 on): a cgroup scope's sockets keep their makers.
 */
bool pp_kfeatures_has_sock_maker(void);
/* TC in a throwaway network namespace, so no real interface is touched. */
bool pp_kfeatures_has_tcx(void);
bool pp_kfeatures_has_clsact(void);

#endif
