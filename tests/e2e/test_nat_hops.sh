#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A docker-like host, on the tracepoint backend: a bridge br0 in a "host"
# namespace, two "containers" on veths into it (c1-h, c2-h), masquerade
# (nftables) out of an uplink veth (up0) to a "server" namespace running
# python3's http.server. Both containers fetch a file. pktpath runs in the
# host namespace with a filter on container 1's address and the server's
# port, and on the masqueraded replies at the uplink:
#   (host C1 and tcp port 8000) or (dst host UP and tcp src port 8000)
# After the masquerade container 1's packets no longer match; the replies
# match on the uplink and, after conntrack undid the NAT, only those for
# container 1 do. Required:
#   - every packet of container 1 to the server (nft counter in the host's
#     forward chain) is printed, with its TC hop at up0 egress, and that hop
#     says "now UP.port > SERVER.8000" (JSON: the hop's pkt);
#   - every reply (nft counter in the server's output chain) is printed,
#     marked at up0 ingress, with its TC hop on the egress of its
#     container's veth, and that hop shows the un-NATed destination;
#   - the text output says "now" on the same hops;
#   - with tcpdump capturing on br0, up0 and c1-h, and a 1 MB fetch and 20
#     small requests from container 1: no skb address freed more often
#     than the packet's skbs hold it, nor read more often (tcpdump's two
#     copies of a reply to c1 often share one address, 153 of 153 in a
#     run), no fate decided by a tap's copy, and no more tap copies per
#     interface than the frames tcpdump captured there (nor per packet
#     than captured devices it left by). Before 160153b, 156 of 363
#     packets had one copy freed twice.
# On a classifier that records a hop only where the filter matches, the
# first check fails: no packet of container 1 has its up0 egress hop.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_setup
pp_require_pktpath
pp_require_cmd nft python3 curl ss

pfx=ppe-nat-$$
NS_H=$pfx-h NS_C1=$pfx-c1 NS_C2=$pfx-c2 NS_S=$pfx-s
C1=198.18.10.2 C2=198.18.10.3 UP=198.18.20.1 SRV=198.18.20.2
for ns in "$NS_H" "$NS_C1" "$NS_C2" "$NS_S"; do
	ip netns add "$ns"
	pp_defer ip netns delete "$ns"
	pp_in "$ns" ip link set lo up
done
pp_in "$NS_H" ip link add br0 type bridge
pp_in "$NS_H" ip addr add 198.18.10.1/24 dev br0
pp_in "$NS_H" ip link set br0 up
# container NS HOST-SIDE ADDR: a veth from NS into the bridge.
container() {
	pp_in "$NS_H" ip link add "$2" type veth peer name eth0 netns "$1"
	pp_in "$NS_H" ip link set "$2" master br0 up
	pp_in "$1" ip addr add "$3/24" dev eth0
	pp_in "$1" ip link set eth0 up
	pp_in "$1" ip route add default via 198.18.10.1
}
container "$NS_C1" c1-h "$C1"
container "$NS_C2" c2-h "$C2"
pp_in "$NS_H" ip link add up0 type veth peer name eth0 netns "$NS_S"
pp_in "$NS_H" ip addr add "$UP/24" dev up0
pp_in "$NS_H" ip link set up0 up
pp_in "$NS_S" ip addr add "$SRV/24" dev eth0
pp_in "$NS_S" ip link set eth0 up
pp_in "$NS_H" sysctl -qw net.ipv4.ip_forward=1
# The server has no route back to the containers: only the masquerade
# makes the transfer work.
pp_in "$NS_H" nft -f - <<NFT
table ip pp_nat {
	counter c1_out {}
	chain post {
		type nat hook postrouting priority 100; policy accept;
		oifname "up0" ip saddr 198.18.10.0/24 masquerade
	}
	chain count_fw {
		type filter hook forward priority 0; policy accept;
		ip saddr $C1 tcp dport 8000 counter name "c1_out"
	}
}
NFT
pp_in "$NS_S" nft -f - <<'NFT'
table ip pp_srv {
	counter replies {}
	chain out {
		type filter hook output priority 0; policy accept;
		tcp sport 8000 counter name "replies"
	}
}
NFT
pp_log "docker-like host $NS_H: $NS_C1, $NS_C2 on br0, masquerade out of up0 to $NS_S"

