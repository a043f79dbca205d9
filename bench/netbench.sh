#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel-side benchmarks that bench/run.sh puts into
# bench/notes/full_run.md, on two network namespaces joined by one veth pair,
# created here and removed on exit:
#
#   NS-c  veth-c 198.18.0.1/24 --- veth-s 198.18.0.2/24  NS-s
#         (iperf3 client, pktpath)            (iperf3 server)
#
# pktpath runs in NS-c with --backend tracepoint, so its classifier sits on
# veth-c and its tracepoint programs see every namespace. Configurations:
#
#   none      no tracing
#   floor     bench/hop_floor -e: an empty BPF program on each of pktpath's
#             tracepoints (the cost no program body can remove)
#   floor-all bench/hook_empty: an empty program on every hook pp-a holds
#             (found from a pp-a run before the rounds, bench/pp_hooks.sh):
#             its tracepoints, the slab and other hooks outside the list,
#             and its classifier's interfaces and directions (an empty
#             classifier that returns "no verdict", see hook_empty.bpf.c)
#   pp-a      pktpath 'icmp and host 198.19.9.9': matches nothing
#   pp-b      pktpath 'icmp': the 10 pps ping below is tracked
#   pp-c      pktpath 'udp': every packet of the UDP flow is tracked
#   pp-cs     pp-c scoped to both namespaces (--netns NS-c --netns NS-s):
#             the same hops, each paying the scope test (bpf/scope.bpf.h,
#             pp_out_of_scope()); its classifier also sits on veth-s. Not in
#             the default lists: bench/scope.jq compares it with pp-c
#   agent     pktpath --agent --metrics: the node agent as shipped, every
#             drop counted, no packet followed. Not in the default lists
#   pp-m      pktpath --metrics with no filter: the agent as it shipped
#             before --agent, every packet tracked. Not in the default lists
#   bpftrace  a bpftrace script on the same tracepoints doing the per-hit
#             work of a tracer without a gate: look args->skbaddr up in a
#             map, count when tracked (nothing is ever tracked)
#
# A 10 pps ping from NS-c to NS-s runs during every measurement of every
# configuration, so that all of them carry the same traffic.
#
# Phases, each ROUNDS rounds, configurations in turn within a round (the
# first one rotating from round to round):
#
#   hit      kernel.bpf_stats_enabled=1, 64-byte UDP (iperf3 -u -l 64 -b 0)
#            for SECS s: run_time_ns / run_cnt of every program, next to the
#            reference programs of bench/hop_floor.bpf.c (empty, pktpath's
#            gate, lookup only, and the parts of a tracked hit) on
#            netif_receive_skb and net_dev_queue
#   traffic  bpf_stats off: the same UDP flow's receiver-side packets/s, then
#            TCP (iperf3 default) Gbit/s, SECS s each
#   loss     pktpath --json 'udp' into bench/json_tally while UDP is sent at
#            each rate of RATES packets/s (0: as fast as it goes; RATE/SIZE:
#            with --ring-size SIZE, to force a loss): records received and
#            lost, and whether that accounts for every record
#
# Raw results go to OUTDIR/data.jsonl (one JSON object per measurement),
# Markdown sections to stdout, progress to stderr. With --smoke: one short
# round of each phase, no bpftrace, no timing judged; it fails only if a
# tool fails. With --report: only the Markdown, from OUTDIR's results.
#
# Usage: netbench.sh [--smoke|--report] OUTDIR
# Environment: BUILD_DIR (build), PKTPATH (BUILD_DIR/loader/pktpath),
#   ROUNDS (5), SECS (5), RATES ("1000 5000 10000 20000 40000 0 0/64K"),
#   HIT_CONFIGS, TRAFFIC_CONFIGS (the phases' configurations; empty: skip)
set -euo pipefail

SMOKE=0 REPORT_ONLY=0
case ${1:-} in
--smoke) SMOKE=1 && shift ;;
--report) REPORT_ONLY=1 && shift ;;
esac
[ $# -eq 1 ] || {
	echo "usage: $0 [--smoke|--report] OUTDIR" >&2
	exit 2
}
OUT=$1
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/pp_hooks.sh
. "$HERE/pp_hooks.sh"
BUILD_DIR=${BUILD_DIR:-build}
PKTPATH=${PKTPATH:-$BUILD_DIR/loader/pktpath}
BENCH=$BUILD_DIR/bench
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-5}
RATES=${RATES-1000 5000 10000 20000 40000 0 0/64K}
if [ "$SMOKE" = 1 ]; then
	ROUNDS=1 SECS=1 RATES="1000 0/64K"
