#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# pktpath never changes the traffic it traces: the same flows, measured
# without pktpath and then while pktpath traces every packet of them, give
# the same counts.
#   - ping -c 50 -i 0.01 from host a to host b: 50 replies both times, and
#     the packet and byte counters of the four veths (ip -s link) move by
#     exactly the same amounts. The links are kept quiet for this (IPv6
#     off, permanent ARP entries), so the counters see nothing but ping.
#   - iperf3 UDP, a fixed 2000 datagrams of 1000 bytes at 5 Mbit/s (when
#     iperf3 is installed): every datagram and byte arrives both times.
# The run with pktpath must have traced the flows (filter "icmp or udp",
# in the router): 100 ICMP packets, and a tc:ingress hop on r-eth0 for
# each of the 2000 datagrams.
# (The verdicts of another tool's tc rules: test_robust_foreign_tc.sh.)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin
ppr_topo_quiet

have_iperf=0
command -v iperf3 >/dev/null 2>&1 && have_iperf=1
[ "$have_iperf" = 1 ] || pp_log "NOTE: iperf3 not installed: the UDP flow is left out"

links=("$PP_NS_A a-eth0" "$PP_NS_R r-eth0" "$PP_NS_R r-eth1" "$PP_NS_B b-eth0")
# counters: "rx_packets rx_bytes tx_packets tx_bytes" of each veth, in turn.
counters() {
	local l
	for l in "${links[@]}"; do
		# shellcheck disable=SC2086 # "NS DEV"
		ppr_link_stats $l
	done | xargs
}

# measure RUN: both flows; the results go to $PP_TMP/RUN.*.
measure() {
	local run=$1 c0 c1 i u0 u1
	c0=$(counters)
	pp_in "$PP_NS_A" ping -n -q -c 50 -i 0.01 -w 10 198.18.1.2 >"$PP_TMP/$run.ping" 2>&1 || true
	sed -n 's/.* \([0-9]*\) received.*/\1/p' "$PP_TMP/$run.ping" >"$PP_TMP/$run.received"
	c1=$(counters)
	paste -d ' ' <(tr ' ' '\n' <<<"$c0") <(tr ' ' '\n' <<<"$c1") |
		awk '{ printf "%s%d", (NR > 1 ? " " : ""), $2 - $1 } END { print "" }' \
			>"$PP_TMP/$run.links"
	pp_log "$run: ping received $(cat "$PP_TMP/$run.received");" \
		"counter deltas (rx pkts, rx bytes, tx pkts, tx bytes of a-eth0, r-eth0, r-eth1," \
		"b-eth0): $(cat "$PP_TMP/$run.links")"
	[ "$have_iperf" = 1 ] || return 0
	pp_bg "iperf-server-$run" "$PP_NS_B" iperf3 -s -1 -J
	for ((i = 0; i < 300; i++)); do
		[ -z "$(pp_in "$PP_NS_B" ss -Hltn 'sport = :5201')" ] || break
		sleep 0.1
	done
	# -w 2M: on a loaded machine the receiving socket overflows, not pktpath.
	u0=$(udp_in)
	pp_in "$PP_NS_A" iperf3 -c 198.18.1.2 -u -b 5M -l 1000 -n 2000000 -w 2M -J \
		>"$PP_TMP/$run.iperf.json" 2>"$PP_TMP/$run.iperf.err" ||
		pp_fail "$run: iperf3 client failed: $(pp_brief 2 "$PP_TMP/$run.iperf.json")"
	# The client is done when it has sent, not when b has received: on a
	# loaded machine the last datagrams were still in the router's queues
	# then. Wait until b's UDP layer had them all (30 s at most: the bound
	# only decides a failure), then stop the server.
	for ((i = 0; i < 300; i++)); do
		u1=$(udp_in)
		[ $((${u1% *} - ${u0% *})) -lt 2000 ] || break
		sleep 0.1
	done
	pp_stop "iperf-server-$run" INT
	u1=$(udp_in)
	echo "$((${u1% *} - ${u0% *})) $((${u1#* } - ${u0#* }))" >"$PP_TMP/$run.udp"
	jq -r '"\(.end.sum.packets) \(.end.sum.bytes) \(.end.sum_received.packets)" +
		" \(.end.sum_received.bytes) \(.end.sum_received.lost_packets)"' \
		"$PP_TMP/$run.iperf.json" >"$PP_TMP/$run.iperf"
	pp_log "$run: iperf3 UDP sent packets, bytes; received packets, bytes, lost:" \
		"$(cat "$PP_TMP/$run.iperf")"
}

