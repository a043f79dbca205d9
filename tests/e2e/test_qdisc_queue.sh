#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A shaper's queue longer than --packet-timeout: a tbf qdisc (10 mbit, 4 MB
# limit) on the router's r-eth1 under a 20 Mbit/s iperf3 UDP flow from a to
# b holds datagrams for seconds. pktpath (tracepoint backend, the default
# --packet-timeout of 1 s) in r keeps each queued packet open: every
# datagram that iperf3 received has its transmit hop after the enqueue and
# does not end "end not seen" at the enqueue; one whose hops after the
# queue the kernel did not let the probes see says so (see below); no
# record is lost.
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
# hold, --packet-timeout closed 3645 of 5356 that way.
# Hops lost in the kernel (issue 21 item 6): on the 6.18 host, in some runs,
# a few datagrams (0 to 34 of 5357, more while the machine is busy) lose
# their hops from the dequeue to netif_rx (and often netif_receive_skb), in
# bursts of consecutive datagrams. The cause: the kernel runs no BPF
# program on a tracepoint fired while a thread of the machine's own init
# (PID 1, the VM's agent, threads "tokio-rt-worker") is current, as in a
# softirq that interrupts it. Measured in five runs (a tracefs instance on
# the same tracepoints, the programs' run_cnt with kernel.bpf_stats_enabled
# between a snapshot after attach and one after the queue drained;
# bench/tp_witness.sh counts them so): on each
# of the six tracepoints the programs ran exactly as many times fewer as
# tracefs saw events in that agent's context (net_dev_start_xmit 3, 32, 14,
# 30, 17; none elsewhere), recursion_misses 0; every datagram with a gap was
# transmitted there; a bpftrace script on the classic tracepoints missed
# the same 30 events of the fourth run and no other; a busy user-space
# loop on the same CPU lost none of 3793. Nothing in BPF can record such a
# hop. So the BPF core counts the gap:
# the first record of a packet away from the device whose qdisc took it,
# with no hop on that device after the enqueue, carries PP_HOP_GAP
# ("unseen_before"), the packet "gaps", the summary "gaps". Every
# datagram that lacks its transmit hop must say so; none that has all its
# hops may. Up to 2 % is let pass (each counted); more fails. The dequeue
# hop is not asked for: tp:qdisc:qdisc_dequeue names only the first skb
# of a bulk dequeue (dequeue_skb()), so some datagrams have their transmit
# hop alone, which is no gap.
closed=$(pp_jq "$out" '[packets[] | select(.hops[-1].func == "tp:qdisc:qdisc_enqueue")] | length')
short='[packets[] | select([.hops[].func] | (index("tp:qdisc:qdisc_enqueue") != null
	and index("tp:net:net_dev_start_xmit") == null))]'
nshort=$(pp_jq "$out" "$short | length")
# A packet that ends "end not seen" at the enqueue says itself what went
# unseen (the rest of its path, counted in closed below); it has no later
# record to carry a gap.
silent=$(pp_jq "$out" "$short | map(select((.gaps // 0) == 0 and .fate.kind != \"unseen\")) | length")
whole=$(pp_jq "$out" '[packets[] | select(.gaps != null and ([.hops[].func] |
	(index("tp:net:net_dev_start_xmit") != null and index("tp:net:netif_rx") != null)))] | length')
gaps=$(pp_jq "$out" '[packets[] | select(.gaps != null)] | length')
pp_log "packets closed at the enqueue: $closed; enqueued without a transmit hop: $nshort" \
	"($silent of them silent); packets with a gap: $gaps (summary: $(pp_jq "$out" 'summaries[0].gaps'))"
[ $((closed * 100)) -le "$sent" ] ||
	pp_fail "$closed of $sent packets closed while queued (last hop tp:qdisc:qdisc_enqueue)"
pp_expect_eq "enqueued packets without a transmit hop and no gap said" "$silent" 0
pp_expect_eq "packets with every hop and a gap said" "$whole" 0
pp_expect_eq "packets with a gap: the summary's count" "$(pp_jq "$out" 'summaries[0].gaps')" "$gaps"
[ $((nshort * 50)) -le "$sent" ] ||
	pp_fail "$nshort of $sent enqueued packets without their transmit hop"
pp_expect_eq "records lost" "$(pp_jq "$out" 'summaries[0].lost')" 0
# The kernel's count: tbf sent every datagram, and a few other frames at most (ARP).
[ "$qsent" -ge "$sent" ] || pp_fail "tbf sent $qsent packets, fewer than $sent datagrams"
pp_pass
