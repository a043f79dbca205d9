#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# IP fragments, on the tracepoint backend: a sends 4000-byte UDP datagrams
# to a reader in b; a's MTU (1500) cuts each into 3 fragments, the router's
# way out (r-eth1, MTU 1000) cuts each of those into 2 again, and b
# reassembles them. pktpath runs with a scope of all three namespaces (its
# classifier on every link), twice: with a filter with ports, which only a
# first fragment can match, and with a host filter, which every fragment
# matches. Each datagram must be one packet, marked at a-eth0:
#   - its fragments that a and r cut are copies of it (as many as the
#     kernel's IpFragCreates in a and r), none "marked at" elsewhere as a
#     packet of its own;
#   - the router's originals end segmented, their data gone on in their
#     fragments, not consumed;
#   - b's fragments (as many as tcpdump saw on b-eth0) end merged into the
#     datagram (IpReasmOKs in b), which the reader reads: the packet ends
#     consumed, read by udp_flood, as often as the reader counted.
# Before frag_map (bpf/frag.bpf.h) the router's first fragments were
# packets of their own, marked at r-eth1 egress (with the host filter, every
# fragment that a or r cut), and the router's originals ended consumed.
# Then (frag_left) traced in a alone, where each fragment leaves the scope
# before a sends the next, and (frag_two) through a second router r2 that
# cuts r's fragments again. frag_left failed before PP_HOP_FRAGS (each
# packet its first fragment alone: 0 copies of 20); frag_two passed
# before too (a regression test of fragments of fragments).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin tcpdump taskset ping
ppr_topo_quiet

N=10
flood="" send=""
pp_test_tool flood udp_flood
pp_test_tool send udp_sendto
ip -n "$PP_NS_R" link set dev r-eth1 mtu 1000
ip -n "$PP_NS_B" link set dev b-eth0 mtu 1000

# frag_ts_cleared NAME: the datagrams set frag_ts, which makes the classifier
# read the clock for every untracked packet; the loader must clear it once
# older than PP_FRAG_NS (1 s). Before it did, it stayed set for good.
frag_ts_cleared() {
	local i ts
	for i in $(seq 40); do
		ts=$(pp_state_field "$1" frag_ts)
		[ "$ts" = 0 ] && return 0
		sleep 0.1
	done
	pp_fail "$1: frag_ts still $ts, 4 s after the last datagram settled"
}

# frag_end NAME: once pktpath run NAME printed every packet, frag_ts cleared,
# pktpath, its reader (sink-NAME) and tcpdump (tdump-NAME, if any) stopped;
# pktpath's exit status and JSON lines checked.
frag_end() {
	pp_pktpath_settle "$1" 60
	frag_ts_cleared "$1"
	pp_pktpath_stop "$1" INT
	pp_expect_eq "$1: exit status" "$PP_RC" 0
	pp_stop "sink-$1" INT
	[ -z "${PP_PIDS[tdump-$1]:-}" ] || pp_stop "tdump-$1" INT
	pp_expect_json_lines "$(pp_out "$1")" "$1: pktpath output"
}

