# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash: local works
# What the scripts that run inside the test VM share (scenarios.sh,
# attach_bench.sh, rate_bench.sh): sourced, defines functions only.

# busybox's ip lacks netns: the real one, found without PATH.
ip() { /usr/sbin/ip "$@"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
# num X: X, or null when empty (JSON).
num() { if [ -n "$1" ]; then echo "$1"; else echo null; fi; }

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
# packet crosses the link while pktpath runs.
veth_link() {
	ip link add "$2" netns "$1" type veth peer name "$5" netns "$4"
	ip -n "$1" addr add "$3" dev "$2"
	ip -n "$4" addr add "$6" dev "$5"
	ip -n "$1" link set "$2" up
	ip -n "$4" link set "$5" up
	ip -n "$1" neigh replace "${6%/*}" lladdr "$(mac_of "$4" "$5")" dev "$2" nud permanent
	ip -n "$4" neigh replace "${3%/*}" lladdr "$(mac_of "$1" "$2")" dev "$5" nud permanent
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
