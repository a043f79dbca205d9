#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A sender is not an observer: a frame a packet socket sends (arping,
# dhclient, LLDP agents, scapy: packet_sendmsg() -> packet_snd() ->
# dev_queue_xmit()) is the packet itself, owned by the sending socket
# (skb_set_owner_w()) until something orphans it; veth does not, so the
# receiver frees it still owned by an AF_PACKET socket. Its end is the
# packet's, never a tap's copy. a sends to r over their veth, with no
# capture anywhere:
#   - arping (busybox's or iputils'): 3 ARP requests, each answered by r's kernel
#     (arping's own count of replies) and consumed there;
#   - tests/e2e/raw_send.c from a packet socket: UDP to a closed port of r
#     (dropped, NO_SOCKET, against r's Udp NoPorts), ICMP echo requests
#     (consumed, against r's Icmp InEchos and OutEchoReps), UDP to another
#     MAC (dropped, OTHERHOST at ip_rcv_core, against r-eth0's received
#     frames and the UDP and IP counters that must not move);
# then tcpdump captures on a-eth0 and r-eth0 while a sends the same UDP
# frames again: tcpdump's copies are taps (one per frame: the clone made
# for a's capture, against tcpdump's own counts), and each packet's fate is
# the same as without it. pktpath traces each
# send twice, from the sender (a, a-eth0) and from the receiver (r,
# r-eth0), tracepoint backend.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin tcpdump busybox
raw=""
pp_test_tool raw raw_send
# arping: busybox's, else iputils' (Debian's busybox-static has none); both
# send from a packet socket (SOCK_DGRAM) and print "Received N response(s)".
arping=(arping)
if busybox --list | grep -qx arping; then
	arping=(busybox arping)
elif ! command -v arping >/dev/null; then
	pp_skip "no arping (busybox's or iputils-arping)"
fi

# No traffic but the test's: no IPv6, permanent neighbours (ARP requests are
# the test's own), so the kernel's counters move by what is sent.
ppr_topo_quiet
mac_r=$(ip -n "$PP_NS_R" -j link show dev r-eth0 | jq -r '.[0].address')
other=02:00:5e:10:00:99 # no interface's: PACKET_OTHERHOST in r
N=5

# trace NAME FILTER COUNT CMD...: pktpath in a (a-eth0) and in r (r-eth0),
# COUNT packets each (-c), while CMD runs in a; outputs pp_out NAME-a, NAME-r.
trace() {
	local name=$1 f=$2 c=$3 side
	shift 3
	pp_pktpath_start "$name-a" "$PP_NS_A" --json --backend tracepoint -i a-eth0 -c "$c" \
		--filter "$f"
	pp_pktpath_start "$name-r" "$PP_NS_R" --json --backend tracepoint -i r-eth0 -c "$c" \
		--filter "$f"
	pp_in "$PP_NS_A" "$@" >"$PP_TMP/$name.send" 2>&1 ||
		pp_fail "$name: $* failed: $(_pp_last_line "$PP_TMP/$name.send")"
	for side in a r; do
		pp_pktpath_wait "$name-$side" 20
		pp_expect_eq "$name: pktpath in $side exit status" "$PP_RC" 0
		pp_expect_json_lines "$(pp_out "$name-$side")" "$name: pktpath in $side"
		pp_expect_eq "$name: packets printed in $side" \
			"$(pp_jq "$(pp_out "$name-$side")" 'packets | length')" "$c"
	done
}

# expect NAME KIND REASON [TAPS]: in both traces, every packet ends KIND
# (REASON: its drop reason, "-" for none), not by a tap, with TAPS tap
# copies each in the sender's trace (default 0), none in the receiver's:
# r's pktpath marks a packet at r-eth0, after a's taps are done with it.
expect() {
	local name=$1 kind=$2 reason=$3 side out taps
	for side in a r; do
		out=$(pp_out "$name-$side")
		taps=0
		[ "$side" = r ] || taps=${4:-0}
		# shellcheck disable=SC2016 # jq program
		pp_expect_none "$name, traced in $side: packets not $kind ($reason)" "$out" \
			'packets[] | select(.fate.kind != $k or (.fate.reason // "-") != $r)
			| "\(pkt_str): \(.fate.kind) \(.fate.reason // "-")"' \
			--arg k "$kind" --arg r "$reason"
		pp_expect_none "$name, traced in $side: packets ended by a tap" "$out" \
			'packets[] | select(.fate.by_tap) | "\(pkt_str): \(.fate)"'
		# shellcheck disable=SC2016 # jq program
		pp_expect_none "$name, traced in $side: packets without $taps tap copies" "$out" \
			'packets[] | select([.skbs[]? | select(.tap)] | length != $t)
			| "\(pkt_str): \([.skbs[]? | {skb, tap, kind: .fate.kind}])"' \
			--argjson t "$taps"
	done
}

snmp() { ppr_snmp "$PP_NS_R" "$1" "$2"; }
rx() { ppr_link_stats "$PP_NS_R" r-eth0 | cut -d' ' -f1; }

