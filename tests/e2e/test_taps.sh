#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Taps observe, they do not decide: tcpdump captures on r-eth1, the router's
# interface the packets leave by, while an nftables rule in b (the server)
# drops them. a opens three TCP connections to b:8000, each given up before
# its SYN is retransmitted: three SYNs. pktpath runs in the router
# (tracepoint backend). dev_queue_xmit_nit() clones each SYN for tcpdump's
# packet socket and tpacket_rcv() consumes that clone once it is in the ring:
# that copy must be shown as a tap and counted apart, and each SYN's fate
# must be the drop (NETFILTER_DROP), as it is without tcpdump.
#
# Independent counters: the nftables rule's counter and tcpdump's own count
# of what it captured are both three.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin nft tcpdump timeout

out=$(pp_out taps)
pp_in "$PP_NS_B" nft -f - <<'EOF'
table inet pp_taps {
	chain in { type filter hook input priority 0; tcp dport 8000 counter drop; }
}
EOF

# --immediate-mode: each SYN is written as it comes, not when a ring block
# retires (up to a second later, after pktpath has already exited).
pp_bg tcpdump "$PP_NS_R" tcpdump -i r-eth1 -n -U --immediate-mode -w "$PP_TMP/taps.pcap" \
	tcp dst port 8000
pp_wait_line tcpdump 'listening on' 20

pp_pktpath_start taps "$PP_NS_R" --json --backend tracepoint -c 3 --filter "tcp and dst port 8000"
pp_pktpath_start text "$PP_NS_R" --backend tracepoint -c 3 --filter "tcp and dst port 8000"
for _ in 1 2 3; do
	# One SYN: the connection is given up before its retransmission (1 s).
	pp_in "$PP_NS_A" timeout 0.5 bash -c 'echo >/dev/tcp/198.18.1.2/8000' 2>/dev/null || true
done
pp_pktpath_wait taps 20
pp_pktpath_wait text 20
pp_wait_pcap "$PP_TMP/taps.pcap" 3
pp_stop tcpdump
pp_expect_eq "pktpath exit status" "$PP_RC" 0
pp_expect_json_lines "$out" "pktpath --json output"
pp_expect_summary "$out"

captured=$(sed -n 's/^\([0-9]*\) packets\{0,1\} captured$/\1/p' "$(pp_err tcpdump)")
pp_expect_eq "tcpdump's count of SYNs captured on r-eth1" "$captured" 3
n=$(pp_in "$PP_NS_B" nft -j list chain inet pp_taps in |
	jq '[.nftables[] | .rule? // empty | .expr[] | .counter? // empty | .packets] | add')
pp_expect_eq "nft counter in b" "$n" 3

pp_expect_eq "packets printed" "$(pp_jq "$out" 'packets | length')" 3
pp_expect_none "SYNs whose fate is not the nftables drop" "$out" \
	'packets[] | select(.fate.kind != "dropped" or .fate.reason != "NETFILTER_DROP")
	| "\(pkt_str): \(.fate.kind) \(.fate.reason // "")"'
pp_expect_none "SYNs without exactly one tap's copy" "$out" \
	'packets[] | select([.skbs[]? | select(.tap)] | length != 1)
	| "\(pkt_str): \([.skbs[]? | {tap, kind: .fate.kind}])"'
# shellcheck disable=SC2016 # jq program
pp_expect_none "tap copies not made on r-eth1" "$out" \
	'packets[] | [.skbs[] | select(.tap) | .skb] as $t
	| select([.hops[] | select(.skb == $t[0]) | .ifname] | unique != ["r-eth1"])
	| "\(pkt_str): tap hops on \([.hops[] | select(.skb == $t[0]) | .ifname])"'
pp_expect_eq "summary: dropped, consumed, taps" \
	"$(jq -r '"\(.dropped) \(.consumed) \(.taps)"' <<<"$PP_SUMMARY")" "3 0 3"

# The text output shows the tap and counts it apart.
pp_expect_eq "text: tap lines" "$(grep -c '^    copy 1 of 0 \[tap\]: consumed' "$(pp_out text)")" 3
pp_expect_eq "text: NETFILTER_DROP fates" "$(grep -c '^  dropped: NETFILTER_DROP' "$(pp_out text)")" 3
pp_expect_grep "text: the taps counted apart" "$(pp_out text)" '0 consumed, 3 dropped, .*3 tap copies'
pp_pass
