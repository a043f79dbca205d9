# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash: local works
# What the scripts that run inside the test VM share (scenarios.sh,
# attach_bench.sh, rate_bench.sh): sourced, defines functions only.

# busybox's ip lacks netns: the real one, found without PATH.
ip() { /usr/sbin/ip "$@"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
# num X: X, or null when empty (JSON).
num() { if [ -n "$1" ]; then echo "$1"; else echo null; fi; }

# rotate N WORDS...: the words, starting at the (N mod count)th: the
# benchmarks' rounds take their configurations in turns of order.
rotate() {
	local n="$1" i=0 head="" tail="" w
	shift
	n=$((n % $#))
	for w in "$@"; do
		if [ $i -lt "$n" ]; then head="$head $w"; else tail="$tail $w"; fi
		i=$((i + 1))
	done
	echo "$tail $head"
}

# A namespace with lo up and no IPv6: router solicitations, DAD and MLD would
# be packets nobody asked for.
ns_new() {
	ip netns add "$1"
	# One ip netns exec for both (each mounts a sysfs of its own).
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip -n "$1" link set lo up
}

mac_of() {
	ip -n "$1" -o link show "$2" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p'
}

# veth_link NS1 IF1 ADDR1/LEN NS2 IF2 ADDR2/LEN: a veth pair between two
# namespaces, with permanent neighbour entries both ways so that no ARP
# packet crosses the link while pktpath runs. The MACs are given (locally
# administered, one pair per call of a run), not read back, and each side
# is set up by one ip -batch: under TCG every exec of ip costs.
VETH_PAIRS=0
veth_link() {
	local m1 m2
	VETH_PAIRS=$((VETH_PAIRS + 1))
	m1=$(printf '02:70:70:%02x:%02x:01' $((VETH_PAIRS / 256 % 256)) $((VETH_PAIRS % 256)))
	m2=${m1%01}02
	ip link add "$2" address "$m1" netns "$1" type veth peer name "$5" address "$m2" netns "$4"
	veth_side "$1" "$2" "$3" "${6%/*}" "$m2"
	veth_side "$4" "$5" "$6" "${3%/*}" "$m1"
}
# veth_side NS IF ADDR/LEN PEER_ADDR PEER_MAC
veth_side() {
	printf '%s\n' "addr add $3 dev $2" "link set $2 up" \
		"neigh replace $4 lladdr $5 dev $2 nud permanent" | ip -n "$1" -batch -
}

# usable_backends WANT...: BACKENDS = those of WANT this kernel can attach,
# tried by vmhelper independently of pktpath; vmhelper's verdicts go to the
# console as @@BACKEND lines.
usable_backends() {
	local b
	vmhelper backends >/tmp/backends 2>&1
	sed 's/^backend /@@BACKEND /' /tmp/backends
	BACKENDS=""
	for b in "$@"; do
		grep -q "^backend $b ok" /tmp/backends && BACKENDS="$BACKENDS $b"
	done
	BACKENDS=${BACKENDS# }
}