fi

NS_C=ppbench-$$-c
NS_S=ppbench-$$-s
ADDR_C=198.18.0.1
ADDR_S=198.18.0.2
FILTER_A='icmp and host 198.19.9.9'
FILTER_B=icmp
FILTER_C=udp
# A 64-byte UDP payload as pktpath sees it at veth-c egress: + UDP, IPv4, Ethernet.
FLOW_LEN=$((64 + 8 + 20 + 14))
# Every datagram of the flow crosses these probes exactly once (veth has no
# queue and no GRO here), so records received + lost at each must equal the
# datagrams sent.
FIXED_PROBES=(tc:egress tp:net:net_dev_queue tp:net:net_dev_start_xmit tp:net:netif_rx)
# iperf3's client on CPU 0, its server on CPU 1 (-A): where the scheduler
# puts the two ends otherwise changes the packet rate from run to run by more
# than the tracing does. On veth the sender's CPU also does both sides'
# softirq work, so that is where every probe's cost lands.
PIN=()
[ "$(nproc)" -lt 2 ] || PIN=(-A "0,1")
READY_TIMEOUT=60 # s for a tracer to attach (bpftrace compiles its script first)
STOP_TIMEOUT=20	 # s for a tracer to exit after SIGINT

WORK=$OUT/work
DATA=$OUT/data.jsonl
STARTED=()
BT_SKIPPED=()
ALL_HOOKS=()
STATS_WAS=
TRACEFS_MOUNTED=0

log() {
	echo "netbench: $*" >&2
}

die() {
	log "$*"
	exit 1
}

alive() {
	kill -0 "$1" 2>/dev/null
}

# stop_pid PID: SIGINT, then SIGKILL if it lingers; returns its exit status.
stop_pid() {
	local pid=$1 i
	if alive "$pid"; then
		kill -INT "$pid" 2>/dev/null || true
		for ((i = 0; i < STOP_TIMEOUT * 10; i++)); do
			alive "$pid" || break
			sleep 0.1
		done
		if alive "$pid"; then
			log "pid $pid ignored SIGINT for ${STOP_TIMEOUT} s: killing it"
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	wait "$pid"
}

cleanup() {
	local pid ns
	trap - EXIT INT TERM
	for pid in "${STARTED[@]}"; do
		if alive "$pid"; then
			kill -INT "$pid" 2>/dev/null || true
		fi
	done
	sleep 0.5
	for pid in "${STARTED[@]}"; do
		if alive "$pid"; then
			kill -KILL "$pid" 2>/dev/null || true
		fi
	done
	for ns in "$NS_C" "$NS_S"; do
		[ ! -e "/run/netns/$ns" ] || ip netns delete "$ns" || true
	done
	[ -z "$STATS_WAS" ] || sysctl -q -w kernel.bpf_stats_enabled="$STATS_WAS" || true
	[ "$TRACEFS_MOUNTED" = 0 ] || umount /sys/kernel/tracing || true
}

# spawn OUTFILE ERRFILE CMD...: CMD in the background, its pid in BG.
spawn() {
	local out=$1 err=$2
	shift 2
	"$@" >"$out" 2>"$err" &
	BG=$!
	STARTED+=("$BG")
}

# wait_ready FILE PATTERN PID: until FILE holds PATTERN; fails if PID exits first.
wait_ready() {
	local i
	for ((i = 0; i < READY_TIMEOUT * 10; i++)); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		alive "$3" || {
			log "$(basename "$1"): exited before it was ready:"
			tail -n 5 "$1" >&2
			return 1
		}
		sleep 0.1
	done
	log "$(basename "$1"): not ready after ${READY_TIMEOUT} s"
	return 1
}

# stop_tool PID NAME: a tracer must still be running, and exit 0 on SIGINT.
stop_tool() {
	local rc=0
	alive "$1" || log "$2 (pid $1) exited by itself"
	stop_pid "$1" || rc=$?
	[ "$rc" -eq 0 ] || die "$2 failed: exit status $rc (see $WORK)"
}