mkdir -p "$PP_TMP/www"
head -c 1000000 /dev/urandom >"$PP_TMP/www/blob"
echo small >"$PP_TMP/www/small"
pp_bg server "$NS_S" python3 -m http.server 8000 --bind "$SRV" --directory "$PP_TMP/www"
for ((i = 0; i < 100; i++)); do
	[ -z "$(pp_in "$NS_S" ss -Hltn 'sport = :8000')" ] || break
	sleep 0.1
done

# tcpdump captures on the bridge, the uplink and container 1's veth, as on
# a docker host where someone looks: its packet sockets get copies of the
# packets pktpath tracks.
for dev in br0 up0 c1-h; do
	# -s 128: headers only, so that its ring (-B, KiB) holds every frame
	# of the transfer (64 KB GSO frames filled the default 2 MB ring).
	pp_bg "tcpdump-$dev" "$NS_H" tcpdump -i "$dev" -n -U --immediate-mode -s 128 -B 8192 \
		-w "$PP_TMP/$dev.pcap" tcp port 8000
	pp_wait_line "tcpdump-$dev" 'listening on' 20
done

filter="(host $C1 and tcp port 8000) or (dst host $UP and tcp src port 8000)"
out=$(pp_out json) txt=$(pp_out text) conv=$(pp_out conv)
pp_pktpath_start json "$NS_H" --json --backend tracepoint --filter "$filter"
pp_pktpath_start text "$NS_H" --backend tracepoint --filter "$filter"
# As a user filtering on the container: its replies enter up0 addressed to
# the masquerade address, which the filter does not match.
pp_pktpath_start conv "$NS_H" --json --backend tracepoint --filter "host $C1"
for ns in "$NS_C1" "$NS_C2"; do
	pp_in "$ns" curl -sS --max-time 20 -o "$PP_TMP/got-$ns" "http://$SRV:8000/blob" ||
		pp_fail "curl from $ns failed"
	cmp -s "$PP_TMP/www/blob" "$PP_TMP/got-$ns" || pp_fail "$ns fetched a different file"
done
# Small requests, each a connection of its own: handshakes, FINs, short
# replies.
for ((i = 0; i < 20; i++)); do
	pp_in "$NS_C1" curl -sS --max-time 5 -o /dev/null "http://$SRV:8000/small" ||
		pp_fail "small request $i from $NS_C1 failed"
done
pp_stop server INT
for dev in br0 up0 c1-h; do pp_stop "tcpdump-$dev"; done
pp_pktpath_settle json 30
pp_pktpath_settle text 30
pp_pktpath_settle conv 30
pp_pktpath_stop json INT
pp_expect_eq "pktpath --json exit status" "$PP_RC" 0
pp_pktpath_stop text INT
pp_expect_eq "pktpath (text) exit status" "$PP_RC" 0
pp_pktpath_stop conv INT
pp_expect_eq "pktpath --json --filter 'host $C1' exit status" "$PP_RC" 0
pp_expect_json_lines "$conv" "pktpath --json --filter 'host $C1' output"
pp_expect_json_lines "$out" "pktpath --json output"
pp_expect_summary "$out"
pp_expect_eq "records lost" "$(jq -r .lost <<<"$PP_SUMMARY")" 0