# frag_case NAME PORT FILTER: N datagrams to b's reader on PORT, traced
# with FILTER; the checks above, against the kernel's counters.
frag_case() {
	local creates_a0 creates_r0 reasm_b0 creates_a creates_r reasm_b received seen_b out defs
	creates_a0=$(ppr_snmp "$PP_NS_A" Ip FragCreates)
	creates_r0=$(ppr_snmp "$PP_NS_R" Ip FragCreates)
	reasm_b0=$(ppr_snmp "$PP_NS_B" Ip ReasmOKs)

	pp_bg "sink-$1" "$PP_NS_B" "$flood" sink "$2"
	pp_wait_line "sink-$1" '^udp_flood: listening' 10
	# Fragments on b's link, as the independent count (MF set or an offset).
	pp_bg "tdump-$1" "$PP_NS_B" tcpdump --immediate-mode -n -i b-eth0 -w /dev/null 'ip[6:2] & 0x3fff != 0'
	pp_wait_line "tdump-$1" 'listening on' 10
	pp_root_start "$1" --json --backend tracepoint --packet-timeout 5 --netns "$PP_NS_A" \
		--netns "$PP_NS_R" --netns "$PP_NS_B" --filter "$3"
	pp_in "$PP_NS_A" "$send" 198.18.1.2 "$2" "$N" 4000
	# UDP frees a datagram it read later (skb_attempt_defer_free()), with
	# its frag_list, when its CPU next receives: a ping to r on each CPU,
	# which neither filter matches, so that the last datagram's end is seen.
	pp_in "$PP_NS_A" taskset -c 0 ping -q -c 2 -i 0.1 198.18.0.254 >/dev/null
	pp_in "$PP_NS_A" taskset -c 1 ping -q -c 2 -i 0.1 198.18.0.254 >/dev/null
	frag_end "$1"
	out=$(pp_out "$1")

	creates_a=$(($(ppr_snmp "$PP_NS_A" Ip FragCreates) - creates_a0))
	creates_r=$(($(ppr_snmp "$PP_NS_R" Ip FragCreates) - creates_r0))
	reasm_b=$(($(ppr_snmp "$PP_NS_B" Ip ReasmOKs) - reasm_b0))
	received=$(awk '/^received/ { print $2 }' "$(pp_out "sink-$1")")
	seen_b=$(awk '/packets captured/ { print $1 }' "$(pp_err "tdump-$1")")
	pp_log "$1: kernel: FragCreates a $creates_a, r $creates_r; ReasmOKs b $reasm_b;" \
		"tcpdump: $seen_b fragments on b-eth0; the reader received $received"
	pp_expect_eq "$1: datagrams read" "$received" "$N"
	pp_expect_eq "$1: datagrams reassembled in b" "$reasm_b" "$N"
	[ "$creates_a" -gt "$N" ] || pp_fail "$1: a cut no datagram (IpFragCreates $creates_a)"
	[ "$creates_r" -gt "$creates_a" ] || pp_fail "$1: r cut no fragment (IpFragCreates $creates_r)"

	# joined_at($p): the device where this skbs[] entry of packet $p first showed.
	# shellcheck disable=SC2016 # jq program
	defs='def joined_at($p): . as $k
		| first($p.hops[] | select(.skb == $k.skb and .t_ns == $k.t_ns)) | .ifname;'
	pp_expect_eq "$1: packets" "$(pp_jq "$out" 'packets | length')" "$N"
	pp_expect_none "$1: marked elsewhere than a-eth0 egress" "$out" \
		'packets[] | select(.marked_at.ifname != "a-eth0" or .marked_at.dir != "egress")
		 | "packet \(.id): marked_at \(.marked_at | tojson)"'
	# shellcheck disable=SC2016 # jq program
	pp_expect_eq "$1: copies made at a-eth0 (the sender's later fragments)" \
		"$(pp_jq "$out" "$defs"' [packets[] | . as $p | .skbs[]? | select(.from)
			| select(joined_at($p) == "a-eth0")] | length')" $((creates_a - N))
	# shellcheck disable=SC2016 # jq program
	pp_expect_eq "$1: copies made at r-eth1 (the router's fragments)" \
		"$(pp_jq "$out" "$defs"' [packets[] | . as $p | .skbs[]? | select(.from)
			| select(joined_at($p) == "r-eth1")] | length')" "$creates_r"
	pp_expect_eq "$1: router's originals segmented" \
		"$(pp_jq "$out" '[packets[] | .skbs[]? | select(.fate.kind == "segmented")] | length')" \
		"$creates_a"
	pp_expect_eq "$1: fragments at b-eth0 ingress" \
		"$(pp_jq "$out" '[packets[] | .hops[] | select(.func == "tc:ingress"
			and .ifname == "b-eth0")] | length')" "$seen_b"
	pp_expect_none "$1: fate" "$out" \
		'packets[] | select(.fate.kind != "consumed" or .fate.read.comm != "udp_flood")
		 | "packet \(.id): fate \(.fate | tojson)"'
	# Of b's fragments (the router's) one goes on as the datagram, read; the
	# others end merged into it.
	# shellcheck disable=SC2016 # jq program
	pp_expect_none "$1: b's fragments" "$out" "$defs"'
		packets[] | . as $p | [.skbs[] | select(.from and joined_at($p) == "r-eth1")
			| .fate.kind] as $f
		| select(($f | map(select(. == "consumed")) | length) != 1
			or ($f | map(select(. != "consumed" and . != "merged")) | length) != 0)
		| "packet \(.id): fates of the fragments in b: \($f)"'
	pp_expect_summary "$out"
}

