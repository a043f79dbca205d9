#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The test command (README, .ci/run): installs what is missing, builds, and
# runs every layer, each through ctest by its label (pp_layer in the
# CMakeLists.txt files; `ctest --test-dir build -L e2e` runs one by hand):
#   unit   Check unit tests (build/tests/pp_unit)
#   lint   clang-format, shellcheck, -Werror, the unit tests under ASan/UBSan
#   e2e    host end-to-end tests (tracepoints + TC)
#   deb    the Debian package built, linted, installed in a debootstrap root,
#          run and purged
#   vm     the QEMU kernel matrix (kprobe, kprobe.multi, fentry)
#   fuzz   a short fuzzing run of the translator and the path assembler
#   bench  a benchmark smoke run
#
#   scripts/test.sh [LAYER...]     default: every layer, in this order
#
# Each layer prints its own output and summary, then "=== LAYER: PASS",
# "FAIL" or "SKIP" (every test of it exited 77: no root, a kernel feature
# or tool missing, PKTPATH_SKIP_VM=1); the last line sums them up:
# "layers: N passed, N failed, N skipped", each layer's time and the whole
# run's; past WARN_MIN minutes (default 60: CI stops the run at 90) a
# warning, so that the change that slowed it is seen before CI refuses it.
# Exit status 0 if none failed.
# ctest's own log of each layer: $BUILD_DIR/test-logs/LAYER.log.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

BUILD_DIR=${BUILD_DIR:-build}
export BUILD_DIR PKTPATH="$BUILD_DIR/loader/pktpath"
LAYERS=(unit lint e2e deb vm fuzz bench)
[ $# -eq 0 ] || LAYERS=("$@")

[ "$(id -u)" -eq 0 ] || exec sudo -E "$0" "$@"
# The whole run's clock starts before the install and the build.
t0=$SECONDS
scripts/install-deps.sh || exit 1
# Every build of the run (this one, lint's clang and ASan builds, fuzz's, the
# VM's and the package's) goes through one compiler cache, shared by the
# checkouts of this machine: a clean clone of a commit built before compiles
# little (CONTRIBUTING.md, Tests, has the times). CMake reads the launcher
# from the environment; the paths in the cache's keys are the checkout's own.
export CMAKE_C_COMPILER_LAUNCHER=ccache CCACHE_DIR=${CCACHE_DIR:-/var/cache/pktpath-ccache}
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
cmake --build "$BUILD_DIR" -j"$(nproc)" 2>&1 | grep -E 'warning|error' && {
	echo "test: the build has warnings or errors"
	exit 1
}
mkdir -p "$BUILD_DIR/test-logs"

# ctest_output: ctest -V's output as the layer itself printed it: without
# ctest's framing and the "N: " before each line of the test's own. Line by
# line as it comes (awk, as Debian's mawk, would read the pipe in blocks).
ctest_output() {
	local line head=0 framing
	# What ctest prints after "Test command:", before the test's own output.
	framing='^[0-9]+: (Working Directory:|Environment variables:|Test timeout computed|'
	framing+=' [A-Za-z_][A-Za-z0-9_]*=)'
	while IFS= read -r line; do
		if [[ $line =~ ^[0-9]+:\ Test\ command:\  ]]; then
			head=1
		elif [ "$head" = 1 ] && [[ $line =~ $framing ]]; then
			:
		elif [[ $line =~ ^[0-9]+:\ ?(.*)$ ]]; then
			head=0
			printf '%s\n' "${BASH_REMATCH[1]}"
		fi
	done
}

# verdict LOG STATUS: PASS, FAIL or SKIP, from ctest's result line(s) in LOG
# and its exit status. No result line (no test of that label) is a FAIL.
verdict() {
	local results
	results=$(grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' "$1")
	if [ "$2" -ne 0 ] || [ -z "$results" ] ||
		grep -qvE '(Passed|\*\*\*Skipped) +[0-9.]+ sec' <<<"$results"; then
		echo FAIL
	elif grep -qE 'Passed +[0-9.]+ sec' <<<"$results"; then
		echo PASS
	else
		echo SKIP
	fi
}

passed=0 failed=0 skipped=0 each=
layer() {
	local name=$1 start=$SECONDS log=$BUILD_DIR/test-logs/$1.log rc v
	echo "=== $name"
	ctest --test-dir "$BUILD_DIR" -V --no-tests=error -L "^$name\$" 2>&1 | tee "$log" | ctest_output
	rc=${PIPESTATUS[0]}
	v=$(verdict "$log" "$rc")
	case $v in
	PASS) passed=$((passed + 1)) ;;
	SKIP) skipped=$((skipped + 1)) ;;
	*)
		failed=$((failed + 1))
		grep -qE '^ *[0-9]+/[0-9]+ Test +#' "$log" || tail -n 5 "$log"
		;;
	esac
	echo "=== $name: $v ($((SECONDS - start)) s)"
	each+="$name $((SECONDS - start)) s, "
}

# One after another, the vm layer too: started in the background beside the
# others (nice 10), its VMs slowed the e2e layer from 9 to over 20 minutes
# for a few minutes of their own progress (the run of 7f876c5).
for l in "${LAYERS[@]}"; do
	layer "$l"
done
echo "layers: $passed passed, $failed failed, $skipped skipped"
total=$((SECONDS - t0))
echo "time: ${each}total $((total / 60)) min $((total % 60)) s"
[ "$total" -le $((${WARN_MIN:-60} * 60)) ] ||
	echo "test: WARNING: the run took over ${WARN_MIN:-60} minutes; CI stops it at 90 (CONTRIBUTING.md, Tests)"
[ "$failed" -eq 0 ]