# counter NS TABLE NAME: packets nft counter NAME counted.
counter() {
	pp_in "$1" nft -j list counter ip "$2" "$3" | jq '.nftables[] | .counter? // empty | .packets'
}
c1_out=$(counter "$NS_H" pp_nat c1_out) replies=$(counter "$NS_S" pp_srv replies)
pp_log "forwarded from c1: $c1_out; server replies: $replies; summary $PP_SUMMARY"
[ "$c1_out" -ge 10 ] || pp_fail "only $c1_out packets from c1 forwarded"

# shellcheck disable=SC2016 # jq programs
outs='packets[] | select(.pkt.src == $c1 and .pkt.dport == 8000)'
# shellcheck disable=SC2016
ins='packets[] | select(.pkt.dst == $up and .pkt.sport == 8000)'
jqargs=(--arg c1 "$C1" --arg c2 "$C2" --arg up "$UP" --arg srv "$SRV")
n=$(pp_jq "$out" "[$outs] | length" "${jqargs[@]}")
pp_expect_eq "packets from c1 printed ($c1_out forwarded)" "$n" "$c1_out"
n=$(pp_jq "$out" "[$ins] | length" "${jqargs[@]}")
pp_expect_eq "replies printed ($replies sent by the server)" "$n" "$replies"
n=$(pp_jq "$out" 'packets | length')
pp_expect_eq "packets printed" "$n" "$((c1_out + replies))"

# shellcheck disable=SC2016
pp_expect_none "c1's packet without its masqueraded hop at up0 egress" "$out" "$outs"'
	| select([.hops[] | select(.func == "tc:egress" and .ifname == "up0"
	                          and .pkt.src == $up and .pkt.dst == $srv
	                          and .pkt.dport == 8000 and .pkt.sport != null)] | length != 1)
	| "packet \(.id): \(path_str); up0 hops \([.hops[] | select(.ifname == "up0") | .pkt])"' \
	"${jqargs[@]}"
# shellcheck disable=SC2016
pp_expect_none "a reply not marked at up0 ingress" "$out" "$ins"'
	| select(.marked_at.ifname != "up0" or .marked_at.dir != "ingress")
	| "packet \(.id): marked_at \(.marked_at | tojson)"' "${jqargs[@]}"
# The conntrack entry says which container a reply is for: its port.
# shellcheck disable=SC2016
pp_expect_none "a reply without its un-NATed hop into a container" "$out" "$ins"'
	| [.hops[] | select(.func == "tc:egress" and (.ifname == "c1-h" or .ifname == "c2-h"))]
	| select(length != 1
	         or (.[0].ifname == "c1-h") != (.[0].pkt.dst == $c1)
	         or (.[0].ifname == "c2-h") != (.[0].pkt.dst == $c2)
	         or .[0].pkt.src != $srv or .[0].pkt.sport != 8000)
	| "reply: container hops \(tojson)"' "${jqargs[@]}"
pp_expect_none "a header change shown where the headers are the mark's" "$out" '
	packets[] | select(.marked_at.ifname == "c1-h")
	| .hops[] | select(.pkt and .ifname != "up0") | "\(.func)@\(.ifname): \(.pkt)"'

# An skb address freed more often than the packet's skbs hold it: two
# copies shown as one, freed twice (the taps' copies below; before 160153b
# 149 of 369 packets); or read more often. A read's END (sock_recv_length)
# and the free's (the reader's own, or the CPU's that allocated the skb)
# may both come, as one skb's two ends (loader/paths/path.h): frees and
# reads are counted apart. With the reader's copy and its socket's ring
# both sending the read's END, 43 of 358 packets (21 of 359 in another run)
# had a segment read twice.
pp_expect_none "an skb freed or read twice" "$out" 'packets[] | ends_twice'
# tcpdump's copies. On egress dev_queue_xmit_nit() clones the skb for the
# packet sockets (whatever their filter), on ingress deliver_skb() only
# takes a reference: a tracked packet has a tap's copy at each captured
# device it leaves by: up0 (c1's packets), br0 (the replies, routed into
# the bridge) and c1-h (c1's replies, which the bridge forwards). A reply's
# two copies are made one after the other, and the slab often hands the
# first one's freed sk_buff out again for the second: each must still be
# a copy of its own, none freed twice (above),
# none deciding a fate, and no more copies than tcpdump's frames.
# Independent counters: the frames tcpdump captured on each interface.
frames() { tcpdump -r "$PP_TMP/$1.pcap" -n "${@:2}" 2>/dev/null | wc -l; }
c1_ports=$(tcpdump -r "$PP_TMP/br0.pcap" -n "src host $C1 and tcp dst port 8000" 2>/dev/null |
	sed -n "s/.* IP $C1\.\([0-9]*\) > .*/\1/p" | sort -u | paste -sd ' ')
