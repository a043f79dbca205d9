#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The kernel table of docs/kernels.md, from a run of
# scripts/vm-test.sh: per kernel, pktpath --check's verdict, what --check
# says it lacks, and per backend the checks passed, failed and skipped.
# Usage: tests/vm/matrix_table.sh [VMDIR]   (default: build/vm)
set -euo pipefail

VMDIR=${1:-build/vm}
[ -f "$VMDIR/results.txt" ] || {
	echo "usage: $0 [VMDIR]: no $VMDIR/results.txt (run scripts/vm-test.sh first)" >&2
	exit 2
}

# verdict LABEL: --check's last line and its "no" items, from the VM of
# LABEL that ran the check scenario.
verdict() {
	local f
	f=$(grep -l "^@@VM label=$1 " "$VMDIR"/logs/*.judged 2>/dev/null |
		xargs -r grep -l '^@@KV CHECK pktpath ' | head -n 1)
	[ -n "$f" ] || {
		echo "(not run) | "
		return
	}
	printf '%s | %s' \
		"$(sed -n 's/^@@KV CHECK pktpath //p' "$f" | head -n 1 | sed 's/^/pktpath /')" \
		"$(awk '/^@@KV CHECK / && $0 ~ / no  / { sub(/^@@KV CHECK /, ""); sub(/ +no  .*/, "");
			printf "%s%s", sep, $0; sep = ", " }' "$f")"
}

# tier T commit C date D, written by scripts/vm-test.sh.
read -r _ tier _ commit _ day <"$VMDIR/run.txt" 2>/dev/null || tier=unknown
echo "The $tier tier of \`scripts/vm-test.sh\` on commit ${commit:-unknown}, ${day:-date unknown}:"
echo
echo "| kernel | \`--check\` verdict | \`--check\` says no | backend: checks passed/failed/skipped |"
echo "|---|---|---|---|"
awk '$1 ~ /^(PASS|FAIL|SKIP)$/ && $2 != "-" { print $2 }' "$VMDIR/results.txt" | sort -V -u |
	while read -r label; do
		backends=$(awk -v l="$label" '$2 == l && $3 != "vm" && $1 ~ /^(PASS|FAIL|SKIP)$/ {
			seen[$3] = 1; n[$3, $1]++ }
		END { for (b in seen) printf "%s %d/%d/%d\n", b, n[b, "PASS"], n[b, "FAIL"], n[b, "SKIP"] }' \
		"$VMDIR/results.txt" | sort | paste -sd, - | sed 's/,/, /g')
		echo "| $label | $(verdict "$label") | $backends |"
	done
