#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A read is a read at any rate (issue 36, goal 3), and the next packet is
# its own (issue 37, item 7): a UDP flood from a to a reader in b, the
# sender on CPU 0 and the reader on CPU 1, tcpdump on the router's r-eth1,
# traced in a, r and b on the tracepoint backend. The reader's receive call
# hands each datagram to skb_attempt_defer_free(), which frees it on CPU 0
# (skb:consume_skb in its next NAPI poll) while the call's end
# (sock:sock_recv_length) sends the read's END on CPU 1: the two race.
# Before, the read's END came after the packet was printed ("N records came
# after their packet was printed") or was never sent, and the datagram
# ended consumed with no "read by". Once CPU 0 has freed it, the sender's
# next datagram may take the same sk_buff and data buffer and be marked in
# a before CPU 1 is done: the late ender deleted that packet's entries,
# which then ended "end not seen" at a's hook while its datagram was
# printed again from r's, and its tap copy on r-eth1 joined nothing.
#
# Against the kernel's, the reader's and tcpdump's counts, never pktpath's
# own: every datagram that crossed r-eth1 (tcpdump's socket received it) is
# one packet with one tap copy; each that b's UDP took (/proc/net/snmp Udp
# InDatagrams), all of which the reader read (it says how many), ends
# consumed and read by the reader, each its full buffer refused (Udp
# RcvbufErrors) dropped SOCKET_RCVBUFF; no record comes after its packet was
# printed. Tap copies: all but a known rare race's (below).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin taskset tcpdump
ppr_topo_quiet

flood=""
pp_test_tool flood udp_flood
n=40000 pps=10000 port=9003

pp_bg sink "$PP_NS_B" taskset -c 1 "$flood" sink "$port"
pp_wait_line sink '^udp_flood: listening' 10
in0=$(ppr_snmp "$PP_NS_B" Udp InDatagrams)
full0=$(ppr_snmp "$PP_NS_B" Udp RcvbufErrors)

# --immediate-mode: each datagram is counted as it comes (see test_taps.sh).
pp_bg tcpdump "$PP_NS_R" tcpdump -i r-eth1 -n -U --immediate-mode -w /dev/null \
	udp port "$port"
pp_wait_line tcpdump 'listening on' 20

out=$(pp_out rflood)
pp_root_start rflood --json --backend tracepoint --packet-timeout 10 --netns "$PP_NS_A" \
	--netns "$PP_NS_R" --netns "$PP_NS_B" --filter "udp port $port"
pp_in "$PP_NS_A" taskset -c 0 "$flood" send 198.18.1.2 "$n" "$pps" "$port" \
	>"$PP_TMP/send.out" 2>&1 || pp_fail "flood failed: $(pp_brief_tail 2 "$PP_TMP/send.out")"
pp_pktpath_settle rflood 60
pp_pktpath_stop rflood INT
pp_expect_eq "pktpath exit status" "$PP_RC" 0
pp_stop sink INT
pp_stop tcpdump
indgrams=$(($(ppr_snmp "$PP_NS_B" Udp InDatagrams) - in0))
full=$(($(ppr_snmp "$PP_NS_B" Udp RcvbufErrors) - full0))
received=$(awk '/^received/ { print $2 }' "$(pp_out sink)")
# Its kernel's count, dropped or not: every copy r-eth1's tap took.
tapped=$(sed -n 's/^\([0-9]*\) packets\{0,1\} received by filter$/\1/p' "$(pp_err tcpdump)")

pp_expect_json_lines "$out" "pktpath --json output"
pp_expect_summary "$out"
lost=$(jq -r '.lost' <<<"$PP_SUMMARY")
# One pass, not slurped: the file is large.
read -r npkt nread unread nfull other taps < <(jq -n -r 'reduce (inputs | select(.fate)) as $p
	([0, 0, 0, 0, 0, 0]; .[0] += 1
		| if $p.fate.reason == "SOCKET_RCVBUFF" then .[3] += 1
		elif $p.fate.kind != "consumed" then .[4] += 1
		elif $p.fate.read.comm == "udp_flood" then .[1] += 1
		elif $p.fate.read then . else .[2] += 1 end
		| .[5] += ([$p.skbs[]? | select(.tap)] | length))
	| map(tostring) | join(" ")' "$out")
pp_log "kernel: Udp InDatagrams $indgrams, RcvbufErrors $full; reader read $received;" \
	"tcpdump received $tapped; pktpath: packets $npkt, read by udp_flood $nread," \
	"consumed without a read $unread, dropped SOCKET_RCVBUFF $nfull, other fates $other," \
	"tap copies $taps, records lost $lost"
pp_expect_eq "the reader read all that b's UDP took" "$received" "$indgrams"
# A full ring loses records (counted, said): the count below needs them all.
pp_expect_eq "records lost to a full ring" "$lost" 0
pp_expect_eq "datagrams consumed without a read" "$unread" 0
pp_expect_eq "datagrams read by udp_flood" "$nread" "$indgrams"
# A reader that falls behind (a loaded machine) has some dropped by its full buffer.
pp_expect_eq "datagrams dropped SOCKET_RCVBUFF" "$nfull" "$full"
pp_expect_eq "tcpdump's packets received on r-eth1" "$tapped" $((indgrams + full))
pp_expect_eq "packets printed" "$npkt" "$tapped"
pp_expect_eq "packets with another fate (end not seen)" "$other" 0
# The ender's check and its delete are two steps (BPF has no compare-and-
# delete): one interrupted between them still loses the next packet's tap
# copy, about 1 in 200000 (docs/packet-life.md). Before, 3 in 160000.
missed=$((tapped - taps))
if [ "$missed" -lt 0 ] || [ $((missed * 20000)) -gt "$tapped" ]; then
	pp_fail "tap copies that joined no packet: $missed of $tapped (at most 1 in 20000)"
fi
if grep -E 'came after (the|their) packet was printed' "$(pp_err rflood)" >"$PP_TMP/late.txt"; then
	pp_fail "records came after their packet was printed: $(head -3 "$PP_TMP/late.txt")"
fi
pp_pass
