#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Soak: pktpath traces a ping flood for a long time without growing.
# Not a test_*.sh: run.sh does not pick it up. Run it by hand (as root):
#
#     tests/e2e/soak.sh [SECONDS]          # default 600
#
# pktpath runs in the router of a test topology with --json and filter icmp
# (every request and reply matches) while host a flood pings host b. Every
# PP_SOAK_INTERVAL seconds (default 10) it samples pktpath's resident memory
# (VmRSS), its open file descriptors, the entries of its skb_map (bpftool
# map dump) and the packets printed so far, and prints a table on stdout.
# Asserted at the end:
#   - RSS grew less than 20% from the first sample (after warm-up) to the
#     largest later one;
#   - the number of open fds never changed;
#   - skb_map stayed bounded: never more than a quarter of --max-packets
#     (16384 by default), and no packet was refused for a full map;
#   - pktpath kept tracing (more packets at every sample) and exits 0 on
#     SIGINT, leaving the kernel as it was.
# The output goes through a FIFO into a line counter, not to disk (a long
# flood makes gigabytes of JSON).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
seconds=${1:-${PP_SOAK_SECONDS:-600}}
interval=${PP_SOAK_INTERVAL:-10}
if ! [[ $seconds =~ ^[0-9]+$ ]] || [ "$seconds" -lt $((2 * interval)) ]; then
	pp_fail "usage: $0 [SECONDS], at least two sampling intervals ($((2 * interval)) s)"
fi
pp_begin

ppr_before

# pktpath's stdout is a FIFO that awk reads: it keeps the line count in
# $count (rewritten every 1000 lines and at the end) and the summary line.
count=$PP_TMP/lines.count
summary=$PP_TMP/summary.json
mkfifo "$(pp_out soak)"
echo 0 >"$count"
awk -v f="$count" -v s="$summary" '
	{ n++ }
	n % 1000 == 0 { print n > f; close(f) }
	/"summary"/ { print > s; close(s) }
	END { print n + 0 > f; close(f) }' <"$(pp_out soak)" &
reader=$!
pp_defer wait "$reader"

pp_pktpath_start soak "$PP_NS_R" --json --filter icmp
pid=${PP_PIDS[soak]}
# skb_map of this pktpath: among the maps it holds, the one so named.
skb_map=
while read -r id; do
	[ "$(bpftool -j map show id "$id" | jq -r .name)" != skb_map ] || skb_map=$id
done < <(awk '/^map_id:/ { print $2 }' /proc/"$pid"/fdinfo/* 2>/dev/null | sort -un)
[ -n "$skb_map" ] || pp_fail "no skb_map among the maps pktpath (pid $pid) holds"
pp_bg flood "$PP_NS_A" ping -n -q -f -w "$seconds" 198.18.1.2

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }
fds() { find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l; }
# A failed dump must not read as an empty map.
entries() {
	local n
	n=$(bpftool -j map dump id "$skb_map" | jq length) || true
	[[ $n =~ ^[0-9]+$ ]] || pp_fail "cannot dump skb_map (id $skb_map): '$n'"
	echo "$n"
}
# awk rewrites the count file: between its truncation and its write, read again.
packets() {
	local n i
	for ((i = 0; i < 20; i++)); do
		n=$(cat "$count")
		[ -z "$n" ] || break
		sleep 0.05
	done
	echo "${n:-0}"
}

printf '%8s %10s %5s %9s %12s\n' seconds rss_kb fds skb_map packets
samples=()
start=$(date +%s)
while :; do
	sleep "$interval"
	t=$(($(date +%s) - start))
	pp_alive "$pid" || pp_fail "pktpath died after $t s: $(pp_brief_tail 2 "$(pp_err soak)")"
	row="$t $(rss) $(fds) $(entries) $(packets)"
	samples+=("$row")
	# shellcheck disable=SC2086 # the row's words are the columns
	printf '%8s %10s %5s %9s %12s\n' $row
	pp_alive "${PP_PIDS[flood]}" || break
done
pp_stop flood INT
pp_pktpath_stop soak INT
pp_expect_eq "pktpath's exit status" "$PP_RC" 0
wait "$reader" || true
ppr_expect_clean "after the soak" "$PP_BEFORE"

[ ${#samples[@]} -ge 2 ] || pp_fail "only ${#samples[@]} samples: the flood ended early"
printf '%s\n' "${samples[@]}" >"$PP_TMP/samples.txt"
echo "pktpath's summary: $(cat "$summary" 2>/dev/null || echo none)"
# The checks, on the table: columns t, rss, fds, entries, packets.
verdict=$(awk -v maxent=$((16384 / 4)) '
	NR == 1 { rss0 = $2; fds0 = $3 }
	{ if ($2 > rssmax) rssmax = $2
	  if ($3 != fds0 && !fdbad) fdbad = sprintf("open fds went from %d to %d at %d s", fds0, $3, $1)
	  if ($4 > entmax) entmax = $4
	  if (NR > 1 && $5 <= prev && !stuck) stuck = sprintf("no new packet between samples at %d s", $1)
	  prev = $5 }
	END {
	  if (rssmax > rss0 * 1.2) print "RSS grew from " rss0 " kB to " rssmax " kB (more than 20%)"
	  if (fdbad) print fdbad
	  if (entmax > maxent) print "skb_map reached " entmax " entries (bound " maxent ")"
	  if (stuck) print stuck
	}' "$PP_TMP/samples.txt")
[ -z "$verdict" ] || pp_fail "$(pp_brief 4 <<<"$verdict")"
map_full=$(jq -r '.summary.map_full' "$summary" 2>/dev/null || echo unknown)
pp_expect_eq "packets refused for a full skb_map (summary map_full)" "$map_full" 0
pp_pass