net_up() {
	ip netns add "$NS_C"
	ip netns add "$NS_S"
	ip -n "$NS_C" link add veth-c type veth peer name veth-s netns "$NS_S"
	ip -n "$NS_C" link set lo up
	ip -n "$NS_S" link set lo up
	ip -n "$NS_C" addr add "$ADDR_C/24" dev veth-c
	ip -n "$NS_S" addr add "$ADDR_S/24" dev veth-s
	ip -n "$NS_C" link set veth-c up
	ip -n "$NS_S" link set veth-s up
	ip netns exec "$NS_C" ping -n -q -c 1 -w 5 "$ADDR_S" >/dev/null ||
		die "no echo reply from $ADDR_S"
}

# The tracepoints pktpath attaches with its default list: "category:name".
find_tracepoints() {
	"$PKTPATH" --backend tracepoint --list-probes 2>/dev/null |
		awk '$1 ~ /^tp:/ && $NF == "tracepoint" { sub(/^tp:/, "", $1); print $1 }'
}

# bt_script FILE: the bpftrace equivalent of pktpath's per-hit work, on
# each of TPS that has an skbaddr field (the others are in BT_SKIPPED).
bt_script() {
	local tp fmt
	BT_SKIPPED=()
	{
		# The map must be declared before it is read; nothing is ever
		# tracked, as in pktpath's case (a). BEGIN runs once every probe
		# is attached: "ready" means attached.
		echo 'BEGIN { @tracked[(uint64)0] = (uint64)0; delete(@tracked[(uint64)0]);'
		printf '%s\n' '	printf("ready\n"); }'
		for tp in "${TPS[@]}"; do
			fmt=/sys/kernel/tracing/events/${tp/://}/format
			if ! grep -q 'skbaddr;' "$fmt" 2>/dev/null; then
				BT_SKIPPED+=("$tp")
				continue
			fi
			case $tp in
			skb:consume_skb | skb:kfree_skb)
				echo "tracepoint:$tp { if (@tracked[(uint64)args->skbaddr]) {"
				echo '	@ends = count(); delete(@tracked[(uint64)args->skbaddr]); } }'
				;;
			*)
				echo "tracepoint:$tp {"
				echo '	if (@tracked[(uint64)args->skbaddr]) { @hits = count(); } }'
				;;
			esac
		done
		echo 'END { clear(@tracked); }'
	} >"$1"
}

# start_tracer CONFIG TAG [JSON]: starts CONFIG's tracer; its pid in TRACER
# (empty for none), its stderr in WORK/TAG.err.
start_tracer() {
	local cfg=$1 tag=$2 filter
	TRACER=
	case $cfg in
	none) return 0 ;;
	floor)
		spawn /dev/null "$WORK/$tag.err" "$BENCH/hop_floor" -e "${TPS[@]#*:}"
		wait_ready "$WORK/$tag.err" 'hop_floor: ready' "$BG"
		;;
	floor-all)
		# In NS-c's network namespace, where the classifier's interfaces
		# are named; not ip netns exec, whose own /sys lacks the cgroup
		# directories pp_hooks named from this mount namespace.
		spawn "$WORK/$tag.out" "$WORK/$tag.err" nsenter --net="/run/netns/$NS_C" \
			"$BENCH/hook_empty" "${ALL_HOOKS[@]}"
		wait_ready "$WORK/$tag.err" 'hook_empty: ready' "$BG"
		;;
	bpftrace)
		spawn "$WORK/$tag.out" "$WORK/$tag.err" bpftrace -B none "$WORK/equiv.bt"
		wait_ready "$WORK/$tag.out" '^ready' "$BG"
		;;
	agent | pp-m)
		# The node agent as shipped (packaging/pktpath.default), and as it
		# shipped before: --metrics with no filter, every packet tracked.
		local mode=(--agent)
		[ "$cfg" = agent ] || mode=(--backend tracepoint)
		spawn /dev/null "$WORK/$tag.err" ip netns exec "$NS_C" "$PKTPATH" "${mode[@]}" \
			--metrics 127.0.0.1:19464
		wait_ready "$WORK/$tag.err" 'pktpath: ready' "$BG"
		;;
	pp-a | pp-b | pp-c | pp-cs)
		local scope=()
		case $cfg in
		pp-a) filter=$FILTER_A ;;
		pp-b) filter=$FILTER_B ;;
		pp-cs) filter=$FILTER_C scope=(--netns "$NS_C" --netns "$NS_S") ;;
		*) filter=$FILTER_C ;;
		esac
		spawn /dev/null "$WORK/$tag.err" ip netns exec "$NS_C" "$PKTPATH" \
			--backend tracepoint "${scope[@]}" "$filter"
		wait_ready "$WORK/$tag.err" 'pktpath: ready' "$BG"
		;;
	*) die "unknown configuration $cfg" ;;
	esac
	TRACER=$BG
}

