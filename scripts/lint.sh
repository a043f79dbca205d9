#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The lint layer of the test command (scripts/test.sh; `ctest -L lint`),
# nine checks:
#   - layers: loader/'s folders are layers, its #includes point down only,
#     and every project include names its folder (scripts/check-layers.py);
#   - shape: the loader's function lengths, and the kernel side in rooms,
#     each opening with what it decides (scripts/check-shape.py);
#   - format: clang-format --dry-run --Werror on every C file and header;
#   - shellcheck: every shell script: *.sh, and any file whose first line is
#     a sh or bash #! or that says "# shellcheck shell=" near its top;
#   - werror: the whole build again with clang and -Werror
#     (-DPKTPATH_WERROR=ON) in ${BUILD_DIR}-lint: clang's warnings on top of
#     gcc's, which the test command's own build refuses;
#   - usage: docs/usage.md's usage lines, options and commands are pktpath
#     --help's;
#   - links: every relative link of the Markdown files names a file that
#     exists, and a #fragment one of that file's headings;
#   - asan: the unit tests again, built with ASan and UBSan
#     (-DPKTPATH_SANITIZE=ON) in ${BUILD_DIR}-asan;
#   - packaging: the Prometheus rules (promtool check rules, promtool test
#     rules), the systemd unit (systemd-analyze verify), the Kubernetes
#     DaemonSet manifest (scripts/check-packaging.py).
#
#   scripts/lint.sh [CHECK...]     default: all nine
#
# Prints what a check found, then "PASS CHECK (N s)" or "FAIL CHECK (N s)",
# and at the end "N passed, N failed" alone on a line; exit status 1 if any
# failed. The checks run side by side (see chain below).
# Files are the ones git tracks, and new ones it does not ignore.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

BUILD_DIR=${BUILD_DIR:-build}
ALL=(layers shape format shellcheck werror usage links asan packaging)
CHECKS=("${ALL[@]}")
[ $# -eq 0 ] || CHECKS=("$@")
jobs=$(nproc)

# files: the repository's files, NUL-separated.
files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -z --cached --others --exclude-standard
	else
		find . -path ./.git -prune -o -path "./$BUILD_DIR*" -prune -o -type f -printf '%P\0'
	fi
}

# c_files / shell_files: NUL-separated.
c_files() {
	files | grep -z -E '\.[ch]$'
}

