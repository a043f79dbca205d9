#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo and test topology: host a -- router r -- host b, each in its own
# network namespace, joined by veth pairs.
#
#   PREFIX-a                 PREFIX-r                        PREFIX-b
#   a-eth0 198.18.0.1/24 --- r-eth0 198.18.0.254/24
#          fd00::1/64               fd00::fe/64
#                            r-eth1 198.18.1.254/24 --- b-eth0 198.18.1.2/24
#                                   fd00:1::fe/64              fd00:1::2/64
#
# Usage: topology.sh up|down [PREFIX]   (PREFIX defaults to "pp")
#
# Device names are the same for every prefix: they live inside their own
# namespaces, so two topologies never collide on them, and tests can name
# them without knowing the prefix. Only the namespace names carry the prefix.
set -euo pipefail

usage() {
	echo "usage: $0 up|down [PREFIX]" >&2
	exit 2
}

die() {
	echo "topology: $*" >&2
	exit 1
}

# Namespace names are file names under /run/netns; keep them boring so they
# are also safe in the messages and patterns that tests build from them.
check_prefix() {
	[[ $1 =~ ^[a-z0-9][a-z0-9-]{0,30}$ ]] ||
		{
			echo "topology: bad prefix '$1' (want [a-z0-9-], at most 31 chars)" >&2
			exit 2
		}
}

ns_exists() {
	[ -e "/run/netns/$1" ]
}

# Every command that touches a namespace goes through here, so that an
# error names the namespace it happened in.
in_ns() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

# reachable NS ADDR: one echo reply within 5 s. A single echo is enough: the
# first packet waits in the neighbour queue while ARP/ND resolves rather
# than being dropped, and -w bounds the wait.
reachable() {
	in_ns "$1" ping -n -q -c 1 -w 5 "$2" >/dev/null 2>&1
}

topo_down() {
	local ns pids
	for ns in "$NS_A" "$NS_R" "$NS_B"; do
		ns_exists "$ns" || continue
		# A namespace outlives its name while a process is inside it, and
		# so do its veths: say so rather than kill what we did not start.
		pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
		[ -z "$pids" ] ||
			echo "topology: warning: processes still in $ns: $pids" >&2
		ip netns delete "$ns"
	done
}

topo_up() {
	local ns
	for ns in "$NS_A" "$NS_R" "$NS_B"; do
		! ns_exists "$ns" ||
			die "namespace $ns already exists (run: $0 down $PREFIX)"
	done
	# From here on, a failure must not leave half a topology behind.
	trap 'topo_down; die "setup failed, removed the partial topology"' ERR

	# accept_dad=0 before any veth exists: duplicate address detection
	# would hold even the link-local addresses "tentative" for a while, and
	# IPv6 neighbour discovery, and so the first ping6, stalls behind it
	# (a second here). Nothing else is on these links to collide with.
	for ns in "$NS_A" "$NS_R" "$NS_B"; do
		ip netns add "$ns"
		in_ns "$ns" sysctl -q -w net.ipv6.conf.default.accept_dad=0
		ip -n "$ns" link set lo up
	done

	# Each pair is created inside one namespace with its peer placed in the
	# other directly, so no device ever appears in the caller's namespace.
	ip -n "$NS_A" link add a-eth0 type veth peer name r-eth0 netns "$NS_R"
	ip -n "$NS_R" link add r-eth1 type veth peer name b-eth0 netns "$NS_B"
	# Links up before any address: the carrier change reaches IPv6 through
	# linkwatch, which batches events up to a second apart; configuring
	# addresses meanwhile lets that pass, instead of the first ping6 waiting
	# a neighbour-discovery retransmit (1 s) for it.
	ip -n "$NS_A" link set a-eth0 up
	ip -n "$NS_R" link set r-eth0 up
	ip -n "$NS_R" link set r-eth1 up
	ip -n "$NS_B" link set b-eth0 up

	# nodad: the same for these addresses, whatever "default" said.
	ip -n "$NS_A" addr add 198.18.0.1/24 dev a-eth0
	ip -n "$NS_A" addr add fd00::1/64 dev a-eth0 nodad
	ip -n "$NS_R" addr add 198.18.0.254/24 dev r-eth0
	ip -n "$NS_R" addr add fd00::fe/64 dev r-eth0 nodad
	ip -n "$NS_R" addr add 198.18.1.254/24 dev r-eth1
	ip -n "$NS_R" addr add fd00:1::fe/64 dev r-eth1 nodad
	ip -n "$NS_B" addr add 198.18.1.2/24 dev b-eth0
	ip -n "$NS_B" addr add fd00:1::2/64 dev b-eth0 nodad

	# sysctl under "ip netns exec" writes the namespace's own copy: the
	# net.* entries of /proc/sys are per network namespace.
	in_ns "$NS_R" sysctl -q -w net.ipv4.ip_forward=1
	in_ns "$NS_R" sysctl -q -w net.ipv6.conf.all.forwarding=1

	ip -n "$NS_A" route add default via 198.18.0.254
	ip -n "$NS_A" -6 route add default via fd00::fe
	ip -n "$NS_B" route add default via 198.18.1.254
	ip -n "$NS_B" -6 route add default via fd00:1::fe

	trap - ERR
	# Both directions and both families: a route or forwarding switch
	# missing on one side shows up only in one of the four.
	local bad=()
	reachable "$NS_A" 198.18.1.2 || bad+=("$NS_A -> 198.18.1.2")
	reachable "$NS_B" 198.18.0.1 || bad+=("$NS_B -> 198.18.0.1")
	reachable "$NS_A" fd00:1::2 || bad+=("$NS_A -> fd00:1::2")
	reachable "$NS_B" fd00::1 || bad+=("$NS_B -> fd00::1")
	if [ ${#bad[@]} -gt 0 ]; then
		topo_down
		die "no echo reply: ${bad[*]}; topology removed"
	fi
	echo "topology: $NS_A -- $NS_R -- $NS_B up (ping ok both ways, v4 and v6)"
}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
PREFIX=${2:-pp}
check_prefix "$PREFIX"
NS_A=$PREFIX-a
NS_R=$PREFIX-r
NS_B=$PREFIX-b

[ "$(id -u)" -eq 0 ] || die "needs root (ip netns); try: sudo $0 $*"

case $1 in
up) topo_up ;;
down) topo_down ;;
*) usage ;;
esac
