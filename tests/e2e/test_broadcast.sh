#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A broadcast the host drops while a copy reaches a reader in a container,
# on the tracepoint backend: namespaces s (sender) and c (a reader, udp_flood
# sink) on the bridge br0 of namespace h, which has an address on br0 and
# no socket on the port. pktpath runs in h. The bridge floods a clone of
# each broadcast to c and passes the original up to h's UDP, which drops it
# (no socket: __udp4_lib_mcast_deliver(), Udp IgnoredMulti). Each broadcast
# is one packet that ends consumed, read by the reader in c, with the host's
# skb dropped: as many packets as s sent, as many read as c counted, as many
# host drops as h's IgnoredMulti grew. Before reads on the tracepoint
# backend, such a packet ended "end not seen" (the reader's copy freed in
# udp_recvmsg(), where no tracepoint fires).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_setup
pp_require_pktpath
flood=""
pp_test_tool flood udp_flood

pfx=ppe-bcast-$$
NS_H=$pfx-h NS_S=$pfx-s NS_C=$pfx-c PORT=5555 N=50
for ns in "$NS_H" "$NS_S" "$NS_C"; do
	ip netns add "$ns"
	pp_defer ip netns delete "$ns"
	pp_in "$ns" ip link set lo up
done
pp_in "$NS_H" ip link add br0 type bridge
pp_in "$NS_H" ip addr add 198.18.30.1/24 brd + dev br0
pp_in "$NS_H" ip link set br0 up
# port NS HOST-SIDE ADDR: NS's eth0 on the bridge.
port() {
	pp_in "$NS_H" ip link add "$2" type veth peer name eth0 netns "$1"
	pp_in "$NS_H" ip link set "$2" master br0 up
	pp_in "$1" ip addr add "$3/24" brd + dev eth0
	pp_in "$1" ip link set eth0 up
}
port "$NS_S" s-h 198.18.30.2
port "$NS_C" c-h 198.18.30.3

# h's count of UDP datagrams to a broadcast or multicast address no socket took.
ignored() {
	# shellcheck disable=SC2016 # an awk program
	pp_in "$NS_H" awk '$1 == "Udp:" && !h { for (i = 2; i <= NF; i++) if ($i == "IgnoredMulti") c = i;
		h = 1; next } $1 == "Udp:" { print $c }' /proc/net/snmp
}

pp_bg sink "$NS_C" "$flood" sink "$PORT"
pp_wait_line sink '^udp_flood: listening' 10
before=$(ignored)
pp_pktpath_start bcast "$NS_H" --json --backend tracepoint --packet-timeout 10 \
	--filter "udp port $PORT"
pp_in "$NS_S" "$flood" send 198.18.30.255 "$N" 100 "$PORT" >"$PP_TMP/send.out"
pp_pktpath_settle bcast 60
pp_pktpath_stop bcast INT
pp_stop sink INT
pp_expect_eq "exit status" "$PP_RC" 0
out=$(pp_out bcast)
pp_expect_json_lines "$out" "output"
pp_expect_summary "$out"

sent=$(awk '/^sent/ { n += $2 } END { print n + 0 }' "$PP_TMP/send.out")
read=$(awk '/^received/ { print $2 }' "$(pp_out sink)")
dropped=$(($(ignored) - before))
pp_log "sent $sent, the reader read $read, h ignored $dropped;" \
	"$(pp_jq "$out" '[packets[] | "\(.fate.kind) read by \(.fate.read.comm // "-")"]
		| group_by(.) | map("\(length) \(.[0])") | join(", ")')"
pp_expect_eq "datagrams sent" "$sent" "$N"
pp_expect_eq "datagrams the reader read" "$read" "$N"
pp_expect_eq "datagrams h's UDP ignored" "$dropped" "$N"
pp_expect_eq "packets printed" "$(pp_jq "$out" 'packets | length')" "$N"
pp_expect_none "a broadcast not consumed by the reader" "$out" '
	packets[] | select(.fate.kind != "consumed" or .fate.read.comm != "udp_flood")
	| "\(pkt_str): \(.fate | tojson); \(path_str)"'
pp_expect_none "a broadcast without the host copy dropped" "$out" '
	packets[] | select(any(.skbs[]?; .fate.kind == "dropped") | not)
	| "\(pkt_str): skbs \([.skbs[]? | .fate.kind]); \(path_str)"'
pp_pass
