# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Two namespaces joined by a veth pair, for the benchmarks that flood one
# from the other: sourced, not run.
#
#   pair_up CLIENT SERVER     CLIENT's veth-c 198.18.0.1/24 -- SERVER's
#                             veth-s 198.18.0.2/24, ARP resolved
#   pair_down CLIENT SERVER   both namespaces gone (none there: no error)

pair_up() {
	local ns
	ip netns add "$1"
	ip netns add "$2"
	ip -n "$1" link add veth-c type veth peer name veth-s netns "$2"
	ip -n "$1" addr add 198.18.0.1/24 dev veth-c
	ip -n "$2" addr add 198.18.0.2/24 dev veth-s
	for ns in "$1" "$2"; do
		ip -n "$ns" link set lo up
	done
	ip -n "$1" link set veth-c up
	ip -n "$2" link set veth-s up
	# The first datagram would wait for ARP: resolve it once, before any round.
	ip netns exec "$1" ping -q -c 1 -W 2 198.18.0.2 >/dev/null
}

pair_down() {
	ip netns delete "$1" 2>/dev/null || true
	ip netns delete "$2" 2>/dev/null || true
}
