#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# pktpath on many interfaces: for each count N of COUNTS and each mode of
# MODES (auto: pktpath's choice, tcx up to 16 interfaces, clsact beyond;
# clsact: PKTPATH_NO_TCX=1), a network namespace T with N
# interfaces that pktpath attaches to (lo, veth t0 whose peer s0 is in a
# second namespace S, and N/2 - 1 veth pairs with both ends in T), and:
#
#   ready   from pktpath's "attached K probes" line to its "ready" line
#           (the classifier on every interface), stderr lines timestamped
#           as they come
#   exit    from SIGINT to pktpath's exit (every tcx link closed, every
#           clsact filter removed)
#   pps     64-byte UDP datagrams/s that T receives from S over t0 (iperf3
#           -u -b 0 -l 64, SECS s) while pktpath is attached everywhere with
#           a filter that matches nothing: the per-packet cost, which must
#           not grow with N; "none" is the same flood without pktpath
#   cls_ns  the classifier's own cost per packet during that flood:
#           run_time_ns / run_cnt of this pktpath's pp_cls_* programs
#           (kernel.bpf_stats_enabled=1 for the flood, as before after)
#
# Afterwards nothing of pktpath's may be left in T (bpftool net); the
# namespaces are removed on exit. Results: OUTDIR/ifaces.tsv, a Markdown
# table on stdout, progress on stderr. Needs root, iperf3, bpftool, jq.
# Run under the machine's kernel lock:
#
#   flock /tmp/pktpath-kernel.lock bench/ifaces.sh build/bench-ifaces
#
# Environment: PKTPATH (build/loader/pktpath), COUNTS ("10 100 300 1000"),
#   MODES ("auto clsact"), SECS (5), ROUNDS (1).
set -euo pipefail

