#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What the node agent (pktpath --agent) costs, and whether its counts hold,
# under a flood of drops. As root, after a build, under the e2e lock:
#
#   flock /tmp/pp-kernel.lock bench/agent_cost.sh
#
# Two namespaces joined by a veth pair; an nftables input rule in the
# receiver's drops (and counts) every datagram to port 9. Each round sends
# COUNT 64-byte datagrams there as fast as one socket goes (the sender
# pinned to CPU 0), once with no tracing and once with the agent
# (--agent --metrics) running, in alternating order. Per round: datagrams
# sent per second; with the agent, its count of the drops (pktpath_drops_total
# of the receiver's namespace, after its next read) against the nft counter,
# the agent's own CPU (utime + stime of its process over the flood) and, with
# kernel.bpf_stats_enabled=1, its program's ns per drop (run_time_ns / run_cnt).
#
#   bench/agent_cost.sh            measure, write DATA (bench/data/agent_cost.jsonl)
#   bench/agent_cost.sh --report   the Markdown section, from DATA
#   bench/agent_cost.sh --smoke    one short round, writes nothing; fails if a
#                                  count differs from the kernel's
#
# Environment: BUILD_DIR (build), PKTPATH (BUILD_DIR/loader/pktpath),
# ROUNDS (5), COUNT (400000), DATA.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
PKTPATH=${PKTPATH:-$BUILD_DIR/loader/pktpath}
FLOOD=$BUILD_DIR/tests/udp_flood
ROUNDS=${ROUNDS:-5}
COUNT=${COUNT:-400000}
DATA=${DATA:-bench/data/agent_cost.jsonl}
NS_C=pp-agent-$$-c NS_S=pp-agent-$$-s
ADDR=127.0.0.1:19466
# shellcheck source=bench/veth_pair.sh
. bench/veth_pair.sh
MODE=measure
case ${1:-} in
--smoke) MODE=smoke ROUNDS=1 COUNT=50000 DATA=/dev/null ;;
--report) MODE=report ;;
esac

report() {
	jq -s -r '
		def median: sort | if length == 0 then null
			else .[(length - 1) / 2 | floor] end;
		def f(n): . * pow(10; n) | round / pow(10; n);
		. as $all
		| [$all[] | select(.config == "none")] as $none
		| [$all[] | select(.config == "agent")] as $agent
		| ($none | map({key: "\(.round)", value: .pps}) | from_entries) as $n
		| "| datagrams a round | rounds | sent/s, no tracing | sent/s, agent | x no tracing "
		+ "(min..max) | agent counted = nft | agent CPU, ms/s | ns per drop |",
		"|---|---|---|---|---|---|---|---|",
		"| \($all[0].count) | \($agent | length) | \($none | map(.pps) | median | f(0)) "
		+ "| \($agent | map(.pps) | median | f(0)) "
		+ "| \($agent | map(.pps / $n["\(.round)"]) | median | f(3)) "
		+ "(\($agent | map(.pps / $n["\(.round)"]) | min | f(3))..\($agent
			| map(.pps / $n["\(.round)"]) | max | f(3))) "
		+ "| \($agent | map(select(.counted == .nft)) | length) of \($agent | length) "
		+ "| \($agent | map(.cpu_ms / .secs) | median | f(2)) "
		+ "| \($agent | map(.ns_per_drop) | median | f(1)) |"' "$DATA"
}

if [ "$MODE" = report ]; then
	report
	exit 0
fi
[ "$(id -u)" -eq 0 ] || {
	echo "SKIP agent_cost: needs root"
	exit 77
}
for f in "$PKTPATH" "$FLOOD"; do
	[ -x "$f" ] || {
		echo "agent_cost: no $f (build first)" >&2
		exit 1
	}
done

AGENT_PID=
cleanup() {
	[ -z "$AGENT_PID" ] || kill -INT "$AGENT_PID" 2>/dev/null || true
	wait 2>/dev/null || true
	[ -z "${STATS_WAS:-}" ] || sysctl -q -w kernel.bpf_stats_enabled="$STATS_WAS"
	pair_down "$NS_C" "$NS_S"
}
trap cleanup EXIT

