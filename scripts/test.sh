#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The test command (README, .ci/run): installs what is missing, builds, and
# runs every layer: Check unit tests, host e2e tests (tracepoints + TC), the
# Debian package installed, run and purged in a debootstrap root, the QEMU
# kernel matrix (kprobe, kprobe.multi, fentry), a short fuzzing
# run of the translator and the path assembler, and a benchmark smoke run.
# Each layer prints its own summary; the last line sums them up.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

BUILD_DIR=${BUILD_DIR:-build}
export BUILD_DIR PKTPATH="$BUILD_DIR/loader/pktpath"

[ "$(id -u)" -eq 0 ] || exec sudo -E "$0" "$@"
scripts/install-deps.sh || exit 1
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
cmake --build "$BUILD_DIR" -j"$(nproc)" 2>&1 | grep -E 'warning|error' && {
	echo "test: the build has warnings or errors"
	exit 1
}

passed=0 failed=0
layer() {
	local name=$1 start=$SECONDS
	shift
	echo "=== $name"
	if "$@"; then
		passed=$((passed + 1))
		echo "=== $name: PASS ($((SECONDS - start)) s)"
	else
		failed=$((failed + 1))
		echo "=== $name: FAIL ($((SECONDS - start)) s)"
	fi
}

# Check kills a test after 4 s by default: too short for a loaded 2-core VM.
layer unit env CK_DEFAULT_TIMEOUT="${CK_DEFAULT_TIMEOUT:-120}" "$BUILD_DIR/tests/pp_unit"
layer e2e tests/e2e/run.sh
# About 15 s; the first run adds about 30 s of debootstrap (cached in $BUILD_DIR).
layer deb scripts/deb-test.sh
if [ "${PKTPATH_SKIP_VM:-0}" = 1 ]; then
	echo "SKIP vm: PKTPATH_SKIP_VM=1"
else
	layer vm scripts/vm-test.sh
fi
layer fuzz-smoke scripts/fuzz.sh --smoke
layer bench-smoke bench/run.sh --smoke

echo "layers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
