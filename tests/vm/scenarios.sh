#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash: local works
# The scenarios, run inside the test VM by /init (busybox sh). For every
# backend this kernel can attach and every scenario it prints
#
#   @@BEGIN <scenario> <backend>
#   ...pktpath's stdout, as is (--json lines)...
#   @@ERR <a line of pktpath's stderr>
#   @@KV <key> <value>          facts the scenario measured itself
#   @@END <scenario> <backend> rc=<pktpath's exit code>
#
# or, where this kernel lacks what the scenario needs (a module, a feature
# pktpath --check reports missing), "@@SKIPPED <scenario> <backend> <why>".
#
# and tests/vm/check.sh judges the blocks on the host, so the assertions can
# change without rebuilding the VM image.
#
# To add a scenario: write scn_<name> here (dashes become underscores) and
# chk_<name> in check.sh, and add the name to SCENARIOS.
set -u

PP=/usr/bin/pktpath
FUNCS=/usr/share/pktpath/kp_func.list
SCENARIOS=${VM_SCENARIOS:-"icmp-veth forward nft-drop udp-closed list-probes cleanup check agent"}
# The packet-life scenarios (below) run by default on the generic kernels,
# on every backend of VM_BACKENDS (the quick tier: auto): on all eleven
# kernels they would not fit the test command's time. The rt and cloud
# flavours differ from their generic kernel in configuration (preemption,
# modules), not in the network stack: they run
# one traced scenario for hops, one for a drop, the detach and --check.
# Each traced run costs an attach of ~180 probes (ready in 90-150 s with
# fourteen VMs on two cores): the three left out (forward, udp-closed,
# list-probes: the generic kernels run them) made every flavour's VM about
# twice as long. One line: @@PLAN lists them, and check.sh reads that line only.
case ${VM_LABEL:-} in
*-rt | *-cloud) [ -n "${VM_SCENARIOS:-}" ] || SCENARIOS="icmp-veth nft-drop cleanup check agent" ;;
*) [ -n "${VM_SCENARIOS:-}" ] ||
	SCENARIOS="$SCENARIOS tcp-forward tcp-nat tcp-read ping-reply udp-send gso bridge-flood nft-postrouting bpf-verdicts xdp-native xdp-frames xdp-copies xdp-frames-generic xdp-redirect" ;;
esac
# A VM that runs the scenarios on auto alone (VM_BACKENDS: the quick tier
# of scripts/vm-test.sh, the test command's, and the rt and cloud flavours
# in both tiers) then proves every backend's attach: list-probes (the attach
# against --list-probes, on ATTACH_LIST), or unsupported where the kernel
# cannot attach it.
ATTACH_ONLY=
[ "${VM_BACKENDS:-}" != auto ] || [ -n "${VM_SCENARIOS:-}" ] ||
	ATTACH_ONLY="kprobe-multi kprobe fentry tracepoint"
