#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --summary's memory is bounded by the distinct paths, not the packets: a
# 60-second UDP flood (5000 packets/s, half of them dropped by nftables)
# through the router while pktpath --summary traces it in the router. Its
# peak RSS (VmHWM) at 60 s must be within 8 MiB of the one at 10 s, when
# the ring buffer and the path table's tombstones (one --packet-timeout of
# packets) have about reached their size: per-packet memory would take some
# 100 bytes a packet, 25 MiB for the 250,000 packets in between. (The margin
# is for the tombstones of a second that saw more packets than the first
# ten did, and the allocator: a run grew 1.6 MiB, most 0.03 MiB.) The
# summary must still count every packet.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin nft
ppr_topo_quiet

flood=""
pp_test_tool flood udp_flood
pps=5000 secs=60
n=$((pps * secs))

pp_in "$PP_NS_R" nft -f - <<'NFT'
table ip pp_summary_rss {
	chain forward_drop {
		type filter hook forward priority filter;
		udp dport 9001 counter drop
	}
}
NFT
pp_defer ip netns exec "$PP_NS_R" nft delete table ip pp_summary_rss
pp_bg sink "$PP_NS_B" "$flood" sink 9000
pp_wait_line sink '^udp_flood: listening' 10

out=$(pp_out sum)
pp_pktpath_start sum "$PP_NS_R" --backend tracepoint --json --summary \
	--filter "udp and src 198.18.0.1"
pid=${PP_PIDS[sum]}
pp_bg flood "$PP_NS_A" "$flood" send 198.18.1.2 "$n" "$pps" 9000 9001
t0=$SECONDS
hwm() { awk '$1 == "VmHWM:" { print $2 }' "/proc/$pid/status"; }
sleep 10
hwm10=$(hwm)
pp_log "peak RSS at 10 s: $hwm10 kB"
# The trend, every 10 s, for the log: flat, or growing with the packets.
trend=$hwm10 next=20
while pp_alive "${PP_PIDS[flood]}"; do
	[ $((SECONDS - t0)) -lt $((secs + 30)) ] || pp_fail "the flood did not end in $((secs + 30)) s"
	if [ $((SECONDS - t0)) -ge "$next" ]; then
		trend="$trend $(hwm)"
		next=$((next + 10))
	fi
	sleep 1
done
hwm60=$(hwm)
pp_log "peak RSS at $((SECONDS - t0)) s (flood over): $hwm60 kB; every 10 s from 10 s: $trend kB"
pp_stop flood
pp_pktpath_settle sum 20
pp_pktpath_stop sum
pp_stop sink
echo "$hwm10 $hwm60" >"$PP_TMP/hwm"

pp_expect_summary "$out"
lost=$(jq -r .lost <<<"$PP_SUMMARY")
packets=$(pp_jq "$out" '[.[] | select(has("path_summary"))][-1].path_summary.packets')
pp_log "summary: $packets packets, $lost records lost"
[ "$lost" -eq 0 ] || pp_skip "records were lost ($lost): the machine did not keep up; RSS" \
	"$hwm10 -> $hwm60 kB"
pp_expect_eq "packets in the summary" "$packets" "$n"
[ $((hwm60 - hwm10)) -le 8192 ] ||
	pp_fail "peak RSS grew from $hwm10 kB at 10 s to $hwm60 kB at 60 s"
pp_pass
