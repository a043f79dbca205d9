#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --summary on a flood through the router (tracepoint backend, traced in
# the router's namespace): 3000 UDP datagrams from a to b, a third each to
# an open port (a reader in b), to a port an nftables rule in the router
# drops (with a counter), and to a closed port in b. The summary must count
# the packets of each path and each drop place exactly as the kernel's own
# counters do: the nft rule's counter, /proc/net/snmp's Udp NoPorts and
# InDatagrams in b. With --json and --interval 1, each report is one JSON
# line, the reports cumulative, the last one final; no packet block is
# printed. Then the text form of a short run: no packet block either.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin nft
ppr_topo_quiet

flood=""
pp_test_tool flood udp_flood
n=3000 pps=1000
open_port=9000 nft_port=9001 closed_port=9002

pp_in "$PP_NS_R" nft -f - <<'NFT'
table ip pp_summary {
	chain forward_drop {
		type filter hook forward priority filter;
		udp dport 9001 counter drop
	}
}
NFT
pp_defer ip netns exec "$PP_NS_R" nft delete table ip pp_summary
pp_bg sink "$PP_NS_B" "$flood" sink "$open_port"
pp_wait_line sink '^udp_flood: listening' 10
noports0=$(ppr_snmp "$PP_NS_B" Udp NoPorts)
indgrams0=$(ppr_snmp "$PP_NS_B" Udp InDatagrams)

out=$(pp_out sum)
pp_pktpath_start sum "$PP_NS_R" --backend tracepoint --json --summary --interval 1 \
	--filter "udp and src 198.18.0.1"
pp_in "$PP_NS_A" "$flood" send 198.18.1.2 "$n" "$pps" "$open_port" "$nft_port" \
	"$closed_port" >"$PP_TMP/send.out" 2>&1 ||
	pp_fail "flood failed: $(pp_brief_tail 2 "$PP_TMP/send.out")"
pp_pktpath_settle sum 20
pp_pktpath_stop sum
pp_expect_eq "pktpath exit status" "$PP_RC" 0
pp_stop sink

nft_count=$(pp_in "$PP_NS_R" nft -j list table ip pp_summary |
	jq '[.nftables[].rule? // empty | .expr[] | .counter? // empty | .packets] | add')
noports=$(($(ppr_snmp "$PP_NS_B" Udp NoPorts) - noports0))
indgrams=$(($(ppr_snmp "$PP_NS_B" Udp InDatagrams) - indgrams0))
received=$(awk '/^received/ { print $2 }' "$(pp_out sink)")
pp_log "kernel: nft counter $nft_count, NoPorts $noports, InDatagrams $indgrams," \
	"sink read $received"
pp_expect_eq "nft counter" "$nft_count" $((n / 3))
pp_expect_eq "Udp NoPorts in b" "$noports" $((n / 3))
pp_expect_eq "Udp InDatagrams in b" "$indgrams" $((n / 3))

pp_expect_json_lines "$out" "pktpath --json --summary output"
pp_expect_eq "packet objects printed" "$(pp_jq "$out" 'packets | length')" 0
pp_expect_summary "$out"
pp_expect_eq "records lost" "$(jq -r .lost <<<"$PP_SUMMARY")" 0
reports=$(pp_jq "$out" '[.[] | select(has("path_summary"))] | length')
[ "$reports" -ge 3 ] || pp_fail "expected at least 3 reports (--interval 1), got $reports"
# shellcheck disable=SC2016 # jq program
pp_expect_none "reports" "$out" '
	[.[] | select(has("path_summary")) | .path_summary] as $r
	| ($r[:-1][] | select(.final) | "an interval report says final"),
	  (if $r[-1].final then empty else "the last report is not final" end),
	  (range(1; $r | length) | select($r[.].packets < $r[. - 1].packets)
	   | "report \(.) has fewer packets than the one before: not cumulative")'
sum=$(pp_jq "$out" '[.[] | select(has("path_summary"))][-1].path_summary' -c)
echo "$sum" >"$PP_TMP/final.json"

# Every packet once; the counts add up; sorted by count; shares match.
pp_expect_eq "packets in the summary" "$(jq .packets <<<"$sum")" "$n"
pp_expect_eq "sum of path counts" "$(jq '([.paths[].count] | add) + (.other_paths.count // 0)' \
	<<<"$sum")" "$n"