# udp_in: "ARRIVED RcvbufErrors" of namespace b's UDP. ARRIVED is what IP
# handed to UDP: Ip InDelivers less Tcp InSegs and Icmp InMsgs (the links
# carry nothing else: ppr_topo_quiet). Not Udp InDatagrams: that counts
# what iperf3's server read, and it stops reading when its control
# connection says the test ended, which can overtake the last datagrams
# (seen at load 20: 1995 and 1999 of 2000 read, the rest freed unread at
# close, none lost).
udp_in() {
	local deliv segs icmp udp
	deliv=$(ppr_snmp "$PP_NS_B" Ip InDelivers)
	segs=$(ppr_snmp "$PP_NS_B" Tcp InSegs)
	icmp=$(ppr_snmp "$PP_NS_B" Icmp InMsgs)
	udp=$(ppr_snmp "$PP_NS_B" Udp RcvbufErrors)
	echo "$((deliv - segs - icmp)) $udp"
}

measure without
pp_expect_eq "without pktpath: ping replies" "$(cat "$PP_TMP/without.received")" 50

pp_pktpath_start tracer "$PP_NS_R" --json --filter "icmp or udp"
measure with
pp_pktpath_settle tracer 60 # the last packets close
pp_pktpath_stop tracer INT
pp_expect_eq "pktpath's exit status" "$PP_RC" 0

pp_expect_eq "with pktpath: ping replies" "$(cat "$PP_TMP/with.received")" 50
pp_expect_eq "veth counter deltas with pktpath (rx/tx packets/bytes of a-eth0, r-eth0, r-eth1, b-eth0)" \
	"$(cat "$PP_TMP/with.links")" "$(cat "$PP_TMP/without.links")"
# Not vacuous: the counters saw the pings (50 each way through r-eth0).
read -r _ _ _ _ rx0 _ tx0 _ _ <<<"$(cat "$PP_TMP/without.links")"
if [ "$rx0" -ne 50 ] || [ "$tx0" -ne 50 ]; then
	pp_fail "r-eth0 counted $rx0 received and $tx0 sent packets for 50 pings:" \
		"other traffic on the links makes the comparison meaningless"
fi

out=$(pp_out tracer)
icmp=$(pp_jq "$out" '[packets[] | select(.pkt.proto == "icmp")] | length')
pp_expect_eq "ICMP packets traced (50 requests, 50 replies)" "$icmp" 100
if [ "$have_iperf" = 1 ]; then
	# The receiver's kernel counts exactly (iperf3's own report may miss its
	# last datagrams): all 2000 reached b's UDP (plus iperf3's own start
	# datagram, sometimes), none dropped, with and without pktpath.
	for run in without with; do
		read -r delivered drops <"$PP_TMP/$run.udp"
		if [ "$delivered" -lt 2000 ] || [ "$drops" -ne 0 ]; then
			pp_fail "$run pktpath: namespace b delivered $delivered UDP datagrams" \
				"of 2000, receive-buffer drops $drops"
		fi
	done
	# Every datagram crossed the router's classifier: a tc:ingress hop of
	# 1042 bytes on r-eth0 each, whichever packet it was filed under
	# (test_robust_skb_reuse.sh asks for one packet per datagram).
	udp=$(pp_jq "$out" '[packets[].hops[]
		| select(.func == "tc:ingress" and .ifname == "r-eth0" and .len == 1042)] | length')
	pp_expect_eq "iperf3 datagrams seen by pktpath's classifier on r-eth0" "$udp" 2000
fi
pp_expect_no_pp_progs "after pktpath exited"
pp_pass
