#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash: local works
# Packet rate and start-up time of pktpath's backends, inside the test VM
# (busybox sh). /init runs it instead of scenarios.sh when vm.conf says
# VM_RUN=/tests/rate_bench.sh; bench/vm_rate.sh drives it and reads its
# lines from the serial console:
#
#   @@RB {"type":"rate",...}     one traced run: UDP packets/s with pktpath
#                                and with no tracing just before it
#   @@RB {"type":"startup",...}  one run to "ready": pktpath's -v timings
#   @@RB {"type":"verdict",...}  another TC or XDP program's mean time per run,
#                                with pktpath recording its verdicts or not
#
# Rate: a (veth-a) - r - (veth-c) c, r forwards; c reads two UDP ports.
# pktpath runs in r with the filter "udp and dst port 7000": a flood to
# port 7001 is untracked (the filter matches none of it), one to port 7000
# is tracked (every packet marked at r's ingress and followed). Each
# configuration (backend and probe list) is measured with no tracing first,
# then traced, both flows each time, in the same round; rounds rotate the
# configurations' order. TCG emulates: only these ratios mean anything.
#
# Settings (environment, from vm.conf):
#   VM_BENCH_JOBS       "rate startup" (default both); "verdict" also
#   VM_BENCH_ROUNDS     rate rounds (default 3)
#   VM_BENCH_SECS       seconds per flow measurement (default 3)
#   VM_BENCH_BACKENDS   default "kprobe-multi kprobe fentry tracepoint"
#   VM_BENCH_LISTS      --detail levels for the rate: default "full short"
#   VM_BENCH_SU_ROUNDS  start-up rounds (default 2)
#   VM_BENCH_SU_BINS    start-up binaries, "NAME=PATH ..." (default
#                       "now=/usr/bin/pktpath")
#   VM_BENCH_SU_LISTS   start-up lists: "default all" (default; all:
#                       kp_func.list with --all-skb-funcs)
#   VM_BENCH_SU_SLOW    1: also run --all-skb-funcs to ready with single
#                       kprobes and fentry (minutes each under TCG); else
#                       their --all-skb-funcs line is --list-probes only
set -u

PP=/usr/bin/pktpath
LIST_DEFAULT=/usr/share/pktpath/kp_func.list
JOBS=${VM_BENCH_JOBS:-"rate startup"}
ROUNDS=${VM_BENCH_ROUNDS:-3}
SECS=${VM_BENCH_SECS:-3}
WANT=${VM_BENCH_BACKENDS:-"kprobe-multi kprobe fentry tracepoint"}
LISTS=${VM_BENCH_LISTS:-"full short"}
SU_ROUNDS=${VM_BENCH_SU_ROUNDS:-2}
SU_BINS=${VM_BENCH_SU_BINS:-"now=$PP"}
SU_SLOW=${VM_BENCH_SU_SLOW:-0}
SU_LISTS=${VM_BENCH_SU_LISTS:-"default all"}
# Bounds for a pktpath that hangs; a healthy run ends far sooner.
READY_WAIT=${VM_BENCH_READY_WAIT:-900}
RUN_TIMEOUT=${VM_BENCH_RUN_TIMEOUT:-1800}

A=198.18.0.1
R_A=198.18.0.254
R_C=198.18.1.254
C=198.18.1.2
PORT_TRACKED=7000
PORT_UNTRACKED=7001
RATE_FILTER="udp and dst port $PORT_TRACKED"
SU_FILTER="icmp and host 198.19.9.9" # matches nothing: start-up only
ERR=/tmp/rb.err

# shellcheck source=tests/vm/vmlib.sh
. "$(dirname "$0")/vmlib.sh"
since() { awk -v t="$1" '{ printf "%.2f", $1 - t }' /proc/uptime; }

# ---- topology (as scenarios.sh's topo_forward) ---------------------------------

