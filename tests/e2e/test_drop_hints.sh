#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Drop diagnosis: pktpath runs in the router (tracepoint backend) while a
# sends one UDP datagram per way of being dropped there, each to its own
# port, and every drop's fate.hint must name what dropped it:
#
#   7009  nftables rule in the prerouting hook  -> "ipv4 prerouting hook"
#   7001  nftables rule in the forward hook     -> "ipv4 forward hook"
#   7002  nftables rule in the input hook       -> "ipv4 input hook"
#   7003  to the router, where nothing listens  -> "no udp socket ... port 7003"
#   7004  to a blackhole route                  -> "blackhole"
#   7005  to a prohibit route (ICMP goes back)  -> "unreachable or prohibit"
#   7006  to an address with no route           -> "no route to ..."
#   7007  from a source rp_filter refuses       -> "reverse path filter"
#   7008  1478 bytes with DF, r-eth1's MTU 1400 -> "MTU 1400 of r-eth1, its way
#                                                   out" (not r-eth0, the way in)
#
# The kernel's own counters say the same: each nftables rule counted its
# packet, the router's Udp NoPorts and Ip FragFails went up by one.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin nft

ino_r=$(pp_netns_inode "$PP_NS_R")
out=$(pp_out hints)

pp_in "$PP_NS_R" nft -f - <<'EOF'
table inet pp_hints {
	chain pre { type filter hook prerouting priority 0; udp dport 7009 counter drop; }
	chain fw { type filter hook forward priority 0; udp dport 7001 counter drop; }
	chain in { type filter hook input priority 0; udp dport 7002 counter drop; }
}
EOF
pp_in "$PP_NS_R" ip route add blackhole 198.19.9.0/24
pp_in "$PP_NS_R" ip route add prohibit 198.19.10.0/24
pp_in "$PP_NS_A" ip route add 198.19.0.0/16 via 198.18.0.254
# rp_filter: a sends to b's subnet from an address of b's subnet, which the
# router's route back reaches through r-eth1, not r-eth0 where it came in.
pp_in "$PP_NS_A" ip addr add 198.18.1.77/32 dev a-eth0
pp_in "$PP_NS_A" ip route add 198.18.1.3/32 via 198.18.0.254 src 198.18.1.77
pp_in "$PP_NS_R" sysctl -q -w net.ipv4.conf.all.rp_filter=1 net.ipv4.conf.r-eth0.rp_filter=1
noports=$(ppr_snmp "$PP_NS_R" Udp NoPorts)
# Too big for the way out: UDP sockets set DF (IP_PMTUDISC_WANT, the path's MTU unknown).
pp_in "$PP_NS_R" ip link set r-eth1 mtu 1400
fragfails=$(ppr_snmp "$PP_NS_R" Ip FragFails)

pp_pktpath_start hints "$PP_NS_R" --json --backend tracepoint -c 9 \
	--filter "udp and dst portrange 7001-7009"
for to in 198.18.0.254:7009 198.18.1.2:7001 198.18.0.254:7002 198.18.0.254:7003 \
	198.19.9.1:7004 198.19.10.1:7005 198.19.200.1:7006 198.18.1.3:7007; do
	ppr_udp_send "$PP_NS_A" "${to%:*}" "${to#*:}" 1
done
# One write of 1450 bytes: a datagram of 1478.
# shellcheck disable=SC2016 # expanded by the inner bash
pp_in "$PP_NS_A" bash -c 'head -c 1450 /dev/zero >/dev/udp/198.18.1.2/7008' ||
	pp_fail "the 1450-byte datagram was not sent"
pp_pktpath_wait hints 15
pp_expect_eq "pktpath exit status" "$PP_RC" 0
pp_expect_json_lines "$out" "pktpath --json output"
pp_expect_eq "packets printed" "$(pp_jq "$out" 'packets | length')" 9

# hint_of PORT: the hint of the packet to PORT ("" if it was not dropped).
hint_of() {
	pp_jq "$out" "[packets[] | select(.pkt.dport == $1)] | first | .fate.hint // \"\""
}

# expect_hint PORT REASON TEXT...: that packet was dropped for REASON, in
# the router's namespace, and its hint holds each TEXT.
expect_hint() {
	local port=$1 reason=$2 h got t
	shift 2
	got=$(pp_jq "$out" "[packets[] | select(.pkt.dport == $port)] | first
		| \"\(.fate.kind) \(.fate.reason) \(.hops[-1].netns)\"")
	pp_expect_eq "port $port: fate, reason, netns of the drop" "$got" "dropped $reason $ino_r"
	h=$(hint_of "$port")
	for t in "$@"; do
		[[ $h == *"$t"* ]] || pp_fail "port $port: hint without '$t': $h"
	done
	pp_log "port $port: $h"
}

expect_hint 7009 NETFILTER_DROP "netfilter's ipv4 prerouting hook dropped it" \
	"under nf_hook_slow called by ip_rcv" "on r-eth0, netns $PP_NS_R"
expect_hint 7001 NETFILTER_DROP "netfilter's ipv4 forward hook dropped it" \
	"under nf_hook_slow called by ip_forward"
expect_hint 7002 NETFILTER_DROP "netfilter's ipv4 input hook dropped it" \
	"under nf_hook_slow called by ip_local_deliver"
expect_hint 7003 NO_SOCKET "no udp socket is bound to port 7003 of 198.18.0.254 in netns" \
	"$PP_NS_R; an ICMP error went back to 198.18.0.1 (NO_SOCKET at __udp4_lib_rcv"
expect_hint 7004 NOT_SPECIFIED "the route to 198.19.9.1 in netns $PP_NS_R is an error route:" \
	"blackhole, as no ICMP error was sent" "at ip_error"
expect_hint 7005 NOT_SPECIFIED "the route to 198.19.10.1 in netns $PP_NS_R is an error route:" \
	"unreachable or prohibit (an ICMP error went back"
expect_hint 7006 IP_INNOROUTES "no route to 198.19.200.1 in netns $PP_NS_R"
expect_hint 7007 IP_RPFILTER "reverse path filter: in netns $PP_NS_R the route back to" \
	"198.18.1.77 does not leave by r-eth0"
expect_hint 7008 PKT_TOO_BIG "its 1478 bytes are more than the MTU 1400 of r-eth1, its way out," \
	"may not be fragmented" "went back to 198.18.0.1" "at ip_forward on r-eth0"

# The kernel's counters: each rule dropped one packet, one UDP had no port.
for chain in pre fw in; do
	n=$(pp_in "$PP_NS_R" nft -j list chain inet pp_hints "$chain" |
		jq '[.nftables[] | .rule? // empty | .expr[] | .counter? // empty | .packets] | add')
	pp_expect_eq "nft counter of chain $chain" "$n" 1
done
pp_expect_eq "Udp NoPorts in the router" "$(ppr_snmp "$PP_NS_R" Udp NoPorts)" \
	"$((noports + 1))"
pp_expect_eq "Ip FragFails in the router" "$(ppr_snmp "$PP_NS_R" Ip FragFails)" \
	"$((fragfails + 1))"
pp_expect_summary "$out"
pp_pass
