#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the end-to-end tests: every tests/e2e/test_*.sh, or the ones named on
# the command line (as "forward_path" or "test_forward_path.sh").
#
# stdout: one "PASS name (N s)", "FAIL name (N s): why" or "SKIP name: why"
# per test (N: its seconds, so that a slow one is seen), then "N passed,
# N failed, N skipped" alone on the last line. The exit
# status is 1 if any test failed (or none ran), 77 if every test skipped
# (a test exits 77 when it lacks root or what it needs), else 0.
# stderr: the tail of each failed test's log, and where the logs are.
#
# Environment: PKTPATH (the binary under test), PP_E2E_TIMEOUT (seconds per
# test, default 600: a net for hangs, not a speed limit), PP_E2E_LOGDIR
# (default $BUILD_DIR/e2e-logs, with BUILD_DIR defaulting to build),
# PP_KERNEL_LOCK (default /tmp/pp-kernel.lock).
#
# Each test holds PP_KERNEL_LOCK while it runs: a test compares the kernel's
# BPF programs, links and TC filters with what they were at its start, so
# a pktpath or benchmark started beside it by hand fails it. Take the same
# lock for such work (flock /tmp/pp-kernel.lock CMD): it then runs between
# two tests.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
timeout_s=${PP_E2E_TIMEOUT:-600}
lock=${PP_KERNEL_LOCK:-/tmp/pp-kernel.lock}
# Logs go into the build directory (BUILD_DIR, as scripts/test.sh sets it).
build=${BUILD_DIR:-build}
[[ $build == /* ]] || build=$root/$build
logdir=${PP_E2E_LOGDIR:-$build/e2e-logs}
# lib.sh resolves a relative PKTPATH against the directory it was given
# in; the tests run elsewhere, so resolve it here, once.
if [ -n "${PKTPATH:-}" ] && [[ $PKTPATH != /* ]]; then
	PKTPATH=$PWD/$PKTPATH
fi
export PKTPATH

tests=()
if [ $# -eq 0 ]; then
	for t in "$here"/test_*.sh; do
		[ -e "$t" ] && tests+=("$t")
	done
else
	for n in "$@"; do
		n=${n##*/}
		n=${n%.sh}
		# "test_pcap" is a name and also a file name: try the name first.
		if [ -e "$here/test_$n.sh" ]; then
			tests+=("$here/test_$n.sh")
		elif [[ $n == test_* ]] && [ -e "$here/$n.sh" ]; then
			tests+=("$here/$n.sh")
		else
			echo "run.sh: no test named '$n' in $here" >&2
			exit 2
		fi
	done
fi
if [ ${#tests[@]} -eq 0 ]; then
	echo "run.sh: no tests found in $here" >&2
	echo "0 passed, 0 failed, 0 skipped"
	exit 1
fi

mkdir -p "$logdir"

# reason FILE RC: the test's own words (its first "FAIL: "/"SKIP: " line on
# stdout: later ones are consequences), else its last stdout line, else
# what the exit status says.
reason() {
	local line
	line=$(grep -m 1 -E '^(FAIL|SKIP): ' "$1") || true
	line=${line#FAIL: }
	line=${line#SKIP: }
	[ -n "$line" ] || line=$(grep -v '^[[:space:]]*$' "$1" | tail -n 1) || true
	case $2 in
	124 | 137) echo "timed out after ${timeout_s} s${line:+ ($line)}" ;;
	*) echo "${line:-exit status $2, no reason given}" ;;
	esac
}

passed=0 failed=0 skipped=0
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	name=${name#test_}
	work=$logdir/$name
	rm -rf "$work"
	mkdir -p "$work"
	rc=0
	start=$SECONDS
	# On time-out, timeout signals its own process group (the test and
	# what it started, never run.sh): SIGTERM, on which the test's trap
	# removes its namespaces, then SIGKILL 15 s later if anything lingers.
	PP_E2E_WORKDIR=$work/files flock "$lock" timeout -k 15 "$timeout_s" bash "$t" \
		</dev/null >"$work/stdout" 2>"$work/stderr" || rc=$?
	case $rc in
	0)
		echo "PASS $name ($((SECONDS - start)) s)"
		passed=$((passed + 1))
		;;
	77)
		echo "SKIP $name: $(reason "$work/stdout" "$rc")"
		skipped=$((skipped + 1))
		;;
	*)
		echo "FAIL $name ($((SECONDS - start)) s): $(reason "$work/stdout" "$rc")"
		failed=$((failed + 1))
		{
			echo "---- $name: last lines of $work/stderr"
			tail -n 20 "$work/stderr" | sed 's/^/  | /'
		} >&2
		;;
	esac
done

[ "$failed" -eq 0 ] || echo "run.sh: logs and pktpath output in $logdir" >&2
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] || exit 1
[ "$passed" -gt 0 ] || exit 77
