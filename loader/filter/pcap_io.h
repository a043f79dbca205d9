/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything pktpath asks of libpcap, behind a header that includes no
 * libpcap header: <pcap/bpf.h> and <linux/bpf.h> both define struct bpf_insn.
 */
#ifndef PP_PCAP_IO_H
#define PP_PCAP_IO_H

#include <stddef.h>

#define PP_SNAPLEN 262144

struct sock_filter;

/* EXPR ("" matches everything) -> classic BPF; ERR gets libpcap's message. */
int pp_pcap_compile(const char *expr, struct sock_filter **out, size_t *len, char *err,
		    size_t errlen);

/* The same for packets that start at the IP header (DLT_RAW), for probes. */
int pp_pcap_compile_l3(const char *expr, struct sock_filter **out, size_t *len, char *err,
		       size_t errlen);

/*
 * pcap_offline_filter()'s verdict (non-zero: match) of PROG on one frame of
 * CAPLEN bytes captured from a packet of WIRELEN (the filter's "len").
 */
int pp_pcap_offline_match(const struct sock_filter *prog, size_t len, const unsigned char *data,
			  unsigned int caplen, unsigned int wirelen);

/*
 * Called for each frame of a capture, numbered from 1, with the bytes
 * captured and the packet's length on the wire; non-zero stops.
 */
typedef int (*pp_frame_fn)(unsigned long num, const unsigned char *data, unsigned int caplen,
			   unsigned int wirelen, void *ctx);

/*
 * Read a pcap or pcapng file. Not a capture, or not Ethernet: -EINVAL with
 * a message in ERR.
 */
int pp_pcap_foreach(const char *path, pp_frame_fn fn, void *ctx, char *err, size_t errlen);

#endif