# The overlays (encapsulation and decapsulation functions are probes only
# on the function backends) and fragments (the fragmenting and reassembly
# functions, likewise): by default on the generic kernels, in the
# first function backend this VM can attach (kprobe-multi, kprobe, fentry), as every backend on every
# kernel would cost the test command about a tenth more time (fragments:
# one traced run, ~200 s under load, per generic kernel).
# VM_OVERLAYS sets the list (empty: none).
OVERLAYS=
case ${VM_TIER:-full}/${VM_LABEL:-} in
quick/* | *-rt | *-cloud) ;;
*) [ -n "${VM_SCENARIOS:-}" ] || [ "${VM_NO_CHECK:-0}" != 0 ] ||
	OVERLAYS="overlay-vxlan overlay-geneve fragments fragments-left" ;;
esac
OVERLAYS=${VM_OVERLAYS-$OVERLAYS}
# auto: what pktpath picks itself (--backend auto, the default).
BACKENDS=${VM_BACKENDS:-"kprobe-multi kprobe fentry tracepoint"}
# The waits below only bound a pktpath that hangs: every one ends as soon as
# what it waits for happens, so they are far above what a healthy run takes
# (attach 5-27 s, detach up to 22 s alone under TCG; several times that with
# six VMs on two cores). A result never depends on them being short.
# Attaching up to the ready line.
READY_WAIT=${VM_READY_WAIT:-600}
# A -c 1 run, after the traffic, seeing its packet end and exiting (detach).
PKT_WAIT=${VM_PKT_WAIT:-600}
# SIGINT to exit: detaching hundreds of kprobes one by one.
STOP_WAIT=${VM_STOP_WAIT:-600}
# The kernel freeing pktpath's programs and links after it exited (RCU).
SETTLE_WAIT=${VM_SETTLE_WAIT:-120}
# Hard limit of one pktpath run, a backstop for a hung pktpath.
RUN_TIMEOUT=${VM_RUN_TIMEOUT:-1500}
# pktpath's --packet-timeout (default 1 s): a packet not freed within it ends
# as "timeout". An echo request took longer than 1 s from mark to free in a
# starved VM (boot soak, round 14 of 20), so a packet ends when it is freed,
# as the scenarios expect; this only bounds a free that never comes.
PKT_TIMEOUT=${VM_PKT_TIMEOUT:-600}
# VM_PP_ARGS: extra pktpath arguments for every traced run, e.g. "-v -v".

OUT=/tmp/pp.out
ERR=/tmp/pp.err
KV=/tmp/pp.kv

A=198.18.0.1
B=198.18.0.2
R_A=198.18.0.254
R_C=198.18.1.254
C=198.18.1.2
UDP_CLOSED_PORT=9

# The attach-only rounds (main) prove that a backend's programs load and
# attach on this kernel: a list of three, a function on each side of the
# stack and a tracepoint, beside what pktpath attaches whatever the list
# (the ends, the copies, the reads). The full list would cost them a
# scenario's time each: up to half the quick tier's.
ATTACH_LIST=/tmp/attach.list
printf '%s\n' ip_rcv ip_output tp:net:netif_receive_skb >"$ATTACH_LIST"

# The full list (kp_func.list), or ATTACH_LIST in the attach-only rounds.
funcs_arg() {
	if [ "${ATTACH_ROUND:-0}" = 1 ]; then
		echo "--funcs $ATTACH_LIST"
	elif [ -f "$FUNCS" ]; then
		echo "--funcs $FUNCS"
	fi
}

# Debian's busybox runs its own applets before anything on PATH, and its ip
# and tc know neither netns nor veth nor clsact: use iproute2's (ip() and
# the topology helpers: vmlib.sh).
# shellcheck source=tests/vm/vmlib.sh
. "$(dirname "$0")/vmlib.sh"
tc() { /usr/sbin/tc "$@"; }

# ---- topology ---------------------------------------------------------------

net_reset() {
	ip -all netns delete 2>/dev/null
	return 0
}

# a (veth-a) <-> b (veth-b)
topo_pair() {
	net_reset
	ns_new a
	ns_new b
	veth_link a veth-a "$A/24" b veth-b "$B/24"
}

# a (veth-a) <-> (veth-ra) r (veth-rc) <-> (veth-c) c, r forwards.
topo_forward() {
	net_reset
	ns_new a
	ns_new r
	ns_new c
	veth_link a veth-a "$A/24" r veth-ra "$R_A/24"
	veth_link r veth-rc "$R_C/24" c veth-c "$C/24"
	ip -n a route add default via "$R_A"
	ip -n c route add default via "$R_C"
	ip netns exec r sysctl -qw net.ipv4.ip_forward=1
}

# ---- running pktpath --------------------------------------------------------

kv() {
	echo "$1 $2" >>"$KV"
}

# since T0: seconds since uptime T0, for the KV lines that time a phase.
since() { awk -v t="$1" '{ printf "%.1f", $1 - t }' /proc/uptime; }

# pp_start NS BACKEND ARGS...: start pktpath in NS and wait for its ready
# line. Returns non-zero if it exited or never became ready.
pp_start() {
	local ns=$1 backend=$2 i=0 t0
	t0=$(uptime_s)
	shift 2
	: >"$OUT"
	: >"$ERR"
	# /usr/sbin/ip, not the ip function: a function in the background runs
	# in a subshell, and $! would be that subshell, not pktpath.
	# shellcheck disable=SC2046 # funcs_arg is two words or none
	# shellcheck disable=SC2086 # VM_PP_ARGS is a list of words
	/usr/sbin/ip netns exec "$ns" timeout -s KILL "$RUN_TIMEOUT" vmhelper sigdfl \
		"$PP" --backend "$backend" $(funcs_arg) --packet-timeout "$PKT_TIMEOUT" \
		${VM_PP_ARGS:-} "$@" >"$OUT" 2>"$ERR" &
	PP_PID=$!
	while [ $i -lt $((READY_WAIT * 5)) ]; do
		if grep -q '^pktpath: ready' "$ERR"; then
			kv ready_s "$(since "$t0")"
			return 0
		fi
		kill -0 "$PP_PID" 2>/dev/null || return 1
		usleep 200000
		i=$((i + 1))
	done
	kv ready_wait timeout
	return 1
}

# pp_wait SECS: let pktpath end by itself within SECS, else SIGINT it (a
# clean exit that still prints the summary), else SIGKILL. Sets PP_RC.
pp_wait() {
	local i=0 t0
	while kill -0 "$PP_PID" 2>/dev/null && [ $i -lt $(($1 * 5)) ]; do
		usleep 200000
		i=$((i + 1))
	done
	if kill -0 "$PP_PID" 2>/dev/null; then
		kv stopped_by SIGINT
		t0=$(uptime_s)
		kill -INT "$PP_PID"
		i=0
		while kill -0 "$PP_PID" 2>/dev/null && [ $i -lt $((STOP_WAIT * 5)) ]; do
			usleep 200000
			i=$((i + 1))
		done
		kv stop_s "$(since "$t0")"
		kill -0 "$PP_PID" 2>/dev/null && kv stopped_by SIGKILL && kill -KILL "$PP_PID"
	fi
	wait "$PP_PID"
	PP_RC=$?
}

block() {
	echo "@@BEGIN $1 $2"
	cat "$OUT"
	sed 's/^/@@ERR /' "$ERR"
	sed 's/^/@@KV /' "$KV"
	echo "@@END $1 $2 rc=$PP_RC"
}

# run_traced NS BACKEND TRAFFIC ARGS...: the common shape of a scenario:
# start pktpath, send traffic once it is ready, wait for it to finish.
run_traced() {
	local ns=$1 backend=$2 traffic=$3
	shift 3
	if pp_start "$ns" "$backend" "$@"; then
		"$traffic"
		pp_wait "$PKT_WAIT"
	else
		pp_wait 0
	fi
}

# -W: the reply of an emulated kernel under load, with probes on every hop,
# may take seconds; ping returns as soon as it comes.
ping_from() {
	if ip netns exec "$1" ping -c 1 -W 60 "$2" >/dev/null 2>&1; then
		kv ping ok
	else
		kv ping fail
	fi
}

# ---- scenarios: scn_<name> BACKEND ------------------------------------------

scn_icmp_veth() {
	topo_pair
	run_traced a "$1" traffic_icmp_veth --json -c 1 "icmp and src $A and dst $B"
}
traffic_icmp_veth() { ping_from a "$B"; }

scn_forward() {
	topo_forward
	run_traced r "$1" traffic_forward --json -c 1 "icmp and src $A and dst $C"
}
traffic_forward() { ping_from a "$C"; }

scn_nft_drop() {
	topo_pair
	ip netns exec b nft -f - <<-EOF
		table ip pp_test {
			chain input {
				type filter hook input priority 0; policy accept;
				ip saddr $A icmp type echo-request counter drop
			}
		}
	EOF
	run_traced a "$1" traffic_nft_drop --json -c 1 "icmp and src $A and dst $B"
	# The rule's own counter: proof that netfilter dropped, whatever pktpath says.
	kv nft_dropped "$(ip netns exec b nft list table ip pp_test |
		sed -n 's/.*counter packets \([0-9]*\).*/\1/p')"
}
# No reply comes: ping_from's 60 s wait for one would be the scenario's
# longest step. The request leaves at once; pktpath -c 1 waits for its end.
traffic_nft_drop() { ip netns exec a ping -c 1 -W 1 "$B" >/dev/null 2>&1; }

# nft-postrouting: a's own echo request dropped by a rule of a's postrouting
# hook. TC comes after that hook, so only the mark at ip_output (kprobe
# backends) sees the packet; the tracepoint backend must print nothing.
scn_nft_postrouting() {
	local until="-c 1"
	topo_pair
	ip netns exec a nft -f - <<-EOF
		table ip pp_post {
			chain post {
				type filter hook postrouting priority 0; policy accept;
				ip daddr $B icmp type echo-request counter drop
			}
		}
	EOF
	[ "$1" != tracepoint ] || until="--duration 10"
	# shellcheck disable=SC2086 # two words
	run_traced a "$1" traffic_nft_postrouting --json $until "icmp and dst $B"
	kv nft_dropped "$(ip netns exec a nft list table ip pp_post |
		sed -n 's/.*counter packets \([0-9]*\).*/\1/p')"
}
# The drop is local: ping's sendmsg() fails at once (EPERM), no reply to wait for.
traffic_nft_postrouting() { ip netns exec a ping -c 1 -W 1 "$B" >/dev/null 2>&1; }

udp_noports() {
	# shellcheck disable=SC2016 # awk's $3
	ip netns exec "$1" awk '/^Udp: [0-9]/ { print $3 }' /proc/net/snmp
}

