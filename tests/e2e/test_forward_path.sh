#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Forwarding, seen from the router: pktpath runs in the router's namespace
# (classifier on r-eth0 and r-eth1), a pings b five times through it, and
# every echo request must show the router's ingress, its transmit towards
# b, b's receive in b's own namespace, and a consumed end.
#
# The ingress hop checked is tc:ingress, not tp:net:netif_receive_skb: the
# kernel fires that tracepoint at the top of __netif_receive_skb_core, before
# the tc ingress hook where the classifier marks the packet, so on r-eth0 it
# is over before pktpath knows the packet. test_sender_path.sh marks at a's
# egress and checks that tracepoint on r-eth0 instead.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin

ino_r=$(pp_netns_inode "$PP_NS_R")
ino_b=$(pp_netns_inode "$PP_NS_B")
out=$(pp_out fwd)

pp_trace_five_pings fwd "$PP_NS_R"
pp_expect_none "not an echo request from a" "$out" \
	'packets[] | select(.pkt.src != "198.18.0.1" or .pkt.proto != "icmp"
	                    or .pkt.icmp_type != 8)
	 | "\(pkt_str): \(.pkt | tojson)"'
pp_expect_none "marked elsewhere than r-eth0 ingress" "$out" \
	'packets[] | select(.marked_at.ifname != "r-eth0" or .marked_at.dir != "ingress")
	 | "\(pkt_str): marked_at \(.marked_at | tojson)"'

# The forwarding path, in order; other hops may come between these.
# shellcheck disable=SC2016 # jq program
pp_expect_none "forwarding path" "$out" '
	[{funcs: ["tc:ingress"], ifname: "r-eth0", netns: $r},
	 {funcs: ["tp:net:net_dev_queue"], ifname: "r-eth1", netns: $r},
	 {funcs: ["tp:net:netif_receive_skb", "tp:net:netif_rx"], ifname: "b-eth0",
	  netns: $b}] as $pats
	| packets[] | path_miss($pats) as $m | select($m != null)
	| "\(pkt_str): no \(pat_str($m)) in order; hops: \(path_str)"' \
	--argjson r "$ino_r" --argjson b "$ino_b"
# The classifier is on r-eth1 too, so the tracked packet gets its tc hop
# there as well.
# shellcheck disable=SC2016 # jq program
pp_expect_none "tc hop on the way out" "$out" '
	[{funcs: ["tc:ingress"], ifname: "r-eth0", netns: $r},
	 {funcs: ["tc:egress"], ifname: "r-eth1", netns: $r}] as $pats
	| packets[] | path_miss($pats) as $m | select($m != null)
	| "\(pkt_str): no \(pat_str($m)) after r-eth0 ingress; hops: \(path_str)"' \
	--argjson r "$ino_r"
pp_expect_none "fate" "$out" \
	'packets[] | select(.fate.kind != "consumed") | "\(pkt_str): fate \(.fate | tojson)"'
pp_expect_summary "$out"
pp_pass
