#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's first command: from a fresh clone to the traced path of a
# packet. Installs the dependencies, builds pktpath, builds a small network
# of three namespaces (scripts/topology.sh: host a -- router r -- host b),
# traces three pings from a to b, explains what was shown, and removes the
# network again, also on failure or Ctrl-C.
#
# Usage: scripts/demo.sh [--no-build]
#   --no-build   skip install-deps and the build (already done)
# Run as root, or as a user who may sudo: only the namespaces and pktpath
# itself need root, so the build stays owned by the user.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
PREFIX=pp
NS_A=$PREFIX-a
NS_R=$PREFIX-r
NS_B=$PREFIX-b
FILTER="icmp and src 198.18.0.1"
PKTPATH=${PKTPATH:-build/loader/pktpath}
[[ $PKTPATH == /* ]] || PKTPATH=$ROOT/$PKTPATH
SUDO=()
[ "$(id -u)" -eq 0 ] || SUDO=(sudo)

build=1
case ${1:-} in
"") ;;
--no-build) build=0 ;;
*)
	echo "usage: $0 [--no-build]" >&2
	exit 2
	;;
esac

step() {
	printf '\n==> %s\n' "$*"
}

# alive PID: true while PID runs (not once it is a zombie).
alive() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }
	[ "${s%% *}" != Z ]
}

work=$(mktemp -d /tmp/pktpath-demo.XXXXXX)
pp_pid=
cleanup() {
	local rc=$? i
	trap - EXIT INT TERM
	set +e
	# SIGTERM rather than SIGINT: a background job of a script starts with
	# SIGINT ignored, and pktpath treats both alike.
	if [ -n "$pp_pid" ] && alive "$pp_pid"; then
		"${SUDO[@]}" kill -TERM "$pp_pid"
		for ((i = 0; i < 50; i++)); do
			alive "$pp_pid" || break
			sleep 0.1
		done
	fi
	"${SUDO[@]}" "$ROOT/scripts/topology.sh" down "$PREFIX"
	rm -rf "$work"
	[ "$rc" -eq 0 ] || echo "demo: failed (exit $rc); the network is removed" >&2
	exit "$rc"
}
trap cleanup EXIT

# wait_ready [ERR]: pktpath (pp_pid, stderr in ERR, by default
# work/pktpath.err) says it is ready.
wait_ready() {
	for ((i = 0; i < 1200; i++)); do
		grep -q '^pktpath: ready' "${1:-$work/pktpath.err}" 2>/dev/null && return 0
		alive "$pp_pid" || {
			echo "demo: pktpath exited before it was ready" >&2
			exit 1
		}
		sleep 0.1
	done
	echo "demo: pktpath not ready after 120 s" >&2
	exit 1
}

# wait_done WHAT: pktpath (-c) ends by itself once its packets are freed.
wait_done() {
	for ((i = 0; i < 100; i++)); do
		alive "$pp_pid" || break
		sleep 0.1
	done
	if alive "$pp_pid"; then
		echo "demo: pktpath still running 10 s after $1; stopping it" >&2
		exit 1
	fi
	rc=0
	wait "$pp_pid" || rc=$?
	pp_pid=
	[ "$rc" -eq 0 ] || {
		echo "demo: pktpath exited with status $rc" >&2
		exit 1
	}
}
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "$build" = 1 ]; then
	step "Installing the build and run-time dependencies"
	scripts/install-deps.sh
	step "Building pktpath"
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
	cmake --build build -j2
fi
[ -x "$PKTPATH" ] || {
	echo "demo: no pktpath binary at $PKTPATH" >&2
	exit 1
}

step "Building the network: $NS_A -- $NS_R -- $NS_B"
# A namespace left by an earlier demo that was killed outright would make
# "up" refuse; the demo owns these names, so clear them first.
"${SUDO[@]}" scripts/topology.sh down "$PREFIX"
"${SUDO[@]}" scripts/topology.sh up "$PREFIX"
cat <<EOF
    $NS_A: a-eth0 198.18.0.1  --  r-eth0 198.18.0.254  $NS_R (router)
    $NS_R: r-eth1 198.18.1.254  --  b-eth0 198.18.1.2  $NS_B
Each hop below names its network namespace (-v adds the inodes).
EOF

# Where pktpath runs decides where packets are marked: its classifier sits
# on the interfaces of its own namespace, and the probes (tracepoints here)
# see every namespace. In the router, the classifier would mark the echo
# request at r-eth0 ingress, which the kernel runs after the
# netif_receive_skb tracepoint: the path would start in the middle of the
# router. In host a, it is marked as it leaves a-eth0, so the same skb is
# followed through all three namespaces: a's transmit, the router's receive
# and forward, b's receive, and its end in b. That also shows forwarding.
step "Tracing '$FILTER' from $NS_A, three pings to 198.18.1.2"
"${SUDO[@]}" ip netns exec "$NS_A" "$PKTPATH" -c 3 --filter "$FILTER" \
	2> >(tee "$work/pktpath.err" >&2) &
pp_pid=$!
wait_ready

"${SUDO[@]}" ip netns exec "$NS_A" ping -n -c 3 -i 0.5 -w 10 198.18.1.2 >"$work/ping.out" 2>&1 ||
	echo "demo: ping failed: $(tail -n 1 "$work/ping.out")" >&2
# -c 3 ends pktpath once the three requests are freed; give it a moment.
wait_done "the pings"
echo
echo "ping: $(grep 'packets transmitted' "$work/ping.out" || echo 'no summary')"

# A TCP exchange, seen from the router: marked as it enters r, each segment
# is followed to its end in a or b. iperf3's server in b, its client in a.
step "Tracing 'tcp port 5201' in $NS_R: the first six packets of a TCP transfer"
"${SUDO[@]}" ip netns exec "$NS_B" iperf3 -s -1 -p 5201 >"$work/iperf3-s.out" 2>&1 &
iperf_pid=$!
for ((i = 0; i < 100; i++)); do
	"${SUDO[@]}" ip netns exec "$NS_B" ss -Hltn 'sport = 5201' | grep -q . && break
	sleep 0.1
done
# A file of its own: the first run's "ready" line, still in the old file
# until tee truncates it, let the transfer start before this run was ready.
"${SUDO[@]}" ip netns exec "$NS_R" "$PKTPATH" -c 6 --filter "tcp port 5201" \
	2> >(tee "$work/pktpath-tcp.err" >&2) &
pp_pid=$!
wait_ready "$work/pktpath-tcp.err"
"${SUDO[@]}" ip netns exec "$NS_A" iperf3 -c 198.18.1.2 -p 5201 -n 64K >"$work/iperf3.out" 2>&1 ||
	echo "demo: iperf3 failed: $(tail -n 1 "$work/iperf3.out")" >&2
wait_done "the transfer"
wait "$iperf_pid" 2>/dev/null || true

step "What was shown"
cat <<EOF
Each block above is one echo request from 198.18.0.1, printed when the
kernel freed its skb. Its hops are in time order, each with the network
namespace and device it happened on:

  - tc:egress on a-eth0: pktpath's classifier matched the filter as the
    packet left host a, and began to track that skb;
  - tp:net:net_dev_queue, net_dev_start_xmit on a-eth0: a's device layer
    queued and sent it; a veth hands the very same skb to its peer;
  - tp:net:netif_rx on r-eth0, in $NS_R: the peer took it in (a veth
    delivers to its peer before its transmit function returns);
  - tp:net:netif_receive_skb on r-eth0: the router's receive path passes
    it up to IP; routing and forwarding have no tracepoint, so the gap
    before the next hop is the router's IP work;
  - net_dev_queue ... on r-eth1: forwarded towards b;
  - netif_rx / netif_receive_skb on b-eth0, in $NS_B: b received it;
  - tp:skb:consume_skb and the fate "consumed": freed normally once b's ICMP
    had answered it (a drop would show the kernel's drop reason and where).

The TCP blocks are the handshake and the first segments through the
router, marked at r-eth0 or r-eth1 ingress: each crosses the other router
interface and ends in a or b. A segment that tcpdump or another tap cloned
lists each copy and its end under the fate line.

Where pktpath said above that the kernel has no kprobes, the path comes from
tracepoints alone and is coarse. On a kernel with kprobes (most distribution
kernels), the function lines of kp_func.list fill in the steps between:
ip_rcv, ip_forward, icmp_rcv and the rest.

To look again: sudo scripts/topology.sh up, then
  sudo ip netns exec $NS_A build/loader/pktpath --filter "$FILTER"
and ping 198.18.1.2 from $NS_A in another terminal; scripts/topology.sh down
removes the network (this demo has removed it already).
EOF
