#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Benchmarks -> docs/PERFORMANCE.md. `--smoke` runs each briefly and writes
# nothing: the test command uses it to prove they still run, never to judge
# a timing.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
BIN="$BUILD_DIR/bench/cls_bench"

if [ "${1:-}" = --smoke ]; then
	"$BIN" 1 10000
	exit 0
fi

ROUNDS=${ROUNDS:-9}
REPEAT=${REPEAT:-1000000}
cmd="bench/run.sh (cls_bench $ROUNDS rounds x $REPEAT runs)"
table=$("$BIN" "$ROUNDS" "$REPEAT")
cat >docs/PERFORMANCE.md <<DOC
# pktpath performance

Measured by \`$cmd\` on $(date -u +%Y-%m-%d), kernel $(uname -r),
$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')).
These machines are noisy VMs: each figure is a median of alternating runs,
and comparisons are made between figures of the same run.

## The classifier, per packet

\`BPF_PROG_TEST_RUN\` with repeat runs the classifier (the translated filter
spliced in front of the marking code) $REPEAT times on one 98-byte UDP frame
that none of the filters matches, so the filter runs to its verdict and the
marking code never runs: this is the cost that pktpath adds to every packet
it does not trace. The filters are run in turn, $ROUNDS rounds; the figure is
the median. "Net" subtracts the same run's median for a one-instruction
\`ret #0\` program, the cost of the test-run harness itself (the kernel's
per-run loop), which is not paid on a real interface.

Target (issue 2): under 15 ns per packet for \`icmp and src 198.18.0.1\`.

$table
DOC
echo "bench: wrote docs/PERFORMANCE.md"