pp_expect_eq "paths sorted by count" "$(jq '[.paths[].count] | . == (sort | reverse)' \
	<<<"$sum")" true
pp_expect_eq "shares" "$(jq --argjson n "$n" \
	'all(.paths[]; (.share - .count / $n) | fabs < 0.0001)' <<<"$sum")" true

# The nft drop: one path, tc:ingress on r-eth0 then kfree_skb, NETFILTER_DROP.
nf=$(jq -c '[.paths[] | select(.fate.reason == "NETFILTER_DROP")]' <<<"$sum")
pp_expect_eq "NETFILTER_DROP paths" "$(jq length <<<"$nf")" 1
pp_expect_eq "NETFILTER_DROP path count" "$(jq '.[0].count' <<<"$nf")" "$nft_count"
pp_expect_eq "NETFILTER_DROP path steps" \
	"$(jq -r '[.[0].steps[] | "\(.func)@\(.ifname // "-")"] | join(" ")' <<<"$nf")" \
	"tc:ingress@r-eth0 tp:skb:kfree_skb@r-eth0"
pp_expect_eq "per-step latency of the drop step" \
	"$(jq '.[0].steps[1].latency_ns | .p50 <= .p90 and .p90 <= .p99 and .p99 <= .max
		and .p50 > 0' <<<"$nf")" true

# The closed port: paths that cross to b-eth0 and end NO_SOCKET, as many as NoPorts.
ns_b=$(pp_netns_inode "$PP_NS_B")
pp_expect_eq "NO_SOCKET path count" \
	"$(jq --argjson b "$ns_b" '[.paths[] | select(.fate.reason == "NO_SOCKET"
		and any(.steps[]; .ifname == "b-eth0" and .netns == $b)) | .count] | add' \
		<<<"$sum")" "$noports"
# The open port: the rest, none of them dropped (whatever their end: the
# tracepoint backend does not see every free of a delivered datagram).
pp_expect_eq "paths not dropped" \
	"$(jq '[.paths[] | select(.fate.kind != "dropped") | .count] | add' <<<"$sum")" \
	"$indgrams"

# The drop table: reason x place, largest first, as the kernel counted.
drops=$(jq -c '[.drops[] | {reason, func, ifname, count}]' <<<"$sum")
pp_log "drop table: $drops"
pp_expect_eq "drop places" "$(jq length <<<"$drops")" 2
pp_expect_eq "NETFILTER_DROP in the drop table" "$(jq -c \
	'[.[] | select(.reason == "NETFILTER_DROP") | [.ifname, .count]]' <<<"$drops")" \
	"[[\"r-eth0\",$nft_count]]"
pp_expect_eq "NO_SOCKET in the drop table" "$(jq -c \
	'[.[] | select(.reason == "NO_SOCKET") | [.ifname, .count]]' <<<"$drops")" \
	"[[\"b-eth0\",$noports]]"
pp_expect_eq "summary.dropped" "$(jq .dropped <<<"$sum")" $((nft_count + noports))

# Text: the report, and no packet block.
txt=$(pp_out text)
pp_pktpath_start text "$PP_NS_R" --backend tracepoint --summary --filter "udp and src 198.18.0.1"
pp_in "$PP_NS_A" "$flood" send 198.18.1.2 30 1000 "$nft_port" >/dev/null
pp_pktpath_settle text 20
pp_pktpath_stop text
pp_expect_grep "text report" "$txt" '^pktpath summary at exit, after [0-9.]+ s: 30 packets, 1 distinct paths$'
pp_expect_grep "text path" "$txt" '^path 1: 30 packets \(100\.0%\), dropped: NETFILTER_DROP at '
pp_expect_grep "text drop table" "$txt" "^ +30 100\\.0%  NETFILTER_DROP +[a-z_]+ +$PP_NS_R r-eth0$"
if grep -Eq '^#[0-9]+ ' "$txt"; then
	pp_fail "a packet block was printed with --summary: $(grep -m1 -E '^#[0-9]+ ' "$txt")"
fi
pp_pass
