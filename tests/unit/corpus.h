/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The frames of the filter differential test: every one built by code from a
 * fixed seed, so each run sees the same bytes and a failure names a frame that
 * can be rebuilt and looked at (pp_corpus_write_pcap, then tcpdump -r).
 */
#ifndef PP_CORPUS_H
#define PP_CORPUS_H

#include <stddef.h>
#include <linux/types.h>

struct pp_frame {
	const char *desc; /* one line: group, headers, length */
	__u8 *data;	  /* from the Ethernet header on */
	__u32 len;	  /* bytes at data, 0 and up */
	__u32 wire_len;	  /* len, or more for a frame a capture's snap length cut */
};

struct pp_corpus {
	struct pp_frame *v;
	size_t n;
};

/* Build the frames into C; 0 or -errno, and C is empty on error. */
int pp_corpus_build(struct pp_corpus *c);
/* Free what pp_corpus_build made; C may be zeroed or already freed. */
void pp_corpus_free(struct pp_corpus *c);
/* Write C as a classic pcap file, DLT_EN10MB, caplen len, len wire_len; 0 or -errno. */
int pp_corpus_write_pcap(const struct pp_corpus *c, const char *path);

#endif
