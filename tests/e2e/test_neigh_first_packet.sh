#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The first packet to a neighbour not yet resolved (issue 37, item 1). r
# forwards UDP datagrams from a to a closed port of b, with its neighbour
# entry for b flushed before each: ip_finish_output2() finds no entry,
# __neigh_event_send() queues the datagram on the entry's arp_queue, and
# neigh_probe() clones it (skb_clone()) for arp_solicit(), which reads its
# source address, then consumes the clone (consume_skb()). Once b answers,
# the datagram itself is sent, and b's UDP drops it (NO_SOCKET,
# __udp4_lib_rcv(), Udp NoPorts). The clone is a copy seen only at its own
# free: it is shown with its end, and must not decide; each datagram ends
# dropped, NO_SOCKET, as many as b's Udp NoPorts counted, the first
# included. Before, each ended consumed, by the clone's free. pktpath runs
# in r (tracepoint backend, marking at r-eth0), once for N datagrams
# (--json) and once with -c 1 (text): the one packet it shows is that
# first datagram, dropped.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin

N=5 PORT=9 B=198.18.1.2
# No traffic but the test's (IPv6 off, permanent neighbours), except r's
# entry for b: an ordinary one, which each datagram has to resolve.
ppr_topo_quiet
ip -n "$PP_NS_R" neigh del "$B" dev r-eth1
noports() { ppr_snmp "$PP_NS_B" Udp NoPorts; }

# one I: flush r's neighbours (the permanent ones stay), send datagram I
# from a, and wait until b's UDP has counted it: the next one finds no
# entry again.
one() {
	local before
	before=$(noports)
	ip -n "$PP_NS_R" neigh flush all
	pp_expect_eq "r's entry for b before datagram $1" \
		"$(ip -n "$PP_NS_R" neigh show "$B" dev r-eth1)" ""
	ppr_udp_send "$PP_NS_A" "$B" "$PORT" 1
	for _ in $(seq 100); do
		[ "$(noports)" -gt "$before" ] && return 0
		sleep 0.05
	done
	pp_fail "datagram $1: b's Udp NoPorts did not move within 5 s"
}

out=$(pp_out dg)
noports0=$(noports)
pp_pktpath_start dg "$PP_NS_R" --json --backend tracepoint -i r-eth0 -c "$N" \
	--filter "udp and dst port $PORT"
for i in $(seq "$N"); do
	one "$i"
done
pp_pktpath_wait dg 20
pp_expect_eq "pktpath exit status" "$PP_RC" 0
pp_expect_json_lines "$out" "pktpath --json output"
noports_n=$(($(noports) - noports0))
dropped=$(pp_jq "$out" '[packets[] | select(.fate.kind == "dropped"
	and .fate.reason == "NO_SOCKET")] | length')
pp_log "b's Udp NoPorts: +$noports_n; pktpath: $dropped of" \
	"$(pp_jq "$out" 'packets | length') packets dropped NO_SOCKET"
pp_expect_eq "b: Udp NoPorts" "$noports_n" "$N"
pp_expect_eq "packets printed" "$(pp_jq "$out" 'packets | length')" "$N"
# The scenario: each datagram waited for its neighbour, so neigh_probe()'s
# clone is there, a copy that is no tap's, consumed.
pp_expect_none "packets without the neighbour's clone" "$out" \
	'packets[] | select([.skbs[]? | select(.from and (.tap | not)
		and .fate.kind == "consumed")] | length == 0)
	| "\(pkt_str): \([.skbs[]? | {skb, from, func, kind: .fate.kind}])"'
pp_expect_none "packets not dropped (NO_SOCKET)" "$out" \
	'packets[] | select(.fate.kind != "dropped" or .fate.reason != "NO_SOCKET")
	| "\(pkt_str): \(.fate.kind) \(.fate.reason // "-"), skbs "
	+ "\([.skbs[]? | {func, kind: .fate.kind, reason: .fate.reason}])"'
pp_expect_eq "pktpath's drops against b's Udp NoPorts" "$dropped" "$noports_n"
pp_expect_summary "$out"
pp_expect_eq "summary: dropped" "$(pp_jq "$out" 'summaries[0].dropped')" "$noports_n"
pp_expect_eq "summary: consumed" "$(pp_jq "$out" 'summaries[0].consumed')" 0

# -c 1 shows exactly the first datagram to the new neighbour: dropped.
txt=$(pp_out first)
noports0=$(noports)
pp_pktpath_start first "$PP_NS_R" --backend tracepoint -i r-eth0 -c 1 \
	--filter "udp and dst port $PORT"
one 1
pp_pktpath_wait first 20
pp_expect_eq "-c 1: pktpath exit status" "$PP_RC" 0
pp_expect_eq "-c 1: b's Udp NoPorts" "$(($(noports) - noports0))" 1
pp_expect_grep "-c 1: the packet's fate" "$txt" '^  dropped: NO_SOCKET at '
pp_expect_grep "-c 1: the neighbour's clone, with its own end" "$txt" \
	'^    copy [0-9]+ of 0: consumed'
if grep -Eq '^  consumed' "$txt"; then
	pp_fail "-c 1: the packet ended consumed: $(grep -E -m 1 '^  consumed' "$txt")"
fi
pp_pass
