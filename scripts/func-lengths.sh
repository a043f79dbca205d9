#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Function lengths of C files, as Universal Ctags sees them: the lines from
# a function's first line (its signature) to its closing brace.
#
#   scripts/func-lengths.sh [DIR|FILE...]     default: loader
#
# Prints "functions N  median N  p90 N  max N (NAME FILE)" on one line; with
# -l, every function first, longest last ("LINES NAME FILE:LINE").
set -euo pipefail
cd "$(dirname "$0")/.." || exit 1

list=0
if [ "${1:-}" = -l ]; then
	list=1
	shift
fi
[ $# -gt 0 ] || set -- loader
command -v ctags >/dev/null || {
	echo "func-lengths: needs Universal Ctags (apt-get install universal-ctags)" >&2
	exit 1
}
files=$(find "$@" -name '*.c' | sort)
# shellcheck disable=SC2086 # one word per file
ctags -x --fields=+ne --kinds-C=f --_xformat='%{end} %n %N %F' $files |
	awk '{ print $1 - $2 + 1, $3, $4 ":" $2 }' | sort -n >"${TMPDIR:-/tmp}/func-lengths.$$"
trap 'rm -f "${TMPDIR:-/tmp}/func-lengths.$$"' EXIT
[ "$list" = 0 ] || cat "${TMPDIR:-/tmp}/func-lengths.$$"
awk '{ len[NR] = $1; last = $2 " " $3 }
END {
	if (!NR) { print "functions 0"; exit }
	# nearest rank: the smallest length with at least P% of functions at or under it
	m = int((NR * 50 + 99) / 100); p = int((NR * 90 + 99) / 100)
	printf "functions %d  median %d  p90 %d  max %d (%s)\n", NR, len[m], len[p], len[NR], last
}' "${TMPDIR:-/tmp}/func-lengths.$$"
