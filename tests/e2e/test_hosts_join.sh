#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# One packet across hosts: two routers in series, r1 (SNAT, masquerade on
# its way out, and 20 % of the datagrams dropped in its forward chain) and
# r2, between a and b. Two pktpath runs in the root namespace, each scoped
# to one router (--netns) with a host name of its own (--host-name), act as
# two hosts. a sends 60 UDP datagrams of distinct bytes to b; tcpdump on
# r2-eth0 counts those that crossed r1 into r2. Then `pktpath report
# node1.jsonl node2.jsonl --json`:
# - joins exactly that many packets, each of two parts: node1's then
#   node2's, the first from a's address, the second from r1's (after NAT),
#   with the same UDP payload (the --snaplen bytes of each part): none
#   joined wrongly;
# - the datagrams r1 dropped are node1's parts alone; node2 has none alone;
# - one clock: no skew flagged. node2's file shifted 10 ms into the past:
#   every joined packet flagged, by the path order (node1's part left into
#   r2's namespace, where node2's part is, though it now starts later).
# Before this, --netns, --host-name and a report of several files were
# unknown (exit 2).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_setup
pp_require_pktpath
pp_require_cmd nft tcpdump timeout

prefix=ppe-hosts-join-$$
ns_a=$prefix-a ns_r1=$prefix-r1 ns_r2=$prefix-r2 ns_b=$prefix-b
for ns in "$ns_a" "$ns_r1" "$ns_r2" "$ns_b"; do
	ip netns add "$ns"
	pp_defer ip netns delete "$ns"
	pp_in "$ns" ip link set lo up
done
# link NS1 DEV1 NS2 DEV2: a veth pair between two namespaces.
link() {
	ip link add "$2" netns "$1" type veth peer name "$4" netns "$3"
	pp_in "$1" ip link set "$2" up
	pp_in "$3" ip link set "$4" up
}
link "$ns_a" a-eth0 "$ns_r1" r1-eth0
link "$ns_r1" r1-eth1 "$ns_r2" r2-eth0
link "$ns_r2" r2-eth1 "$ns_b" b-eth0
pp_in "$ns_a" ip addr add 198.18.0.1/24 dev a-eth0
pp_in "$ns_r1" ip addr add 198.18.0.254/24 dev r1-eth0
pp_in "$ns_r1" ip addr add 198.18.2.1/24 dev r1-eth1
pp_in "$ns_r2" ip addr add 198.18.2.2/24 dev r2-eth0
pp_in "$ns_r2" ip addr add 198.18.1.254/24 dev r2-eth1
pp_in "$ns_b" ip addr add 198.18.1.2/24 dev b-eth0
pp_in "$ns_a" ip route add default via 198.18.0.254
pp_in "$ns_r1" ip route add 198.18.1.0/24 via 198.18.2.2
pp_in "$ns_b" ip route add default via 198.18.1.254
for ns in "$ns_r1" "$ns_r2"; do
	pp_in "$ns" sysctl -qw net.ipv4.ip_forward=1
done
pp_in "$ns_r1" nft -f - <<'NFT'
table ip pphj {
	chain postrouting {
		type nat hook postrouting priority srcnat; policy accept;
		oifname "r1-eth1" masquerade
	}
	chain forward {
		type filter hook forward priority filter; policy accept;
		udp dport 9999 numgen random mod 100 < 20 counter drop
	}
}
NFT
pp_in "$ns_a" ping -n -q -c 1 -w 5 198.18.1.2 >/dev/null ||
	pp_fail "a cannot reach b through r1 and r2"

filter="udp and dst port 9999"
# node NAME NS: pktpath in the root namespace scoped to NS as host NAME.
node() {
	env --default-signal=INT,QUIT "$PKTPATH" --json --snaplen 128 --backend tracepoint \
		--netns "$2" --host-name "$1" --filter "$filter" \
		</dev/null >"$(pp_out "$1")" 2>"$(pp_err "$1")" &
	PP_PIDS[$1]=$!
	pp_defer _pp_reap "$1"
	pp_wait_line "$1" '^pktpath: ready' "$PP_READY_TIMEOUT"
}
node node1 "$ns_r1"
node node2 "$ns_r2"
pp_bg tcpdump "$ns_r2" tcpdump -i r2-eth0 -n -U --immediate-mode -w "$PP_TMP/r2.pcap" \
	"$filter"
