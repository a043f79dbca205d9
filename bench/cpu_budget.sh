#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What --cpu-budget holds pktpath's CPU to under a flood of matching
# packets, and what the probe programs cost besides. As root, after a
# build, under the e2e lock:
#
#   flock /tmp/pp-kernel.lock bench/cpu_budget.sh
#
# Two namespaces joined by a veth pair; each run sends COUNT 64-byte UDP
# datagrams at PPS a second to a closed port of the receiver, where
# pktpath runs (tracepoint backend, --metrics, filter 'udp'). Configurations,
# in turn within a round, the order rotating by round: "nothing" (the
# filter 'udp and port 1': follows none of it, the floor of the hooks), "b1", "b5", "b20" (--cpu-budget 1, 5, 20) and "all" (no
# budget: every datagram followed). Per run, over the flood: pktpath's CPU
# (its threads' schedstat run time, ns), its programs' run time
# (kernel.bpf_stats_enabled=1 for the bench: run_time_ns of every pp_*
# program), the paths a second it followed (pktpath_packets_total), and
# pktpath_path_rate_limit at the end.
#
#   bench/cpu_budget.sh            measure, write DATA (bench/data/cpu_budget.jsonl)
#   bench/cpu_budget.sh --report   the Markdown table, from DATA
#
# Environment: BUILD_DIR (build), PKTPATH (BUILD_DIR/loader/pktpath),
# ROUNDS (3), COUNT (1200000: 15 s), PPS (80000), DATA.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
PKTPATH=${PKTPATH:-$BUILD_DIR/loader/pktpath}
FLOOD=$BUILD_DIR/tests/udp_flood
ROUNDS=${ROUNDS:-3}
COUNT=${COUNT:-1200000}
PPS=${PPS:-80000}
DATA=${DATA:-bench/data/cpu_budget.jsonl}
CONFIGS=(nothing b1 b5 b20 all)
NS_C=pp-budget-$$-c NS_S=pp-budget-$$-s
ADDR=127.0.0.1:19478
# shellcheck source=bench/veth_pair.sh
. bench/veth_pair.sh

report() {
	jq -s -r '
		def median: sort | if length == 0 then null
			else .[(length - 1) / 2 | floor] end;
		def f(n): . * pow(10; n) | round / pow(10; n);
		. as $all
		| "| configuration | runs | sent/s | pktpath CPU, % of one | programs, % of one "
		+ "| paths/s | rate limit at the end |",
		"|---|---|---|---|---|---|---|",
		($all | map(.config) | unique[]) as $c
		| [$all[] | select(.config == $c)] as $r
		| "| \($c) | \($r | length) | \($r | map(.pps) | median | f(0)) "
		+ "| \($r | map(.loader_pct) | median | f(2)) "
		+ "| \($r | map(.progs_pct) | median | f(2)) "
		+ "| \($r | map(.paths_per_s) | median | f(0)) "
		+ "| \($r | map(.rate_limit) | median) |"' "$DATA"
}

if [ "${1:-}" = --report ]; then
	report
	exit 0
fi
[ "$(id -u)" -eq 0 ] || {
	echo "SKIP cpu_budget: needs root"
	exit 77
}
for f in "$PKTPATH" "$FLOOD"; do
	[ -x "$f" ] || {
		echo "cpu_budget: no $f (build first)" >&2
		exit 1
	}
done

PP_PID=
cleanup() {
	[ -z "$PP_PID" ] || kill -INT "$PP_PID" 2>/dev/null || true
	wait 2>/dev/null || true
	[ -z "${STATS_WAS:-}" ] || sysctl -q -w kernel.bpf_stats_enabled="$STATS_WAS"
	pair_down "$NS_C" "$NS_S"
	rm -rf "${TMP:-}"
}
trap cleanup EXIT

pair_up "$NS_C" "$NS_S"

# pktpath's threads' time on a CPU, ns (schedstat's first field).
loader_ns() {
	cat "/proc/$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'
}
progs_ns() {
	bpftool -j prog show | jq -r '.[] | select(.name | startswith("pp_")) | .run_time_ns // 0' |
		awk '{ s += $1 } END { printf "%d\n", s }'
}
metric() {
	ip netns exec "$NS_S" curl -sf "http://$ADDR/metrics" |
		awk -v m="$1" '$1 == m || index($1, m "{") == 1 { s += $NF; n++ } END { print n ? s : 0 }'
}
flood() {
	local t0 t1
	t0=$(date +%s.%N)
	ip netns exec "$NS_C" taskset -c 0 "$FLOOD" send 198.18.0.2 "$COUNT" "$PPS" 9 >/dev/null
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l
}

args_of() {
	case $1 in
	nothing) echo "udp and port 1" ;;
	b*) echo "--cpu-budget ${1#b} udp" ;;
	all) echo "udp" ;;
	esac
}

run() {
	local c=$1 r=$2 secs l0 l1 p0 p1 n0 n1 limit=0 end
	# shellcheck disable=SC2046 # the configuration's words
	ip netns exec "$NS_S" "$PKTPATH" --backend tracepoint --metrics "$ADDR" \
		$(args_of "$c") 2>"$TMP/err" &
	PP_PID=$!
	end=$((SECONDS + 60))
	until grep -q 'pktpath: ready' "$TMP/err"; do
		[ "$SECONDS" -lt "$end" ] || {
			echo "cpu_budget: pktpath not ready: $(tail -1 "$TMP/err")" >&2
			exit 1
		}
		sleep 0.1
	done
	sleep 1.2
	l0=$(loader_ns "$PP_PID") p0=$(progs_ns) n0=$(metric pktpath_packets_total)
	secs=$(flood)
	l1=$(loader_ns "$PP_PID") p1=$(progs_ns)
	sleep 1.2 # the last packets assembled, the last tick's rate
	n1=$(metric pktpath_packets_total)
	limit=$(metric pktpath_path_rate_limit)
	kill -INT "$PP_PID"
	wait "$PP_PID" || true
	PP_PID=
	jq -n -c --arg c "$c" --argjson r "$r" --argjson s "$secs" --argjson n "$COUNT" \
		--argjson l "$((l1 - l0))" --argjson p "$((p1 - p0))" --argjson paths "$((n1 - n0))" \
		--argjson limit "$limit" \
		'{config: $c, round: $r, secs: $s, pps: ($n / $s), loader_pct: ($l / $s / 1e7),
		  progs_pct: ($p / $s / 1e7), paths_per_s: ($paths / $s), rate_limit: $limit}' >>"$DATA"
}

TMP=$(mktemp -d)
: >"$DATA"
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -q -w kernel.bpf_stats_enabled=1
n=${#CONFIGS[@]}
for ((r = 1; r <= ROUNDS; r++)); do
	for ((i = 0; i < n; i++)); do
		run "${CONFIGS[$(((i + r - 1) % n))]}" "$r"
	done
	echo "cpu_budget: round $r of $ROUNDS done" >&2
done
report
