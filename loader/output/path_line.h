/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A packet on one line, for the exports (the pcapng packet comment, the
 * Perfetto track names): its path as probe names, with the device where it
 * changes and the network namespace where it changes, and its fate:
 *
 *   tc:ingress@r-eth0 > tp:net:net_dev_queue@r-eth1 > tc:egress >
 *   tp:net:netif_receive_skb@b-eth0[ns 4026532001] > tp:skb:consume_skb;
 *   consumed after 61.311 us
 *
 * (one line, wrapped here). Names are kept printable ASCII.
 */
#ifndef PP_PATH_LINE_H
#define PP_PATH_LINE_H

#include <stddef.h>
#include "base/fmt.h"
#include "output/output.h"

/*
 * The path and the fate into buf[len], cut in the path ("...") so that the
 * fate always fits. Returns the length written (less than len).
 */
size_t pp_path_line(const struct pp_out *o, const struct pp_packet *p, char *buf, size_t len);

/* "consumed after 61.311 us", "dropped: NO_SOCKET at __udp4_lib_rcv after ...". */
void pp_line_fate(const struct pp_out *o, const struct pp_packet *p, struct pp_sbuf *f);
/*
 * The forms of a fate line. The text block, --summary and the exports
 * each had their own "dropped: REASON at FUNC"; these flags keep what each
 * printed, byte for byte, from this one builder.
 */
enum pp_line_flag {
	PP_LINE_RAW = 1,  /* names as given, whole (else printable, cut: the exports) */
	PP_LINE_LONG = 2, /* the text block's words: fate.h's .text, "no reason from the kernel" */
	PP_LINE_AT_DASH = 4, /* " at -" where kfree_skb's caller is unknown (--summary's column) */
};
#define PP_LINE_TEXT	(PP_LINE_RAW | PP_LINE_LONG)
#define PP_LINE_SUMMARY (PP_LINE_RAW | PP_LINE_AT_DASH)
#define PP_LINE_EXPORT	0

/*
 * One skb's fate without the time, in form FLAGS (enum pp_line_flag):
 * "consumed", "dropped: REASON at FUNC", "end not seen", "merged into another skb".
 */
void pp_line_fate_of(const struct pp_out *o, enum pp_fate fate, __u32 reason, __u64 location,
		     unsigned int flags, struct pp_sbuf *f);
/*
 * The same into BUF[LEN] (LEN > 0), or into memory of its own if it does
 * not fit: returns the string, NUL-terminated, and its length in *N; the
 * caller frees it if it is not BUF. Cut to BUF only if memory ran out.
 */
char *pp_line_fate_str(const struct pp_out *o, enum pp_fate fate, __u32 reason, __u64 location,
		       unsigned int flags, char *buf, size_t len, size_t *n);
/* S, its bytes outside printable ASCII as '?', at most N bytes (N: strnlen bound). */
void pp_line_clean(struct pp_sbuf *f, const char *s, size_t n);
/* ns as "45.210" microseconds. */
void pp_line_usec(struct pp_sbuf *f, __u64 ns);

#endif /* PP_PATH_LINE_H */
