#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Echo requests through shapers, on the tracepoint backend: a pings b 2000
# times, tbf queueing the requests on a-eth0 and the replies on b-eth0
# (about 130 ms deep), pktpath tracing icmp in a, r and b. While a shaper's
# watchdog sends what it held, some frees fire no probe on this kernel (an
# echo request consumed in b, an echo reply after ping took its clone), and
# the slab hands the request's sk_buff to the clone ping_rcv() makes of a
# later reply: before pp_takes_other(), that clone's read joined the request,
# which then ended "read by ping" in a, a namespace it never entered.
# Required:
#   - as many requests and replies as ping sent and received;
#   - no echo request is read: ping reads replies; b's ICMP consumes requests;
#   - a request whose end was not seen says so (unseen), never another fate.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin ping tc

N=2000
ppr_topo_quiet
pp_in "$PP_NS_A" tc qdisc add dev a-eth0 root tbf rate 300kbit burst 3000 latency 200ms
pp_in "$PP_NS_B" tc qdisc add dev b-eth0 root tbf rate 300kbit burst 3000 latency 200ms
pp_root_start echo --json --backend tracepoint --packet-timeout 2 --netns "$PP_NS_A" \
	--netns "$PP_NS_R" --netns "$PP_NS_B" --filter icmp
pp_in "$PP_NS_A" ping -q -c "$N" -s 600 -i 0.005 198.18.1.2 >"$PP_TMP/ping.txt" ||
	pp_fail "ping failed: $(cat "$PP_TMP/ping.txt")"
pp_pktpath_settle echo 60
pp_pktpath_stop echo INT
pp_expect_eq "exit status" "$PP_RC" 0
out=$(pp_out echo)
pp_expect_json_lines "$out" "pktpath output"

sent=$(awk '/packets transmitted/ { print $1 }' "$PP_TMP/ping.txt")
received=$(awk '/packets transmitted/ { print $4 }' "$PP_TMP/ping.txt")
unseen=$(pp_jq "$out" '[packets[] | select(.pkt.icmp_type == 8 and .fate.kind == "unseen")]
	| length')
pp_log "ping: $sent sent, $received received; requests whose end no probe saw: $unseen"
[ "$unseen" -gt 0 ] ||
	pp_log "NOTE: every request's end was seen this run: the stale clone's read did not occur"
pp_expect_eq "echo requests" "$(pp_jq "$out" '[packets[] | select(.pkt.icmp_type == 8)]
	| length')" "$sent"
pp_expect_eq "echo replies" "$(pp_jq "$out" '[packets[] | select(.pkt.icmp_type == 0)]
	| length')" "$received"
pp_expect_none "an echo request read" "$out" \
	'packets[] | select(.pkt.icmp_type == 8 and .fate.read)
	 | "packet \(.id) (seq \(.pkt.icmp_seq)): \(.fate | tojson)"'
pp_expect_none "an echo request's fate" "$out" \
	'packets[] | select(.pkt.icmp_type == 8)
	 | select(.fate.kind != "consumed" and .fate.kind != "unseen")
	 | "packet \(.id) (seq \(.pkt.icmp_seq)): \(.fate | tojson)"'
pp_expect_summary "$out"
pp_pass