topo() {
	ns_new a
	ns_new r
	ns_new c
	veth_link a veth-a "$A/24" r veth-ra "$R_A/24"
	veth_link r veth-rc "$R_C/24" c veth-c "$C/24"
	ip -n a route add default via "$R_A"
	ip -n c route add default via "$R_C"
	ip netns exec r sysctl -qw net.ipv4.ip_forward=1
	# Their stdout is not this script's: they outlive its pipes.
	ip netns exec c vmhelper udp-sink "$PORT_TRACKED" >/dev/null
	ip netns exec c vmhelper udp-sink "$PORT_UNTRACKED" >/dev/null
}

# ---- pktpath ---------------------------------------------------------------------

# pp_start BIN ARGS...: pktpath -v in r, in the background; waits for its
# ready line (polled every 0.2 s: READY_S is the wall time to it, in 0.2 s
# steps). Returns non-zero if it exited or never became ready.
pp_start() {
	local bin=$1 i=0 t0
	shift
	: >"$ERR"
	t0=$(uptime_s)
	/usr/sbin/ip netns exec r timeout -s KILL "$RUN_TIMEOUT" vmhelper sigdfl \
		"$bin" -v "$@" >/dev/null 2>"$ERR" &
	PP_PID=$!
	READY_S=""
	while [ $i -lt $((READY_WAIT * 5)) ]; do
		if grep -q '^pktpath: ready' "$ERR"; then
			READY_S=$(since "$t0")
			return 0
		fi
		kill -0 "$PP_PID" 2>/dev/null || return 1
		usleep 200000
		i=$((i + 1))
	done
	return 1
}

# pp_stop: SIGINT (a user's Ctrl-C), wait for the exit; PP_RC its status.
pp_stop() {
	kill -INT "$PP_PID" 2>/dev/null
	wait "$PP_PID"
	PP_RC=$?
}

# The -v lines: "attached N probes in X ms (backend B; setup S ms)" and
# "detached N probes in Y ms". Sets PROBES ATTACH_MS SETUP_MS DETACH_MS.
pp_timings() {
	local att
	att=$(sed -n 's/^.*pktpath: attached \([0-9]*\) probes in \([0-9.]*\) ms .*setup \([0-9.]*\) ms.*/\1 \2 \3/p' \
		"$ERR")
	# shellcheck disable=SC2086 # three words or none
	set -- $att
	PROBES=${1:-}
	ATTACH_MS=${2:-}
	SETUP_MS=${3:-}
	DETACH_MS=$(sed -n 's/^pktpath: detached [0-9]* probes in \([0-9.]*\) ms$/\1/p' "$ERR")
}

pp_errors() {
	sed 's/^/@@RBERR /' "$ERR" | grep -v 'attaching [0-9]* of' | tail -n 5
}

# ---- rate ------------------------------------------------------------------------

rx_c() { ip netns exec c cat /sys/class/net/veth-c/statistics/rx_packets; }

# BPF program runs so far, all programs (kernel.bpf_stats_enabled=1).
bpf_runs() {
	bpftool prog show 2>/dev/null |
		awk '{ for (i = 1; i < NF; i++) if ($i == "run_cnt") n += $(i + 1) } END { print n + 0 }'
}

