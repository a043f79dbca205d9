#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Two copies that one address holds in turn. a pings through the router an
# address its prohibit route refuses; the router's ICMP errors go back to a,
# while tcpdump captures on r-eth0, the router's interface they leave by.
# pktpath runs in the router (tracepoint backend) and marks the errors.
# Each error has three or four skbs: the error itself (consumed by icmp_rcv
# in a), tcpdump's copy (dev_queue_xmit_nit()'s clone, consumed in
# tpacket_rcv) and ping's copies, one or two read by ping: its raw socket
# gets one (raw_v4_input()) and its error queue another (ip_icmp_error());
# ping reads the second for some errors only (the first, here), and one it
# has not read when it exits is not seen. tcpdump's copy is freed before
# ping's are made, and the slab hands the freed sk_buff out again: copies
# often have one address. Each copy must be an skb of its own, with its
# parent, its path and its end: the tap shown and counted apart, ping's
# copies consumed and read by ping, none "freed twice". (Until the first of
# ping's copies stopped counting its buffer's holders twice, the second never
# joined.)
#
# Independent counters: ping's own count of errors, and tcpdump's of the
# ICMP errors it captured.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin tcpdump ping

out=$(pp_out errors)
pp_in "$PP_NS_R" ip route add prohibit 198.19.10.0/24
pp_in "$PP_NS_R" sysctl -q -w net.ipv4.icmp_ratelimit=0
pp_in "$PP_NS_A" ip route add 198.19.0.0/16 via 198.18.0.254

# --immediate-mode: each error is written as it comes, not when a ring block
# retires (up to a second later, after pktpath has exited).
pp_bg tcpdump "$PP_NS_R" tcpdump -i r-eth0 -n -U --immediate-mode -w "$PP_TMP/errors.pcap" \
	"icmp[0] == 3"
pp_wait_line tcpdump 'listening on' 20
pp_pktpath_start errors "$PP_NS_R" --json --backend tracepoint -c 3 \
	--filter "icmp and icmp[0] == 3"
pp_in "$PP_NS_A" timeout 10 ping -n -c 3 -i 0.3 198.19.10.1 >"$PP_TMP/ping.out" 2>&1 || true
pp_pktpath_wait errors 20
pp_wait_pcap "$PP_TMP/errors.pcap" 3
pp_stop tcpdump
pp_expect_eq "pktpath exit status" "$PP_RC" 0
pp_expect_json_lines "$out" "pktpath --json output"
pp_expect_summary "$out"

pp_expect_grep "ping saw three errors" "$PP_TMP/ping.out" '\+3 errors'
captured=$(sed -n 's/^\([0-9]*\) packets\{0,1\} captured$/\1/p' "$(pp_err tcpdump)")
pp_expect_eq "tcpdump's count of ICMP errors on r-eth0" "$captured" 3
pp_expect_eq "packets printed" "$(pp_jq "$out" 'packets | length')" 3

# skbs_str: the packet's skbs, for failure messages.
skbs='[.skbs[]? | "\(.skb) from \(.from // "-") tap \(.tap // false) \(.fate.kind)"
	+ " read \(.fate.read.comm // "-")"]'
pp_expect_none "errors other than itself, a tap's copy, one or two copies ping read" "$out" \
	"packets[] | [.skbs[] | select(.tap | not) | select(.fate.read.comm == \"ping\")] as \$read
	| select(([.skbs[] | select(.tap)] | length) != 1 or (\$read | length) < 1
		or (\$read | length) > 2 or (.skbs | length) != 2 + (\$read | length))
	| \"\(pkt_str): \($skbs)\""
pp_expect_none "copies without their parent, the error itself" "$out" \
	"packets[] | .skbs[0].skb as \$e | select([.skbs[1:][] | select(.from != \$e)] | length > 0)
	| \"\(pkt_str): \($skbs)\""
pp_expect_none "skbs whose end was not seen or not consumed" "$out" \
	"packets[] | select(.fate.kind != \"consumed\"
		or ([.skbs[] | select(.fate.kind != \"consumed\")] | length) > 0)
	| \"\(pkt_str): \($skbs)\""
pp_expect_eq "summary: consumed, taps" \
	"$(jq -r '"\(.consumed) \(.taps)"' <<<"$PP_SUMMARY")" "3 3"
# How often the two copies had one address: logged, as the slab decides.
same=$(pp_jq "$out" '[packets[] | select(.skbs[1].skb == .skbs[2].skb)] | length')
pp_log "errors whose two copies had one address: $same of 3"
pp_pass
