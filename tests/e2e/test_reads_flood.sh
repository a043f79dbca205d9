#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A read is a read at any rate (issue 36, goal 3): a UDP flood from a to a
# reader in b, the sender on CPU 0 and the reader on CPU 1, traced in b on
# the tracepoint backend. The reader's receive call hands each datagram to
# skb_attempt_defer_free(), which frees it on CPU 0 (skb:consume_skb in its
# next NAPI poll) while the call's end (sock:sock_recv_length) sends the
# read's END on CPU 1: the two race. Before, the read's END came after the
# packet was printed ("N records came after their packet was printed") or
# was never sent, and the datagram ended consumed with no "read by".
#
# Against the kernel's and the reader's counts, never pktpath's own: every
# datagram b's UDP took (/proc/net/snmp Udp InDatagrams), all of which the
# reader read (it says how many), ends consumed and read by the reader; no
# record comes after its packet was printed.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin taskset
ppr_topo_quiet

flood=""
pp_test_tool flood udp_flood
n=20000 pps=5000 port=9003

pp_bg sink "$PP_NS_B" taskset -c 1 "$flood" sink "$port"
pp_wait_line sink '^udp_flood: listening' 10
in0=$(ppr_snmp "$PP_NS_B" Udp InDatagrams)

out=$(pp_out rflood)
pp_pktpath_start rflood "$PP_NS_B" --json --backend tracepoint --packet-timeout 10 \
	--filter "udp port $port"
pp_in "$PP_NS_A" taskset -c 0 "$flood" send 198.18.1.2 "$n" "$pps" "$port" \
	>"$PP_TMP/send.out" 2>&1 || pp_fail "flood failed: $(pp_brief_tail 2 "$PP_TMP/send.out")"
pp_pktpath_settle rflood 60
pp_pktpath_stop rflood INT
pp_expect_eq "pktpath exit status" "$PP_RC" 0
pp_stop sink INT
indgrams=$(($(ppr_snmp "$PP_NS_B" Udp InDatagrams) - in0))
received=$(awk '/^received/ { print $2 }' "$(pp_out sink)")

pp_expect_json_lines "$out" "pktpath --json output"
pp_expect_summary "$out"
lost=$(jq -r '.lost' <<<"$PP_SUMMARY")
# One pass, not slurped: the file is large.
read -r nread unread < <(jq -n -r 'reduce (inputs | select(.fate.kind == "consumed")) as $p
	([0, 0]; if $p.fate.read.comm == "udp_flood" then .[0] += 1
		elif $p.fate.read then . else .[1] += 1 end) | "\(.[0]) \(.[1])"' "$out")
pp_log "kernel: Udp InDatagrams $indgrams, reader read $received; pktpath: read by" \
	"udp_flood $nread, consumed without a read $unread, records lost $lost"
pp_expect_eq "the reader read all that b's UDP took" "$received" "$indgrams"
# A full ring loses records (counted, said): the count below needs them all.
pp_expect_eq "records lost to a full ring" "$lost" 0
pp_expect_eq "datagrams consumed without a read" "$unread" 0
pp_expect_eq "datagrams read by udp_flood" "$nread" "$indgrams"
if grep -E 'came after (the|their) packet was printed' "$(pp_err rflood)" >"$PP_TMP/late.txt"; then
	pp_fail "records came after their packet was printed: $(head -3 "$PP_TMP/late.txt")"
fi
pp_pass
