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
pp_setup
pp_require_pktpath
pp_topo_up

ino_a=$(pp_netns_inode "$PP_NS_A")
ino_r=$(pp_netns_inode "$PP_NS_R")
ino_b=$(pp_netns_inode "$PP_NS_B")
out=$(pp_out snd)

pp_pktpath_start snd "$PP_NS_A" --json --backend tracepoint -c 5 \
	--filter "icmp and src 198.18.0.1"
pp_in "$PP_NS_A" ping -n -c 5 -i 0.2 -w 10 198.18.1.2 >"$PP_TMP/ping.out" 2>&1 ||
	pp_fail "ping a -> b failed: $(pp_brief_tail 2 "$PP_TMP/ping.out")"
pp_pktpath_wait snd 15
pp_expect_eq "pktpath exit status" "$PP_RC" 0

pp_expect_json_lines "$out" "pktpath --json output"
n=$(pp_jq "$out" 'packets | length')
pp_expect_eq "packets printed" "$n" 5
seqs=$(pp_jq "$out" '[packets[].pkt.icmp_seq] | sort | map(tostring) | join(",")')
pp_expect_eq "icmp_seq values" "$seqs" "1,2,3,4,5"
pp_expect_none "marked elsewhere than a-eth0 egress" "$out" \
	'packets[] | select(.marked_at.ifname != "a-eth0" or .marked_at.dir != "egress")
	 | "\(pkt_str): marked_at \(.marked_at | tojson)"'
pp_expect_none "hops out of time order" "$out" \
	'packets[] | select(times_ordered | not) | "\(pkt_str): t_ns \([.hops[].t_ns])"'

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
