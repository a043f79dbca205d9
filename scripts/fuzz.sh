#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Builds the libFuzzer targets of tests/fuzz with clang into build-fuzz/, and
# runs each for SECONDS (default 300) on its corpus (build-fuzz/corpus/),
# seeded at fuzz time, after replaying its regression inputs
# (tests/fuzz/regressions/TARGET/):
#
#   scripts/fuzz.sh [SECONDS]
#   scripts/fuzz.sh --smoke        # about 20 s per run (the readers of user
#                                  # files: 10 s), for the test command
#   scripts/fuzz.sh --coverage     # line coverage of the code under test by
#                                  # the corpus so far (build-fuzz/cov/)
#
# fuzz_xlate runs twice: alone (fast), then, as root, with PKTPATH_FUZZ_KERNEL=1,
# where the kernel loads and test-runs every translation. Exit status 0, or 1
# if a build failed, a fuzzer crashed or a property failed: the input that did
# it is in build-fuzz/artifacts/, the whole log in build-fuzz/logs/.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
secs=300 coverage=0 smoke=0
case "${1:-}" in
--smoke) secs=20 smoke=1 ;;
--coverage) coverage=1 ;;
'') ;;
*[!0-9]*)
	echo "usage: $0 [SECONDS | --smoke]" >&2
	exit 2
	;;
*) secs=$1 ;;
esac

# Until CMakeLists.txt adds tests/fuzz itself, add it from outside.
inject=-UCMAKE_PROJECT_INCLUDE
if ! grep -Eqs '^[[:space:]]*add_subdirectory\([[:space:]]*tests/fuzz' CMakeLists.txt &&
	! grep -Eqs '^[[:space:]]*add_subdirectory\([[:space:]]*fuzz' tests/CMakeLists.txt; then
	inject=-DCMAKE_PROJECT_INCLUDE=$PWD/tests/fuzz/standalone.cmake
fi

# build DIR [CMAKE OPTION...]
build() {
	local dir=$1
	shift
	cmake -S . -B "$dir" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DPKTPATH_FUZZ=ON "$inject" "$@" >/dev/null &&
		cmake --build "$dir" -j"$(nproc)" --target fuzz_xlate fuzz_paths fuzz_seeds \
			fuzz_probe_list fuzz_pcap fuzz_input_seeds fuzz_report_read
}

