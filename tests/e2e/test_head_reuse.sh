#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A data buffer used again is not a copy: ping's echo replies, traced in
# host a, beside a TCP stream from a to b that pktpath does not follow.
# Each reply reaches ping as a clone (ping_rcv) that shares its buffer;
# once both are freed, the buffer is soon taken by one of TCP's segments,
# whose larger headroom still holds the reply's headers where pktpath read
# them. Before the check of the data's end (pp_head_val.tail), and while a
# joined copy counted its orphaned buffer's holder twice, such segments
# joined old replies as "copies": ICMP packets with TCP's hops, and records
# that came after their packet was printed (here: 18 records in one run, a
# reply with 11 of a segment's hops in another).
# Required: every echo ping sent and every reply it got is one packet; none
# holds a TCP hop or a hop in the stream's receiver's namespace; no record
# came after its packet was printed; nothing lost.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin iperf3 ss ping

count=1000
out=$(pp_out tracer)
pp_pktpath_start tracer "$PP_NS_A" --json --filter icmp
pp_bg server "$PP_NS_B" iperf3 -s -1
for ((i = 0; i < 300; i++)); do
	[ -z "$(pp_in "$PP_NS_B" ss -Hltn 'sport = :5201')" ] || break
	sleep 0.1
done
pp_bg stream "$PP_NS_A" iperf3 -c 198.18.1.2 -t 4
sleep 0.5
pp_in "$PP_NS_A" ping -n -q -i 0.002 -c "$count" -w 30 198.18.1.2 >"$PP_TMP/ping.txt" 2>&1 ||
	pp_fail "ping a -> b failed: $(pp_brief_tail 2 "$PP_TMP/ping.txt")"
pp_stop stream INT
pp_stop server INT
got=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' "$PP_TMP/ping.txt")
pp_pktpath_done tracer

# shellcheck disable=SC2016 # jq programs
pp_expect_none "an echo with a TCP hop" "$out" '
	packets[] | select(any(.hops[]; .func | test("tcp")))
	| "packet \(.id) (icmp type \(.pkt.icmp_type)): \([.hops[].func] | join(" "))"'
pp_expect_none "an echo with a hop in b" "$out" '
	packets[] | select(.pkt.icmp_type == 0 and any(.hops[]; .netns_name == "'"$PP_NS_B"'"))
	| "reply \(.id): \([.hops[] | "\(.func)@\(.netns_name)"] | join(" "))"'
pp_expect_eq "echo requests printed" \
	"$(pp_jq "$out" '[packets[] | select(.pkt.icmp_type == 8)] | length')" "$count"
pp_expect_eq "echo replies printed (ping received $got)" \
	"$(pp_jq "$out" '[packets[] | select(.pkt.icmp_type == 0)] | length')" "$got"
late=$(grep -c 'after the packet was printed\|after their packet was printed' \
	"$(pp_err tracer)" || true)
pp_expect_eq "records that came after their packet was printed" "$late" 0
pp_pass