# frag_left NAME PORT: N datagrams to b's reader on PORT, traced in a alone
# (--netns a, a filter with ports): each fragment ends "left" on entering r,
# the first before the next crosses a-eth0 (ip_do_fragment() sends them one
# at a time, and veth hands each to r at once), so the later fragments
# cross their first hook after their packet's only skb ended. Each must
# still be a copy of its datagram's packet. Before PP_HOP_FRAGS and the
# classifier's join while nothing is in flight, each packet was its first
# fragment alone, the later fragments neither joined nor shown.
frag_left() {
	local creates_a0 creates_a received out
	creates_a0=$(ppr_snmp "$PP_NS_A" Ip FragCreates)
	pp_bg "sink-$1" "$PP_NS_B" "$flood" sink "$2"
	pp_wait_line "sink-$1" '^udp_flood: listening' 10
	pp_root_start "$1" --json --backend tracepoint --packet-timeout 5 --netns "$PP_NS_A" \
		--filter "udp port $2"
	pp_in "$PP_NS_A" "$send" 198.18.1.2 "$2" "$N" 4000
	frag_end "$1"
	out=$(pp_out "$1")
	creates_a=$(($(ppr_snmp "$PP_NS_A" Ip FragCreates) - creates_a0))
	received=$(awk '/^received/ { print $2 }' "$(pp_out "sink-$1")")
	pp_log "$1: kernel: FragCreates a $creates_a; the reader received $received"
	pp_expect_eq "$1: datagrams read" "$received" "$N"
	[ "$creates_a" -gt "$N" ] || pp_fail "$1: a cut no datagram (IpFragCreates $creates_a)"
	pp_expect_eq "$1: packets" "$(pp_jq "$out" 'packets | length')" "$N"
	pp_expect_eq "$1: copies (a's later fragments)" \
		"$(pp_jq "$out" '[packets[] | .skbs[]? | select(.from)] | length')" $((creates_a - N))
	pp_expect_none "$1: fates" "$out" \
		'packets[] | select(.fate.kind != "left"
			or any(.skbs[]?; .fate.kind != "left"))
		 | "packet \(.id): fate \(.fate | tojson), skbs \([.skbs[]?.fate.kind])"'
	pp_expect_summary "$out"
}

# second_router: r2 and c behind r (a -> r -> r2 -> c): r's way to r2 has
# MTU 1000, r2's way to c MTU 600, so r2 cuts again the fragments that r
# cut (fragments of fragments). No traffic but the test's (as
# ppr_topo_quiet).
R2=${PP_NS_A%-a}-r2
NS_C=${PP_NS_A%-a}-c
second_router() {
	local ns
	for ns in "$R2" "$NS_C"; do
		ip netns add "$ns"
		pp_defer ip netns del "$ns"
		ip -n "$ns" link set lo up
		pp_in "$ns" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1
	done
	ip -n "$PP_NS_R" link add r-eth2 mtu 1000 type veth peer name r2-eth0 mtu 1000 netns "$R2"
	ip -n "$R2" link add r2-eth1 mtu 600 type veth peer name c-eth0 mtu 600 netns "$NS_C"
	ip -n "$PP_NS_R" addr add 198.18.2.254/24 dev r-eth2
	ip -n "$R2" addr add 198.18.2.1/24 dev r2-eth0
	ip -n "$R2" addr add 198.18.3.254/24 dev r2-eth1
	ip -n "$NS_C" addr add 198.18.3.2/24 dev c-eth0
	ip -n "$PP_NS_R" link set r-eth2 up
	ip -n "$R2" link set r2-eth0 up
	ip -n "$R2" link set r2-eth1 up
	ip -n "$NS_C" link set c-eth0 up
	pp_in "$R2" sysctl -q -w net.ipv4.ip_forward=1
	ip -n "$PP_NS_R" route add 198.18.3.0/24 via 198.18.2.1
	ip -n "$R2" route add default via 198.18.2.254
	ip -n "$NS_C" route add default via 198.18.3.254
	_ppr_static_neigh "$PP_NS_R" r-eth2 198.18.2.1 "$R2" r2-eth0
	_ppr_static_neigh "$R2" r2-eth0 198.18.2.254 "$PP_NS_R" r-eth2
	_ppr_static_neigh "$R2" r2-eth1 198.18.3.2 "$NS_C" c-eth0
	_ppr_static_neigh "$NS_C" c-eth0 198.18.3.254 "$R2" r2-eth1
}