# The corpus so far, run once by a build with source coverage.
coverage() {
	local cov=$BUILD/cov prof sources=(loader/filter/cbpf_xlate.c loader/filter/ebpf_interp.c
		loader/filter/classifier.c loader/bpfobj/splice.c loader/paths/path.c loader/output/output_json.c
		loader/output/output_text.c loader/paths/pkt_decode.c loader/base/fmt.c)
	prof=$(command -v llvm-profdata || command -v llvm-profdata-14) || {
		echo "fuzz: llvm-profdata not found"
		return 1
	}
	if ! build "$cov" -DPKTPATH_FUZZ_COVERAGE=ON >"$cov.log" 2>&1; then
		cat "$cov.log"
		return 1
	fi
	rm -f "$cov"/*.profraw
	LLVM_PROFILE_FILE=$cov/xlate.profraw "$cov/tests/fuzz/fuzz_xlate" -runs=0 \
		"$BUILD"/corpus/fuzz_xlate* "$BUILD/seeds/fuzz_xlate" >/dev/null 2>&1
	# The kernel runs (classifier.c) take a load each: their own corpus only.
	[ "$(id -u)" -eq 0 ] && LLVM_PROFILE_FILE=$cov/kernel.profraw PKTPATH_FUZZ_KERNEL=1 \
		"$cov/tests/fuzz/fuzz_xlate" -runs=0 "$BUILD/corpus/fuzz_xlate-kernel" >/dev/null 2>&1
	LLVM_PROFILE_FILE=$cov/paths.profraw "$cov/tests/fuzz/fuzz_paths" -runs=0 \
		"$BUILD/corpus/fuzz_paths" "$BUILD/seeds/fuzz_paths" >/dev/null 2>&1
	"$prof" merge -o "$cov/all.profdata" "$cov"/*.profraw &&
		"${prof/profdata/cov}" report "$cov/tests/fuzz/fuzz_xlate" \
			-object "$cov/tests/fuzz/fuzz_paths" -instr-profile="$cov/all.profdata" \
			"${sources[@]}"
}

if [ "$coverage" -eq 1 ]; then
	mkdir -p "$BUILD"
	coverage
	exit
fi

mkdir -p "$BUILD"/{corpus,seeds,artifacts,logs}
if ! build "$BUILD" >"$BUILD/logs/build.log" 2>&1; then
	cat "$BUILD/logs/build.log"
	echo "fuzz: the build failed"
	exit 1
fi
grep -E 'warning|error' "$BUILD/logs/build.log"
bin=$BUILD/tests/fuzz
for t in fuzz_xlate fuzz_paths fuzz_probe_list fuzz_pcap fuzz_report_read; do
	rm -rf "${BUILD:?}/seeds/$t"
	mkdir -p "$BUILD/corpus/$t" "$BUILD/seeds/$t"
done
mkdir -p "$BUILD/corpus/fuzz_xlate-kernel"
"$bin/fuzz_seeds" "$BUILD/seeds/fuzz_xlate" "$BUILD/seeds/fuzz_paths" || exit 1
"$bin/fuzz_input_seeds" "$BUILD/seeds/fuzz_pcap" || exit 1
# The probe list as shipped, and a few lines of each kind.
cp kp_func.list "$BUILD/seeds/fuzz_probe_list/kp_func.list"
printf 'ip_rcv # comment\n\n  tp:net:netif_receive_skb  \nfoo.isra.0\ntp:skb:kfree_skb\nip_rcv\n' \
	>"$BUILD/seeds/fuzz_probe_list/kinds"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
failed=0

# What a failed run says: the property and its dump, or a sanitizer's report
# (40 lines), and the input kept.
why() {
	awk '!on && /PROPERTY FAILED/ { on = prop = 1 }
		!on && /ERROR: |runtime error:/ { on = 1 }
		prop && /ERROR: libFuzzer: deadly signal/ { exit }
		on && n < 40 && !/Test unit written/ { print "    " $0; n++ }' "$1"
	grep -h 'Test unit written to' "$1" | sed 's/^/    /'
}

# report NAME LOG STATUS: one summary line, or the failure and its input.
report() {
	local name=$1 log=$2 status=$3 execs rate cov
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n1)
	cov=$(grep -Eo '(DONE|INITED) +cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -n1)
	if [ "$status" -eq 0 ]; then
		echo "PASS $name: ${execs:-?} runs, ${rate:-?}/s, ${cov:-no coverage line}"
		grep -h "^fuzz_[a-z]*: [0-9]* inputs," "$log" | sed 's/^/    /'
		return
	fi
	failed=1
	echo "FAIL $name (exit $status), $log:"
	why "$log"
}

# run NAME TARGET MAX_LEN [CORPUS...]: each regression input, then fuzz for secs.
run() {
	local name=$1 target=$2 maxlen=$3 log=$BUILD/logs/$1.log reg npass=0
	shift 3
	for reg in tests/fuzz/regressions/"$target"/*; do
		[ -f "$reg" ] || continue
		if "$bin/$target" "$reg" >"$log.regression" 2>&1; then
			npass=$((npass + 1))
		else
			failed=1
			echo "FAIL $name: regression $reg"
			why "$log.regression"
		fi
	done
	[ "$npass" -eq 0 ] || echo "PASS $name: $npass regression inputs"
	"$bin/$target" -max_total_time="$secs" -timeout=25 -rss_limit_mb=4096 \
		-max_len="$maxlen" -use_value_profile=1 -print_final_stats=1 \
		-artifact_prefix="$BUILD/artifacts/$name-" "$@" >"$log" 2>&1
	report "$name" "$log" $?
}

run fuzz_xlate fuzz_xlate 4096 "$BUILD/corpus/fuzz_xlate" "$BUILD/seeds/fuzz_xlate"
if [ "$(id -u)" -eq 0 ]; then
	# Each input is a load (~25 ms): a smoke run does not take in the other corpus.
	fast=("$BUILD/corpus/fuzz_xlate")
	[ "$smoke" -eq 1 ] && fast=()
	PKTPATH_FUZZ_KERNEL=1 run fuzz_xlate-kernel fuzz_xlate 4096 \
		"$BUILD/corpus/fuzz_xlate-kernel" "$BUILD/seeds/fuzz_xlate" "${fast[@]}"
else
	echo "SKIP fuzz_xlate-kernel: needs root to load BPF programs"
fi
run fuzz_paths fuzz_paths 8192 "$BUILD/corpus/fuzz_paths" "$BUILD/seeds/fuzz_paths"
# Files users hand to pktpath (probe lists, --test-pcap captures): simpler
# readers, so a smoke run gives them half the time.
[ "$smoke" -eq 1 ] && secs=10
run fuzz_probe_list fuzz_probe_list 65536 "$BUILD/corpus/fuzz_probe_list" \
	"$BUILD/seeds/fuzz_probe_list"
run fuzz_pcap fuzz_pcap 65536 "$BUILD/corpus/fuzz_pcap" "$BUILD/seeds/fuzz_pcap"
run fuzz_report_read fuzz_report_read 65536 "$BUILD/corpus/fuzz_report_read" \
	"$BUILD/seeds/fuzz_report_read" tests/fuzz/regressions/fuzz_report_read

[ "$failed" -eq 0 ]