pp_wait_line tcpdump 'listening on' 20

sent=60
# shellcheck disable=SC2016 # expanded by the inner bash
pp_in "$ns_a" bash -c 'for ((i = 0; i < $1; i++)); do
	printf "datagram %04d of the join test" "$i" >/dev/udp/198.18.1.2/9999; sleep 0.01; done' \
	send "$sent"
pp_pktpath_settle node1 15
pp_pktpath_settle node2 15
pp_wait_pcap "$PP_TMP/r2.pcap" 1
pp_stop tcpdump
pp_pktpath_stop node1
pp_expect_eq "node1 exit status" "$PP_RC" 0
pp_pktpath_stop node2
pp_expect_eq "node2 exit status" "$PP_RC" 0
crossed=$(tcpdump -r "$PP_TMP/r2.pcap" -n 2>/dev/null | wc -l)
n1=$(pp_jq "$(pp_out node1)" 'packets | length')
n2=$(pp_jq "$(pp_out node2)" 'packets | length')
pp_log "sent $sent, node1 saw $n1, crossed into r2 (tcpdump) $crossed, node2 saw $n2"
pp_expect_eq "node1's packets (every datagram sent)" "$n1" "$sent"
if [ "$crossed" -eq 0 ] || [ "$crossed" -ge "$sent" ]; then
	pp_fail "r1's random drop should leave some, not all: $crossed of $sent crossed"
fi
pp_expect_eq "node2's packets (tcpdump on r2-eth0)" "$n2" "$crossed"

joined=$PP_TMP/joined.jsonl
"$PKTPATH" report "$(pp_out node1)" "$(pp_out node2)" --json >"$joined" 2>"$PP_TMP/report.err" ||
	pp_fail "report of two files failed: $(pp_brief 2 "$PP_TMP/report.err")"
pp_expect_json_lines "$joined" "report --json output"
n=$(pp_jq "$joined" '[.[] | select(has("joined"))] | length')
pp_expect_eq "joined packets (tcpdump's count on r2-eth0)" "$n" "$crossed"
# The UDP payload from the part's head: Ethernet 14, IPv4 20, UDP 8 bytes.
# shellcheck disable=SC2016 # jq program
pp_expect_none "a packet joined wrongly" "$joined" '
	def payload: .head[84:];
	.[] | select(has("joined")) | .joined
	| select((.parts | length) != 2
		or [.parts[].host.name] != ["node1", "node2"]
		or .parts[0].pkt.src != "198.18.0.1" or .parts[1].pkt.src != "198.18.2.1"
		or (.parts[0] | payload) != (.parts[1] | payload))
	| "key \(.key): \([.parts[] | "\(.host.name) \(.pkt.src) \(.head[84:])"])"'
s=$(pp_jq "$joined" '.[-1].join_summary | "\(.hosts) \(.alone) \(.clock_skew)"')
pp_expect_eq "hosts, parts alone, clock skews" "$s" "2 $((sent - crossed)) 0"

# node2's clock 10 ms behind: its parts start before node1's end.
jq -c 'if has("real_ns") then .real_ns -= 10000000 else . end' "$(pp_out node2)" \
	>"$PP_TMP/node2-behind.jsonl"
"$PKTPATH" report "$(pp_out node1)" "$PP_TMP/node2-behind.jsonl" --json >"$PP_TMP/skew.jsonl" ||
	pp_fail "report of the shifted files failed"
s=$(pp_jq "$PP_TMP/skew.jsonl" '.[-1].join_summary | "\(.joined) \(.clock_skew)"')
pp_expect_eq "joined, flagged with node2 10 ms behind" "$s" "$crossed $crossed"
# In time node2's part now comes first; but node1's part left into r2, node2's
# namespace, so it came first: flagged by the path order.
# shellcheck disable=SC2016 # jq program
pp_expect_none "a flag not by the path order" "$PP_TMP/skew.jsonl" '
	.[] | select(has("joined")) | .joined
	| select(.skew_by != "path order" or [.parts[].host.name] != ["node2", "node1"])
	| "key \(.key): skew_by \(.skew_by), hosts \([.parts[].host.name])"'
pp_pass