declare -A want=([up0]=$(frames up0 "src host $UP and tcp dst port 8000 and
	(src port ${c1_ports// / or src port })") [br0]=$(frames br0 "tcp src port 8000")
	[c1-h]=$(frames c1-h "tcp src port 8000"))
# A copy's hops are those at its address from its start on (a copy before
# it may have held the address).
# shellcheck disable=SC2016 # jq program
taps_at='[packets[] | . as $p | .skbs[]? | select(.tap) | . as $k
	| first($p.hops[] | select(.skb == $k.skb and .t_ns >= $k.t_ns))
	| select(.ifname == $dev)] | length'
for dev in up0 br0 c1-h; do
	pp_expect_grep "tcpdump on $dev lost no frame" "$(pp_err "tcpdump-$dev")" '^0 packets dropped by kernel'
	n=$(pp_jq "$out" "$taps_at" --arg dev "$dev")
	pp_log "$dev: $n tap copies, tcpdump's frames of tracked packets ${want[$dev]}"
	[ "$n" -le "${want[$dev]}" ] ||
		pp_fail "$dev: $n tap copies, more than tcpdump's ${want[$dev]} frames"
	[ "$n" -gt 0 ] || pp_fail "$dev: no tap copy"
done
# shellcheck disable=SC2016 # jq program
pp_expect_none "a packet with more tap copies than captured devices it left by" "$out" \
	'packets[] | . as $p | select([.skbs[]? | select(.tap)] | length
		> ([$p.hops[] | select(.func == "tc:egress" and (.ifname | IN("br0", "up0", "c1-h")))]
		   | length))
	| "\(pkt_str): \(path_str) skbs \([.skbs[]? | {skb, tap, kind: .fate.kind}])"'
pp_expect_eq "summary: tap copies" "$(jq -r .taps <<<"$PP_SUMMARY")" \
	"$(pp_jq "$out" '[packets[].skbs[]? | select(.tap)] | length')"
n=$(pp_jq "$out" '[packets[] | select((.skbs | length) == 3 and .skbs[1].skb == .skbs[2].skb)] | length')
pp_log "packets whose two tap copies had one address: $n"
# A packet without copies (no skbs: a tap's clone not seen, as once in
# 181 at up0) has its own skb's fate.
pp_expect_none "a fate that only a tap's copy decided" "$out" \
	'packets[] | select(.skbs and .fate.kind == "consumed"
		and ([.skbs[]? | select((.tap | not) and .fate.kind == "consumed")] | length) == 0)
	| "\(pkt_str): \([.skbs[]? | {skb, tap, kind: .fate.kind}])"'