# frag_two NAME PORT: N datagrams from a to c's reader on PORT through r
# and r2, traced in all four namespaces with a filter with ports: each
# datagram one packet, marked at a-eth0; every fragment a, r and r2 cut is
# a copy of it (IpFragCreates of the three); each packet a router cut ends
# segmented (IpFragOKs of r and r2); c's fragments (tcpdump on c-eth0) all
# but one end merged, and the datagram is read by udp_flood.
frag_two() {
	local ca0 cr0 cr20 okr0 okr20 reasm0 ca cr cr2 okr okr2 reasm seen_c received out merged
	ca0=$(ppr_snmp "$PP_NS_A" Ip FragCreates)
	cr0=$(ppr_snmp "$PP_NS_R" Ip FragCreates)
	cr20=$(ppr_snmp "$R2" Ip FragCreates)
	okr0=$(ppr_snmp "$PP_NS_R" Ip FragOKs)
	okr20=$(ppr_snmp "$R2" Ip FragOKs)
	reasm0=$(ppr_snmp "$NS_C" Ip ReasmOKs)
	pp_bg "sink-$1" "$NS_C" "$flood" sink "$2"
	pp_wait_line "sink-$1" '^udp_flood: listening' 10
	pp_bg "tdump-$1" "$NS_C" tcpdump --immediate-mode -n -i c-eth0 -w /dev/null 'ip[6:2] & 0x3fff != 0'
	pp_wait_line "tdump-$1" 'listening on' 10
	pp_root_start "$1" --json --backend tracepoint --packet-timeout 5 --netns "$PP_NS_A" \
		--netns "$PP_NS_R" --netns "$R2" --netns "$NS_C" --filter "udp port $2"
	pp_in "$PP_NS_A" "$send" 198.18.3.2 "$2" "$N" 4000
	# UDP's deferred free of the last datagram: see frag_case.
	pp_in "$PP_NS_A" taskset -c 0 ping -q -c 2 -i 0.1 198.18.0.254 >/dev/null
	pp_in "$PP_NS_A" taskset -c 1 ping -q -c 2 -i 0.1 198.18.0.254 >/dev/null
	frag_end "$1"
	out=$(pp_out "$1")
	ca=$(($(ppr_snmp "$PP_NS_A" Ip FragCreates) - ca0))
	cr=$(($(ppr_snmp "$PP_NS_R" Ip FragCreates) - cr0))
	cr2=$(($(ppr_snmp "$R2" Ip FragCreates) - cr20))
	okr=$(($(ppr_snmp "$PP_NS_R" Ip FragOKs) - okr0))
	okr2=$(($(ppr_snmp "$R2" Ip FragOKs) - okr20))
	reasm=$(($(ppr_snmp "$NS_C" Ip ReasmOKs) - reasm0))
	received=$(awk '/^received/ { print $2 }' "$(pp_out "sink-$1")")
	seen_c=$(awk '/packets captured/ { print $1 }' "$(pp_err "tdump-$1")")
	pp_log "$1: kernel: FragCreates a $ca, r $cr, r2 $cr2; FragOKs r $okr, r2 $okr2;" \
		"ReasmOKs c $reasm; tcpdump: $seen_c fragments on c-eth0; the reader received $received"
	pp_expect_eq "$1: datagrams read" "$received" "$N"
	pp_expect_eq "$1: datagrams reassembled in c" "$reasm" "$N"
	[ "$okr2" -gt 0 ] || pp_fail "$1: r2 cut no fragment (IpFragOKs $okr2)"
	pp_expect_eq "$1: packets" "$(pp_jq "$out" 'packets | length')" "$N"
	pp_expect_none "$1: marked elsewhere than a-eth0 egress" "$out" \
		'packets[] | select(.marked_at.ifname != "a-eth0" or .marked_at.dir != "egress")
		 | "packet \(.id): marked_at \(.marked_at | tojson)"'
	pp_expect_eq "$1: copies (every fragment a, r and r2 cut)" \
		"$(pp_jq "$out" '[packets[] | .skbs[]? | select(.from)] | length')" \
		$((ca - N + cr + cr2))
	pp_expect_eq "$1: originals segmented (cut by r and r2)" \
		"$(pp_jq "$out" '[packets[] | .skbs[]? | select(.fate.kind == "segmented")] | length')" \
		$((okr + okr2))
	pp_expect_eq "$1: fragments at c-eth0 ingress" \
		"$(pp_jq "$out" '[packets[] | .hops[] | select(.func == "tc:ingress"
			and .ifname == "c-eth0")] | length')" "$seen_c"
	merged=$(pp_jq "$out" '[packets[] | .skbs[]? | select(.fate.kind == "merged")] | length')
	pp_expect_eq "$1: c's fragments merged (all but one a datagram)" "$merged" $((seen_c - N))
	pp_expect_none "$1: fate" "$out" \
		'packets[] | select(.fate.kind != "consumed" or .fate.read.comm != "udp_flood")
		 | "packet \(.id): fate \(.fate | tojson)"'
	pp_expect_summary "$out"
}

