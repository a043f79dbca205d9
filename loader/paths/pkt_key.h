/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A packet's key across hosts: a 64-bit hash of header fields that
 * forwarding and NAT leave alone, read from the bytes its mark copied, so
 * that `pktpath report` can find the same packet in the records of several
 * hosts (docs/json-schema.md, "key", says which fields and how often two
 * packets share one). Never addresses or ports: NAT rewrites them. BPF-free.
 */
#ifndef PP_PKT_KEY_H
#define PP_PKT_KEY_H

#include <linux/types.h>

/* Payload bytes hashed for UDP and ICMP echo, at most. */
#define PP_KEY_PAYLOAD 32

/*
 * The key of the frame DATA (LEN bytes from the Ethernet header on, 802.1Q
 * tags in it skipped); 0 if it is no IPv4 or IPv6 packet or too short.
 */
__u64 pp_pkt_key(const __u8 *data, __u32 len);

#endif /* PP_PKT_KEY_H */
