#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A scope (--netns): pktpath runs in the root namespace, outside the test
# topology a -- r -- b, and traces only the namespaces it is given.
# - A bad name is exit 2 with nothing attached (tc and BPF state unchanged).
# - One run scoped to a and b, five pings a -> b: each request is two
#   packets, a's (marked at a-eth0, ending "left" at its first hop in r,
#   the one hop outside the scope) and b's (marked anew at b-eth0,
#   consumed there); no other hop in r, none in the root namespace.
# - Two runs at once, one scoped to a and one to b, act as two hosts: each
#   sees its own namespace's half of the five requests, and only that.
# Before the scope, --netns was an unknown option (exit 2 for every case).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin

ino_a=$(pp_netns_inode "$PP_NS_A")
ino_r=$(pp_netns_inode "$PP_NS_R")
ino_b=$(pp_netns_inode "$PP_NS_B")
filter="icmp and src 198.18.0.1"

# A bad scope: exit 2, the kernel as before.
before=$PP_TMP/before.txt
pp_state_snapshot "$before"
refused() { pp_run_refused "$before" "" "$@"; }
refused "--netns nosuch-$$: no network namespace" --netns "$PP_NS_A" --netns "nosuch-$$" icmp
refused "not a network namespace file" --netns /tmp icmp
refused "no /run/netns entry and no process" --netns 4294967290 icmp
refused "a network namespace, not a container" --container "$PP_NS_B" icmp

# One run, two namespaces.
out=$(pp_out both)
pp_root_start both --json --backend tracepoint -c 10 --netns "$PP_NS_A" --netns "$PP_NS_B" \
	--filter "$filter"
pp_expect_grep "ready line" "$(pp_err both)" 'in 2 network namespaces'
pp_in "$PP_NS_A" ping -n -c 5 -i 0.2 -w 10 198.18.1.2 >"$PP_TMP/ping.out" 2>&1 ||
	pp_fail "ping a -> b failed: $(pp_brief_tail 2 "$PP_TMP/ping.out")"
pp_pktpath_wait both 15
pp_expect_eq "pktpath exit status" "$PP_RC" 0
pp_expect_json_lines "$out" "pktpath --json output"
# check_half FILE IFNAME INODE FATE: five packets marked at IFNAME, each
# with every hop in INODE's namespace and fate FATE; a "left" one's last
# hop, and only that, in r's.
check_half() {
	local file=$1 ifname=$2 ino=$3 fate=$4 n
	n=$(pp_jq "$file" "[packets[] | select(.marked_at.ifname == \"$ifname\")] | length")
	pp_expect_eq "packets marked at $ifname" "$n" 5
	# shellcheck disable=SC2016 # jq program
	pp_expect_none "a packet marked at $ifname out of its namespace" "$file" '
		packets[] | select(.marked_at.ifname == $dev)
		| select(.fate.kind != $fate
			or any((if $fate == "left" then .hops[0:-1] else .hops end)[];
			       .netns != $ino)
			or ($fate == "left" and .hops[-1].netns != $r))
		| "\(pkt_str): fate \(.fate.kind), \(path_str) netns \([.hops[].netns])"' \
		--arg dev "$ifname" --argjson ino "$ino" --arg fate "$fate" --argjson r "$ino_r"
}
check_half "$out" a-eth0 "$ino_a" left
check_half "$out" b-eth0 "$ino_b" consumed
n=$(pp_jq "$out" 'packets | length')
pp_expect_eq "packets in all" "$n" 10

# Two runs, one namespace each, at once: two hosts.
pp_root_start ra --json --backend tracepoint -c 5 --netns "$PP_NS_A" --filter "$filter"
pp_root_start rb --json --backend tracepoint -c 5 --netns "$PP_NS_B" --filter "$filter"
pp_in "$PP_NS_A" ping -n -c 5 -i 0.2 -w 10 198.18.1.2 >"$PP_TMP/ping2.out" 2>&1 ||
	pp_fail "ping a -> b failed: $(pp_brief_tail 2 "$PP_TMP/ping2.out")"
pp_pktpath_wait ra 15
pp_expect_eq "run a: exit status" "$PP_RC" 0
pp_pktpath_wait rb 15
pp_expect_eq "run b: exit status" "$PP_RC" 0
check_half "$(pp_out ra)" a-eth0 "$ino_a" left
check_half "$(pp_out rb)" b-eth0 "$ino_b" consumed
for r in ra rb; do
	n=$(pp_jq "$(pp_out "$r")" 'packets | length')
	pp_expect_eq "run $r: packets" "$n" 5
done
pp_expect_state "$before" "after the scoped runs"
pp_pass
