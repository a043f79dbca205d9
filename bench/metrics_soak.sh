#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# metrics_soak.sh [SECONDS] : pktpath as a node agent for a long time
# (default 3600 s). As root; nothing else needs to be stopped: the
# topology's namespaces are its own (prefix ppsoak), so it does not take
# the kernel lock the e2e tests share.
#
#   pktpath --metrics 127.0.0.1:19465 --metrics-idle 60 --backend tracepoint
#
# runs in the router of a topology (a -- r -- b) while host a sends UDP to
# host b at a steady PP_SOAK_PPS datagrams a second (default 5000), round
# robin over three ports: 5001 (a sink reads it: consumed), 5002 (nothing
# listens: NO_SOCKET at b), 5003 (dropped by an nftables forward rule in r
# for 30 s of every minute, delivered to a sink the other 30 s). Host a
# also pings b for 10 s every 2 minutes. So paths come and go, and with
# --metrics-idle 60 their series go too. /metrics is scraped every second.
#
# Written to PP_SOAK_OUT (default /tmp/pp-metrics-soak): scrapes.tsv (time,
# seconds the scrape took, bytes, series), samples.tsv every 10 s (time,
# RSS bytes, CPU seconds, packets counted, series evicted), and
# summary.txt: RSS first (after 60 s of warm-up) and highest, scrape time
# p50/p99/max, packets a second, and pktpath's CPU per 10,000 packets a
# second (CPU seconds per second of run, scaled).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-3600}
pps=${PP_SOAK_PPS:-5000}
out=${PP_SOAK_OUT:-/tmp/pp-metrics-soak}
pktpath=${PKTPATH:-build/loader/pktpath}
flood=${UDP_FLOOD:-build/tests/udp_flood}
addr=127.0.0.1:19465
[[ $seconds =~ ^[0-9]+$ && $seconds -ge 90 ]] || {
	echo "usage: $0 [SECONDS], 90 or more" >&2
	exit 2
}
mkdir -p "$out"
rm -f "$out"/*.tsv "$out"/summary.txt
scripts/topology.sh up ppsoak >/dev/null
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	scripts/topology.sh down ppsoak >/dev/null 2>&1 || true
}
trap cleanup EXIT
R="ip netns exec ppsoak-r"

for port in 5001 5003; do
	ip netns exec ppsoak-b "$flood" sink "$port" >/dev/null &
	pids+=($!)
done
ip netns exec ppsoak-r nft -f - <<'N'
table inet soak { chain f { type filter hook forward priority 0; }; }
N
$R "$pktpath" --metrics "$addr" --metrics-idle 60 --backend tracepoint 'udp or icmp' \
	>"$out/pktpath.out" 2>"$out/pktpath.err" &
agent=$!
pids+=("$agent")
for _ in $(seq 600); do # up to 2 min: attaching takes longer on a loaded host
	grep -q ready "$out/pktpath.err" && break
	sleep 0.2
done
grep -q ready "$out/pktpath.err" || {
	cat "$out/pktpath.err" >&2
	exit 1
}
ip netns exec ppsoak-a "$flood" send 198.18.1.2 $((pps * seconds)) "$pps" 5001 5002 5003 \
	>"$out/flood.out" &
pids+=($!)

# A sample of the exposition: "name value" of the lines that START.
metric() { awk -v m="$1" '$1 == m { print $2; exit }' "$out/last.prom"; }
packets() { awk '/^pktpath_packets_total/ { s += $2 } END { print s + 0 }' "$out/last.prom"; }

start=$SECONDS
while [ $((SECONDS - start)) -lt "$seconds" ]; do
	t=$((SECONDS - start))
	# Paths that come and go: the forward drop, and the pings.
	if [ $((t % 60)) -eq 0 ]; then
		$R nft add rule inet soak f udp dport 5003 drop
	elif [ $((t % 60)) -eq 30 ]; then
		$R nft flush chain inet soak f
	fi
	if [ $((t % 120)) -eq 0 ]; then
		ip netns exec ppsoak-a ping -q -c 10 -i 1 198.18.1.2 >/dev/null 2>&1 &
	fi
	w=$($R curl -s -o "$out/last.prom" -w '%{time_total} %{size_download}' "http://$addr/metrics") ||
		w="fail 0"
	printf '%s %s %s\n' "$t" "$w" "$(grep -vc '^#' "$out/last.prom")" >>"$out/scrapes.tsv"
	if [ $((t % 10)) -eq 0 ]; then
		printf '%s %s %s %s %s\n' "$t" "$(metric process_resident_memory_bytes)" \
			"$(metric process_cpu_seconds_total)" "$(packets)" \
			"$(metric pktpath_metrics_series_evicted_total)" >>"$out/samples.tsv"
	fi
	sleep 1
done
kill -INT "$agent"
wait "$agent" || true

# Scrape times sorted: p50, p99 and max by rank.
sorted=$(awk '$2 != "fail" { print $2 }' "$out/scrapes.tsv" | sort -g | tr '\n' ' ')
awk -v s="$seconds" -v pps="$pps" -v sorted="$sorted" '
	FNR == 1 { f++ }
	f == 1 && $2 == "fail" { fails++ }
	f == 1 { series = $4 }
	f == 2 && $1 >= 60 && !rss0 { rss0 = $2; cpu0 = $3; pk0 = $4; t0 = $1 }
	f == 2 { if ($2 > rssmax) rssmax = $2; cpu1 = $3; pk1 = $4; t1 = $1; ev = $5 }
	END {
		n = split(sorted, ts, " ")
		rate = (pk1 - pk0) / (t1 - t0)
		printf "duration %d s, sent %d datagrams/s (UDP), traced %.0f packets/s\n", s, pps, rate
		printf "RSS after 60 s %.1f MiB, highest %.1f MiB\n", rss0 / 1048576, rssmax / 1048576
		printf "scrapes %d (%d failed), %d series at the end; time p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
			n, fails, series, ts[int(n * 0.5) + 1] * 1e3, ts[int(n * 0.99) + 1] * 1e3, ts[n] * 1e3
		printf "CPU %.1f%% of a core, %.1f%% per 10,000 packets/s; series evicted %d\n",
			100 * (cpu1 - cpu0) / (t1 - t0), 100 * (cpu1 - cpu0) / (t1 - t0) / (rate / 1e4), ev
	}' "$out/scrapes.tsv" "$out/samples.tsv" | tee "$out/summary.txt"
