#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# drop_cost.sh PKTPATH... : ns per hit of pp_tp_kfree (run_time_ns / run_cnt,
# kernel.bpf_stats_enabled=1) while about 60,000 UDP datagrams/s from a go
# to a port of the router where nothing listens (port 9: NO_SOCKET) or that
# an nftables input rule drops (port 10: NETFILTER_DROP), each tracked by
# the pktpath binary given (tracepoint backend, run in the router), 2 rounds
# of 3 s each. As root, under flock /tmp/pktpath-kernel.lock.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/topology.sh up ppc >/dev/null
trap 'scripts/topology.sh down ppc >/dev/null 2>&1; sysctl -qw kernel.bpf_stats_enabled=0' EXIT
sysctl -qw kernel.bpf_stats_enabled=1
ip netns exec ppc-r nft -f - <<'N'
table inet c { chain i { type filter hook input priority 0; udp dport 10 drop; }; }
N
tmp=$(mktemp -d)
for port in 9 10; do
	for bin in "$@"; do
		for round in 1 2; do
			ip netns exec ppc-r "$bin" --backend tracepoint --duration 6 "udp port $port" \
				>"$tmp/out" 2>"$tmp/err" &
			pid=$!
			for _ in $(seq 50); do
				grep -q ready "$tmp/err" && break
				sleep 0.2
			done
			# shellcheck disable=SC2016 # for the inner bash
			ip netns exec ppc-a bash -c 'end=$((SECONDS + 3))
				while [ $SECONDS -lt $end ]; do
					for i in $(seq 200); do echo >"/dev/udp/198.18.0.254/$0"; done
				done' "$port" 2>/dev/null
			bpftool prog show -j | jq -r --arg b "$bin" --arg p "$port" --arg r "$round" \
				'[.[] | select(.name == "pp_tp_kfree")][0]
				 | "port \($p) \($b) round \($r): \(.run_time_ns / .run_cnt * 10 | floor / 10) ns/hit over \(.run_cnt) hits"'
			wait "$pid"
		done
	done
done
rm -rf "$tmp"