# ARP requests from arping's packet socket (SOCK_DGRAM, bound to ETH_P_ARP),
# answered by r's kernel: arping counts the replies.
rx0=$(rx)
trace arp 'arp[6:2] = 1' 3 "${arping[@]}" -c 3 -w 5 -I a-eth0 198.18.0.254
replies=$(sed -n 's/^Received \([0-9]*\) respon.*/\1/p' "$PP_TMP/arp.send")
pp_expect_eq "arping: responses from r's kernel" "$replies" 3
pp_expect_eq "r-eth0: frames received" "$(($(rx) - rx0))" 3
expect arp consumed -

# UDP to a closed port of r: ip_rcv_core() orphans it before UDP drops it.
noports0=$(snmp Udp NoPorts)
rx0=$(rx)
trace udp 'udp and dst port 9' "$N" "$raw" udp a-eth0 "$mac_r" 198.18.0.1 198.18.0.254 9 "$N"
pp_expect_eq "r: Udp NoPorts" "$(($(snmp Udp NoPorts) - noports0))" "$N"
pp_expect_eq "r-eth0: frames received" "$(($(rx) - rx0))" "$N"
expect udp dropped NO_SOCKET

# ICMP echo requests to r: its kernel answers each.
echos0=$(snmp Icmp InEchos)
reps0=$(snmp Icmp OutEchoReps)
trace icmp 'icmp[icmptype] = 8' "$N" "$raw" icmp a-eth0 "$mac_r" 198.18.0.1 198.18.0.254 7 "$N"
pp_expect_eq "r: Icmp InEchos" "$(($(snmp Icmp InEchos) - echos0))" "$N"
pp_expect_eq "r: Icmp OutEchoReps" "$(($(snmp Icmp OutEchoReps) - reps0))" "$N"
expect icmp consumed -

# UDP to another MAC: r-eth0 receives each frame (veth does not filter by
# MAC); ip_rcv_core() drops it, still owned by a's socket, before IP counts
# it, so neither IP's nor UDP's counters move.
inrec0=$(snmp Ip InReceives)
noports0=$(snmp Udp NoPorts)
rx0=$(rx)
trace other 'udp and dst port 9' "$N" "$raw" udp a-eth0 "$other" 198.18.0.1 198.18.0.254 9 "$N"
pp_expect_eq "r-eth0: frames received" "$(($(rx) - rx0))" "$N"
pp_expect_eq "r: Ip InReceives" "$(($(snmp Ip InReceives) - inrec0))" 0
pp_expect_eq "r: Udp NoPorts" "$(($(snmp Udp NoPorts) - noports0))" 0
expect other dropped OTHERHOST

# The same sends with tcpdump capturing on a-eth0 and on r-eth0: each packet's
# fate is unchanged, and tcpdump's copies are taps. On the way out,
# dev_queue_xmit_nit() clones each frame for a's tcpdump (the sending socket
# itself is skipped, skb_loop_sk()): one tap copy per frame. On the way in,
# deliver_skb() hands r's tcpdump the packet itself with a reference taken,
# and tpacket_rcv() copies it into the ring: no skb of its own. Both
# tcpdumps count every frame. --immediate-mode: each frame is written as it
# comes (tests/e2e/test_taps.sh).
capture() {
	local name=$1 f=$2 side ns
	shift 2
	for side in a r; do
		ns=$PP_NS_A
		[ "$side" = a ] || ns=$PP_NS_R
		pp_bg "td-$name-$side" "$ns" tcpdump -i "$side-eth0" -n -U --immediate-mode \
			-w "$PP_TMP/$name-$side.pcap" "$f"
		pp_wait_line "td-$name-$side" 'listening on' 20
	done
	trace "$name" "$f" "$N" "$@"
	for side in a r; do
		pp_wait_pcap "$PP_TMP/$name-$side.pcap" "$N"
		pp_stop "td-$name-$side"
		pp_expect_eq "$name: tcpdump's count of frames captured on $side-eth0" \
			"$(sed -n 's/^\([0-9]*\) packets\{0,1\} captured$/\1/p' \
				"$(pp_err "td-$name-$side")")" "$N"
	done
}

noports0=$(snmp Udp NoPorts)
capture udp-td 'udp and dst port 9' "$raw" udp a-eth0 "$mac_r" 198.18.0.1 198.18.0.254 9 "$N"
pp_expect_eq "r: Udp NoPorts" "$(($(snmp Udp NoPorts) - noports0))" "$N"
expect udp-td dropped NO_SOCKET 1

inrec0=$(snmp Ip InReceives)
capture other-td 'udp and dst port 9' "$raw" udp a-eth0 "$other" 198.18.0.1 198.18.0.254 9 "$N"
pp_expect_eq "r: Ip InReceives" "$(($(snmp Ip InReceives) - inrec0))" 0
expect other-td dropped OTHERHOST 1
pp_expect_eq "summary in a: taps, with tcpdump" \
	"$(pp_jq "$(pp_out udp-td-a)" 'summaries[0].taps')" "$N"
for side in a r; do
	pp_expect_eq "summary in $side: taps, without tcpdump" \
		"$(pp_jq "$(pp_out "other-$side")" 'summaries[0].taps')" 0
done
pp_pass
