/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decodes the leading bytes a MARK record carries (from the Ethernet header
 * on) into a summary, and formats it as a tcpdump-like one-liner.
 */
#ifndef PP_PKT_DECODE_H
#define PP_PKT_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <netinet/in.h>
#include <linux/types.h>
#include "pktpath.h"

struct pp_pkt_summary {
	/* "icmp", "icmp6", "tcp", "udp", "arp", "ipv4", "ipv6", "eth" (frame
	 * shorter than an Ethernet header) or an ethertype such as "0x88cc" */
	char proto[8];
	char src[INET6_ADDRSTRLEN]; /* "" unless an IP or ARP header was read */
	char dst[INET6_ADDRSTRLEN];
	__u16 ethertype;  /* innermost, after the VLAN tags */
	__u8 nvlan;	  /* VLAN tags read: 0, 1 or 2 */
	__u16 vlan;	  /* outer VLAN id (12 bits), when nvlan > 0 */
	__u16 vlan_inner; /* inner VLAN id, when nvlan == 2 */
	__u8 ip_ver;	  /* 4 or 6 when src/dst are IP addresses, else 0 */
	__u8 ip_proto;	  /* IPv4 protocol or IPv6 upper-layer next header */
	bool is_frag;	  /* a fragment: IPv4 MF/offset or an IPv6 fragment header */
	bool more_frags;
	__u16 frag_off; /* in bytes */
	__u32 frag_id;
	bool has_ports;
	__u16 sport, dport;
	bool has_tcp; /* flags, sequence and acknowledgment numbers */
	__u8 tcp_flags;
	__u32 tcp_seq, tcp_ack; /* tcp_ack means something with PP_TCP_ACK only */
	bool has_tcp_len;	/* the IP header says how long the datagram is */
	__u32 tcp_len;		/* TCP payload bytes */
	bool has_icmp;		/* ICMP or ICMPv6 type and code */
	__u8 icmp_type, icmp_code;
	bool has_echo; /* an echo request or reply */
	__u16 icmp_id, icmp_seq;
	bool has_arp;
	__u16 arp_op;	   /* 1 request, 2 reply */
	__u8 arp_sha[6];   /* sender hardware address */
	const char *trunc; /* layer the capture ended in ("tcp"), NULL if none */
	/*
	 * A tunnel's frame (filter/tunnel.h): its VNI or GRE key, the inner
	 * frame's offset, and an IP packet's made-up Ethernet type.
	 */
	__u8 tunnel;	 /* enum pp_tunnel_kind */
	bool tunnel_key; /* GRE with a key (in vni) */
	__u16 inner_type;
	__u32 vni;
	__u32 inner_off;
};

/* TCP flag bits in the order tcpdump prints them: F S R P . U E W */
#define PP_TCP_FIN 0x01
#define PP_TCP_SYN 0x02
#define PP_TCP_RST 0x04
#define PP_TCP_PSH 0x08
#define PP_TCP_ACK 0x10
#define PP_TCP_URG 0x20
#define PP_TCP_ECE 0x40
#define PP_TCP_CWR 0x80

/*
 * A mark's frame as on the wire, as libpcap shows a live capture's: the tag
 * the kernel held in metadata (struct pp_mark's vlan, non-zero) put back at
 * offset 12, the bytes after it moved 4 on (the last 4 of a full data[]
 * dropped). The vlan field stays: the skb was 4 bytes shorter than the frame.
 */
void pp_mark_put_tag(struct pp_mark *m);

/*
 * Decodes what cap_len bytes hold, never reading past them; s->trunc names
 * the layer where they ran out. Returns 0, or -EINVAL if data or s is NULL.
 */
int pp_pkt_decode(const __u8 *data, __u32 cap_len, struct pp_pkt_summary *s);

/*
 * The inner frame of OUTER, a tunnel's (outer->tunnel): decoded from
 * DATA[outer->inner_off..CAP_LEN), an IP packet's behind its made-up
 * Ethernet header (filter/tunnel.h). Returns false for no tunnel.
 */
bool pp_pkt_decode_inner(const __u8 *data, __u32 cap_len, const struct pp_pkt_summary *outer,
			 struct pp_pkt_summary *inner);

/*
 * The one-liner of a frame, outer and inner for a tunnel's: "udp
 * 192.168.50.1.40000 > 192.168.50.2.4789 vxlan 42: icmp 10.244.1.2 >
 * 10.244.2.3 echo request id 7 seq 1". Returns the length the whole line
 * needs, as snprintf() does.
 */
size_t pp_pkt_format_frame(const __u8 *data, __u32 cap_len, char *buf, size_t len);

/*
 * "icmp 198.18.0.1 > 198.18.1.2 echo request id 4242 seq 1",
 * "tcp 198.18.0.1.41000 > 198.18.1.2.80 [S.] seq 1000 ack 2000 len 0", "udp [fd00::1].5353 >
 * [fd00::2].53". Returns the length the whole line needs, as snprintf() does.
 */
size_t pp_pkt_format(const struct pp_pkt_summary *s, char *buf, size_t len);

/*
 * Whether A and B are the same flow as NAT sees it: IP version, protocol,
 * addresses, ports, ICMP echo id.
 */
bool pp_pkt_same_flow(const struct pp_pkt_summary *a, const struct pp_pkt_summary *b);

/*
 * The addresses and ports alone, as pp_pkt_format() writes them:
 * "198.18.0.1.40312 > 198.18.0.2.8000", "198.18.0.1 > 198.18.1.2 id 4242".
 * Returns the length the whole line needs, as snprintf() does.
 */
size_t pp_pkt_format_flow(const struct pp_pkt_summary *s, char *buf, size_t len);

/* tcpdump's flag letters ("S.", "FP."), or "none"; buf holds 9 bytes. */
const char *pp_tcp_flags_str(__u8 flags, char buf[9]);

#endif /* PP_PKT_DECODE_H */