scn_udp_closed() {
	topo_pair
	NOPORTS0=$(udp_noports b)
	run_traced a "$1" traffic_udp_closed --json -c 1 "udp and dst port $UDP_CLOSED_PORT"
	# The kernel's own count of datagrams to closed ports in b.
	kv udp_noports_delta $(($(udp_noports b) - NOPORTS0))
}
traffic_udp_closed() { ip netns exec a vmhelper udp "$B" "$UDP_CLOSED_PORT"; }

# agent: pktpath --agent (no backend: one program at skb:kfree_skb, with
# drop reasons or without, 5.10) counts three datagrams to a closed port of
# b as b's Udp NoPorts does. About the kernel, not the backend: in the
# first round only, like check.
scn_agent() {
	local i=0
	topo_pair
	NOPORTS0=$(udp_noports b)
	: >"$OUT"
	: >"$ERR"
	/usr/sbin/ip netns exec a timeout -s KILL "$RUN_TIMEOUT" vmhelper sigdfl "$PP" --agent \
		>"$OUT" 2>"$ERR" &
	PP_PID=$!
	until grep -q '^pktpath: ready' "$ERR"; do
		if ! kill -0 "$PP_PID" 2>/dev/null || [ $i -ge $((READY_WAIT * 5)) ]; then
			break
		fi
		usleep 200000
		i=$((i + 1))
	done
	for i in 1 2 3; do traffic_udp_closed; done
	pp_wait 0
	kv udp_noports_delta $(($(udp_noports b) - NOPORTS0))
}

scn_list_probes() {
	topo_pair
	# shellcheck disable=SC2046 # funcs_arg is two words or none
	"$PP" --list-probes --backend "$1" $(funcs_arg) >/tmp/pp.list 2>/tmp/pp.list.err
	kv list_rc $?
	sed 's/^/LIST /' /tmp/pp.list >>"$KV"
	sed 's/^/LIST_ERR /' /tmp/pp.list.err >>"$KV"
	run_traced a "$1" true --json --duration 1
}

# pktpath --check, and what each explicit backend then does: the report's
# yes/no must match (chk_check). Kernel facts do not depend on the backend
# under test, so this runs once, in the first round (see main).
scn_check() {
	local be
	# The run at boot (below, for lacks()): the kernel's facts are the same.
	kv check_rc "$(cat /tmp/boot.check.rc)"
	sed 's/^/CHECK /' /tmp/boot.check >>"$KV"
	kv no_classifier_module "$(no_classifier_module | sed 's/ $//')"
	for be in kprobe-multi kprobe fentry; do
		# shellcheck disable=SC2046 # funcs_arg is two words or none
		"$PP" --list-probes --backend "$be" $(funcs_arg) >/dev/null 2>&1
		kv "backend_$be" $?
	done
}

