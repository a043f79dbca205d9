#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --container for a container on the host's network (podman run --network
# host): it has no namespace of its own, so its scope is its cgroup, as
# --pid of its first process. busybox httpd in such a container listens on
# a port of the host's loopback, a second httpd outside it (in the test's
# own cgroup) on the next port, and busybox wget on the host fetches from
# each 3 times; pktpath, in the root namespace on lo, filters both ports.
# - The resolution is said (-v): the container's runtime, id and pid.
# - Every packet printed is the container's conversation, none the other
#   server's. Each packet the container's server sent (tcpdump on lo: src
#   port) is printed; each one sent to it too, SYNs included: its listener,
#   older than pktpath, is known to the classifier from the start
#   (docs/marking.md); each names httpd.
# - Beside another scope it is exit 2, with nothing attached.
# Without the host-network case, --container names no container: exit 2.
# shellcheck source-path=SCRIPTDIR source=podman.sh
. "$(dirname "$0")/podman.sh"
pp_setup
pp_require_pktpath
pod_setup

web=pp-e2e-hweb-$$
port=$((20000 + $$ % 20000))
other=$((port + 1))
pp_defer podman rm -f -t 0 "$web"
podman --runtime runc run -d --network host --name "$web" "$POD_IMG" \
	httpd -f -p "127.0.0.1:$port" -h /www >"$PP_TMP/web.log" 2>&1 ||
	pp_skip "podman cannot run a container here: $(_pp_last_line "$PP_TMP/web.log")"
pid=$(podman inspect -f '{{.State.Pid}}' "$web")
mkdir -p "$PP_TMP/www"
echo other >"$PP_TMP/www/index.html"
pp_root_bg other busybox httpd -f -p "127.0.0.1:$other" -h "$PP_TMP/www"

# Beside --pid: refused, the kernel as before.
before=$PP_TMP/before.txt
pp_state_snapshot "$before"
pp_run_refused "$before" "" "--container $web is on the host's network" \
	--container "$web" --pid $$ tcp

pp_root_bg td tcpdump -n -U -i lo -w "$PP_TMP/lo.pcap" "tcp port $port or tcp port $other"
pp_wait_line td 'listening on' 10
out=$(pp_out scoped)
pp_root_start scoped -v --json --backend tracepoint --container "$web" -i lo \
	--filter "tcp port $port or tcp port $other"
for i in 1 2 3; do
	for p in "$port" "$other"; do
		busybox wget -q -O /dev/null "http://127.0.0.1:$p/" ||
			pp_fail "wget from port $p failed (round $i)"
	done
done
pp_pktpath_settle scoped 20
pp_stop scoped
sleep 0.5
pp_stop td INT
pp_expect_json_lines "$out" "pktpath --json output"
pp_expect_grep "the resolution said" "$(pp_err scoped)" \
	"--container $web: podman [0-9a-f]{12} on the host's network: the cgroup of its pid $pid"

# count FILTER: the packets of tcpdump's capture FILTER matches.
count() { tcpdump -n -r "$PP_TMP/lo.pcap" "$1" 2>/dev/null | wc -l; }
sent=$(count "src port $port")
syns=$(count "dst port $port and tcp[tcpflags] == tcp-syn")
to=$(count "dst port $port")
pp_log "tcpdump on lo: server $sent packets sent, $to sent to it ($syns SYNs);" \
	"$(count "port $other") of the other server's"
[ "$sent" -gt 6 ] || pp_fail "tcpdump saw $sent packets from the container's server"
pp_expect_eq "packets the container's server sent, printed" \
	"$(pp_jq "$out" "[packets[] | select(.pkt.sport == $port)] | length")" "$sent"
pp_expect_eq "packets sent to it, printed" \
	"$(pp_jq "$out" "[packets[] | select(.pkt.dport == $port)] | length")" "$to"
pp_expect_eq "SYNs sent to it, printed" "$(pp_jq "$out" "[packets[] | select(.pkt.dport == $port)
	| select(.pkt.tcp_flags == \"S\")] | length")" "$syns"
pp_expect_eq "packets of its conversations that name httpd" "$(pp_jq "$out" "[packets[]
	| select(.process.comm == \"httpd\")] | length")" "$((sent + to))"
pp_expect_eq "packets of its conversations that name the container" \
	"$(pp_jq "$out" "[packets[] | select(.process.container == \"$web\")] | length")" \
	"$((sent + to))"
pp_expect_none "a packet of the other server" "$out" \
	"packets[] | select(.pkt.sport == $other or .pkt.dport == $other) | pkt_str"
pp_pass
