#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Many packets in flight at once, each reported exactly once: a flood ping
# of 200 echo requests through the router while pktpath (-c 200) watches in
# the router's namespace. No packet may be missed, doubled or merged with
# another, and nothing may be lost on the way to user space.
#
# The backend is left to "auto", which must pick what this kernel can do.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin

count=200
out=$(pp_out flood)

pp_pktpath_start flood "$PP_NS_R" --json -c "$count" --filter "icmp and src 198.18.0.1"
# -f sends the next request as soon as a reply is back (at least every
# 10 ms); -q keeps its dots out of the log; -w bounds the whole run.
pp_in "$PP_NS_A" ping -n -q -f -c "$count" -w 30 198.18.1.2 >"$PP_TMP/ping.out" 2>&1 ||
	pp_fail "flood ping failed: $(pp_brief_tail 2 "$PP_TMP/ping.out")"
pp_expect_grep "ping's own count" "$PP_TMP/ping.out" \
	"^$count packets transmitted, $count received, 0% packet loss"
pp_pktpath_wait flood 20
pp_expect_eq "pktpath exit status" "$PP_RC" 0

pp_expect_json_lines "$out" "pktpath --json output"
n=$(pp_jq "$out" 'packets | length')
pp_expect_eq "packets printed" "$n" "$count"
ids=$(pp_jq "$out" '[packets[].id] | unique | length')
pp_expect_eq "distinct packet ids" "$ids" "$count"
# shellcheck disable=SC2016 # jq program
pp_expect_none "icmp_seq not exactly once" "$out" '
	[packets[].pkt.icmp_seq] as $s
	| range(1; $n + 1) as $q
	| ([$s[] | select(. == $q)] | length) as $k
	| select($k != 1) | "icmp_seq \($q) seen \($k) times"' --argjson n "$count"
pp_expect_summary "$out"
lost=$(jq -r '.lost' <<<"$PP_SUMMARY")
pp_expect_eq "summary.lost" "$lost" 0
sp=$(jq -r '.packets' <<<"$PP_SUMMARY")
pp_expect_eq "summary.packets" "$sp" "$count"
pp_pass