OUT=${1:?usage: $0 OUTDIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PKTPATH=${PKTPATH:-$ROOT/build/loader/pktpath}
COUNTS=${COUNTS:-10 100 300 1000}
MODES=${MODES:-auto clsact}
SECS=${SECS:-5}
ROUNDS=${ROUNDS:-1}
NS_T=ppb-ifaces-t
NS_S=ppb-ifaces-s
FILTER='icmp and host 198.19.9.9'
mkdir -p "$OUT"
TSV=$OUT/ifaces.tsv

die() {
	echo "ifaces.sh: $*" >&2
	exit 1
}
log() { echo "[ifaces +${SECONDS}s] $*" >&2; }

PP_PID=
cleanup() {
	# A run given up on (die) must not leave pktpath attached.
	if [ -n "$PP_PID" ] && kill -0 "$PP_PID" 2>/dev/null; then
		kill -INT "$PP_PID"
		wait "$PP_PID" || true
	fi
	ip netns del "$NS_T" 2>/dev/null || true
	ip netns del "$NS_S" 2>/dev/null || true
}
trap cleanup EXIT

# topo N: T with N interfaces pktpath attaches to, S with s0 (198.18.0.1).
topo() {
	local n=$1 i batch=$OUT/batch
	cleanup
	ip netns add "$NS_T"
	ip netns add "$NS_S"
	ip -n "$NS_T" link set lo up
	ip -n "$NS_S" link set lo up
	ip -n "$NS_S" link add s0 type veth peer name t0 netns "$NS_T"
	ip -n "$NS_S" addr add 198.18.0.1/24 dev s0
	ip -n "$NS_T" addr add 198.18.0.2/24 dev t0
	ip -n "$NS_S" link set s0 up
	ip -n "$NS_T" link set t0 up
	for ((i = 1; i < n / 2; i++)); do
		echo "link add va$i type veth peer name vb$i"
		echo "link set va$i up"
		echo "link set vb$i up"
	done >"$batch"
	ip -n "$NS_T" -batch "$batch"
}

# flood FILE: SECS s of 64-byte UDP from S to T; prints datagrams/s received.
flood() {
	ip netns exec "$NS_T" iperf3 -s -1 -B 198.18.0.2 >/dev/null 2>&1 &
	local srv=$! i
	for ((i = 0; i < 50; i++)); do
		ip netns exec "$NS_T" ss -Hlnu 'sport = :5201' | grep -q . && break
		sleep 0.1
	done
	timeout $((SECS + 30)) ip netns exec "$NS_S" iperf3 -c 198.18.0.2 -u -l 64 -b 0 \
		-t "$SECS" -J >"$1" || die "iperf3 failed (see $1)"
	wait "$srv" || true
	jq -r '.end.sum | ((.packets - .lost_packets) / .seconds) | floor' "$1"
}

# Timestamped stderr: EPOCHREALTIME before each line, as it comes.
stamp() {
	local l
	while IFS= read -r l; do
		echo "$EPOCHREALTIME $l"
	done
}

# run MODE N ROUND: one pktpath run; appends a line to the TSV.
run() {
	local mode=$1 n=$2 r=$3 err=$OUT/err.$1.$2.$3 pid t_int t_exit i env=()
	[ "$mode" = clsact ] && env=(PKTPATH_NO_TCX=1)
	ip netns exec "$NS_T" env "${env[@]}" "$PKTPATH" -v --no-follow "$FILTER" \
		2> >(stamp >"$err") >/dev/null &
	pid=$!
	PP_PID=$pid
	for ((i = 0; i < 1200; i++)); do
		grep -q 'pktpath: ready' "$err" 2>/dev/null && break
		kill -0 "$pid" 2>/dev/null || die "pktpath exited before ready (see $err)"
		sleep 0.1
	done
	grep -q 'pktpath: ready' "$err" || die "pktpath not ready in 120 s (see $err)"
	local pps cls_ns was ids
	was=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -q -w kernel.bpf_stats_enabled=1
	pps=$(flood "$OUT/iperf.$mode.$n.$r.json")
	# This pktpath's programs: the ids its fds hold (bpftool 7.1 shows no pids).
	ids="[$(grep -sh '^prog_id:' /proc/"$pid"/fdinfo/* | awk '{print $2}' | sort -un |
		paste -sd,)]"
	cls_ns=$(bpftool -j prog show | jq --argjson ids "$ids" '[.[]
		| select((.name // "") | startswith("pp_cls_"))
		| select(.id as $i | $ids | index([$i]))]
		| (map(.run_time_ns // 0) | add) / ([(map(.run_cnt // 0) | add), 1] | max)
		| . * 10 | floor / 10')
	sysctl -q -w kernel.bpf_stats_enabled="$was"
	t_int=$EPOCHREALTIME
	kill -INT "$pid"
	wait "$pid" || die "pktpath exited with $? (see $err)"
	PP_PID=
	t_exit=$EPOCHREALTIME
	sleep 0.2 # the stamp process writes its last lines
	local left
	left=$(ip netns exec "$NS_T" bpftool -j net show |
		jq '[.[] | (.tc // [])[], (.tcx // [])[] | select((.name // "") | startswith("pp_"))]
		| length')
	[ "$left" = 0 ] || die "$mode N=$n: $left classifiers left attached after exit"
	awk -v mode="$mode" -v n="$n" -v r="$r" -v ti="$t_int" -v te="$t_exit" -v pps="$pps" \
		-v cls="$cls_ns" '
		/ attached [0-9]+ probes/ { tp = $1 }
		/ pktpath: ready/ { tr = $1; for (i = 1; i <= NF; i++) if ($i ~ /^interface/) k = $(i - 1) }
		END { printf "%s\t%d\t%d\t%d\t%.3f\t%.3f\t%d\t%s\n", mode, n, k, r, tr - tp, te - ti, pps,
		      cls }' \
		"$err" >>"$TSV"
	log "$(tail -n 1 "$TSV")"
}

[ "$(id -u)" -eq 0 ] || die "needs root"
for t in iperf3 jq bpftool; do command -v "$t" >/dev/null || die "needs $t"; done
[ -x "$PKTPATH" ] || die "no $PKTPATH"
printf 'mode\tn\tinterfaces\tround\tready_s\texit_s\tpps\tcls_ns\n' >"$TSV"
for n in $COUNTS; do
	log "N=$n: creating interfaces"
	topo "$n"
	for ((r = 1; r <= ROUNDS; r++)); do
		printf 'none\t%d\t0\t%d\t0\t0\t%d\t0\n' "$n" "$r" \
			"$(flood "$OUT/iperf.none.$n.$r.json")" >>"$TSV"
		for mode in $MODES; do
			run "$mode" "$n" "$r"
		done
	done
done
cleanup

# Medians over rounds, one row per N.
jq -R -s -r '
	split("\n") | map(select(length > 0) | split("\t")) | .[1:]
	| map({mode: .[0], n: (.[1] | tonumber), k: (.[2] | tonumber), ready: (.[4] | tonumber),
	       exit: (.[5] | tonumber), pps: (.[6] | tonumber),
	       cls: (.[7] | tonumber)})
	| def med: sort | .[length / 2 | floor];
	  group_by(.n)[] as $g
	| ($g[0].n) as $n
	| [$g[] | select(.mode == "none") | .pps] as $none
	| ($none | med) as $base
	| "| \($n) | "
	  + ([("auto", "clsact") as $m | [$g[] | select(.mode == $m)] as $r
	     | if ($r | length) == 0 then "- | - | - | -"
	       else "\([$r[].ready] | med) s | \([$r[].exit] | med) s | \([$r[].pps] | med) (\(([$r[].pps] | med) / $base * 100 | floor) %) | \([$r[].cls] | med) ns"
	       end] | join(" | "))
	  + " | \($base) |"
' "$TSV" | {
	echo "| interfaces | auto ready | auto exit | auto UDP pkt/s (vs none) | auto classifier/pkt |" \
		"clsact ready | clsact exit | clsact UDP pkt/s (vs none) | clsact classifier/pkt |" \
		"none UDP pkt/s |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	cat
}
