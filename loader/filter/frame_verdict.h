/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The classifier's verdict on one frame of a capture, as tcpdump decides it:
 * in the kernel (BPF_PROG_TEST_RUN) where it can be, else the same
 * translated program in user space (ebpf_interp.h).
 */
#ifndef PP_FRAME_VERDICT_H
#define PP_FRAME_VERDICT_H

#include <stddef.h>
#include <linux/types.h>
#include "filter/classifier.h"

/* Who decided a frame, and why not the kernel. */
enum pp_decider {
	PP_BY_KERNEL,
	/* The kernel's test run refuses the frame (-EINVAL): shorter than an
	 * Ethernet header, an IP ethertype without a whole IP header after it
	 * (6.x), longer than a page less the skb's head and tail room. */
	PP_BY_USER_REFUSED,
	/* Cut short by the capture (caplen < len) and the filter reads the
	 * length: a test run would see the captured length, tcpdump uses the
	 * one on the wire. */
	PP_BY_USER_CUT,
};

/*
 * Decide DATA[0..CAPLEN), captured from a packet of WIRELEN bytes: *MATCH and
 * *BY set and 0, or -errno with a message in ERR.
 */
int pp_frame_verdict(const struct pp_cls *c, const __u8 *data, __u32 caplen, __u32 wirelen,
		     int *match, enum pp_decider *by, char *err, size_t errlen);

/* The user-space half alone (tests compare it with the kernel's). */
int pp_frame_verdict_user(const struct pp_cls *c, const __u8 *data, __u32 caplen, __u32 wirelen,
			  int *match, char *err, size_t errlen);

#endif
