#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TCP retransmissions, each its own packet, on the tracepoint backend. TCP
# transmits a clone of the segment it keeps for retransmission, in a slot
# beside the original (an fclone): a retransmission gets the same sk_buff
# address as the first transmission. Without kprobes the receiver frees the
# first clone where no tracepoint fires (a read skb goes to the NAPI
# cache), so that address still belongs to the first packet when the
# retransmission reaches the sender's device.
#
# iperf3 sends from a to b; the router drops b's packets to a (nftables,
# forward hook) until a's kernel has retransmitted (nstat TcpRetransSegs:
# the retransmission timer fires on data left unacknowledged, so this
# happens by construction), then lets them through. pktpath traces
# "tcp port 5201" in the router. Required:
#   - no packet's own skb has a hop in the namespace it came from: the
#     router marks it when it arrives, after its sender is done with it;
#     such hops are a later packet's;
#   - each packet crosses the router's ingress once;
#   - every packet the router forwarded or dropped is printed, once (nft
#     counters), the drops with the rule's reason;
#   - the retransmissions are among them: packets that repeat an earlier
#     segment's sequence number, no more than a's kernel retransmitted.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin iperf3 nft nstat ss

# The counters count from before pktpath starts; no traffic flows until the client does.
pp_in "$PP_NS_R" nft -f - <<'NFT'
table ip pp_retx {
	counter from_a {}
	counter from_b {}
	counter dropped {}
	chain forward {
		type filter hook forward priority 0; policy accept;
		ip saddr 198.18.0.1 tcp dport 5201 counter name "from_a"
		ip saddr 198.18.1.2 tcp sport 5201 counter name "from_b"
	}
}
NFT
pp_defer ip netns exec "$PP_NS_R" nft delete table ip pp_retx

# counter NAME: packets nft counter NAME counted.
counter() {
	pp_in "$PP_NS_R" nft -j list counter ip pp_retx "$1" |
		jq '.nftables[] | .counter? // empty | .packets'
}

# retransmitted: segments a's kernel retransmitted so far.
retransmitted() {
	pp_in "$PP_NS_A" nstat -asz TcpRetransSegs | awk '$1 == "TcpRetransSegs" { print $2 }'
}

out=$(pp_out tracer)
pp_pktpath_start tracer "$PP_NS_R" --json --backend tracepoint --packet-timeout 10 \
	--filter "tcp port 5201"
pp_bg server "$PP_NS_B" iperf3 -s -1
for ((i = 0; i < 300; i++)); do
	[ -z "$(pp_in "$PP_NS_B" ss -Hltn 'sport = :5201')" ] || break
	sleep 0.1
done
before=$(retransmitted)
pp_bg client "$PP_NS_A" iperf3 -c 198.18.1.2 -b 4M -n 1M -l 8K -4
# Data flowing (a's packets forwarded), then b's dropped until a retransmits.
for ((i = 0; i < 300; i++)); do
	[ "$(counter from_a)" -lt 40 ] || break
	sleep 0.1
done
handle=$(pp_in "$PP_NS_R" nft --echo --handle insert rule ip pp_retx forward \
	ip saddr 198.18.1.2 tcp sport 5201 counter name dropped drop | sed -n 's/.*# handle //p')
[ -n "$handle" ] || pp_fail "could not add the drop rule"
for ((i = 0; i < 300; i++)); do
	[ "$(retransmitted)" -lt $((before + 3)) ] || break
	sleep 0.1
done
pp_in "$PP_NS_R" nft delete rule ip pp_retx forward handle "$handle"
retx=$(($(retransmitted) - before))
[ "$retx" -ge 3 ] || pp_fail "a retransmitted $retx segments in 30 s with the ACKs dropped"
pp_pktpath_wait client 60 # any background process: iperf3 here
pp_expect_eq "iperf3's client exit status" "$PP_RC" 0
pp_stop server INT
pp_pktpath_done tracer

# TCP may retransmit again after the drop rule is gone (one run: 43440
# bytes of a 65160-byte segment, refused by b as TCP_OLD_SEQUENCE), so the
# upper bound below counts to the end of the transfer.
retx=$(($(retransmitted) - before))
from_a=$(counter from_a) from_b=$(counter from_b) dropped=$(counter dropped)
pp_log "a retransmitted $retx segments; the router forwarded $from_a from a," \
	"$from_b from b and dropped $dropped from b; summary $PP_SUMMARY"
ns_a=$(pp_netns_inode "$PP_NS_A") ns_b=$(pp_netns_inode "$PP_NS_B")
# shellcheck disable=SC2016 # jq programs
pp_expect_none "a packet's own skb back in the namespace it came from" "$out" '
	packets[] | .hops[0].skb as $s
	| (if .marked_at.ifname == "r-eth0" then '"$ns_a"' else '"$ns_b"' end) as $from
	| select(any(.hops[]; .skb == $s and .netns == $from))
	| "packet \(.id) from \(.marked_at.ifname): \(path_str)"'
pp_expect_none "a packet crossing a router ingress twice" "$out" '
	packets[] | select([.hops[] | select(.func == "tc:ingress")] | length != 1)
	| "packet \(.id): \(path_str)"'
printed_a=$(pp_jq "$out" '[packets[] | select(.marked_at.ifname == "r-eth0")] | length')
printed_b=$(pp_jq "$out" '[packets[] | select(.marked_at.ifname == "r-eth1")] | length')
printed_drops=$(pp_jq "$out" '[packets[] | select(.fate.reason == "NETFILTER_DROP")] | length')
# Said before the count below, so that a failing run shows the packet.
pp_expect_none "a packet from b that neither reached a nor was dropped by the rule" "$out" '
	packets[] | select(.marked_at.ifname == "r-eth1" and .fate.reason != "NETFILTER_DROP")
	| select(all(.hops[]; .netns != '"$ns_a"'))
	| "packet \(.id) (\(.fate | tojson)): \(path_str)"'
pp_expect_eq "packets from a printed ($from_a forwarded)" "$printed_a" "$from_a"
pp_expect_eq "packets from b printed ($from_b forwarded, $dropped dropped)" \
	"$printed_b" "$((from_b + dropped))"
pp_expect_eq "packets printed as dropped by the rule ($dropped dropped)" "$printed_drops" "$dropped"
# A retransmission repeats its segment's sequence number (the JSON's tcp_seq).
again=$(pp_jq "$out" '[packets[] | select(.marked_at.ifname == "r-eth0" and .pkt.tcp_len > 0)
	| [.pkt.sport, .pkt.tcp_seq]] | length - (unique | length)')
pp_log "$again packets from a repeat an earlier segment's sequence number"
if [ "$again" -lt 1 ] || [ "$again" -gt "$retx" ]; then
	pp_fail "$again packets repeat a segment, with $retx retransmitted"
fi
pp_pass
