#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --cpu-budget: the rate of new paths follows what pktpath's own CPU time
# allows. pktpath in b's namespace with --metrics and --json 'udp' while
# host a sends 40000 UDP datagrams to a closed port of b at 20000 a second:
#   - a budget of 0.01% of a CPU (100 us a second, less than a second of
#     following any flood costs): pktpath_path_rate_limit falls below the
#     100 a second it starts at; the flood is sampled (sample_period 2 or
#     more), and each packet printed is whole (dropped NO_SOCKET, as b's
#     Udp NoPorts counts all 40000);
#   - a budget of 50% with --max-rate 500: the limit climbs (at most 4
#     times a second) to the ceiling, 500, and stays there.
# What the budget holds the CPU time to is measured in bench/, not here.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_setup
pp_require_cmd curl
pp_begin
ppr_topo_quiet

flood=""
pp_test_tool flood udp_flood
n=40000 pps=20000 addr=127.0.0.1:19474

# rate_limit: pktpath_path_rate_limit now ("none" if not served).
rate_limit() {
	local v
	v=$(pp_in "$PP_NS_B" curl -sf "http://$addr/metrics" |
		awk '$1 == "pktpath_path_rate_limit" { print $2 }')
	echo "${v:-none}"
}
send() {
	pp_in "$PP_NS_A" "$flood" send 198.18.1.2 "$n" "$pps" 9 >"$PP_TMP/send.out" 2>&1 ||
		pp_fail "flood failed: $(pp_brief_tail 2 "$PP_TMP/send.out")"
}

noports0=$(ppr_snmp "$PP_NS_B" Udp NoPorts)
pp_pktpath_start tight "$PP_NS_B" --backend tracepoint --cpu-budget 0.01 \
	--metrics "$addr" --json udp
send
# A tick a second: the last one after the flood has seen it.
sleep 1.5
limit=$(rate_limit)
pp_stop tight
pp_expect_eq "exit status, 0.01%" "$PP_RC" 0
pp_expect_eq "Udp NoPorts" $(($(ppr_snmp "$PP_NS_B" Udp NoPorts) - noports0)) "$n"
out=$(pp_out tight)
pp_expect_json_lines "$out" "--json"
printed=$(pp_jq "$out" '[.[] | select(.id)] | length')
period=$(pp_jq "$out" '[.[] | .summary.sample_period? // empty] | first // 0')
pp_log "0.01%: rate limit $limit after the flood, $printed packets printed, sample_period $period"
if [ "$limit" = none ] || [ "$limit" -ge 100 ]; then
	pp_fail "pktpath_path_rate_limit $limit at a budget of 0.01%: wanted below 100"
fi
[ "$printed" -ge 1 ] || pp_fail "no packet followed"
[ "$period" -ge 2 ] || pp_fail "sample_period $period: the flood was not sampled"
pp_expect_none "packets not dropped NO_SOCKET" "$out" \
	'.[] | select(.id) | select(.fate.kind != "dropped" or .fate.reason != "NO_SOCKET")
	| "packet \(.id): \(.fate)"'

pp_pktpath_start ample "$PP_NS_B" --backend tracepoint --cpu-budget 50 --max-rate 500 \
	--metrics "$addr" --json udp
send
# 100, 400, 500: two ticks after the first that saw paths.
end=$((SECONDS + 10))
until [ "$(rate_limit)" = 500 ]; do
	[ "$SECONDS" -lt "$end" ] ||
		pp_fail "pktpath_path_rate_limit $(rate_limit) 10 s after the flood at 50%:" \
			"wanted the ceiling, 500"
	sleep 0.5
done
pp_stop ample
pp_expect_eq "exit status, 50%" "$PP_RC" 0
pp_pass
