#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# perfetto_check.sh must pass a good trace and fail each way of breaking
# it: a checker that cannot fail proves nothing. No root needed (ctest).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
check=$here/perfetto_check.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

good='{"displayTimeUnit":"ns","traceEvents":[
{"name":"process_name","ph":"M","pid":1,"tid":1,"args":{"name":"#1"}},
{"name":"a","ph":"X","pid":1,"tid":1,"cat":"hop","ts":10.000,"dur":2.000},
{"name":"copy","ph":"s","pid":1,"tid":1,"cat":"copy","id":1,"ts":11.000},
{"name":"b","ph":"X","pid":1,"tid":1,"cat":"hop","ts":12.000,"dur":0.000},
{"name":"c","ph":"X","pid":1,"tid":2,"cat":"hop","ts":11.500,"dur":1.000},
{"name":"copy","ph":"f","pid":1,"tid":2,"cat":"copy","id":1,"ts":11.500,"bp":"e"}
]}'

# expect WHAT STATUS PATTERN SED-EXPR: the good trace edited by SED-EXPR
# gives STATUS and a line matching PATTERN.
expect() {
	local what=$1 want=$2 re=$3 rc=0
	sed -e "$4" <<<"$good" >"$tmp/t.json"
	"$check" "$tmp/t.json" ${5:+"$5"} >"$tmp/out" 2>&1 || rc=$?
	if [ "$rc" -ne "$want" ] || ! grep -Eq -- "$re" "$tmp/out"; then
		echo "FAIL $what: status $rc (want $want): $(head -n 2 "$tmp/out" | tr '\n' ' ')"
		failed=1
	else
		echo "ok   $what"
	fi
}

expect "good trace" 0 '^ok: 6 events, 2 tracks, 3 slices, 1 flows$' ''
expect "time going back on a track" 1 'before the track.s previous event' 's/"ts":12.000/"ts":9.000/'
expect "slices overlapping in part" 1 'overlaps a slice' \
	's/"ts":12.000,"dur":0.000/"ts":11.500,"dur":3.000/'
expect "X without dur" 1 'X without a dur' 's/,"dur":1.000//'
expect "no pid" 1 'pid null not an integer' 's/"pid":1,"tid":2,"cat":"hop"/"tid":2,"cat":"hop"/'
expect "ts as a string" 1 'ts "11.5" not a number' 's/"ts":11.500,"dur"/"ts":"11.5","dur"/'
expect "unknown phase" 1 'ph "B" not X' 's/"name":"a","ph":"X"/"name":"a","ph":"B"/'
expect "empty phase" 1 'ph "" not X' 's/"name":"a","ph":"X"/"name":"a","ph":""/'
expect "flow without its end" 1 'flow copy id 1: 1 start' 's/"id":1,"ts":11.500/"id":2,"ts":11.500/'
expect "flow end outside slices" 1 'flow end outside every slice' 's/"id":1,"ts":11.000/"id":1,"ts":13.000/'
expect "times in ns, not us" 1 'beyond the clock now' '' 5
expect "displayTimeUnit" 1 'displayTimeUnit "s"' 's/"displayTimeUnit":"ns"/"displayTimeUnit":"s"/'
expect "metadata without args.name" 1 'no args.name' 's/"args":{"name":"#1"}/"args":{}/'
expect "not JSON" 2 '^not JSON' "\$d" # the last line: the closing brackets
exit "$failed"