# The text output says it too, under the same hops.
# now_under HOP-ERE NOW-ERE: "now" lines matching NOW-ERE right under a hop line matching HOP-ERE.
now_under() {
	awk -v hop="$1" -v now="^ +now $2\$" '$0 ~ now && prev ~ hop { n++ } { prev = $0 }
		END { print n + 0 }' "$txt"
}
n=$(now_under " up0 +[0-9]+ tc:egress" "$UP\\.[0-9]+ > $SRV\\.8000")
pp_expect_eq "text hops at up0 egress saying 'now $UP.port > $SRV.8000'" "$n" "$c1_out"
n=$(now_under " c[12]-h +[0-9]+ tc:egress" "$SRV\\.8000 > 198\\.18\\.10\\.[23]\\.[0-9]+")
pp_expect_eq "text hops into a container saying 'now $SRV.8000 > container'" "$n" "$replies"
# The container's conversation with a filter on its address alone: every
# frame of it that tcpdump captured on up0, both ways, is a TC hop at up0 in
# pktpath's output. Its replies enter up0 addressed to the masquerade
# address, and only the rewrite of container 1's own packets at up0 egress
# says they are its: each is marked there as a reply to one of container
# 1's packets, and shows the NAT undone at c1-h. Container 2's conversation
# is not followed. Before reply_map (issue 37), the replies were first
# marked at br0 after the NAT was undone: none had its up0 hop.
up_ports="src port ${c1_ports// / or src port }"
up_out=$(frames up0 "src host $UP and dst host $SRV and tcp dst port 8000 and ($up_ports)")
up_in=$(frames up0 "src host $SRV and dst host $UP and tcp src port 8000 and (${up_ports//src/dst})")
pp_expect_summary "$conv"
pp_expect_eq "host $C1: records lost" "$(jq -r .lost <<<"$PP_SUMMARY")" 0
# shellcheck disable=SC2016 # jq program
up0_hops='[packets[].hops[] | select(.func == $f and .ifname == "up0")] | length'
n=$(pp_jq "$conv" "$up0_hops" --arg f tc:egress)
pp_expect_eq "host $C1: hops at up0 egress (tcpdump on up0: $up_out frames)" "$n" "$up_out"
n=$(pp_jq "$conv" "$up0_hops" --arg f tc:ingress)
pp_expect_eq "host $C1: replies' hops at up0 ingress (tcpdump on up0: $up_in frames)" "$n" "$up_in"
[ "$up_in" -ge 10 ] || pp_fail "tcpdump captured only $up_in replies on up0"
# shellcheck disable=SC2016 # jq program
pp_expect_none "host $C1: a hop at up0 ingress not a reply's mark" "$conv" '
	packets[] | select(any(.hops[1:][]; .ifname == "up0" and .func == "tc:ingress")
	                   or (any(.hops[0]; .ifname == "up0" and .func == "tc:ingress")
	                       and (.marked_at.reply_to | type) != "number"))
	| "\(pkt_str): marked_at \(.marked_at | tojson), \(path_str)"'
# shellcheck disable=SC2016 # jq program
pp_expect_none "host $C1: a reply to a packet not container 1's" "$conv" '
	[packets[] | {key: "\(.id)", value: .pkt.src}] | from_entries as $src
	| packets[] | select(.marked_at.reply_to)
	| select($src["\(.marked_at.reply_to)"] != $c1)
	| "\(pkt_str): reply to \(.marked_at.reply_to), from \($src["\(.marked_at.reply_to)"])"' \
	"${jqargs[@]}"
# shellcheck disable=SC2016 # jq program
pp_expect_none "host $C1: a reply without the NAT undone at c1-h egress" "$conv" '
	packets[] | select(.marked_at.reply_to)
	| select([.hops[] | select(.func == "tc:egress" and .ifname == "c1-h"
	                           and .pkt.dst == $c1 and .pkt.src == $srv)] | length != 1)
	| "\(pkt_str): \(path_str)"' "${jqargs[@]}"
# shellcheck disable=SC2016 # jq program
pp_expect_none "host $C1: container 2's traffic followed" "$conv" '
	packets[] | select(.pkt.proto == "tcp")
	| select(any(.hops[]; .ifname == "c2-h") or .pkt.dst == $c2 or .pkt.src == $c2)
	| "\(pkt_str): \(path_str)"' "${jqargs[@]}"
pp_pass