pair_up "$NS_C" "$NS_S"
ip netns exec "$NS_S" nft -f - <<'NFT'
table ip pp_agent_cost {
	chain input {
		type filter hook input priority filter;
		udp dport 9 counter drop
	}
}
NFT

nft_count() {
	ip netns exec "$NS_S" nft -j list table ip pp_agent_cost |
		jq '[.nftables[].rule? // empty | .expr[] | .counter? // empty | .packets] | add'
}

# The agent's NETFILTER_DROP count in the receiver's namespace.
agent_count() {
	curl -sf "http://$ADDR/metrics" | awk -v ns="netns=\"$NS_S\"" '
		/^pktpath_drops_total\{reason="NETFILTER_DROP"/ && index($0, ns) { s += $NF }
		END { print s + 0 }'
}

cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# flood: COUNT datagrams as fast as they go; prints seconds taken.
flood() {
	local t0 t1
	t0=$(date +%s.%N)
	ip netns exec "$NS_C" taskset -c 0 "$FLOOD" send 198.18.0.2 "$COUNT" 1000000000 9 >/dev/null
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l
}

prog_stats() {
	bpftool -j prog show | jq -r '[.[] | select(.name == "pp_drop_count")][0]
		| "\(.run_time_ns // 0) \(.run_cnt // 0)"'
}

run_none() {
	local r=$1 secs
	secs=$(flood)
	jq -n -c --argjson r "$r" --argjson c "$COUNT" --argjson s "$secs" \
		'{config: "none", round: $r, count: $c, secs: $s, pps: ($c / $s)}' >>"$DATA"
}

run_agent() {
	local r=$1 secs nft0 nft1 counted c0 c1 s0 s1 ns end
	"$PKTPATH" --agent --metrics "$ADDR" 2>"$TMP/agent.err" &
	AGENT_PID=$!
	end=$((SECONDS + 60))
	until grep -q 'pktpath: ready' "$TMP/agent.err"; do
		[ "$SECONDS" -lt "$end" ] || {
			echo "agent_cost: the agent is not ready: $(tail -1 "$TMP/agent.err")" >&2
			exit 1
		}
		sleep 0.1
	done
	sleep 1.2 # its first read: the counts before the round
	nft0=$(nft_count)
	counted=$(agent_count)
	read -r s0 c0 < <(prog_stats)
	c0=$((c0)) s0=$((s0))
	local t0
	t0=$(cpu_ticks "$AGENT_PID")
	secs=$(flood)
	c1=$(cpu_ticks "$AGENT_PID")
	read -r s1 ns < <(prog_stats)
	nft1=$(nft_count)
	sleep 1.5 # the agent's next read
	counted=$(($(agent_count) - counted))
	kill -INT "$AGENT_PID"
	wait "$AGENT_PID"
	AGENT_PID=
	jq -n -c --argjson r "$r" --argjson c "$COUNT" --argjson s "$secs" \
		--argjson nft $((nft1 - nft0)) --argjson counted "$counted" \
		--argjson cpu "$(((c1 - t0) * 1000 / $(getconf CLK_TCK)))" \
		--argjson ns "$(((s1 - s0) / ((ns - c0) > 0 ? (ns - c0) : 1)))" \
		'{config: "agent", round: $r, count: $c, secs: $s, pps: ($c / $s), nft: $nft,
		  counted: $counted, cpu_ms: $cpu, ns_per_drop: $ns}' >>"$DATA"
	if [ "$counted" != $((nft1 - nft0)) ]; then
		echo "agent_cost: round $r: the agent counted $counted drops, nft $((nft1 - nft0))" >&2
		[ "$MODE" != smoke ] || exit 1
	fi
}

TMP=$(mktemp -d)
[ "$MODE" = smoke ] || : >"$DATA"
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -q -w kernel.bpf_stats_enabled=1
for ((r = 1; r <= ROUNDS; r++)); do
	if ((r % 2)); then
		run_none "$r"
		run_agent "$r"
	else
		run_agent "$r"
		run_none "$r"
	fi
	echo "agent_cost: round $r of $ROUNDS done" >&2
done
rm -rf "$TMP"
[ "$MODE" = smoke ] || report
