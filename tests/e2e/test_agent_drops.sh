#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --agent counts every drop exactly, whatever the rate: two agents in the
# root namespace (one serving --metrics, one printing its table at exit),
# and one in the router's with a filter (paths sampled, --max-rate's
# default of 100 a second), while host a floods 120000 UDP datagrams as fast as it can (64 bytes, at
# most 100 k/s), half to a port an nftables forward rule in r drops (with a
# counter), half to a port nothing in b listens on. Then, from the kernel's
# own counters:
#   - NETFILTER_DROP in r's namespace = the nft counter, on both agents;
#   - NO_SOCKET in b's namespace = b's Udp NoPorts;
#   - the router's agent: the same drops, and its paths sampled: at most
#     100 a second, some, and sample_period above 1 during the flood;
#   - no pktpath program is left once both have exited 0.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_setup
pp_require_cmd curl
pp_begin nft
ppr_topo_quiet

flood=""
pp_test_tool flood udp_flood
n=120000 pps=100000 nft_port=9001 closed_port=9002 addr=127.0.0.1:19473

pp_in "$PP_NS_R" nft -f - <<'NFT'
table ip pp_agent {
	chain forward_drop {
		type filter hook forward priority filter;
		udp dport 9001 counter drop
	}
}
NFT
pp_defer ip netns exec "$PP_NS_R" nft delete table ip pp_agent
noports0=$(ppr_snmp "$PP_NS_B" Udp NoPorts)

# metric REASON NETNS [NS]: the count of that place by the agent on $addr
# in NS (default: the root namespace), summed over its functions and
# devices ("none" if it has no series).
metric() {
	local in=()
	[ -z "${3:-}" ] || in=(ip netns exec "$3")
	"${in[@]}" curl -sf "http://$addr/metrics" |
		awk -v r="reason=\"$1\"" -v ns="netns=\"$2\"" '
		/^pktpath_drops_total\{/ && index($0, r) && index($0, ns) { s += $NF; n++ }
		END { print n ? s : "none" }'
}
# sample_period: the router's agent's pktpath_sample_period now.
sample_period() {
	ip netns exec "$PP_NS_R" curl -sf "http://$addr/metrics" |
		awk '$1 == "pktpath_sample_period" { print $2 }'
}
pp_root_start metrics --agent --metrics "$addr"
pp_root_start table --agent
pp_pktpath_start paths "$PP_NS_R" --agent --metrics "$addr" udp
t0=$SECONDS

pp_in "$PP_NS_A" "$flood" send 198.18.1.2 "$n" "$pps" "$nft_port" "$closed_port" \
	>"$PP_TMP/send.out" 2>&1 || pp_fail "flood failed: $(pp_brief_tail 2 "$PP_TMP/send.out")"
period=$(sample_period)
nft_count=$(pp_in "$PP_NS_R" nft -j list table ip pp_agent |
	jq '[.nftables[].rule? // empty | .expr[] | .counter? // empty | .packets] | add')
noports=$(($(ppr_snmp "$PP_NS_B" Udp NoPorts) - noports0))
pp_log "kernel: nft counter $nft_count, NoPorts $noports ($(tail -1 "$PP_TMP/send.out"))"
pp_expect_eq "nft counter" "$nft_count" $((n / 2))

# The counters are read every second: wait for each agent's read after the
# flood (NS: where it serves, "" for the root namespace).
wait_count() {
	local ns=$1 end=$((SECONDS + 10))
	until [ "$(metric NETFILTER_DROP "$PP_NS_R" "$ns")" = "$nft_count" ]; do
		[ "$SECONDS" -lt "$end" ] ||
			pp_fail "NETFILTER_DROP in $PP_NS_R by the agent in ${ns:-the root namespace}:" \
				"$(metric NETFILTER_DROP "$PP_NS_R" "$ns"), nft $nft_count"
		sleep 0.5
	done
}
wait_count ""
wait_count "$PP_NS_R"
pp_expect_eq "NO_SOCKET in b's namespace" "$(metric NO_SOCKET "$PP_NS_B")" "$noports"
pp_expect_eq "NETFILTER_DROP in b's namespace" "$(metric NETFILTER_DROP "$PP_NS_B")" none
pp_expect_eq "router's agent: NO_SOCKET in b's namespace" \
	"$(metric NO_SOCKET "$PP_NS_B" "$PP_NS_R")" "$noports"
pp_pktpath_settle paths 20
pp_stop paths
pp_expect_eq "router's agent exit status" "$PP_RC" 0
secs=$((SECONDS - t0 + 1))
followed=$(sed -n 's/^pktpath: \([0-9]*\) packets .*/\1/p' "$(pp_out paths)")
pp_log "router's agent: $followed paths in about $secs s, sample_period $period after the flood"
if [ "${followed:-0}" -lt 20 ] || [ "$followed" -gt $((100 * secs + 25)) ]; then
	pp_fail "router's agent followed ${followed:-no} paths in about $secs s at 100 a second"
fi
[ "${period:-0}" -ge 2 ] || pp_fail "router's agent: sample_period ${period:-none} at the flood's end"

pp_stop table
pp_expect_eq "table agent exit status" "$PP_RC" 0
pp_stop metrics
pp_expect_eq "metrics agent exit status" "$PP_RC" 0
# The table: a line per place, "COUNT REASON FUNCTION DEVICE NETNS".
table_sum() {
	awk -v r="$1" -v ns="$2" '$2 == r && $NF == ns { s += $1 } END { print s + 0 }' \
		"$(pp_out table)"
}
pp_expect_grep "table header" "$(pp_out table)" '^[0-9]+ drops in [0-9.]+ s, by place:$'
pp_expect_eq "table: NETFILTER_DROP in r's namespace" \
	"$(table_sum NETFILTER_DROP "$PP_NS_R")" "$nft_count"
pp_expect_eq "table: NO_SOCKET in b's namespace" "$(table_sum NO_SOCKET "$PP_NS_B")" "$noports"
pp_expect_no_pp_progs "after both agents"
pp_pass
