#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --max-rate: a flood is followed in part, never whole. pktpath in b's
# namespace with --max-rate 100 --json 'udp' while host a sends 40000 UDP
# datagrams to a closed port of b at 20000 a second. Then:
#   - the packets printed are at most the rate times the run (plus a tick's
#     share), and some: 20 or more;
#   - each printed packet is whole: dropped NO_SOCKET, like every datagram
#     of the flood (b's Udp NoPorts counts all 40000);
#   - the JSON summary says the largest N used (sample_period), 2 or more.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_setup
pp_begin
ppr_topo_quiet

flood=""
pp_test_tool flood udp_flood
n=40000 pps=20000 rate=100
noports0=$(ppr_snmp "$PP_NS_B" Udp NoPorts)
pp_pktpath_start trace "$PP_NS_B" --backend tracepoint --max-rate "$rate" --json udp
t0=$SECONDS
pp_in "$PP_NS_A" "$flood" send 198.18.1.2 "$n" "$pps" 9 >"$PP_TMP/send.out" 2>&1 ||
	pp_fail "flood failed: $(pp_brief_tail 2 "$PP_TMP/send.out")"
pp_pktpath_settle trace 20
pp_stop trace
secs=$((SECONDS - t0 + 1))
pp_expect_eq "exit status" "$PP_RC" 0
out=$(pp_out trace)
pp_expect_json_lines "$out" "--json"
pp_expect_eq "Udp NoPorts" $(($(ppr_snmp "$PP_NS_B" Udp NoPorts) - noports0)) "$n"
printed=$(pp_jq "$out" '[.[] | select(.id)] | length')
period=$(pp_jq "$out" '[.[] | .summary.sample_period? // empty] | first // 0')
pp_log "printed $printed packets in about $secs s, sample_period $period"
[ "$printed" -ge 20 ] || pp_fail "only $printed packets followed"
[ "$printed" -le $((rate * secs + rate / 4)) ] ||
	pp_fail "$printed packets followed in about $secs s at --max-rate $rate"
[ "$period" -ge 2 ] || pp_fail "sample_period $period: the flood was not sampled"
pp_expect_none "packets not dropped NO_SOCKET" "$out" \
	'.[] | select(.id) | select(.fate.kind != "dropped" or .fate.reason != "NO_SOCKET")
	| "packet \(.id): \(.fate)"'
pp_pass