# What pktpath may leave behind: kprobes (perf or tracefs ones), ftrace
# users (kprobe.multi, fentry trampolines), BPF programs and links, and TC
# filters or clsact qdiscs on the namespace's devices.
lines() {
	if [ -r "$1" ]; then grep -c . "$1"; else echo n/a; fi
}
# state PREFIX [COUNTS]: the counts (COUNTS, or counted now) as KV lines
# "PREFIX_<what> N".
state() {
	{ if [ $# -gt 1 ]; then echo "$2"; else counts; fi; } | sed "s/^/$1_/" >>"$KV"
}
# Each line is a count a leak would change. Few processes: under TCG each
# exec of a dynamic binary (ip, tc, bpftool) costs, and every ip netns exec
# mounts a sysfs. The programs and links by their ids (vmhelper bpf-count,
# static: what bpftool prog/link show list); the TC state of a's devices
# read once for both of its lines.
counts() {
	local tcs
	echo "kprobe_events $(lines /sys/kernel/tracing/kprobe_events)"
	echo "kprobes $(lines /sys/kernel/debug/kprobes/list)"
	echo "ftrace_users $(lines /sys/kernel/tracing/enabled_functions)"
	echo "trace_events $(lines /sys/kernel/tracing/set_event)"
	vmhelper bpf-count 2>/dev/null || printf "bpf_progs n/a\nbpf_links n/a\n"
	tcs=$(tc_state a)
	echo "tc_filters $(echo "$tcs" | grep -c filter)"
	echo "clsact $(echo "$tcs" | grep -c clsact)"
	echo "bpftool_net $(ip netns exec a bpftool net show 2>/dev/null | grep -c '^veth')"
}
# tc_state NS: the clsact qdiscs and the ingress and egress filters of NS's
# devices, asked of one tc (-batch; -force: on past a device's error).
tc_state() {
	local dev
	for dev in $(ip -n "$1" -o link show | sed -n 's/^[0-9]*: \([^:@]*\).*/\1/p'); do
		printf '%s\n' "qdisc show dev $dev" "filter show dev $dev ingress" \
			"filter show dev $dev egress"
	done | tc -n "$1" -force -batch - | grep -E 'clsact|^filter'
}

scn_cleanup() {
	local before now t0 i
	topo_pair
	before=$(counts)
	state before "$before"
	# No -c: pktpath runs until SIGINT, the way a user stops it.
	if pp_start a "$1" --json "icmp and src $A and dst $B"; then
		ping_from a "$B"
		state during
	fi
	pp_wait 0
	# The kernel frees a program and its links a moment after the last fd
	# closed (an RCU grace period, long under TCG): wait until the counts are
	# back, up to SETTLE_WAIT, so that slowness is never taken for a leak.
	# What is still there after that is one.
	t0=$(uptime_s)
	i=0
	now=$(counts)
	while [ "$now" != "$before" ] && [ $i -lt $((SETTLE_WAIT * 5)) ]; do
		usleep 200000
		i=$((i + 1))
		now=$(counts)
	done
	kv settle_s "$(since "$t0")"
	state after "$now"
	# What was left, for check.sh's message: only when something was.
	[ "$now" = "$before" ] || {
		sed "s/^/STATE_AFTER /" /sys/kernel/tracing/kprobe_events >>"$KV"
		tc_state a | sed "s/^/STATE_AFTER /" >>"$KV"
	}
}

# An unsupported backend must be refused cleanly, not crash or hang.
scn_unsupported() {
	topo_pair
	run_traced a "$1" true --json --duration 5 "icmp"
}

# ---- packet life: a TCP transfer, DNAT, ping's replies, a bridge flood -----
# The VM twins of tests/e2e/test_packet_life.sh, for every backend. pktpath
# runs without -c and is stopped by SIGINT, the way a user stops it.

TCP_PORT=5201
NAT_PORT=8080
# A few hundred KiB: many segments both ways (data, ACKs, FINs).
TCP_BYTES=262144
BR_NET=198.19.0

# rx_packets NS DEV...: the sum of the devices' RX packet counters.
rx_packets() {
	local ns=$1 dev n=0
	shift
	for dev in "$@"; do
		n=$((n + $(ip netns exec "$ns" cat "/sys/class/net/$dev/statistics/rx_packets")))
	done
	echo "$n"
}

# count_rules NS MATCH...: nft counters in NS's prerouting, ahead of
# conntrack and NAT: one for every IPv4 packet, one per MATCH. Against the
# RX counters they show what crossed the router besides the traced traffic.
count_rules() {
	local ns=$1 m
	shift
	{
		echo "table ip pp_count {"
		echo "chain pre {"
		echo "type filter hook prerouting priority -300; policy accept;"
		echo "counter comment \"all\""
		for m in "$@"; do echo "$m counter"; done
		echo "}"
		echo "}"
	} | ip netns exec "$ns" nft -f - || kv count_rules fail
}

# count_kv NS: the counters as nft_all and nft_matched (the sum of the MATCHes).
count_kv() {
	ip netns exec "$1" nft list table ip pp_count >/tmp/pp.count
	kv nft_all "$(sed -n 's/.*counter packets \([0-9]*\) .*comment "all".*/\1/p' /tmp/pp.count)"
	kv nft_matched "$(grep -v 'comment "all"' /tmp/pp.count |
		sed -n 's/.*counter packets \([0-9]*\) .*/\1/p' | awk '{ n += $1 } END { print n + 0 }')"
}

# tcp_traced BACKEND ADDR PORT FILTER MATCH...: TCP_BYTES from a to
# ADDR:PORT (c's server on TCP_PORT), traced in r with FILTER (and the
# pktpath options in TCP_PP_ARGS); what entered r is counted by its RX
# counters and by count_rules MATCH....
tcp_traced() {
	local be=$1 addr=$2 port=$3 filter=$4 rx0=""
	shift 4
	count_rules r "$@"
	kv tcp_bytes "$TCP_BYTES"
	# Returns once listening; reads in the background, prints what it read.
	ip netns exec c vmhelper tcp-serve "$TCP_PORT" >/tmp/pp.serve 2>&1 || kv serve fail
	# shellcheck disable=SC2086 # TCP_PP_ARGS is a list of words
	if pp_start r "$be" --json ${TCP_PP_ARGS:-} "$filter"; then
		rx0=$(rx_packets r veth-ra veth-rc)
		if ip netns exec a vmhelper tcp-send "$addr" "$port" "$TCP_BYTES" >/tmp/pp.send 2>&1; then
			kv send ok
		else
			kv send "fail $(tr '\n' ' ' </tmp/pp.send)"
		fi
		# Let the last packets end; at SIGINT pktpath prints those still open
		# as "unseen" (allowed on the tracepoint backend only).
		sleep 3
	fi
	pp_wait 0
	[ -z "$rx0" ] || kv rx_packets $(($(rx_packets r veth-ra veth-rc) - rx0))
	kv served "$(head -n 1 /tmp/pp.serve)"
	count_kv r
}

scn_tcp_forward() {
	topo_forward
	tcp_traced "$1" "$C" "$TCP_PORT" "tcp port $TCP_PORT" \
		"tcp dport $TCP_PORT" "tcp sport $TCP_PORT"
}

# a connects to r's R_A:NAT_PORT, which r's DNAT sends on to c:TCP_PORT. The
# counters sit before the DNAT: a's packets still have NAT_PORT there, and
# c's replies are un-NATed only at postrouting.
scn_tcp_nat() {
	topo_forward
	ip netns exec r nft -f - <<-EOF || kv nat_rule fail
		table ip pp_nat {
			chain pre {
				type nat hook prerouting priority dstnat;
				ip daddr $R_A tcp dport $NAT_PORT dnat to $C:$TCP_PORT
			}
		}
	EOF
	kv nat "$R_A $NAT_PORT $C"
	tcp_traced "$1" "$R_A" "$NAT_PORT" "tcp port $NAT_PORT or tcp port $TCP_PORT" \
		"tcp dport $NAT_PORT" "tcp sport $TCP_PORT"
}

# tcp-read: TCP_BYTES from a to b's server, traced in b, the server's
# namespace: the data direction, to the server's reads.
scn_tcp_read() {
	topo_pair
	kv tcp_bytes "$TCP_BYTES"
	ip netns exec b vmhelper tcp-serve "$TCP_PORT" >/tmp/pp.serve 2>&1 || kv serve fail
	if pp_start b "$1" --json "tcp dst port $TCP_PORT"; then
		if ip netns exec a vmhelper tcp-send "$B" "$TCP_PORT" "$TCP_BYTES" >/tmp/pp.send 2>&1; then
			kv send ok
		else
			kv send "fail $(tr '\n' ' ' </tmp/pp.send)"
		fi
		sleep 3
	fi
	pp_wait 0
	kv served "$(head -n 1 /tmp/pp.serve)"
}

# gso: a's veth-a has no TSO, so a's TCP sends large skbs that software GSO
# cuts into segments on their way out of a. Traced in r with --all-netns:
# the kprobe backends mark each large skb in a at ip_output, and its
# segments join it where __skb_gso_segment() returns them; the tracepoint
# backend marks each segment at r's TC hooks. The data direction only.
# r's forward hook drops every GSO_LOSS_EVERY-th segment from a: TCP sends
# those again from the skb it kept, each a packet of its own.
GSO_LOSS_EVERY=40
scn_gso() {
	topo_forward
	ip netns exec a vmhelper no-tso veth-a || kv no_tso fail
	ip netns exec r nft -f - <<-EOF || kv loss_rule fail
		table ip pp_loss {
			chain drops {
				type filter hook forward priority 0;
				ip saddr $A tcp dport $TCP_PORT numgen inc mod $GSO_LOSS_EVERY == 20 counter drop
			}
		}
	EOF
	TCP_PP_ARGS=--all-netns tcp_traced "$1" "$C" "$TCP_PORT" "tcp dst port $TCP_PORT" \
		"tcp dport $TCP_PORT"
	kv lost_segments "$(ip netns exec r nft list table ip pp_loss |
		sed -n 's/.*counter packets \([0-9]*\) .*/\1/p')"
}

# udp-send: UDP_SENDS datagrams, each sent by its own vmhelper's sendto()
# from a to b's socket, traced in a: each starts at its send call and ends
# read by the server (--send-calls). With the stack at __dev_queue_xmit (--stack).
UDP_SEND_PORT=7000
UDP_SENDS=3
scn_udp_send() {
	local i=0
	topo_pair
	ip netns exec b vmhelper udp-serve "$UDP_SEND_PORT" "$UDP_SENDS" >/tmp/pp.userve 2>&1 ||
		kv serve fail
	if pp_start a "$1" --json --send-calls --stack __dev_queue_xmit "udp and dst port $UDP_SEND_PORT"; then
		while [ $i -lt "$UDP_SENDS" ]; do
			ip netns exec a vmhelper udp "$B" "$UDP_SEND_PORT" || kv send fail
			i=$((i + 1))
		done
		kv udp_sent "$i"
		sleep 3
	fi
	pp_wait 0
	kv udp_served "$(head -n 1 /tmp/pp.userve)"
}

