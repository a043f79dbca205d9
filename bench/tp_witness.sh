#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Did the kernel run the BPF programs on every event of a tracepoint? A
# tracefs instance counts the events (the kernel's own count), bpf_stats the
# runs of each program attached to them through a raw tracepoint link
# (tp_btf, raw_tp), between "start" and "stop"; the events are also counted
# by the task that was current, since a softirq counts as the task it
# interrupted. On a 6.18 host, the
# programs ran exactly as many times fewer as tracefs saw events while a
# thread of PID 1 (the VM's agent, "tokio-rt-worker") was current, with no
# recursion miss (docs/packet-life.md, "Queues").
#
#   bench/tp_witness.sh start DIR net:net_dev_start_xmit qdisc:qdisc_dequeue ...
#   ... traffic, then let queues drain ...
#   bench/tp_witness.sh stop DIR
#
# Start after the programs are attached (pktpath says "ready"); stop before
# they are detached. Needs root and tracefs; kernel.bpf_stats_enabled is on
# in between and set back at stop. Hold /tmp/pp-kernel.lock around a run.
set -euo pipefail

T=/sys/kernel/tracing
I=$T/instances/pp_witness
cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
	echo "usage: $0 start DIR CAT:NAME... | stop DIR" >&2
	exit 2
fi

# Program id -> tracepoint, and run counts, of the raw tracepoint links.
snapshot() {
	bpftool link show --json |
		jq -c '.[] | select(.type == "raw_tracepoint") | {prog_id, tp: .tp_name}' >"$dir/links.$1"
	bpftool prog show --json |
		jq -c '.[] | {id, name, run_cnt: (.run_cnt // 0), misses: (.recursion_misses // 0)}' \
			>"$dir/progs.$1"
}

case $cmd in
start)
	shift 2
	[ $# -gt 0 ] || {
		echo "$0: name at least one tracepoint, CAT:NAME" >&2
		exit 2
	}
	mkdir -p "$dir"
	[ -d "$T/events" ] || mount -t tracefs nodev "$T"
	mkdir "$I"
	sysctl -n kernel.bpf_stats_enabled >"$dir/stats_was"
	printf '%s\n' "$@" >"$dir/tracepoints"
	echo mono >"$I/trace_clock"
	# 1428-byte frames at 20 Mbit/s, a few events each: some 10 MB a CPU.
	echo 32768 >"$I/buffer_size_kb"
	for tp in "$@"; do
		echo 1 >"$I/events/${tp%%:*}/${tp#*:}/enable"
	done
	sysctl -q kernel.bpf_stats_enabled=1
	snapshot start
	echo pp_witness_start >"$I/trace_marker"
	;;
stop)
	echo pp_witness_stop >"$I/trace_marker"
	snapshot stop
	echo 0 >"$I/tracing_on"
	cat "$I/trace" >"$dir/trace"
	grep -h dropped "$I"/per_cpu/cpu*/stats | awk '$3 != 0 { print "tracefs dropped events:", $0 }'
	rmdir "$I"
	sysctl -q kernel.bpf_stats_enabled="$(cat "$dir/stats_was")"
	while read -r tp; do
		name=${tp#*:}
		# Events between the markers, by the task current then.
		awk -v ev="$name" '/pp_witness_start/ { on = 1; next } /pp_witness_stop/ { on = 0 }
			on && $0 ~ "\\] [^ ]+ +[0-9.]+: " ev ": " { n++; sub(/-[0-9]+$/, "", $1); by[$1]++ }
			END { printf "%s: tracefs %d events, current:", ev, n
				for (c in by) printf " %s %d", c, by[c]; print "" }' "$dir/trace"
		jq -rs --arg tp "$name" --slurpfile a "$dir/progs.start" --slurpfile b "$dir/progs.stop" '
			.[] | select(.tp == $tp) | .prog_id as $id
			| ([$a[] | select(.id == $id)][0] // {run_cnt: 0}) as $x
			| [$b[] | select(.id == $id)][0] as $y
			| select($y != null)
			| "  prog \($id) \($y.name): \($y.run_cnt - $x.run_cnt) runs, recursion_misses \($y.misses)"' \
			"$dir/links.stop"
	done <"$dir/tracepoints"
	;;
*)
	echo "usage: $0 start DIR CAT:NAME... | stop DIR" >&2
	exit 2
	;;
esac
