#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A picture of where the time goes: the per-step latency (p50, p90, p99) of
# a run's most frequent paths, one panel per path, as a PNG.
#
#   scripts/plot_summary.sh RUN.jsonl OUT.png [PATHS]     (default 3 paths)
#
# RUN.jsonl is saved --json output: packet lines (the summary is made by
# `pktpath report RUN.jsonl --json`, as any user), or the path summary line
# of a --json --summary run (its last one is drawn). Needs jq and gnuplot
# (Debian: gnuplot-nox). Environment: PKTPATH (default: pktpath on PATH,
# else build/loader/pktpath).
set -euo pipefail

[ $# -ge 2 ] || {
	echo "usage: $0 RUN.jsonl OUT.png [PATHS]" >&2
	exit 2
}
run=$1 png=$2 npaths=${3:-3}
for tool in jq gnuplot; do
	command -v "$tool" >/dev/null || {
		echo "$0: no $tool (apt-get install ${tool/gnuplot/gnuplot-nox})" >&2
		exit 2
	}
done
pktpath=${PKTPATH:-$(command -v pktpath || echo "$(dirname "$0")/../build/loader/pktpath")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if grep -q '^{"id":' "$run"; then
	"$pktpath" report "$run" --json | grep '^{"path_summary":' >"$work/sum.json"
else
	grep '^{"path_summary":' "$run" | tail -n 1 >"$work/sum.json"
fi
[ -s "$work/sum.json" ] || {
	echo "$0: no path summary in $run" >&2
	exit 2
}

# One block per path (gnuplot's "index"): step name, p50, p90, p99 in us;
# the first step has no step before it. The titles go to a file of their own.
# shellcheck disable=SC2016 # jq program
jq -r --argjson n "$npaths" '.path_summary.paths[:$n][] |
	(.steps[1:][] | [((.func | sub("^tp:"; "")) + (if .copy then " [copy \(.copy)]" else "" end)),
		(.latency_ns | .p50 / 1000, .p90 / 1000, .p99 / 1000)] | @tsv), "", ""' \
	"$work/sum.json" >"$work/steps.tsv"
# shellcheck disable=SC2016 # jq program
jq -r --argjson n "$npaths" '.path_summary as $s | $s.paths[:$n] | to_entries[] |
	"path \(.key + 1): \(.value.count) of \($s.packets) packets, " +
	(.value.fate | if .kind == "dropped" then "dropped: \(.reason) at \(.func // .location)"
		elif .kind == "unseen" then "end not seen" else .kind end) +
	"; end to end p50 \(.value.latency_ns.p50 / 1000) us"' "$work/sum.json" >"$work/titles.txt"
n=$(wc -l <"$work/titles.txt")

{
	cat <<EOF
set terminal pngcairo size 1000,$((300 * n + 40)) font "DejaVu Sans,10"
set output "$png"
set datafile separator "\t"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set format y "%g"
set ylabel "us from the step before"
set xtics rotate by -20 noenhanced
set key top left
set grid ytics
set multiplot layout $n,1 title "pktpath: per-step latency of the most frequent paths" noenhanced
EOF
	for ((i = 0; i < n; i++)); do
		printf 'set title "%s" noenhanced\n' "$(sed -n "$((i + 1))p" "$work/titles.txt")"
		printf 'plot "%s" index %d using 2:xtic(1) title "p50" lc rgb "#4477aa", ' \
			"$work/steps.tsv" "$i"
		printf '"" index %d using 3 title "p90" lc rgb "#ddaa33", ' "$i"
		printf '"" index %d using 4 title "p99" lc rgb "#bb5566"\n' "$i"
	done
	echo "unset multiplot"
} >"$work/plot.gp"
gnuplot "$work/plot.gp"
echo "plot_summary: $png: $n paths of $(jq .path_summary.packets "$work/sum.json") packets"