# ping's echo replies, traced in a, under -- COMMAND: pktpath runs busybox
# ping in a cgroup of its own (its replies, matched by the filter, are
# followed from where they enter), while another ping, outside it, runs
# beside; pktpath ends with it. One run for both (each traced run costs an
# attach under TCG). Busybox ping, run as root, reads the replies from a raw
# ICMP socket (its ICMP datagram socket is only the fallback when raw is
# refused), which gets a clone of each reply. pktpath ends once nothing is
# in flight after the command, or a packet timeout after it: on 5.10 an skb
# of the replies may stay in flight unseen (the test command's run of
# d8d1677: all three printed, no end in 30 s), so this run's timeout is 30 s,
# not PKT_TIMEOUT's 600 (a reply lives milliseconds), and the wait above it.
scn_ping_reply() {
	local other
	topo_pair
	if pp_start a "$1" --json --packet-timeout 30 "icmp[icmptype] = 0" \
		-- ping -c 3 -i 0.2 -W 5 "$B"; then
		ip netns exec a ping -c 6 -i 0.2 -W 5 "$B" >/tmp/pp.other 2>&1 &
		other=$!
		pp_wait 120
		wait "$other"
		kv other_received "$(sed -n 's/.* \([0-9]*\) packets received.*/\1/p' /tmp/pp.other)"
		# The command writes to pktpath's stdout.
		kv ping_received "$(sed -n 's/.* \([0-9]*\) packets received.*/\1/p' "$OUT")"
	else
		pp_wait 0
	fi
}

# bpf-verdicts: other BPF programs judge a's datagrams to b (bpf_dropper,
# each with BTF and its own drop counter): in XDP's generic mode on b's
# veth-b, one drops UDP to 7005; on b's clsact ingress, one loaded after
# pktpath started (its rescan finds it within a second) drops 7001; where
# the kernel has tcx, one on a's tcx egress, after pktpath's classifier,
# drops 7003; 7004 goes through all (no server: b drops it NO_SOCKET).
# Traced in a, two datagrams to each port.
VERDICT_SENDS=2
VERDICT_PORTS="7001 7003 7004 7005"
# dropper NS IFACE HOOK PORT KIND: bpf_dropper vm_KIND_drop in the background.
dropper() {
	local kind=$5
	/usr/sbin/ip netns exec "$1" bpf_dropper "$2" "$3" "$4" "vm_${kind}_drop" ${6:+"$6"} \
		2>"/tmp/pp.drop.$kind" &
	DROPPERS="$DROPPERS $!"
}
# droppers_done KIND WORD: pktpath ended, the droppers stopped; KIND's
# program id and its own count ("WORD N" at its exit) as KIND_id, KIND_WORD.
droppers_done() {
	pp_wait 0
	# shellcheck disable=SC2086 # a list of pids
	kill -INT $DROPPERS
	wait
	kv "${1}_id" "$(sed -n 's/^id //p' "/tmp/pp.drop.$1")"
	kv "${1}_$2" "$(sed -n "s/^$2 //p" "/tmp/pp.drop.$1")"
}

scn_bpf_verdicts() {
	local port i f
	DROPPERS=
	topo_pair
	dropper b veth-b xdp-generic 7005 xdp
	! grep -qE '^tcx +yes' /tmp/boot.check || dropper a veth-a tcx-egress 7003 tcx
	# The one fexit that sees XDP's generic mode: the kernel has it or not (5.16+).
	kv xdp_generic "$(yes_no grep -q ' bpf_prog_run_generic_xdp$' /proc/kallsyms)"
	sleep 1
	if pp_start a "$1" --json --verdicts "udp and dst $B"; then
		dropper b veth-b clsact-ingress 7001 tc
		i=0
		while ! grep -q '^id ' /tmp/pp.drop.tc && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		sleep 2
		for port in $VERDICT_PORTS; do
			i=0
			while [ $i -lt "$VERDICT_SENDS" ]; do
				ip netns exec a vmhelper udp "$B" "$port" || kv send fail
				i=$((i + 1))
			done
		done
		sleep 3
	fi
	pp_wait 0
	# shellcheck disable=SC2086 # a list of pids
	kill -INT $DROPPERS
	wait
	for f in xdp tc tcx; do
		[ -f "/tmp/pp.drop.$f" ] || continue
		kv "${f}_id" "$(sed -n 's/^id //p' "/tmp/pp.drop.$f")"
		kv "${f}_dropped" "$(sed -n 's/^dropped //p' "/tmp/pp.drop.$f")"
		rm -f "/tmp/pp.drop.$f"
	done
}

# xdp_run BACKEND NS KIND WHEN MODE [ARG...]: bpf_dropper's vm_KIND_drop in
# MODE (xdp-native: the driver's, which veth has; xdp-generic) on b's
# veth-b drops UDP to 7005 and passes 7006, loaded before pktpath starts in
# NS (ARGs), or after (WHEN "after": --verdicts' rescan finds it within a
# second); a sends two datagrams to each port; then the program's id and
# its own drop count.
xdp_run() {
	local backend=$1 ns=$2 kind=$3 when=$4 mode=$5 port i=0
	shift 5
	DROPPERS=
	topo_pair
	kv xdp_generic "$(yes_no grep -q ' bpf_prog_run_generic_xdp$' /proc/kallsyms)"
	[ "$when" = after ] || dropper b veth-b "$mode" 7005 "$kind"
	sleep 1
	if pp_start "$ns" "$backend" --json "$@" "udp and dst $B"; then
		if [ "$when" = after ]; then
			dropper b veth-b "$mode" 7005 "$kind"
			while ! grep -q '^id ' "/tmp/pp.drop.$kind" && [ $i -lt 50 ]; do
				sleep 0.1
				i=$((i + 1))
			done
			sleep 2
		fi
		for port in 7005 7005 7006 7006; do
			ip netns exec a vmhelper udp "$B" "$port" || kv send fail
		done
		sleep 3
	fi
	droppers_done "$kind" dropped
	rm -f "/tmp/pp.drop.$kind"
}

# xdp-native: veth copies each of a's datagrams for the program (too little
# headroom) and consumes a's skb. Traced in a.
scn_xdp_native() { xdp_run "$1" a xdpn before xdp-native; }

# xdp-frames: frames the program takes before any skb, told from the
# receiver: traced in b with --verdicts, a's datagrams arrive untracked and
# the program, loaded after pktpath started, judges each as a frame: those
# it drops are packets of their own; those it passes become skbs, marked
# at TC ingress (b's UDP drops them, no socket).
scn_xdp_frames() { xdp_run "$1" b xdpf after xdp-native --verdicts; }