# The 10 pps ping of every measurement, bounded by -w; its pid in PING.
start_ping() {
	spawn /dev/null /dev/null ip netns exec "$NS_C" ping -n -q -i 0.1 -w $((4 * SECS + 30)) \
		"$ADDR_S"
	PING=$BG
}

stop_ping() {
	stop_pid "$PING" || true
}

# iperf_server: a one-test iperf3 server in NS-s, listening when this returns.
iperf_server() {
	local i
	spawn /dev/null /dev/null ip netns exec "$NS_S" iperf3 -s -1 -B "$ADDR_S"
	SERVER=$BG
	for ((i = 0; i < 100; i++)); do
		ip netns exec "$NS_S" ss -Hltn 'sport = :5201' | grep -q . && return 0
		alive "$SERVER" || break
		sleep 0.05
	done
	die "iperf3 server did not start"
}

# udp_test RATE FILE: 64-byte datagrams at RATE packets/s (0: unlimited) for
# SECS s; iperf3's JSON report in FILE.
udp_test() {
	local bw=0
	[ "$1" -eq 0 ] || bw=$(($1 * 64 * 8))
	iperf_server
	timeout $((SECS + 30)) ip netns exec "$NS_C" iperf3 -c "$ADDR_S" "${PIN[@]}" -u -l 64 \
		-b "$bw" -t "$SECS" -J >"$2" || die "iperf3 -u failed (see $2)"
	stop_pid "$SERVER" || true
}

tcp_test() {
	iperf_server
	timeout $((SECS + 30)) ip netns exec "$NS_C" iperf3 -c "$ADDR_S" "${PIN[@]}" -t "$SECS" \
		-J >"$1" || die "iperf3 (TCP) failed (see $1)"
	stop_pid "$SERVER" || true
}

# udp_fields FILE: sent pps, receiver pps, datagrams sent, datagrams received.
udp_fields() {
	jq -r '.end as $e | [($e.sum_sent.packets / $e.sum_sent.seconds),
		(($e.sum_received.packets - $e.sum_received.lost_packets) / $e.sum_received.seconds),
		$e.sum_sent.packets, ($e.sum_received.packets - $e.sum_received.lost_packets)]
		| @tsv' "$1"
}

# lost_json ERRFILE: pktpath's "lost N records at NAME" lines as {"NAME": N}.
lost_json() {
	sed -n 's/^pktpath: lost \([0-9]*\) records at \(.*\)$/\2\t\1/p' "$1" |
		jq -R -s -c 'split("\n") | map(select(length > 0) | split("\t")
			| {(.[0]): (.[1] | tonumber)}) | add // {}'
}

# late_count ERRFILE: the records pktpath said came after their packet was
# printed: its count line if it printed one, else the records it named.
late_count() {
	local n
	n=$(sed -n 's/^pktpath: \([0-9]*\) records came after their packet was printed.*/\1/p' "$1")
	[ -n "$n" ] || n=$(grep -c '^pktpath: packet [0-9]*: its .* after the packet was printed' "$1" || true)
	echo "${n:-0}"
}

# proc_cpu PID: its CPU seconds (user + system) and its voluntary context
# switches (for a loader: how often it went to sleep waiting for records).
proc_cpu() {
	local tck
	tck=$(getconf CLK_TCK)
	# Fields 14 and 15 of stat, counted after the ")" that ends the name.
	awk -v tck="$tck" 'NR == FNR { sub(/.*\) /, ""); cpu = ($12 + $13) / tck; next }
		$1 == "voluntary_ctxt_switches:" { print cpu, $2 }' \
		"/proc/$1/stat" "/proc/$1/status"
}

# record JSON: one measurement, tagged with the phase's fields.
record() {
	echo "$1" >>"$DATA"
}

