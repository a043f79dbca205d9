#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The cost guard (issue 36): what pktpath costs traffic it does not track
# must not quietly grow. As root, after a build (not yet in the bench layer:
# CONTRIBUTING.md, Tests, says why). It fails when the 64-byte UDP flood
# with pktpath matching none of it (netbench.sh's pp-a, GUARD_ROUNDS rounds
# beside no tracing, alternating) runs more than GUARD_POINTS (0.05) below the ratio to no
# tracing that docs/PERFORMANCE.md records for case (a) (its Targets table).
#
# It also prints, per hook pktpath attaches (the tracepoint backend, nothing
# tracked), what its program costs a hit beside an empty program and the gate
# twin on the same hook (bench/host_cost.sh's per-hit rounds, GUARD_ROUNDS,
# over the sendto, tcp and tmpfs workloads; medians of the rows where each
# ran at least 2000 times). Those are not judged yet: issue 36's bound (10
# ns above the empty program) does not hold today (15 to 60 ns on this VM,
# the gate twin alone 5 to 35, 2026-12-02).
#
# These machines are shared and noisy: a flood judgement that fails is
# measured again, once, with as many rounds more, and made on all of them.
#
# Environment: BUILD_DIR (build), GUARD_ROUNDS (3), GUARD_POINTS (0.05),
# GUARD_DOC (docs/PERFORMANCE.md).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
export BUILD_DIR
GUARD_ROUNDS=${GUARD_ROUNDS:-3}
GUARD_POINTS=${GUARD_POINTS:-0.05}
GUARD_DOC=${GUARD_DOC:-docs/PERFORMANCE.md}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# hits N: N more per-hit rounds into TMP/hits.jsonl.
hits() {
	HIT_ROUNDS=$1 ROUNDS=0 SECS=1 WORKLOADS="sendto tcp tmpfs" DATA=$TMP/h.jsonl \
		bench/host_cost.sh 2>"$TMP/h.err" || {
		cat "$TMP/h.err" >&2
		return 1
	}
	cat "$TMP/h.jsonl" >>"$TMP/hits.jsonl"
}

# hooks: "HOOK: pktpath P ns, gate G, empty E (N rows)" of every hook,
# worst above empty first, each the median of its rows.
hooks() {
	jq -s -r 'def median: sort | .[length / 2 | floor];
		def r: . * 10 | round / 10;
		[.[] | select(.phase == "hit" and .empty != null and .gate != null
			and .pp.ns != null and .empty.ns != null and .gate.ns != null
			and .pp.hits >= 2000 and .empty.hits >= 2000)]
		| group_by(.hook) | map({hook: .[0].hook, n: length, pp: (map(.pp.ns) | median),
			gate: (map(.gate.ns) | median), empty: (map(.empty.ns) | median),
			d: (map(.pp.ns - .empty.ns) | median)})
		| sort_by(-.d)[]
		| "\(.hook): pktpath \(.pp | r) ns, gate \(.gate | r), empty \(.empty | r) (\(.n) rows)"' \
		"$TMP/hits.jsonl"
}

# floods N: N more rounds of the flood, none and pp-a, into TMP/flood.jsonl.
floods() {
	rm -rf "$TMP/nb"
	ROUNDS=$1 SECS=2 HIT_CONFIGS="" TRAFFIC_CONFIGS="none pp-a" RATES="" \
		bench/netbench.sh "$TMP/nb" >/dev/null 2>"$TMP/nb.err" || {
		cat "$TMP/nb.err" >&2
		return 1
	}
	# Rounds numbered on from the earlier runs', so that each pairs its own.
	local off
	off=$(wc -l <"$TMP/flood.jsonl")
	jq -c --argjson off "$off" 'select(.phase == "traffic") | .round += $off * 10' \
		"$TMP/nb/data.jsonl" >>"$TMP/flood.jsonl"
}

# flood_ratio: the median over rounds of pp-a's UDP packets/s over none's.
flood_ratio() {
	jq -s -r 'def median: sort | .[length / 2 | floor];
		group_by(.round) | map(select(length == 2)
			| (map(select(.config == "pp-a"))[0].udp_pps
			   / map(select(.config == "none"))[0].udp_pps))
		| median * 1000 | round / 1000' "$TMP/flood.jsonl"
}

# The figure the docs record for case (a), "| 0.810 x |" in its Targets row.
doc_ratio() {
	sed -n 's/^| 64-byte UDP packets\/s, case (a)[^|]*| \([0-9.]*\) x .*/\1/p' "$GUARD_DOC" |
		head -n 1
}

main() {
	local doc ratio min
	doc=$(doc_ratio)
	[ -n "$doc" ] || {
		echo "guard: $GUARD_DOC records no case (a) ratio (its Targets table)" >&2
		return 1
	}
	min=$(jq -n "$doc - $GUARD_POINTS")
	: >"$TMP/hits.jsonl"
	: >"$TMP/flood.jsonl"
	hits "$GUARD_ROUNDS"
	hooks | sed 's/^/guard: per hit, not judged: /'
	floods "$GUARD_ROUNDS"
	ratio=$(flood_ratio)
	if jq -n -e "$ratio < $min" >/dev/null; then
		echo "guard: flood $ratio x no tracing, under $min: measuring again" >&2
		floods "$GUARD_ROUNDS"
		ratio=$(flood_ratio)
	fi
	echo "guard: 64-byte UDP flood with pktpath matching none of it: $ratio x no tracing" \
		"(docs: $doc; the bound: $min)"
	if jq -n -e "$ratio < $min" >/dev/null; then
		echo "guard: FAIL: the flood ratio fell more than $GUARD_POINTS below the docs' $doc"
		return 1
	fi
}

main
