// SPDX-License-Identifier: GPL-2.0
/*
 * The expressions, grouped by what of the translation they exercise: absolute
 * and indirect loads (the IPv4 header length through ldxms), every ALU
 * operation including division and modulo by a packet byte that may be zero,
 * loads past the end of the frame, the shapes libpcap's optimiser leaves
 * behind for long boolean chains, and its constant results.
 */
#include "filter_exprs.h"

const char *const pp_filter_exprs[] = {
	/*
	 * Constants. libpcap 1.10 refuses what its optimiser folds to "reject
	 * all" (tcp and udp: "expression rejects all packets"), so the false
	 * ones here are those it leaves as code: unsigned comparisons that never
	 * hold (a jge #0 that is always taken, a neg), an and #0 whose jeq has
	 * both branches on the same ret, a mask that cannot equal its constant.
	 */
	"",
	"ip or not ip",
	"not (tcp and udp)",
	"1 = 1",
	"len < 0",
	"len > 0xffffffff",
	"ip[0] & 0 != 0",
	"-ip[8] < 0",
	"ether[0] & 1 = 2",

	/* link layer */
	"ether host 02:00:00:00:00:01",
	"ether src 52:54:00:12:34:56",
	"ether dst 00:1b:21:aa:bb:cc",
	"ether src 02:00:00:00:00:02 and ether dst 02:00:00:00:00:01",
	"ether broadcast",
	"ether multicast",
	"not ether multicast",
	"ether dst 33:33:00:00:00:01",
	"ether[0] & 1 != 0 and not ether broadcast",
	"ether proto 0x88cc",
	"ether[12:2] = 0x88cc",
	"ether[12:2] < 0x600",
	"llc",
	"arp",
	"rarp",
	"arp[6:2] = 1",
	"arp[7] = 2",
	"arp host 198.18.0.1",

	/* protocols */
	"ip",
	"ip6",
	"tcp",
	"udp",
	"icmp",
	"icmp6",
	"igmp",
	"sctp",
	"ip proto 1",
	"ip proto 47",
	"ip6 proto 58",
	"ip6 proto 0",
	"proto \\tcp",
	"icmp or icmp6",
	"ip and not tcp",
	"ip6 and not icmp6",

	/* hosts and nets */
	"host 198.18.0.1",
	"src host 198.18.1.2",
	"dst host 198.19.255.254",
	"host 10.1.2.3 or host 192.0.2.1",
	"host 198.18.0.1 and host 198.18.1.2",
	"host 224.0.0.251",
	"dst host 255.255.255.255",
	"src host 0.0.0.0",
	"net 198.18.0.0/15",
	"not net 198.18.0.0/15",
	"src net 10.0.0.0 mask 255.0.0.0",
	"dst net 198.19.0.0/16",
	"net 192.0.2.0/24",
	"net 198.18.1",
	"host fd00::1",
	"src host fe80::1",
	"dst host ff02::1",
	"host fe80::a8bb:ccff:fedd:eeff",
	"net fd00::/8",
	"net fe80::/10",
	"dst net ff02::/16",
	"src net fd00::/16 and dst net fd00::/16",
	"ip multicast",
	"ip6 multicast",
	"ip6 dst host ff02::1:ff00:2",

	/* ports */
	"port 80",
	"tcp port 80",
	"udp port 53",
	"src port 53",
	"dst port 53",
	"port 0",
	"src port 0 and dst port 0",
	"portrange 1000-2000",
	"tcp dst portrange 1000-2000",
	"udp src portrange 1-1023",
	"port 5353 and dst host 224.0.0.251",
	"ip6 and tcp and dst port 443",
	"ip6 and udp port 53",
	"sctp port 80",
	"not port 80 and not port 53",

	/* transport fields */
	"tcp[tcpflags] & tcp-syn != 0",
	"tcp[tcpflags] & (tcp-syn|tcp-ack) == tcp-syn",
	"tcp[tcpflags] & (tcp-syn|tcp-ack) == (tcp-syn|tcp-ack)",
	"tcp[13] = 18",
	"tcp[tcpflags] & (tcp-fin|tcp-rst) != 0",
	"tcp[tcpflags] & tcp-push != 0 and tcp[tcpflags] & tcp-ack != 0",
	"tcp[tcpflags] & tcp-urg != 0",
	"tcp[tcpflags] & (tcp-ece|tcp-cwr) != 0",
	"tcp[tcpflags] = 0",
	"tcp[12] & 0xf0 > 0x50",
	"tcp[((tcp[12] & 0xf0) >> 2):4] = 0x47455420",
	"tcp port 80 and tcp[((tcp[12] & 0xf0) >> 2):4] = 0x48545450",
	"udp[8:2] = 0x1234",
	"udp[4:2] > 100",
	"icmp[icmptype] == icmp-echo",
	"icmp[icmptype] == icmp-echoreply",
	"icmp[0] == 0",
	"icmp[icmptype] == icmp-unreach and icmp[icmpcode] == 3",
	"icmp[icmptype] == icmp-timxceed or icmp[icmptype] == icmp-redirect",
	"icmp[icmptype] != icmp-echo and icmp[icmptype] != icmp-echoreply",
	"icmp6[icmp6type] == icmp6-echo",
	"icmp6[icmp6type] == icmp6-echoreply",
	"icmp6[0] == 135 or icmp6[0] == 136",
	"icmp6[icmp6type] == icmp6-neighborsolicit",
	"icmp6 and ip6[40] == 134",
	"igmp[0] = 0x16",

	/* IPv4 header fields and fragments */
	"ip[8] < 64",
	"ip[8] = 1",
	"ip[0] & 0xf > 5",
	"ip[0] & 0xf = 15",
	"ip[1] != 0",
	"ip[6] & 0x40 != 0",
	"ip[6] & 0x20 != 0",
	"ip[6:2] & 0x1fff != 0",
	"ip[6:2] & 0x3fff != 0",
	"ip[9] = 6 and ip[6:2] & 0x1fff = 0",
	"ip[6:2] & 0x1fff = 0 and ip[6] & 0x20 != 0",
	"ip[16] >= 224",
	"ip[12:4] = 0xc6120001",
	"ip6[6] = 0",
	"ip6[6] = 44",
	"ip6[7] = 255",
	"ip6[0] & 0x0f != 0 or ip6[1] & 0xf0 != 0",

	/* arithmetic */
	"ip[2:2] - ((ip[0] & 0xf) << 2) > 100",
	"ip[2:2] / 4 > 10",
	"ip[2:2] % 7 = 3",
	"ip[2:2] * 2 > 200",
	"ip[2:2] + ip[8] > 300",
	"ip[1] ^ 0xff = 0xff",
	"ip[1] | 0x0f = 0x1f",
	"ip[0] & 0xf0 = 0x40 and ip[1] & 0xfc = 0xb8",
	"-ip[8] & 0xff = 0xc1",
	"ip[8] - 64 > 0x7fffffff",
	"ip[2:2] >> 1 > 40",
	"ip[8] << 24 > 0x3f000000",
	"ip[2:2] / ip[1] > 0",
	"ip[2:2] % ip[1] = 0",
	"ip[2:2] / (ip[1] & 3) > 20",
	"udp[4:2] % (ip[8] & 1) = 0",
	"len - 14 > ip[2:2]",

	/* both operands from the packet: ALU and jumps on X, scratch memory */
	"ip[0] & ip[1] != 0",
	"ip[1] | ip[8] > 100",
	"ip[8] * ip[1] > 1000",
	"ip[8] ^ ip[1] = 0x50",
	"ip[8] >= ip[1]",
	"udp[0:2] = udp[2:2]",
	"ip[8] + ip[1] + ip[9] > 100",
	"ip[2:2] + ip[8] * ip[1] > 300",
	"len - ip[2:2] = 14",
	"ether[len - 20] = 0x45",
	/* shifts by X of 32 or more: libpcap's interpreter gives 0, not a masked shift */
	"ip[8] << ip[1] != 0",
	"ip[0:4] >> ip[1] != 0",

	/* lengths and loads past the end */
	"less 64",
	"greater 1000",
	"len >= 100",
	"len = 60",
	"len * 2 > 200",
	"len <= 14",
	"ether[len - 1] & 1 = 1",
	"ether[1000:2] != 0x1234",
	"ip[100:4] != 0xffffffff",
	"ip6[60:2] != 0x0",

	/* VLAN, MPLS, PPPoE */
	"vlan",
	"vlan 100",
	"vlan and ip",
	"vlan and icmp",
	"vlan 200 and tcp",
	"vlan and ip6 and tcp",
	"vlan and vlan",
	"vlan 100 and vlan 200",
	/* not "not vlan and ...": vlan moves the offsets of all that follows it */
	"tcp port 80 and not vlan",
	"vlan and arp",
	"mpls",
	"mpls 2000 and ip",
	"mpls 1000 and mpls 2000 and ip6",
	"mpls and mpls and udp port 53",
	"pppoes",
	"pppoes and ip and tcp",
	"pppoed",

	/* boolean shapes */
	"(tcp port 80 or udp port 53) and not src host 198.18.0.1",
	/* one expression each: the parentheses tell -Wstring-concatenation so */
	("host 198.18.0.1 or host 198.18.0.2 or host 198.18.1.2 or host 198.18.2.2 or "
	 "host 198.18.3.2 or host 198.18.4.2 or host 198.18.5.2 or host 198.18.6.2 or "
	 "host 198.18.7.2 or host 198.18.8.2 or host 198.19.0.1"),
	("((tcp and (port 80 or port 443)) or (udp and (port 53 or port 5353))) and "
	 "not (ip[8] = 1 or ip6[7] = 1)"),
	"not (tcp or udp or icmp or icmp6 or arp)",
	"udp and not port 53 and len < 200",
	"(ip and ip[8] < 64) or (ip6 and ip6[7] < 64)",
	"tcp and not (tcp[tcpflags] & tcp-ack != 0) and not vlan",
	"ip and (tcp[13] & 2 != 0 or udp[2:2] = 53) and not (ip[6:2] & 0x1fff != 0)",
	"(icmp and icmp[0] = 8) or (icmp6 and icmp6[0] = 128) or arp[7] = 1",
	"not not not ip6",
};

const size_t pp_filter_nexprs = sizeof(pp_filter_exprs) / sizeof(pp_filter_exprs[0]);
