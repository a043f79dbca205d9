#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Two pktpath instances on the same interfaces of the same namespace do not
# disturb each other.
#   1. Started at the same moment in the router, both with filter icmp and
#      -c 5: five echo requests cross the router (host b ignores echo
#      requests, so no reply doubles the count). Both exit 0 by themselves,
#      both print the same 5 packets (icmp_seq 1-5), with the same path.
#   2. Two long runs X and Y: 3 requests, X stops (SIGINT), 3 more
#      requests, Y stops. X printed 3 packets, Y all 6: X's exit took none
#      of Y's hooks with it.
# At the end nothing of either is left.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin
ppr_before
pp_in "$PP_NS_B" sysctl -q -w net.ipv4.icmp_echo_ignore_all=1

# requests N: N echo requests from a to b, 0.2 s apart; no replies come.
requests() {
	pp_in "$PP_NS_A" ping -n -q -c "$1" -i 0.2 -W 1 198.18.1.2 >/dev/null 2>&1 || true
}

# Phase 1: both started at once, without waiting for the first's ready.
pp_bg one "$PP_NS_R" "$PKTPATH" --json -c 5 --filter icmp
pp_bg two "$PP_NS_R" "$PKTPATH" --json -c 5 --filter icmp
pp_wait_line one '^pktpath: ready' "$PP_READY_TIMEOUT"
pp_wait_line two '^pktpath: ready' "$PP_READY_TIMEOUT"
requests 5
for name in one two; do
	pp_pktpath_wait "$name" 15
	pp_expect_eq "instance '$name': exit status" "$PP_RC" 0
	out=$(pp_out "$name")
	pp_expect_json_lines "$out" "instance '$name'"
	n=$(pp_jq "$out" 'packets | length')
	pp_expect_eq "instance '$name': packets printed" "$n" 5
	seqs=$(pp_jq "$out" '[packets[].pkt.icmp_seq] | sort | map(tostring) | join(",")')
	pp_expect_eq "instance '$name': icmp_seq of the packets" "$seqs" "1,2,3,4,5"
done
# The same packets, each with the same path in both.
paths() {
	pp_jq "$(pp_out "$1")" 'packets | sort_by(.pkt.icmp_seq)[] | "\(.pkt.icmp_seq): \(path_str)"'
}
paths one >"$PP_TMP/paths.one"
paths two >"$PP_TMP/paths.two"
cmp -s "$PP_TMP/paths.one" "$PP_TMP/paths.two" ||
	pp_fail "the two instances saw different paths:" \
		"$(diff "$PP_TMP/paths.one" "$PP_TMP/paths.two" | pp_brief 3)"
ppr_expect_clean "after both -c 5 runs" "$PP_BEFORE"

# Phase 2: one stops while the other goes on.
pp_pktpath_start X "$PP_NS_R" --json --filter icmp
pp_pktpath_start Y "$PP_NS_R" --json --filter icmp
requests 3
# Until X has printed all it tracked: a packet still open at SIGINT is not
# printed (a fixed 0.5 s here was too short for a loaded machine).
pp_pktpath_settle X 30
pp_pktpath_stop X INT
pp_expect_eq "X: exit status" "$PP_RC" 0
requests 3
pp_pktpath_settle Y 30
pp_pktpath_stop Y INT
pp_expect_eq "Y: exit status" "$PP_RC" 0
nx=$(pp_jq "$(pp_out X)" 'packets | length')
ny=$(pp_jq "$(pp_out Y)" 'packets | length')
pp_expect_eq "X (stopped after 3 requests): packets printed" "$nx" 3
pp_expect_eq "Y (ran on after X stopped): packets printed" "$ny" 6
ppr_expect_clean "after X and Y" "$PP_BEFORE"
pp_pass