# frag_reuse NAME PORT: N datagrams from a to r on PORT, tcpdump on a-eth0,
# r's nftables dropping every fragment at prerouting: a's first fragment is
# freed in r before a sends the second, and the tap's clone of the second
# often takes its address (the slab's last freed object); the third then
# names that address as its source. Each of a's later fragments must be a
# copy of the first fragment (from_index 0), never of the tap's clone; each
# tap copy of a fragment, not of another tap copy. Before pp_hop.parent_age
# the third fragment said "copy 4 of 3", the tap's clone of the second.
frag_reuse() {
	local creates0 creates out reused
	creates0=$(ppr_snmp "$PP_NS_A" Ip FragCreates)
	pp_in "$PP_NS_R" nft -f - <<'NFT'
table ip pp_frag_reuse {
	chain pre {
		type filter hook prerouting priority -400
		ip frag-off & 0x3fff != 0 drop
	}
}
NFT
	pp_defer ip netns exec "$PP_NS_R" nft delete table ip pp_frag_reuse
	pp_bg "tdump-$1" "$PP_NS_A" tcpdump --immediate-mode -n -i a-eth0 -w /dev/null
	pp_wait_line "tdump-$1" 'listening on' 10
	pp_root_start "$1" --json --backend tracepoint --packet-timeout 5 --netns "$PP_NS_A" \
		--netns "$PP_NS_R" --filter "udp port $2"
	pp_in "$PP_NS_A" "$send" 198.18.0.254 "$2" "$N" 4000
	pp_pktpath_settle "$1" 60
	pp_pktpath_stop "$1" INT
	pp_expect_eq "$1: exit status" "$PP_RC" 0
	pp_stop "tdump-$1" INT
	out=$(pp_out "$1")
	pp_expect_json_lines "$out" "$1: pktpath output"
	creates=$(($(ppr_snmp "$PP_NS_A" Ip FragCreates) - creates0))
	pp_expect_eq "$1: packets" "$(pp_jq "$out" 'packets | length')" "$N"
	pp_expect_eq "$1: fragments that are not taps' copies" \
		"$(pp_jq "$out" '[packets[] | .skbs[] | select(.tap | not)] | length')" "$creates"
	# shellcheck disable=SC2016 # jq program
	reused=$(pp_jq "$out" '[packets[] | .skbs[0].skb as $s
		| select(any(.skbs[1:][]; .skb == $s))] | length')
	pp_log "$1: kernel: FragCreates a $creates; $reused of $N packets had an skb at the" \
		"first fragment's address"
	[ "$reused" -gt 0 ] ||
		pp_fail "$1: no skb took the first fragment's address: the case was not made"
	# shellcheck disable=SC2016 # jq program
	pp_expect_none "$1: a later fragment's source" "$out" \
		'packets[] | .id as $i | .skbs | to_entries[] | select(.key > 0)
		 | select((.value.tap | not) and .value.from_index != 0)
		 | "packet \($i): skbs[\(.key)] is a copy of skbs[\(.value.from_index)]"'
	# shellcheck disable=SC2016 # jq program
	pp_expect_none "$1: a tap copy's source" "$out" \
		'packets[] | .id as $i | .skbs as $k | $k | to_entries[] | select(.value.tap)
		 | select(.value.from_index == null or $k[.value.from_index].tap)
		 | "packet \($i): tap skbs[\(.key)] is a copy of skbs[\(.value.from_index)]"'
	pp_expect_summary "$out"
}

# Ports: only a first fragment matches. A host: every fragment would.
frag_case ports 9000 "udp port 9000"
frag_case host 9001 "host 198.18.1.2"
frag_left left 9002
second_router
frag_two two-routers 9003
frag_reuse reuse 9004
pp_pass