# xdp-frames-generic: the same in XDP's generic mode, which runs on an skb
# that TC has not marked yet (TC comes after XDP).
scn_xdp_frames_generic() { xdp_run "$1" b xdpg before xdp-generic --verdicts; }

# xdp-copies: xdp-native with --verdicts: the copy veth makes of each of a's
# tracked datagrams for the program joins the datagram's packet, with the
# program's verdict and its end.
scn_xdp_copies() { xdp_run "$1" a xdpc before xdp-native --verdicts; }

# xdp-redirect: vm_xdpr_drop, native on veth-b, redirects UDP to 7005 to
# vr-b, a veth of b's own: two datagrams while vr-b is up (redirected
# there, out of its peer vr-c, whose XDP program, which passes them, veth
# wants before it takes frames), two after it went down (the redirect
# fails, ENETDOWN: the driver drops the frame). Traced in b with
# --verdicts; 7006 passed, as ever.
scn_xdp_redirect() {
	local port
	DROPPERS=
	topo_pair
	ip -n b link add vr-b type veth peer name vr-c
	ip -n b link set vr-b up
	ip -n b link set vr-c up
	dropper b veth-b xdp-native 7005 xdpr vr-b
	dropper b vr-c xdp-native 7999 xdpv
	sleep 1
	if pp_start b "$1" --json --verdicts "udp and dst $B"; then
		for port in 7005 7005 7006 7006 down 7005 7005; do
			if [ "$port" = down ]; then
				ip -n b link set vr-b down
				continue
			fi
			ip netns exec a vmhelper udp "$B" "$port" || kv send fail
		done
		sleep 3
	fi
	droppers_done xdpr redirected
	rm -f /tmp/pp.drop.xdpr /tmp/pp.drop.xdpv
}

# A bridge pp-br in r with ports pb1..pb3, each a veth to host h1..h3.
topo_bridge() {
	local i
	net_reset
	ns_new r
	ip -n r link add pp-br type bridge
	for i in 1 2 3; do
		ns_new "h$i"
		ip -n r link add "pb$i" type veth peer name "pq$i" netns "h$i"
		ip -n r link set "pb$i" master pp-br up
		ip -n "h$i" addr add "$BR_NET.$i/24" brd + dev "pq$i"
		ip -n "h$i" link set "pq$i" up
		# Replies make each flooded copy "consumed" by its host's ICMP.
		ip netns exec "h$i" sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=0
	done
	ip -n r link set pp-br up
	# The replies go to h1 without ARP.
	for i in 2 3; do
		ip -n "h$i" neigh replace "$BR_NET.1" lladdr "$(mac_of h1 pq1)" dev "pq$i" \
			nud permanent
	done
}

# Busybox ping sets SO_BROADCAST itself (it has no -b). It stops once it has
# -c replies, two per request here: the requests are counted from its summary.
scn_bridge_flood() {
	local rx0=""
	topo_bridge
	if pp_start r "$1" --json -i pb1 -i pb2 -i pb3 "icmp[icmptype] = 8"; then
		rx0=$(rx_packets r pb1)
		ip netns exec h1 ping -c 3 -i 0.2 -W 5 "$BR_NET.255" >/tmp/pp.ping 2>&1
		kv ping_sent "$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' /tmp/pp.ping)"
		sleep 2
	fi
	pp_wait 0
	[ -z "$rx0" ] || kv pb1_rx $(($(rx_packets r pb1) - rx0))
}

# The two nodes of an overlay, node1 and node2, joined by u1 -- u2
# (192.168.50.0/24), and their pods' namespaces pod1 and pod2.
overlay_nodes() {
	local n
	net_reset
	for n in node1 node2 pod1 pod2; do ns_new "$n"; done
	ip link add u1 netns node1 type veth peer name u2 netns node2
	for n in 1 2; do
		ip -n "node$n" addr add "192.168.50.$n/24" dev "u$n"
		ip -n "node$n" link set "u$n" up
		ip -n "node$n" link add "vp$n" type veth peer name eth0 netns "pod$n"
	done
}

# Pod to pod across a two-node overlay (tests/e2e/overlay.sh's, smaller):
# overlay_nodes, each node with a bridge and a tunnel device (ov42: VXLAN
# VNI 42 on port 8472, Geneve VNI 42, or gretap with key 42), pod1 and pod2
# on veths to the bridges (10.244.0.1, .2). Traced in node1. IP-in-IP
# carries no Ethernet frame: topo_ipip.
topo_overlay() {
	local kind=$1 n peer
	overlay_nodes
	for n in 1 2; do
		peer=$((3 - n))
		ip -n "node$n" link add br0 type bridge
		if [ "$kind" = vxlan ]; then
			ip -n "node$n" link add ov42 type vxlan id 42 dstport 8472 \
				local "192.168.50.$n" remote "192.168.50.$peer" dev "u$n"
		elif [ "$kind" = gre ]; then
			ip -n "node$n" link add ov42 type gretap key 42 \
				local "192.168.50.$n" remote "192.168.50.$peer"
		else
			ip -n "node$n" link add ov42 type geneve id 42 remote "192.168.50.$peer"
		fi
		ip -n "node$n" link set ov42 master br0 up
		ip -n "node$n" link set "vp$n" master br0 up
		ip -n "node$n" link set br0 up
		ip -n "pod$n" addr add "10.244.0.$n/24" dev eth0
		ip -n "pod$n" link set eth0 mtu 1400 up
	done
}

# IP-in-IP, routed: pod1 (10.244.1.2) -- vp1 (10.244.1.1) in node1, whose
# route to 10.244.2.0/24 is its ipip device ov42 to 192.168.50.2; node2 the
# same the other way, pod2 10.244.2.2.
topo_ipip() {
	local n peer
	overlay_nodes
	for n in 1 2; do
		peer=$((3 - n))
		ip -n "node$n" link add ov42 type ipip local "192.168.50.$n" remote "192.168.50.$peer"
		ip -n "node$n" link set ov42 up
		ip -n "node$n" route add "10.244.$peer.0/24" dev ov42
		ip -n "node$n" addr add "10.244.$n.1/24" dev "vp$n"
		ip -n "node$n" link set "vp$n" up
		ip netns exec "node$n" sysctl -q -w net.ipv4.ip_forward=1
		ip -n "pod$n" addr add "10.244.$n.2/24" dev eth0
		ip -n "pod$n" link set eth0 up
		ip -n "pod$n" route add default via "10.244.$n.1"
	done
}