# prog_stats OWNER PID: every BPF program PID holds (its fds, or for
# bpftrace its perf events) as JSON lines {owner, id, name, tp, cnt, ns}.
prog_stats() {
	local owner=$1 pid=$2 ids
	ids=$(cat "/proc/$pid/fdinfo/"* 2>/dev/null | awk '$1 == "prog_id:" { print $2 }' |
		sort -un | paste -sd, -)
	bpftool prog show -j >"$WORK/progs.json"
	bpftool link show -j >"$WORK/links.json"
	bpftool perf show -j >"$WORK/perf.json" 2>/dev/null || echo '[]' >"$WORK/perf.json"
	jq -c --arg owner "$owner" --argjson ids "[$ids]" --argjson pid "$pid" \
		--slurpfile links "$WORK/links.json" --slurpfile perf "$WORK/perf.json" '
		([$links[0][] | select(.tp_name) | {key: (.prog_id | tostring), value: .tp_name}]
			| from_entries) as $tp
		| ([$perf[0][] | select(.pid == $pid and .tracepoint)
			| {key: (.prog_id | tostring), value: .tracepoint}] | from_entries) as $ptp
		| .[] | (.id | tostring) as $k | .id as $id
		| select(any($ids[]; . == $id) or $ptp[$k] != null)
		| {owner: $owner, id, name, tp: ($tp[$k] // $ptp[$k] // ""),
		   cnt: (.run_cnt // 0), ns: (.run_time_ns // 0)}' "$WORK/progs.json"
}

# hit_run ROUND CONFIG: one per-hit measurement.
hit_run() {
	local r=$1 cfg=$2 tag="hit-$1-$2" floor btfloor="" u
	log "hit round $r: $cfg"
	spawn /dev/null "$WORK/$tag-floor.err" "$BENCH/hop_floor" netif_receive_skb net_dev_queue
	floor=$BG
	wait_ready "$WORK/$tag-floor.err" 'hop_floor: ready' "$floor"
	start_tracer "$cfg" "$tag"
	if [ "$cfg" = bpftrace ]; then
		# The floor of a classic tracepoint program, as bpftrace makes them.
		spawn "$WORK/$tag-btfloor.out" "$WORK/$tag-btfloor.err" bpftrace -B none -e \
			'tracepoint:net:netif_receive_skb { } BEGIN { printf("ready\n"); }'
		btfloor=$BG
		wait_ready "$WORK/$tag-btfloor.out" '^ready' "$btfloor"
	fi
	start_ping
	udp_test 0 "$WORK/$tag-udp.json"
	{
		prog_stats floor "$floor"
		case $cfg in
		bpftrace) prog_stats bpftrace "$TRACER" ;;
		floor-all) prog_stats empty "$TRACER" ;;
		*) prog_stats pktpath "$TRACER" ;;
		esac
		[ -z "$btfloor" ] || prog_stats btfloor "$btfloor"
	} | jq -c --argjson r "$r" --arg c "$cfg" --argjson s "$SECS" \
		'{phase: "hit", round: $r, config: $c, secs: $s} + .' >>"$DATA"
	u=$(udp_fields "$WORK/$tag-udp.json")
	record "$(jq -n -c --argjson r "$r" --arg c "$cfg" --arg u "$u" \
		'($u | split("\t") | map(tonumber)) as $v
		| {phase: "hit-udp", round: $r, config: $c, udp_pps: $v[1]}')"
	stop_ping
	[ -z "$btfloor" ] || stop_tool "$btfloor" "bpftrace (floor)"
	stop_tool "$TRACER" "$cfg"
	stop_tool "$floor" hop_floor
}

