#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A shaper's queue longer than --packet-timeout: a tbf qdisc (10 mbit, 4 MB
# limit) on the router's r-eth1 under a 20 Mbit/s iperf3 UDP flow from a to
# b holds datagrams for seconds. pktpath (tracepoint backend, the default
# --packet-timeout of 1 s) in r keeps each queued packet open: every
# datagram that iperf3 received has its transmit hop after the enqueue and
# does not end "end not seen" at the enqueue (but for at most 1 %: see
# below), and no record is lost.
# The kernel's own count: tc's "Sent N pkt" of the tbf qdisc.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin iperf3

out=$(pp_out queue)
pp_in "$PP_NS_R" tc qdisc add dev r-eth1 root tbf rate 10mbit burst 32kbit limit 4mb
pp_bg iperf3-b "$PP_NS_B" iperf3 -s -1 -J -p 5201
pp_pktpath_start queue "$PP_NS_R" --json --backend tracepoint \
	--filter "udp and dst port 5201 and dst host 198.18.1.2"
pp_in "$PP_NS_A" iperf3 -u -b 20M -t 3 -l 1400 -c 198.18.1.2 -p 5201 -J \
	>"$PP_TMP/iperf3-a.json" 2>&1 || pp_fail "iperf3 failed: $(pp_brief_tail 2 "$PP_TMP/iperf3-a.json")"
# The queue drains at 10 mbit: about 3 s more. The server exits after its test.
# A packet whose skb a qdisc took at its last hop stays open up to 60 s past
# --packet-timeout (loader/cmd/trace.c): the bound is above that, or such a
# packet would fail the settle instead of being counted below (seen once
# while other e2e runs loaded the machine: 'still had packets open ... 30 s').
pp_pktpath_settle queue 90
pp_pktpath_stop queue
pp_expect_eq "pktpath exit status" "$PP_RC" 0
pp_expect_json_lines "$out" "pktpath --json output"

sent=$(jq '.end.sum.packets' "$PP_TMP/iperf3-a.json")
lost=$(jq '.end.sum.lost_packets' "$PP_TMP/iperf3-a.json")
qsent=$(pp_in "$PP_NS_R" tc -s qdisc show dev r-eth1 | awk '/Sent/ { print $4; exit }')
pp_log "iperf3: $sent datagrams sent, $lost lost; tbf sent $qsent packets"
[ "$sent" -gt 1000 ] || pp_fail "iperf3 sent only $sent datagrams"
pp_expect_eq "datagrams iperf3 lost" "$lost" 0
# The datagrams, as pktpath saw them; the queue is what made some wait seconds.
n=$(pp_jq "$out" '[packets[] | select(any(.hops[]; .func == "tp:qdisc:qdisc_enqueue"))] | length')
# iperf3's own first datagram to the port (its UDP "connect") is one more.
if [ "$n" -lt "$sent" ] || [ "$n" -gt $((sent + 1)) ]; then
	pp_fail "packets enqueued on r-eth1: $n, iperf3 sent $sent datagrams"
fi
# Closed while queued: the packet's last hop is the enqueue. Without the
# hold, --packet-timeout closed 3645 of 5356 that way. On the 6.18 host a
# few datagrams (0 to 34 of 5357 in fourteen runs, more while the machine is
# busy, issue 21 item 6) lose their hops from the dequeue to netif_rx (and
# often netif_receive_skb) for a cause not found yet, in bursts of about
# 6 consecutive datagrams some 0.55 s apart. Their skb_map entry is not
# lost: the same packet's socket queueing and read find it, with its id,
# afterwards. The kernel's tracepoint fires for every one of them (a
# tracefs instance counted 5356 net_dev_start_xmit of 1442-byte frames on
# r-eth1 while pktpath had 5334 transmit hops); BPF submitted the hops the
# loader printed, no program counts a recursion miss, and no hop program
# met a tracked skb while its gate was closed. Up to 1 % is let pass
# here, and the count is printed; more fails. The dequeue hop is not
# asked for: tp:qdisc:qdisc_dequeue names only the first skb of a bulk
# dequeue (dequeue_skb()), so some datagrams have their transmit hop alone.
closed=$(pp_jq "$out" '[packets[] | select(.hops[-1].func == "tp:qdisc:qdisc_enqueue")] | length')
short=$(pp_jq "$out" '[packets[] | select([.hops[].func] | (index("tp:qdisc:qdisc_enqueue") != null
	and index("tp:net:net_dev_start_xmit") == null))] | length')
pp_log "packets closed at the enqueue: $closed; enqueued without a transmit hop: $short"
[ $((closed * 100)) -le "$sent" ] ||
	pp_fail "$closed of $sent packets closed while queued (last hop tp:qdisc:qdisc_enqueue)"
[ $((short * 100)) -le "$sent" ] ||
	pp_fail "$short of $sent enqueued packets without their transmit hop"
pp_expect_eq "records lost" "$(pp_jq "$out" 'summaries[0].lost')" 0
# The kernel's count: tbf sent every datagram, and a few other frames at most (ARP).
[ "$qsent" -ge "$sent" ] || pp_fail "tbf sent $qsent packets, fewer than $sent datagrams"
pp_pass
