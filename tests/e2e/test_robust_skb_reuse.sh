#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# One datagram, one packet: under a steady UDP flow to a socket, every
# datagram is reported once, on its own, even though the kernel recycles
# sk_buff structures (the next datagram often gets the address of one just
# freed) and does not always free them where consume_skb or kfree_skb fire.
#
# iperf3 sends 2000 UDP datagrams of 1000 bytes from host a to a server on
# host b; pktpath traces "udp and dst port 5201" in the router. Required:
#   - no packet has two tc:ingress hops on r-eth0: each datagram crosses
#     it once, so two mean two datagrams were filed as one packet (the
#     second reused the first's skb address while the first was still in
#     skb_map);
#   - no packet has hops in host a's namespace: the router marks it on
#     r-eth0 ingress, after host a is done with it, so such hops belong
#     to a later datagram in a reused skb;
#   - exactly 2000 packets of 1042 bytes (the data datagrams) are printed,
#     and nothing was lost to the ring buffer.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin iperf3 ss

count=2000
out=$(pp_out tracer)
pp_pktpath_start tracer "$PP_NS_R" --json --filter "udp and dst port 5201"
pp_bg server "$PP_NS_B" iperf3 -s -1 -J
# Listening (30 s at most: it only bounds a failure).
for ((i = 0; i < 300; i++)); do
	[ -z "$(pp_in "$PP_NS_B" ss -Hltn 'sport = :5201')" ] || break
	sleep 0.1
done
pp_in "$PP_NS_A" iperf3 -c 198.18.1.2 -u -b 20M -l 1000 -n $((count * 1000)) -J \
	>"$PP_TMP/iperf.json" 2>&1 || pp_fail "iperf3 failed: $(pp_brief 2 "$PP_TMP/iperf.json")"
pp_stop server INT
# What the client sent, not what the server counted: the server stops
# counting when the test ends, and a datagram still in flight then is
# missing from its count (seen: 1999 received, 0 lost), yet crossed the router.
got=$(jq -r '.end.sum_sent.packets' "$PP_TMP/iperf.json")
pp_expect_eq "datagrams iperf3's client sent" "$got" "$count"
# Every packet closes (freed, or timed out after 1 s) before SIGINT.
pp_pktpath_done tracer

# shellcheck disable=SC2016 # jq programs
pp_expect_none "two datagrams filed as one packet" "$out" '
	packets[] | select([.hops[] | select(.func == "tc:ingress" and .ifname == "r-eth0")] | length > 1)
	| "packet \(.id): \([.hops[] | select(.func == "tc:ingress")] | length) tc:ingress hops on r-eth0,"
	  + " \(.hops | length) hops, fate \(.fate.kind)"'
pp_expect_none "hops from host a (before the router marked it) in a packet" "$out" '
	packets[] | select(any(.hops[]; .ifname == "a-eth0"))
	| "packet \(.id): \([.hops[] | select(.ifname == "a-eth0") | .func] | join(" ")) on a-eth0"'
n=$(pp_jq "$out" '[packets[] | select(.len == 1042)] | length')
pp_expect_eq "data datagrams reported as packets" "$n" "$count"
pp_pass