# overlay_traced BACKEND KIND: pod1 pings pod2 three times across the KIND
# overlay, traced in node1. ARP through the tunnel, and the bridges'
# learning, are done before the trace.
overlay_traced() {
	local kind=$2 a=10.244.0.1 b=10.244.0.2
	if [ "$kind" = ipip ]; then
		topo_ipip
		a=10.244.1.2 b=10.244.2.2
	else
		topo_overlay "$kind"
	fi
	ip netns exec pod1 ping -c 1 -W 30 "$b" >/dev/null 2>&1 || kv overlay_ping fail
	# -v: the skipped probe points in full, for check.sh.
	if pp_start node1 "$1" -v --json "icmp and host $a and host $b"; then
		ip netns exec pod1 ping -c 3 -i 0.2 -W 30 "$b" >/tmp/pp.ping 2>&1
		kv ping_received "$(sed -n 's/.* \([0-9]*\) packets received.*/\1/p' /tmp/pp.ping)"
		sleep 2
	fi
	pp_wait 0
}
scn_overlay_vxlan() { overlay_traced "$1" vxlan; }
scn_overlay_geneve() { overlay_traced "$1" geneve; }
scn_overlay_gre() { overlay_traced "$1" gre; }
scn_overlay_ipip() { overlay_traced "$1" ipip; }

# fragments: FRAG_N datagrams of FRAG_BYTES from a to c's reader through r
# (tests/e2e/test_fragments.sh's twin, one filter): a's MTU (1500) cuts each
# into 3 fragments, r's way out (veth-rc, MTU 1000) cuts each of those again,
# c reassembles. pktpath's scope is the three namespaces, its filter has
# ports, which only a first fragment matches. The kernel's own counts, read
# after pktpath exited: IpFragCreates in a and r, IpReasmReqds (fragments
# received) and IpReasmOKs in c, and how many datagrams c's reader read.
FRAG_PORT=9000
FRAG_N=4
FRAG_BYTES=4000
scn_fragments() {
	local cpu
	topo_forward
	ip -n r link set dev veth-rc mtu 1000
	ip -n c link set dev veth-c mtu 1000
	snmp_kv 0
	ip netns exec c vmhelper udp-serve "$FRAG_PORT" "$FRAG_N" >/tmp/pp.fserve 2>&1 ||
		kv serve fail
	if pp_start r "$1" --json --netns a --netns r --netns c "udp port $FRAG_PORT"; then
		ip netns exec a vmhelper udp "$C" "$FRAG_PORT" "$FRAG_BYTES" "$FRAG_N" || kv send fail
		# UDP may free a datagram it read later, on the CPU that allocated
		# it, when that CPU next runs the receive softirq
		# (skb_attempt_defer_free()): a ping to r on each CPU, which the
		# filter does not match, so that the last datagram's end is seen.
		for cpu in 0 1; do
			ip netns exec a taskset -c "$cpu" ping -c 2 -i 0.2 -W 5 "$R_A" >/dev/null 2>&1
		done
		sleep 3
	fi
	pp_wait 0
	kv udp_served "$(head -n 1 /tmp/pp.fserve)"
	snmp_kv 1
}

# fragments-left: as fragments, traced in a alone (--netns a): each fragment
# a cuts leaves the scope on entering r, the first before the next crosses
# veth-a (ip_do_fragment() sends one at a time), so the later fragments
# come after every tracked skb of their packet ended. IpFragCreates in a,
# and what c's reader read.
scn_fragments_left() {
	topo_forward
	ip -n r link set dev veth-rc mtu 1000
	ip -n c link set dev veth-c mtu 1000
	kv creates_a_0 "$(snmp a FragCreates)"
	ip netns exec c vmhelper udp-serve "$FRAG_PORT" "$FRAG_N" >/tmp/pp.fserve 2>&1 ||
		kv serve fail
	if pp_start a "$1" --json --netns a "udp port $FRAG_PORT"; then
		ip netns exec a vmhelper udp "$C" "$FRAG_PORT" "$FRAG_BYTES" "$FRAG_N" || kv send fail
		sleep 3
	fi
	pp_wait 0
	kv udp_served "$(head -n 1 /tmp/pp.fserve)"
	kv creates_a_1 "$(snmp a FragCreates)"
}

# snmp NS FIELD: the Ip counter FIELD of /proc/net/snmp in NS.
snmp() {
	# shellcheck disable=SC2016 # awk's variables
	ip netns exec "$1" awk -v f="$2" '$1 == "Ip:" && !h { for (i = 2; i <= NF; i++)
		if ($i == f) c = i; h = 1; next } $1 == "Ip:" { print $c; exit }' /proc/net/snmp
}

# snmp_kv SUFFIX: the counters fragments checks, as KV lines NAME_SUFFIX.
snmp_kv() {
	kv "creates_a_$1" "$(snmp a FragCreates)"
	kv "creates_r_$1" "$(snmp r FragCreates)"
	kv "reasm_reqds_c_$1" "$(snmp c ReasmReqds)"
	kv "reasm_oks_c_$1" "$(snmp c ReasmOKs)"
}

# ---- main -------------------------------------------------------------------

# ---- what this kernel lacks --------------------------------------------------

absent() { grep -qx "$1" /lib/modules/absent.list; }

# no_classifier_module: the classifier modules this kernel lacks (pktpath
# then needs tcx), or nothing.
no_classifier_module() {
	local m
	for m in sch_ingress cls_bpf; do absent "$m" && printf '%s ' "$m"; done
	return 0
}

# lacks SCENARIO BACKEND: why this kernel cannot run SCENARIO, or nothing. Only what
# the kernel independently lacks (a module that is neither in the package
# nor built in) makes a SKIP: a pktpath that wrongly reports a feature
# missing still runs, and fails.
lacks() {
	local m
	[ "$1" != check ] || return 0
	absent veth && {
		echo "no veth in this kernel (neither a module nor built in)"
		return 0
	}
	if [ -s /tmp/trial.fail ]; then
		echo "pktpath cannot trace on this kernel yet: $(cat /tmp/trial.fail)"
		return 0
	fi
	[ "$1" != unsupported ] || return 0
	m=$(no_classifier_module)
	# Without clsact's modules pktpath needs tcx: --check says which it has.
	if [ -n "$m" ] && ! grep -qE '^(tcx|clsact) +yes' /tmp/boot.check; then
		echo "no ${m% } in this kernel, and pktpath --check says:" \
			"$(grep -E '^(tcx|clsact) ' /tmp/boot.check | tr -s ' ' | tr '\n' ';')"
		return 0
	fi
	if { [ "$1" = nft-drop ] || [ "$1" = nft-postrouting ]; } && absent nf_tables; then
		echo "no nf_tables in this kernel (neither a module nor built in)"
	fi
	for m in vxlan geneve ipip ip_gre; do
		if [ "$1" = "overlay-${m#ip_}" ] && absent "$m"; then
			echo "no $m in this kernel (neither a module nor built in)"
		fi
	done
	# The function backends join GSO's segments to their packet at the
	# copying function's return, which walks the new skbs with bpf_loop().
	# auto is one of them: every Debian kernel has kprobes.
	if [ "$1" = gso ] && [ "$2" != tracepoint ] &&
		grep -q '^@@KFACT bpf_loop no' /tmp/kfacts; then
		echo "no bpf_loop in this kernel (BPF_FUNC_loop not in its BTF, Linux 5.17): the segments" \
			"of software GSO cannot be joined to their packet"
	fi
}

