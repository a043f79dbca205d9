#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --metrics scraped by a real Prometheus (Debian's), every second, from two
# "nodes": a pktpath agent in the router's namespace and one in host b's
# (tracepoint backend, filter "udp and src 198.18.0.1"). Prometheus runs in
# the router's namespace: it reaches r's agent on 127.0.0.1 and b's on
# 198.18.1.2 (TCP: neither agent's filter takes it). Host a sends 600 UDP
# datagrams, a third each to a port b reads (a sink), to a port an nftables
# forward rule in r drops (with a counter), and to a port nothing in b
# listens on; and 10 pings to b. Then PromQL over Prometheus' HTTP API must
# say what the kernel's counters say:
#   - both targets up;
#   - NETFILTER_DROP at the "ipv4 forward" hook, on node r = the nft counter;
#   - NO_SOCKET in b's namespace, on both nodes (r's agent follows the skb
#     into b) = b's Udp NoPorts (/proc/net/snmp);
#   - packets consumed or end not seen, on both nodes = b's Icmp InEchos +
#     Udp InDatagrams (the echo requests end consumed; a datagram the sink
#     read mostly ends unseen: docs/packet-life.md, "Known limits"); dropped on b =
#     NoPorts, on r = nft + NoPorts.
# Also: `promtool check metrics` accepts each agent's exposition, /healthz
# answers 200, and no packet is printed (--metrics alone).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_setup
pp_require_cmd prometheus promtool curl
pp_begin nft
ppr_topo_quiet

flood=""
pp_test_tool flood udp_flood
n=600 pps=300
open_port=9000 nft_port=9001 closed_port=9002
mr=127.0.0.1:19471 mb=198.18.1.2:19472 prom=127.0.0.1:19490

pp_in "$PP_NS_R" nft -f - <<'NFT'
table ip pp_metrics {
	chain forward_drop {
		type filter hook forward priority filter;
		udp dport 9001 counter drop
	}
}
NFT
pp_defer ip netns exec "$PP_NS_R" nft delete table ip pp_metrics
pp_bg sink "$PP_NS_B" "$flood" sink "$open_port"
pp_wait_line sink '^udp_flood: listening' 10
noports0=$(ppr_snmp "$PP_NS_B" Udp NoPorts)
indgrams0=$(ppr_snmp "$PP_NS_B" Udp InDatagrams)
echos0=$(ppr_snmp "$PP_NS_B" Icmp InEchos)

filter="(udp or icmp) and src 198.18.0.1"
pp_pktpath_start node_r "$PP_NS_R" --backend tracepoint --metrics "$mr" --filter "$filter"
pp_pktpath_start node_b "$PP_NS_B" --backend tracepoint --metrics "$mb" --filter "$filter"

cat >"$PP_TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ["$PP_ROOT/packaging/prometheus/pktpath-rules.yml"]
scrape_configs:
  - job_name: pktpath
    static_configs:
      - targets: ["$mr"]
        labels: {node: r}
      - targets: ["$mb"]
        labels: {node: b}
EOF
pp_bg prometheus "$PP_NS_R" prometheus --config.file="$PP_TMP/prometheus.yml" \
	--storage.tsdb.path="$PP_TMP/tsdb" --web.listen-address="$prom"
pp_wait_line prometheus 'Server is ready to receive web requests' 60

# promql EXPR: the value of an instant query whose result is one sample, or
# "none" if it has no sample, "many" if several.
promql() {
	pp_in "$PP_NS_R" curl -sf --get "http://$prom/api/v1/query" --data-urlencode "query=$1" |
		jq -r '.data.result | if length == 0 then "none" elif length > 1 then "many"
			else .[0].value[1] end'
}
# promql_wait EXPR WANT SECONDS: until EXPR gives WANT (scrapes come every second).
promql_wait() {
	local end=$((SECONDS + $3)) v
	while :; do
		v=$(promql "$1") || v=error
		[ "$v" = "$2" ] && return 0
		[ "$SECONDS" -lt "$end" ] || pp_fail "PromQL '$1' = $v after $3 s, expected $2"
		sleep 0.5
	done
}
promql_wait 'count(up{job="pktpath"} == 1)' 2 30

pp_in "$PP_NS_A" "$flood" send 198.18.1.2 "$n" "$pps" "$open_port" "$nft_port" \
	"$closed_port" >"$PP_TMP/send.out" 2>&1 ||
	pp_fail "flood failed: $(pp_brief_tail 2 "$PP_TMP/send.out")"