# traffic_run ROUND CONFIG: UDP packets/s and TCP Gbit/s under CONFIG.
traffic_run() {
	local r=$1 cfg=$2 tag="traffic-$1-$2" u lost='{}' late=null
	log "traffic round $r: $cfg"
	start_tracer "$cfg" "$tag"
	start_ping
	udp_test 0 "$WORK/$tag-udp.json"
	tcp_test "$WORK/$tag-tcp.json"
	stop_ping
	if [ -n "$TRACER" ]; then
		stop_tool "$TRACER" "$cfg"
		if [[ $cfg == pp-* ]]; then
			lost=$(lost_json "$WORK/$tag.err")
			late=$(late_count "$WORK/$tag.err")
		fi
	fi
	u=$(udp_fields "$WORK/$tag-udp.json")
	record "$(jq -n -c --argjson r "$r" --arg c "$cfg" --arg u "$u" --argjson lost "$lost" \
		--argjson late "$late" --slurpfile tcp "$WORK/$tag-tcp.json" '
		($u | split("\t") | map(tonumber)) as $v
		| {phase: "traffic", round: $r, config: $c, udp_sent_pps: $v[0], udp_pps: $v[1],
		   tcp_gbps: ($tcp[0].end.sum_received.bits_per_second / 1e9),
		   lost: ([$lost[]] | add // 0), late: $late}')"
}

# loss_run ROUND CASE: case (c) at CASE's rate, every record tallied. CASE
# is RATE (packets/s, 0: unlimited) or RATE/SIZE: with --ring-size SIZE, a
# ring small enough to overflow, so that there is a loss to count.
loss_run() {
	local r=$1 case=$2 rate=${2%%/*} ring=() tag fifo tally pp rc=0 u cpu0 cpu1
	[[ $case != */* ]] || ring=(--ring-size "${case#*/}")
	tag="loss-$r-${case/\//-}"
	log "loss round $r: $rate packets/s ${ring[*]}"
	fifo=$WORK/$tag.fifo
	rm -f "$fifo"
	mkfifo "$fifo"
	# Not spawn(): the FIFO must be opened in the background job, as
	# opening it blocks until pktpath opens the other end.
	"$BENCH/json_tally" "$FLOW_LEN" <"$fifo" >"$WORK/$tag.tally" 2>"$WORK/$tag.tally.err" &
	tally=$!
	STARTED+=("$tally")
	spawn "$fifo" "$WORK/$tag.err" ip netns exec "$NS_C" "$PKTPATH" --backend tracepoint \
		"${ring[@]}" --json "$FILTER_C"
	pp=$BG
	wait_ready "$WORK/$tag.err" 'pktpath: ready' "$pp"
	cpu0=$(proc_cpu "$pp")
	udp_test "$rate" "$WORK/$tag-udp.json"
	# pktpath prints only closed packets: give the last ones the packet
	# timeout (1 s) and a few polls to close before stopping it.
	sleep "${LOSS_SETTLE:-2.5}"
	cpu1=$(proc_cpu "$pp")
	stop_tool "$pp" pktpath
	stop_pid "$tally" || rc=$?
	[ "$rc" -eq 0 ] || die "json_tally failed: exit status $rc (see $WORK/$tag.tally)"
	u=$(udp_fields "$WORK/$tag-udp.json")
	record "$(jq -n -c --argjson r "$r" --arg case "$case" --argjson rate "$rate" --arg u "$u" \
		--arg cpu0 "$cpu0" --arg cpu1 "$cpu1" \
		--arg t "$(cat "$WORK/$tag.tally")" --argjson lost "$(lost_json "$WORK/$tag.err")" \
		--arg fixed "${FIXED_PROBES[*]}" --argjson s "$SECS" '
		($u | split("\t") | map(tonumber)) as $v
		| ($t | split(" ") | map(split("=") | {(.[0]): (.[1] | tonumber)}) | add) as $t
		| ($fixed | split(" ")) as $fx
		| ($cpu0 | split(" ") | map(tonumber)) as $c0
		| ($cpu1 | split(" ") | map(tonumber)) as $c1
		| {phase: "loss", round: $r, case: $case, rate: $rate, secs: $s, sent: $v[2],
		   sent_pps: $v[0], loader_cpu_s: ($c1[0] - $c0[0]), loader_wakeups: ($c1[1] - $c0[1]),
		   packets: $t.packets, timeout: $t.timeout, received: ($t.hops + $t.other_hops),
		   lost: $t.summary_lost, lost_by_probe: $lost,
		   fixed_expected: (($v[2] + $t.other_egress) * ($fx | length)),
		   fixed_accounted: ([$fx[] | ($t["at:" + .] // 0) + ($lost[.] // 0)] | add),
		   mark_expected: ($v[2] + $t.other_egress),
		   mark_accounted: (($t["at:tc:egress"] // 0) + ($lost["tc:egress"] // 0))}')"
}

# find_hooks: every hook pp-a holds, in hook_empty's words, into ALL_HOOKS
# (and WORK/floor-all.hooks).
find_hooks() {
	log "the hooks of pp-a, for floor-all"
	start_tracer pp-a hooks
	pp_hooks "$TRACER" "$WORK" | cut -d' ' -f2 | sort -u >"$WORK/floor-all.hooks"
	stop_tool "$TRACER" pp-a
	mapfile -t ALL_HOOKS <"$WORK/floor-all.hooks"
	[ "${#ALL_HOOKS[@]}" -gt 0 ] || die "pp-a holds no hooks"
	log "floor-all: ${#ALL_HOOKS[@]} hooks: ${ALL_HOOKS[*]}"
}

# The Markdown sections from OUTDIR's results; what the data lacks
# (bpftrace's skipped tracepoints, the fixed probes) is in OUTDIR/meta.json.
report() {
	jq -s -r --argjson secs "$(jq .secs "$OUT/meta.json")" \
		--arg skipped "$(jq -r .skipped "$OUT/meta.json")" \
		--arg fixed "$(jq -r .fixed "$OUT/meta.json")" \
		--arg all_hooks "$(jq -r '.all_hooks // ""' "$OUT/meta.json")" -f "$HERE/report.jq" "$DATA"
}

# rotate N ITEMS...: ITEMS starting from the N-th (mod their number).
rotate() {
	local n=$1 i
	shift
	for ((i = 0; i < $#; i++)); do
		echo "${@:$(((n + i) % $# + 1)):1}"
	done
}

main() {
	local r cfg rate hit_cfgs traffic_cfgs
	if [ "$REPORT_ONLY" = 1 ]; then
		report
		return
	fi
	[ "$(id -u)" -eq 0 ] || die "needs root"
	[ -x "$PKTPATH" ] || die "no pktpath at $PKTPATH (build first)"
	for t in "$BENCH/hop_floor" "$BENCH/hook_empty" "$BENCH/json_tally"; do
		[ -x "$t" ] || die "no $t (build first)"
	done
	for t in iperf3 jq bpftool; do
		command -v "$t" >/dev/null || die "$t is not installed (scripts/install-deps.sh)"
	done
	mkdir -p "$WORK"
	: >"$DATA"
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	if ! mountpoint -q /sys/kernel/tracing; then
		mount -t tracefs nodev /sys/kernel/tracing
		TRACEFS_MOUNTED=1
	fi
	mapfile -t TPS < <(find_tracepoints)
	[ "${#TPS[@]}" -gt 0 ] || die "pktpath lists no tracepoints"
	net_up

	hit_cfgs=${HIT_CONFIGS-pp-a pp-b pp-c bpftrace}
	traffic_cfgs=${TRAFFIC_CONFIGS-none floor floor-all pp-a pp-b pp-c bpftrace}
	if [ "$SMOKE" = 1 ]; then
		hit_cfgs="pp-a"
		traffic_cfgs="none floor-all pp-a pp-c"
	elif ! command -v bpftrace >/dev/null; then
		log "bpftrace is not installed: its configuration is left out"
		hit_cfgs=${hit_cfgs% bpftrace}
		traffic_cfgs=${traffic_cfgs% bpftrace}
	fi
	[[ $hit_cfgs != *bpftrace* ]] || bt_script "$WORK/equiv.bt"
	[[ "$hit_cfgs $traffic_cfgs" != *floor-all* ]] || find_hooks
	jq -n -c --argjson secs "$SECS" --arg skipped "${BT_SKIPPED[*]:-none}" \
		--arg fixed "${FIXED_PROBES[*]}" --arg all "${ALL_HOOKS[*]:-}" \
		'{$secs, $skipped, $fixed, all_hooks: $all}' >"$OUT/meta.json"

	STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -q -w kernel.bpf_stats_enabled=1
	for ((r = 1; r <= ROUNDS; r++)); do
		# shellcheck disable=SC2086 # word splitting of the lists is wanted
		for cfg in $(rotate "$r" $hit_cfgs); do
			hit_run "$r" "$cfg"
		done
	done
	sysctl -q -w kernel.bpf_stats_enabled=0
	for ((r = 1; r <= ROUNDS; r++)); do
		# shellcheck disable=SC2086
		for cfg in $(rotate "$r" $traffic_cfgs); do
			traffic_run "$r" "$cfg"
		done
	done
	for ((r = 1; r <= ROUNDS; r++)); do
		# shellcheck disable=SC2086
		for rate in $(rotate "$r" $RATES); do
			loss_run "$r" "$rate"
		done
	done
	sysctl -q -w kernel.bpf_stats_enabled="$STATS_WAS"
	report
}

main
