#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot every kernel of the matrix side by side, ROUNDS times in a row, each
# VM running one short scenario (icmp-veth on the tracepoint backend:
# enabling tracepoints patches kernel text across CPUs, the operation TCG has
# crashed on). Boots are NOT retried here (VM_BOOT_RETRIES=0): every crash
# counts, so that the QEMU settings are judged, not the retry.
#
# Usage: tests/vm/boot_soak.sh [ROUNDS] [KERNEL_PKG...]   (default 20 rounds)
# Environment: what scripts/vm-test.sh takes (VM_SMP, VM_CPU, VM_TCG_THREAD,
# VM_JOBS, BUILD_DIR...); SOAK_SCENARIO, SOAK_BACKEND change the scenario.
# Prints one line per round and a summary; exits 1 if any round failed.
# Each round's output stays in $BUILD_DIR/vm/soak/round-N.txt.
set -uo pipefail

# shellcheck source=tests/vm/host.sh
. "$(dirname "${BASH_SOURCE[0]}")/host.sh"
ROUNDS=${1:-20}
[ $# -eq 0 ] || shift
vm_dirs build
OUT=$VMDIR/soak
mkdir -p "$OUT"

failed=0 times=()
echo "soak: $ROUNDS rounds, -smp ${VM_SMP:-2} -cpu ${VM_CPU:-max}" \
	"tcg,thread=${VM_TCG_THREAD:-single}, ${SOAK_SCENARIO:-icmp-veth}" \
	"on ${SOAK_BACKEND:-tracepoint}"
for ((r = 1; r <= ROUNDS; r++)); do
	start=$SECONDS
	# Every VM of the full matrix at once, as the soak has always booted.
	VM_TIER=${VM_TIER:-full} VM_JOBS=${VM_JOBS:-99} \
		VM_BOOT_RETRIES=0 VM_SCENARIOS=${SOAK_SCENARIO:-icmp-veth} \
		VM_BACKENDS=${SOAK_BACKEND:-tracepoint} BUILD_DIR=$BUILD_DIR \
		"$VM_HARNESS" "$@" >"$OUT/round-$r.txt" 2>&1
	rc=$?
	t=$((SECONDS - start))
	times+=("$t")
	# Per kernel: boot to power-off inside the VM (emulated seconds).
	per=$(sed -n 's/^PASS \([^ ]*\) vm boot : scenarios_s=\(.*\)/\1 \2/p' "$OUT/round-$r.txt" |
		tr '\n' ' ')
	if [ $rc -eq 0 ]; then
		echo "round $r: PASS ${t}s ($(tail -n 1 "$OUT/round-$r.txt")); in-VM s: $per"
	else
		failed=$((failed + 1))
		echo "round $r: FAIL ${t}s ($(tail -n 1 "$OUT/round-$r.txt"))"
		grep -E '^(FAIL|RETRY) ' "$OUT/round-$r.txt" | sed 's/^/    /'
	fi
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
echo "soak: $((ROUNDS - failed)) of $ROUNDS rounds passed;" \
	"round time min $(head -n 1 <<<"$sorted") s," \
	"median $(sed -n "$(((ROUNDS + 1) / 2))p" <<<"$sorted") s," \
	"max $(tail -n 1 <<<"$sorted") s"
[ $failed -eq 0 ]