run_scenario() {
	local t0 why
	why=$(lacks "$1" "$2")
	if [ -n "$why" ]; then
		echo "@@SKIPPED $1 $2 $why"
		return 0
	fi
	t0=$(uptime_s)
	# For init.sh's heartbeat.
	echo "$1 $2" >/tmp/scenario
	: >"$KV"
	PP_RC=-1
	"scn_$(echo "$1" | tr - _)" "$2"
	kv scenario_s "$(since "$t0")"
	block "$1" "$2"
	# cleanup's run is icmp-veth's too (the same topology, filter and ping):
	# one attach and detach fewer per round, 25 s to 130 s under TCG.
	[ "$1" != cleanup ] || [ "${SHARED_ICMP:-0}" != 1 ] || {
		kv shared_with cleanup
		block icmp-veth "$2"
	}
	net_reset
}

# The backends this kernel can attach, tried by vmhelper independently of
# pktpath: "backend NAME ok" or "backend NAME no REASON".
vmhelper backends >/tmp/backends 2>&1
sed 's/^backend /@@BACKEND /' /tmp/backends
# What pktpath says this kernel lacks, for lacks().
# Its exit code and lines are also the check scenario's.
"$PP" --check >/tmp/boot.check 2>&1
echo $? >/tmp/boot.check.rc
# What the kernel has, found without pktpath, for check.sh's kfact and for
# lacks(): drop reasons in kfree_skb (their enum in BTF, 5.17+), the
# bpf_loop helper (its id in enum bpf_func_id, 5.17+), BTF for modules (5.11+).
yes_no() { if "$@"; then echo yes; else echo no; fi; }
# slab_cache: kmem:kmem_cache_free passes the cache (its BTF prototype has a
# fourth argument, struct kmem_cache *s, after __data, call_site and ptr).
slab_cache() { [ "$(tp_nargs kmem_cache_free)" -ge 4 ]; }
# consume_location: skb:consume_skb passes the caller's location (6.3: a
# third argument after __data and skb), where a consumed fragment tells
# reassembly's free (inet_frag_reasm_prepare()) from any other.
consume_location() { [ "$(tp_nargs consume_skb)" -ge 3 ]; }
# reads: the tracepoint backend's reads' hooks load (pp_plan_reads()): the
# sock:sock_recv_length tracepoint (6.3) and bpf_loop().
reads() { [ "$(tp_nargs sock_recv_length)" -ge 3 ] && bpf_loop; }
# tp_nargs TP: the arguments of tracepoint TP's BTF prototype (0 if none).
tp_nargs() { awk -v tp="$1" '$1 == "tp" && $2 == tp { n = $3 } END { print n + 0 }' /tmp/btf.facts; }
bpf_loop() { grep -q '^enumerator BPF_FUNC_loop yes' /tmp/btf.facts; }
# One read of the kernel's BTF serves every fact below.
vmhelper btf kmem_cache_free consume_skb sock_recv_length >/tmp/btf.facts 2>&1
{
	echo "@@KFACT drop_reasons $(yes_no grep -q '^enum skb_drop_reason yes' /tmp/btf.facts)"
	echo "@@KFACT bpf_loop $(yes_no bpf_loop)"
	echo "@@KFACT module_btf $(yes_no test -e /sys/kernel/btf/veth)"
	echo "@@KFACT slab_cache $(yes_no slab_cache)"
	echo "@@KFACT consume_location $(yes_no consume_location)"
	echo "@@KFACT reads $(yes_no reads)"
} >/tmp/kfacts
cat /tmp/kfacts

# VM_TRIAL (vm.conf; the kernels scripts/vm-test.sh lists in TRIAL_SUITES,
# older than what pktpath is made for): one icmp-veth on auto first, with
# "-v -v". If pktpath fails there, every traced scenario is a SKIP naming
# the error and the verifier's complaint, found by trying; the check
# scenario (--check's verdict against each backend) still runs. If it
# works, the scenarios run and count as anywhere else.
: >/tmp/trial.fail
if [ "${VM_TRIAL:-0}" = 1 ]; then
	PP_RC=-1
	: >"$KV"
	args=${VM_PP_ARGS:-}
	VM_PP_ARGS="$args -v -v"
	scn_icmp_veth auto
	VM_PP_ARGS=$args
	net_reset
	if [ "$PP_RC" != 0 ]; then
		{
			grep -m1 '^pktpath: ' "$ERR" | grep -v 'ready' || echo "rc=$PP_RC"
			# The verifier's complaint: the line before its summary.
			grep -B1 '^processed [0-9]* insns' "$ERR" | head -n 1 | sed 's/^/verifier: /'
			echo "pktpath --check's verdict: $(grep '^pktpath ' /tmp/boot.check | tail -n 1)"
		} | tr '\n' ';' >/tmp/trial.fail
	fi
	echo "@@TRIAL rc=$PP_RC $(cat /tmp/trial.fail)"
	# One SKIP per backend ("traced": every traced scenario), not one per
	# scenario.
	[ ! -s /tmp/trial.fail ] || SCENARIOS="check traced"
fi

# check and agent are about the kernel, not the backend: only in the first
# round, and only in the first VM of a kernel whose backends are split over VMs.
scenarios=$SCENARIOS
[ "${VM_NO_CHECK:-0}" = 0 ] || scenarios=$(echo " $scenarios " | sed 's/ check / /; s/ agent / /')
for backend in $BACKENDS $ATTACH_ONLY; do
	case " $ATTACH_ONLY " in *" $backend "*) scenarios=list-probes ATTACH_ROUND=1 ;; esac
	if [ "$backend" = auto ] || grep -q "^backend $backend ok" /tmp/backends; then
		planned=$scenarios
		case ${ATTACH_ROUND:-0}/$backend in
		0/kprobe-multi | 0/kprobe | 0/fentry)
			planned="$scenarios $OVERLAYS"
			OVERLAYS=
			;;
		esac
		echo "@@PLAN $backend $planned"
		SHARED_ICMP=0
		case " $planned " in
		*" icmp-veth "*" cleanup "* | *" cleanup "*" icmp-veth "*) SHARED_ICMP=1 ;;
		esac
		for s in $planned; do
			[ "$s.$SHARED_ICMP" != icmp-veth.1 ] || continue
			run_scenario "$s" "$backend"
		done
		scenarios=$(echo " $scenarios " | sed 's/ check / /; s/ agent / /')
	else
		echo "@@PLAN $backend unsupported"
		run_scenario unsupported "$backend"
	fi
done