pp_in "$PP_NS_A" ping -q -c 10 -i 0.2 198.18.1.2 >"$PP_TMP/ping.out" 2>&1 ||
	pp_fail "ping failed: $(pp_brief_tail 2 "$PP_TMP/ping.out")"
pp_pktpath_settle node_r 20
pp_pktpath_settle node_b 20

nft_count=$(pp_in "$PP_NS_R" nft -j list table ip pp_metrics |
	jq '[.nftables[].rule? // empty | .expr[] | .counter? // empty | .packets] | add')
noports=$(($(ppr_snmp "$PP_NS_B" Udp NoPorts) - noports0))
indgrams=$(($(ppr_snmp "$PP_NS_B" Udp InDatagrams) - indgrams0))
echos=$(($(ppr_snmp "$PP_NS_B" Icmp InEchos) - echos0))
pp_log "kernel: nft counter $nft_count, NoPorts $noports, InDatagrams $indgrams, InEchos $echos"
pp_expect_eq "nft counter" "$nft_count" $((n / 3))
pp_expect_eq "Icmp InEchos" "$echos" 10

# The last scrape is at most a second old: wait for it to show the end.
total_b=$((indgrams + noports + echos))
promql_wait 'sum(pktpath_packets_total{node="b"})' "$total_b" 20
promql_wait 'sum(pktpath_packets_total{node="r"})' $((total_b + nft_count)) 20
q() {
	local v
	v=$(promql "$1")
	pp_log "PromQL $1 = $v"
	pp_expect_eq "PromQL $1" "$v" "$2"
}
q 'count(up{job="pktpath"} == 1)' 2
q 'sum(pktpath_drops_total{node="r",reason="NETFILTER_DROP",hook="ipv4 forward"})' "$nft_count"
q "sum(pktpath_drops_total{node=\"r\",reason=\"NO_SOCKET\",netns=\"$PP_NS_B\"})" "$noports"
q "sum(pktpath_drops_total{node=\"b\",reason=\"NO_SOCKET\",netns=\"$PP_NS_B\"})" "$noports"
q 'sum(pktpath_drops_total{node="b",reason="NETFILTER_DROP"})' none
q 'pktpath_packets_total{node="r",fate="consumed"} >= 10' "$(promql 'pktpath_packets_total{node="r",fate="consumed"}')"
q 'pktpath_packets_total{node="b",fate="consumed"} >= 10' "$(promql 'pktpath_packets_total{node="b",fate="consumed"}')"
q 'sum(pktpath_packets_total{node="r",fate=~"consumed|unseen"})' $((echos + indgrams))
q 'sum(pktpath_packets_total{node="b",fate=~"consumed|unseen"})' $((echos + indgrams))
q 'pktpath_packets_total{node="r",fate="dropped"}' $((nft_count + noports))
q 'pktpath_packets_total{node="b",fate="dropped"}' "$noports"
q 'sum(pktpath_path_duration_seconds_count{node="b"})' "$total_b"
q 'pktpath_records_lost_total{node="r"}' 0
q 'count(pktpath_build_info{backend="tracepoint"})' 2
# The shipped recording rule over the same series.
promql_wait 'count(pktpath:drops_by_reason:rate5m{node="r",reason="NETFILTER_DROP"} > 0)' 1 10

for node in r:"$mr" b:"$mb"; do
	ns=$PP_NS_R
	[ "${node%%:*}" = b ] && ns=$PP_NS_B
	pp_in "$ns" curl -sf "http://${node#*:}/metrics" >"$PP_TMP/${node%%:*}.prom" ||
		pp_fail "no /metrics from node ${node%%:*}"
	promtool check metrics <"$PP_TMP/${node%%:*}.prom" >"$PP_TMP/promtool.out" 2>&1 ||
		pp_fail "promtool check metrics, node ${node%%:*}: $(pp_brief 3 "$PP_TMP/promtool.out")"
	pp_expect_eq "node ${node%%:*} /healthz" \
		"$(pp_in "$ns" curl -s -o /dev/null -w '%{http_code}' "http://${node#*:}/healthz")" 200
done

pp_stop prometheus
pp_stop node_r
pp_expect_eq "node r pktpath exit status" "$PP_RC" 0
pp_stop node_b
pp_expect_eq "node b pktpath exit status" "$PP_RC" 0
pp_stop sink
# --metrics alone: the exit summary line, no packet.
pp_expect_eq "node r stdout lines" "$(wc -l <"$(pp_out node_r)")" 1
pp_expect_grep "node r summary" "$(pp_out node_r)" '^pktpath: [0-9]+ packets'
pp_pass
