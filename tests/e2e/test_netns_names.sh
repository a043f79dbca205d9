#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `ip netns` names in the output: pktpath in the router's namespace traces
# five pings a -> b; every hop in b's and r's namespaces carries their
# `ip netns` names, in JSON (netns_name, beside the inode) and in the text's
# netns column. Before names, the column and JSON held inodes only.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin

ino_r=$(pp_netns_inode "$PP_NS_R")
ino_b=$(pp_netns_inode "$PP_NS_B")
out=$(pp_out json)

pp_trace_five_pings json "$PP_NS_R"
# shellcheck disable=SC2016 # jq program
pp_expect_none "a hop in r or b without its ip netns name" "$out" '
	packets[] | .hops[] | select(.netns == $r or .netns == $b)
	| select(.netns_name != (if .netns == $r then $nr else $nb end))
	| "\(.func) netns \(.netns): netns_name \(.netns_name)"' \
	--argjson r "$ino_r" --argjson b "$ino_b" --arg nr "$PP_NS_R" --arg nb "$PP_NS_B"
n=$(pp_jq "$out" "[packets[].hops[] | select(.netns == $ino_b)] | length")
[ "$n" -gt 0 ] || pp_fail "no hop in b's namespace: nothing named"

# Text: the column shows the name, never the inode of a named namespace.
txt=$(pp_out text)
pp_pktpath_start text "$PP_NS_R" --backend tracepoint -c 2 --filter "icmp and src 198.18.0.1"
pp_in "$PP_NS_A" ping -n -c 2 -i 0.2 -w 10 198.18.1.2 >"$PP_TMP/ping2.out" 2>&1 ||
	pp_fail "ping a -> b failed: $(pp_brief_tail 2 "$PP_TMP/ping2.out")"
pp_pktpath_wait text 15
pp_expect_eq "pktpath exit status" "$PP_RC" 0
n=$(grep -cE "^ +[0-9.]+ +\+[0-9.]+ +$PP_NS_B " "$txt" || true)
[ "$n" -gt 0 ] || pp_fail "no hop line with netns $PP_NS_B: $(pp_brief 4 "$txt")"
if grep -qE " ($ino_b|$ino_r) " "$txt"; then
	pp_fail "a named namespace printed as its inode: $(grep -m1 -E " ($ino_b|$ino_r) " "$txt")"
fi
pp_pass