shell_files() {
	# One awk over every file (a head and a grep each took 15 s here).
	files | xargs -0 -r awk '
		FNR == 1 && (FILENAME ~ /\.sh$/ || /^#!.*[\/ ](ba)?sh( |$)/) { print FILENAME; nextfile }
		FNR <= 5 && /^# shellcheck shell=/ { print FILENAME; nextfile }
		FNR > 5 { nextfile }' 2>/dev/null | tr '\n' '\0'
}

check_layers() {
	python3 scripts/check-layers.py
}

check_shape() {
	python3 scripts/check-shape.py
}

check_format() {
	c_files | xargs -0 -r -P "$jobs" -n 20 clang-format --dry-run --Werror
}

# -x: follow the tests' "source" of lib.sh, so its functions and variables
# count as defined. That is nine tenths of shellcheck's time (lib.sh again
# for each test): a file that passed is remembered by what shellcheck read
# for it (sc_key), and checked again only when one of those changed.
check_shellcheck() {
	local cache=/var/cache/pktpath-lint/shellcheck f k
	command -v shellcheck >/dev/null || {
		echo "lint: shellcheck not installed (scripts/install-deps.sh)"
		return 1
	}
	mkdir -p "$cache" 2>/dev/null || cache=$BUILD_DIR-lint/shellcheck
	mkdir -p "$cache" || return 1
	sc_version=$(shellcheck --version)
	# shellcheck disable=SC2016 # sh's $1 and $2
	while IFS= read -r -d '' f; do
		k=$cache/$(sc_key "$f")
		[ -e "$k" ] || printf '%s\0%s\0' "$f" "$k"
	done < <(shell_files) |
		xargs -0 -r -n 2 -P "$jobs" sh -c 'shellcheck -x "$1" && : >"$2"' sh
}

# sc_key FILE: a hash of what shellcheck -x reads for FILE: the file and the
# files its "# shellcheck source=" directives name (beside it, else from the
# top of the checkout), theirs in turn; and shellcheck's version
# (sc_version).
sc_key() {
	local todo=("$1") seen=" " f n
	{
		while [ ${#todo[@]} -gt 0 ]; do
			f=${todo[0]}
			todo=("${todo[@]:1}")
			[[ $seen != *" $f "* ]] || continue
			seen+="$f "
			cat "$f"
			while IFS= read -r n; do
				if [ -f "$(dirname "$f")/$n" ]; then
					todo+=("$(dirname "$f")/$n")
				elif [ -f "$n" ]; then
					todo+=("$n")
				fi
			done < <(grep -o 'source=[^ ]*' "$f" | cut -d= -f2)
		done
		echo "$sc_version"
	} | sha256sum | cut -d' ' -f1
}

# build DIR CMAKE-OPTION... -- TARGET...: configure and build quietly; on
# failure the build's output (the warnings) is shown.
build() {
	local dir=$1 opts=() out
	shift
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	out=$(cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${opts[@]}" 2>&1 &&
		cmake --build "$dir" -j"$jobs" ${1:+--target "$@"} 2>&1) || {
		grep -E -A 3 'warning|error' <<<"$out" | head -n 60
		return 1
	}
}

check_werror() {
	build "$BUILD_DIR-lint" -DCMAKE_C_COMPILER=clang -DPKTPATH_WERROR=ON --
}

# docs/usage.md's usage lines, option list and commands are --help's, line
# for line: the copy a user reads must not lag behind the code. (The man
# page is checked against the option table by the unit tests, and the bash
# completion, which reads --help, run against it: tests/unit/test_cli.c.)
check_usage() {
	local bin=$BUILD_DIR-lint/loader/pktpath help
	build "$BUILD_DIR-lint" -DCMAKE_C_COMPILER=clang -DPKTPATH_WERROR=ON -- pktpath || return 1
	help=$("$bin" --help) || return 1
	diff -u <(sed -n '1,/^[^ U]/s/^\(Usage: \|       \)//p' <<<"$help"
		sed -n '/^  -f, --filter/,/^Examples:/p' <<<"$help" | head -n -2) \
		<(sed -n '/^pktpath \[OPTIONS\]/,/^```/p' docs/usage.md | sed '$d') |
		sed 's/^/lint: --help vs docs\/usage.md: /'
	[ "${PIPESTATUS[0]}" -eq 0 ]
}

# The Markdown files' relative links: the file must exist, and a #fragment
# must be the GitHub anchor of one of its headings (lower case, spaces to
# dashes, punctuation other than - and _ dropped). Links to web pages are
# not followed (no network in CI).
check_links() {
	files | grep -z '\.md$' | xargs -0 -r python3 scripts/check-links.py
}

# Without root the kernel's parts of the unit tests say SKIP, as in the
# unit layer. LSan is on (ASan's default): a leak fails the test.
check_asan() {
	local heavy=" xlate cbpf_ops big_filter filter_diff " rest=() s rc=0
	build "$BUILD_DIR-asan" -DPKTPATH_SANITIZE=ON -- pp_unit || return 1
	# Under ASan the suites take minutes, the four filter suites (the
	# differential tests against libpcap and the kernel) about half of
	# it: they run beside the others, one process each side, so that
	# both cores work once the builds are done.
	# shellcheck disable=SC2013 # words: the suites' names
	for s in $(sed -n '/^set(PP_UNIT_SUITES/,/)/p' tests/CMakeLists.txt |
		sed 's/set(PP_UNIT_SUITES//; s/)//'); do
		[[ $heavy == *" $s "* ]] || rest+=("$s")
	done
	asan_suites "$heavy" >"$out/asan.heavy" 2>&1 &
	asan_suites "${rest[*]}" || rc=1
	wait $! || rc=1
	cat "$out/asan.heavy"
	return $rc
}

# asan_suites "SUITE...": the ASan unit tests of these suites, one run each
# (Check's CK_RUN_SUITE); fails if any failed. The checks beside them slow
# them: Check's per-test limits are wall-clock.
asan_suites() {
	local s rc=0 o t
	for s in $1; do
		t=$SECONDS
		o=$(CK_RUN_SUITE=$s CK_TIMEOUT_MULTIPLIER=3 UBSAN_OPTIONS=print_stacktrace=1 \
			"$BUILD_DIR-asan/tests/pp_unit" 2>&1) || rc=1
		printf '%s\n(asan: %s %d s)\n' "$o" "$s" $((SECONDS - t))
		# A name Check does not know runs nothing, and passes.
		grep -qx "Running suite(s): $s" <<<"$o" || {
			echo "lint: asan: no suite '$s' ran"
			rc=1
		}
	done
	return $rc
}

# The files the .deb and docs/ ship for running pktpath as a node agent.
# systemd-analyze verify wants the ExecStart binary where the unit says: a
# copy of the unit names the one just built. It exits 0 on an unknown key
# (a typo in a hardening option): any line it prints is a failure.
check_packaging() {
	local c out unit ok=0
	for c in promtool systemd-analyze python3; do
		command -v "$c" >/dev/null ||
			{ echo "lint: $c not installed (scripts/install-deps.sh)" && return 1; }
	done
	promtool check rules packaging/prometheus/pktpath-rules.yml >/dev/null || ok=1
	(cd packaging/prometheus && promtool test rules pktpath-rules.test.yml) || ok=1
	build "$BUILD_DIR-lint" -DCMAKE_C_COMPILER=clang -DPKTPATH_WERROR=ON -- pktpath || return 1
	unit=$(mktemp -d)
	# BUILD_DIR may be relative (the default) or absolute (scripts/test.sh's).
	sed "s|/usr/sbin/pktpath|$(realpath "$BUILD_DIR-lint/loader/pktpath")|" packaging/pktpath.service \
		>"$unit/pktpath.service"
	out=$(systemd-analyze verify --man=no "$unit/pktpath.service" 2>&1) || ok=1
	rm -rf "$unit"
	[ -z "$out" ] || { echo "lint: systemd-analyze verify pktpath.service: $out" && ok=1; }
	python3 scripts/check-packaging.py || ok=1
	return $ok
}

for c in "${CHECKS[@]}"; do
	declare -F "check_$c" >/dev/null || {
		echo "lint: no check named '$c' (${ALL[*]})" >&2
		exit 2
	}
done

# run_check C: check C, its output in $out/C, its verdict and time in
# $out/C.verdict.
run_check() {
	local start=$SECONDS v=PASS
	"check_$1" >"$out/$1" 2>&1 || v=FAIL
	echo "$v $1 ($((SECONDS - start)) s)" >"$out/$1.verdict"
}

# The checks run side by side in three chains, so that the one-threaded
# ones (the unit tests under ASan, shellcheck's longest files) overlap the
# builds: the clang build's three checks share ${BUILD_DIR}-lint, one after
# another; the ASan build and its run; and the rest, one after another. Their outputs are
# printed in CHECKS' order once all have ended.
chain() {
	local c
	for c in "${CHECKS[@]}"; do
		[[ " $* " != *" $c "* ]] || run_check "$c"
	done
}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
built=" werror usage packaging asan "
chain werror usage packaging &
chain asan &
rest=()
for c in "${CHECKS[@]}"; do [[ $built == *" $c "* ]] || rest+=("$c"); done
chain "${rest[@]}" &
wait
passed=0 failed=0
for c in "${CHECKS[@]}"; do
	cat "$out/$c" 2>/dev/null
	v=$(cat "$out/$c.verdict" 2>/dev/null || echo "FAIL $c (did not run)")
	echo "$v"
	case $v in
	PASS*) passed=$((passed + 1)) ;;
	*) failed=$((failed + 1)) ;;
	esac
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