# flow PORT: a SECS-long flood from a to c:PORT. FLOW_PPS: packets/s
# that reached c (veth-c's RX); FLOW_RUNS: BPF program runs per packet.
flow() {
	local rx0 b0 out sent secs rx
	rx0=$(rx_c)
	b0=$(bpf_runs)
	out=$(ip netns exec a vmhelper udp-flood "$C" "$1" "$SECS")
	# Let the last datagrams cross the router.
	usleep 100000
	rx=$(($(rx_c) - rx0))
	FLOW_RUNS=$(awk -v b="$(($(bpf_runs) - b0))" -v n="$rx" \
		'BEGIN { printf "%.1f", n ? b / n : 0 }')
	sent=${out% *}
	secs=${out#* }
	FLOW_PPS=$(awk -v n="$rx" -v s="$secs" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')
	FLOW_SENT=$(awk -v n="$sent" -v s="$secs" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')
}

# rate_once ROUND BACKEND LEVEL: no tracing, then traced with --detail
# LEVEL; one @@RB line.
rate_once() {
	local r=$1 be=$2 list=$3 nu nt nu_runs nt_runs tu tt tu_runs tt_runs tsent
	flow "$PORT_UNTRACKED"
	nu=$FLOW_PPS nu_runs=$FLOW_RUNS
	flow "$PORT_TRACKED"
	nt=$FLOW_PPS nt_runs=$FLOW_RUNS
	tu=null tt=null tu_runs=null tt_runs=null tsent=null
	if pp_start "$PP" --backend "$be" --detail "$list" "$RATE_FILTER"; then
		flow "$PORT_UNTRACKED"
		tu=$FLOW_PPS tu_runs=$FLOW_RUNS
		flow "$PORT_TRACKED"
		tt=$FLOW_PPS tt_runs=$FLOW_RUNS tsent=$FLOW_SENT
	fi
	pp_stop
	pp_timings
	printf '@@RB {"type":"rate","round":%s,"backend":"%s","list":"%s",' "$r" "$be" "$list"
	printf '"none_untracked":%s,"none_tracked":%s,"untracked":%s,"tracked":%s,' \
		"$nu" "$nt" "$tu" "$tt"
	printf '"runs_none_untracked":%s,"runs_none_tracked":%s,' "$nu_runs" "$nt_runs"
	printf '"runs_untracked":%s,"runs_tracked":%s,"tracked_sent":%s,' "$tu_runs" "$tt_runs" \
		"$tsent"
	printf '"probes":%s,"setup_ms":%s,"attach_ms":%s,"detach_ms":%s,"ready_s":%s,' \
		"$(num "$PROBES")" "$(num "$SETUP_MS")" "$(num "$ATTACH_MS")" "$(num "$DETACH_MS")" \
		"$(num "$READY_S")"
	printf '"lost":%s,"rc":%s}\n' \
		"$(sed -n 's/^pktpath: lost \([0-9]*\) records.*/\1/p' "$ERR" |
			awk '{ n += $1 } END { print n + 0 }')" "$PP_RC"
	if [ "$PP_RC" != 0 ] || [ "$tt" = null ]; then pp_errors; fi
}

rate() {
	local r cfgs="" be list c
	for list in $LISTS; do
		for be in $BACKENDS; do
			cfgs="$cfgs $be/$list"
		done
	done
	sysctl -qw kernel.bpf_stats_enabled=1
	for r in $(seq 1 "$ROUNDS"); do
		# shellcheck disable=SC2086 # a list of words
		for c in $(rotate $((r - 1)) $cfgs); do
			rate_once "$r" "${c%/*}" "${c#*/}"
			sleep 1
		done
	done
	sysctl -qw kernel.bpf_stats_enabled=0
}

# ---- start-up ----------------------------------------------------------------------

# su_once ROUND NAME BIN BACKEND LIST MODE: MODE run (to ready, then SIGINT)
# or list (--list-probes: the setup alone, wall time).
su_once() {
	local r=$1 name=$2 bin=$3 be=$4 list=$5 mode=$6 t0 extra=""
	[ "$list" = default ] || extra=--all-skb-funcs
	PROBES="" ATTACH_MS="" SETUP_MS="" DETACH_MS="" READY_S="" PP_RC=""
	if [ "$mode" = run ]; then
		# shellcheck disable=SC2086 # extra is one word or none
		pp_start "$bin" --backend "$be" --funcs "$LIST_DEFAULT" $extra --duration 0.1 \
			"$SU_FILTER"
		wait "$PP_PID"
		PP_RC=$?
		pp_timings
	else
		t0=$(uptime_s)
		# shellcheck disable=SC2086 # extra is one word or none
		/usr/sbin/ip netns exec r "$bin" --list-probes --backend "$be" --funcs "$LIST_DEFAULT" \
			$extra >/tmp/rb.list 2>"$ERR"
		PP_RC=$?
		READY_S=$(since "$t0")
		PROBES=$(grep -vc ' skipped' /tmp/rb.list)
	fi
	printf '@@RB {"type":"startup","round":%s,"bin":"%s","backend":"%s","list":"%s",' \
		"$r" "$name" "$be" "$list"
	printf '"mode":"%s","probes":%s,"setup_ms":%s,"attach_ms":%s,"detach_ms":%s,' "$mode" \
		"$(num "$PROBES")" "$(num "$SETUP_MS")" "$(num "$ATTACH_MS")" "$(num "$DETACH_MS")"
	printf '"wall_s":%s,"rc":%s}\n' "$(num "$READY_S")" "$PP_RC"
	[ "$PP_RC" = 0 ] || pp_errors
}

# slow BACKEND: single kprobes and fentry on every skb function take minutes
# to attach and detach under TCG.
slow() { [ "$1" = kprobe ] || [ "$1" = fentry ]; }

startup() {
	local r b be list mode
	for r in $(seq 1 "$SU_ROUNDS"); do
		for list in $SU_LISTS; do
			for be in $BACKENDS; do
				mode=run
				[ "$list" = default ] || ! slow "$be" || [ "$SU_SLOW" = 1 ] || mode=list
				# The binaries alternate, their order by round.
				# shellcheck disable=SC2086 # a list of words
				for b in $(rotate $((r - 1)) $SU_BINS); do
					su_once "$r" "${b%%=*}" "${b#*=}" "$be" "$list" "$mode"
					sleep 1
				done
			done
		done
	done
}

# ---- verdict: what recording another program's verdicts costs it ---------------

# A program of someone else's (bpf_dropper's, attached nowhere: pktpath
# records every TC and XDP program's verdicts), a TC one and an XDP one,
# run by BPF_PROG_TEST_RUN, 10^6 times a measurement, on a 64-byte frame it
# passes: the kernel's mean ns per run, through the fexit pktpath puts on
# it (a TC program's: idle, nothing tracked, the gate closed; an XDP
# program's: the frame's, which lets a passed frame go) or without
# pktpath, alternating, ROUNDS rounds of each. xdp-drop: the XDP program
# drops each frame, through the fexit, which reads a frame it did not pass
# and runs the filter on it; xdp-redirect: it redirects each (to lo, which
# refuses it: the redirect fails) as live frames (5.18+), through the same
# and the xdp redirect tracepoint.
VERDICT_REPEAT=1000000
verdict_once() {
	echo "$VERDICT_REPEAT" >&3
	read -r _ ns <&4
	printf '@@RB {"type":"verdict","prog":"%s","round":%s,"traced":%s,"ns":%s,"rc":%s}\n' \
		"$1" "$2" "$3" "${ns:-null}" "${4:-0}"
}
# verdict_of PROG HOOK NAME: the rounds for bpf_dropper's PROG ("tc", "xdp").
verdict_of() {
	local r
	rm -f /tmp/vd.in /tmp/vd.out
	mkfifo /tmp/vd.in /tmp/vd.out
	bpf_dropper lo "$2" 7000 "$3" </tmp/vd.in >/tmp/vd.out 2>/tmp/vd.err &
	exec 3>/tmp/vd.in 4</tmp/vd.out
	for r in $(seq 1 "$ROUNDS"); do
		verdict_once "$1" "$r" 0
		if pp_start "$PP" --backend tracepoint --verdicts "$RATE_FILTER" &&
			grep -q "recording the verdicts of .*$3#" "$ERR"; then
			verdict_once "$1" "$r" 1
			pp_stop
		else
			pp_stop
			verdict_once "$1" "$r" 1 1
		fi
	done
	exec 3>&- 4<&-
	wait
}
verdict() {
	verdict_of tc test-run vm_cost
	verdict_of xdp test-run-xdp vm_xcost
	verdict_of xdp-drop test-run-xdp-drop vm_dcost
	verdict_of xdp-redirect test-run-xdp-redirect vm_rcost
}

# ---- main --------------------------------------------------------------------------

ulimit -n 65536
# shellcheck disable=SC2086 # a list of words
usable_backends $WANT
printf '@@RB {"type":"kernel","release":"%s","backends":"%s","rounds":%s,"secs":%s}\n' \
	"$(uname -r)" "$BACKENDS" "$ROUNDS" "$SECS"
topo
for job in $JOBS; do "$job"; done
# The sinks; then only what this script made.
# shellcheck disable=SC2046 # a list of pids
kill $(ip netns pids c) 2>/dev/null
for ns in a r c; do ip netns delete "$ns"; done
