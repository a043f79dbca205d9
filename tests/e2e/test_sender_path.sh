#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The whole way from a to b, seen from the sender: pktpath runs in a's
# namespace, so its classifier marks each echo request on a-eth0's egress,
# and the tracepoints (global, every namespace) follow the same skb through
# the router to b. Unlike in test_forward_path.sh, the packet is tracked
# before it reaches the router, so the router's tp:net:netif_receive_skb
# on r-eth0 must be in the path.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin

ino_a=$(pp_netns_inode "$PP_NS_A")
ino_r=$(pp_netns_inode "$PP_NS_R")
ino_b=$(pp_netns_inode "$PP_NS_B")
out=$(pp_out snd)

pp_trace_five_pings snd "$PP_NS_A"
pp_expect_none "marked elsewhere than a-eth0 egress" "$out" \
	'packets[] | select(.marked_at.ifname != "a-eth0" or .marked_at.dir != "egress")
	 | "\(pkt_str): marked_at \(.marked_at | tojson)"'

# shellcheck disable=SC2016 # jq program
pp_expect_none "path a -> r -> b" "$out" '
	[{funcs: ["tc:egress"], ifname: "a-eth0", netns: $a},
	 {funcs: ["tp:net:net_dev_queue"], ifname: "a-eth0", netns: $a},
	 {funcs: ["tp:net:netif_receive_skb"], ifname: "r-eth0", netns: $r},
	 {funcs: ["tp:net:net_dev_queue"], ifname: "r-eth1", netns: $r},
	 {funcs: ["tp:net:netif_receive_skb", "tp:net:netif_rx"], ifname: "b-eth0",
	  netns: $b}] as $pats
	| packets[] | path_miss($pats) as $m | select($m != null)
	| "\(pkt_str): no \(pat_str($m)) in order; hops: \(path_str)"' \
	--argjson a "$ino_a" --argjson r "$ino_r" --argjson b "$ino_b"
pp_expect_none "fate" "$out" \
	'packets[] | select(.fate.kind != "consumed") | "\(pkt_str): fate \(.fate | tojson)"'
pp_expect_summary "$out"
pp_pass
