/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What older uapi headers lack (Debian 12's predate tcx, Linux 6.6, and
 * some libcs' predate CAP_BPF, Linux 5.8), defined once; and ARRAY_SIZE.
 * Include it after the system headers (<linux/bpf.h>, <sys/prctl.h>), so
 * their definitions win: it does not include <linux/bpf.h> itself, which
 * clashes with libpcap's struct bpf_insn.
 */
#ifndef PP_COMPAT_H
#define PP_COMPAT_H

#include <linux/capability.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#define CAP_BPF	    39
#endif

#ifndef BPF_TCX_INGRESS
#define BPF_TCX_INGRESS 46
#define BPF_TCX_EGRESS	47
#endif
#ifndef BPF_F_BEFORE
#define BPF_F_BEFORE (1U << 3)
#endif

/* <sys/prctl.h>'s, from Linux 4.3 */
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT		 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

#endif
