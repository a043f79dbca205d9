#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A ring buffer too small for the traffic loses records; that loss is
# never silent, and what is printed is never wrong.
#
# A reference run (default ring) traces a short ping flood through the
# router with filter 'icmp[icmptype] = 8' and learns the path of an echo
# request: its hop count, which must be the same for every request (else the
# exact accounting below is not possible and is left out, with a note).
# Echo requests only: a reply's path has a copy (the clone ping's raw socket
# reads), and where a copy is first seen depends on timing, so replies have
# no one hop count. Then pktpath --ring-size 4K (the minimum) traces
# two floods: one while it reads records as usual (it may keep up or not,
# depending on the machine), then one while it is stopped (SIGSTOP): its
# BPF programs go on writing, nothing reads, so the 4 KiB ring overflows by
# construction, whatever the machine's speed. Required of that run:
#   - records were lost: the summary's "lost" > 0, and stderr has
#     "pktpath: lost N records at PROBE" lines adding up to it;
#   - every record is accounted for: hops printed + records lost = what
#     the reference paths say the packets ping sent and received make;
#   - every printed packet's hops are in time order, ids are unique;
#   - a packet printed with fewer hops than its kind has in the reference
#     says so: "lost_hops" > 0 or "mark_lost": true.
#
# Why this cannot depend on timing:
#   - pktpath prints no packet that is open when it exits, so each run is
#     stopped only once pktpath has printed all (pp_pktpath_settle), not
#     after some sleep;
#   - nothing is open in the loader when it is stopped (settled before), and
#     the stopped flood ends (ping exits: every skb freed, every record
#     written or counted lost) before SIGCONT. So whatever the loader does
#     on SIGCONT (its epoll_wait returns EINTR; the records in the ring may
#     be stamped with the time before the stop, and the packets whose END
#     was lost time out at once, not 1 s later), no record of a packet can
#     come after that packet was closed: none is late, none is miscounted;
#   - a packet whose END record was lost is closed by the packet timeout
#     and its lost hops come from end_lost_map, an LRU of 4096 ids that
#     also fills with the ids of packets the loader never sees; the floods
#     make fewer than 4096 packets in all, so no id is evicted;
#   - the stopped loader reads nothing: a 4 KiB ring holds fewer than 64
#     records (each over 64 bytes with its header), so at most that many
#     hops of the stopped flood can be printed, which is checked.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin

# ping_flood NAME COUNT: host a flood pings host b COUNT times; adds what
# ping sent and received to TX and RX.
TX=0 RX=0
ping_flood() {
	local name=$1 count=$2 tr
	pp_in "$PP_NS_A" ping -n -q -f -c "$count" -w 30 198.18.1.2 >"$PP_TMP/$name.ping" 2>&1 ||
		pp_log "$name: ping: $(pp_brief_tail 2 "$PP_TMP/$name.ping")"
	tr=$(sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\1 \2/p' \
		"$PP_TMP/$name.ping")
	[ -n "$tr" ] || pp_fail "$name: no summary from ping: $(pp_brief_tail 2 "$PP_TMP/$name.ping")"
	pp_log "$name: ping sent/received $tr"
	TX=$((TX + ${tr% *}))
	RX=$((RX + ${tr#* }))
}

# finish NAME: once pktpath NAME has printed every packet, stop it (SIGINT)
# and check its exit and output; leaves the summary in PP_SUMMARY.
finish() {
	local name=$1
	pp_pktpath_settle "$name" 60
	pp_pktpath_stop "$name" INT
	pp_expect_eq "$name: exit status" "$PP_RC" 0
	pp_expect_json_lines "$(pp_out "$name")" "$name output"
	pp_expect_summary "$(pp_out "$name")"
	pp_log "$name: ping sent/received $TX $RX in all; summary $PP_SUMMARY"
}

# The reference: no loss, every packet closed.
pp_pktpath_start ref "$PP_NS_R" --json --filter 'icmp[icmptype] = 8'
ping_flood ref 200
finish ref
ref=$(pp_out ref)
pp_expect_eq "reference run: records lost" "$(jq -r .lost <<<"$PP_SUMMARY")" 0
pp_expect_eq "reference run: packets whose end was not seen" "$(jq -r .unseen <<<"$PP_SUMMARY")" 0
pp_expect_eq "reference run: packets" "$(jq -r .packets <<<"$PP_SUMMARY")" "$TX"
# Hop counts per ICMP type: {"8": [min, max], "0": [min, max]}.
# shellcheck disable=SC2016 # jq program
hops=$(pp_jq "$ref" 'packets | group_by(.pkt.icmp_type)
	| map({key: (.[0].pkt.icmp_type | tostring), value: [map(.hops | length) | min, max]})
	| from_entries' -c)
pp_log "reference hop counts per ICMP type [min, max]: $hops"
[ "$(jq -r '.["8"] // empty | .[0]' <<<"$hops")" != "" ] ||
	pp_fail "reference run: no echo request: $hops"
uniform=$(jq -r 'all(.[]; .[0] == .[1])' <<<"$hops")

# The lossy run: 800 + 400 pings, at most 2400 packets (< 4096, above).
TX=0 RX=0
pp_pktpath_start small "$PP_NS_R" --json --filter 'icmp[icmptype] = 8' --ring-size 4K
out=$(pp_out small)
err=$(pp_err small)
ping_flood running 800
pp_pktpath_settle small 60
running_hops=$(pp_jq "$out" '[packets[].hops | length] | add // 0')
pp_freeze small
ping_flood stopped 400
pp_thaw small
finish small
lost=$(jq -r .lost <<<"$PP_SUMMARY")
[ "$lost" -gt 0 ] ||
	pp_fail "no record lost with a 4K ring and the reader stopped during a flood" \
		"(summary: $PP_SUMMARY)"
printed=$(pp_jq "$out" '[packets[].hops | length] | add // 0')
[ $((printed - running_hops)) -lt 64 ] ||
	pp_fail "$((printed - running_hops)) hops printed after the flood that ran while" \
		"pktpath was stopped: more than a 4 KiB ring holds (was it stopped?)"
pp_log "hops printed: $running_hops of the running flood, $((printed - running_hops))" \
	"of the flood while stopped"
per_probe=$(awk '/^pktpath: lost [0-9]+ records at / { s += $3 } END { print s + 0 }' "$err")
pp_expect_eq "sum of the 'pktpath: lost N records at ...' lines on stderr" "$per_probe" "$lost"

pp_expect_none "hops out of time order" "$out" \
	'packets[] | select(times_ordered | not) | "\(pkt_str): \([.hops[].t_ns])"'
pp_expect_eq "distinct packet ids" "$(pp_jq "$out" '[packets[].id] | unique | length')" \
	"$(pp_jq "$out" 'packets | length')"
if [ "$uniform" = true ]; then
	want=$(jq -r --argjson tx "$TX" '.["8"][0] * $tx' <<<"$hops")
	[ $((printed + lost)) -eq "$want" ] ||
		pp_fail "records unaccounted for: $printed hops printed + $lost lost =" \
			"$((printed + lost)), but $TX requests make $want"
	pp_log "accounting: $printed hops printed + $lost lost = $want expected"
else
	pp_log "NOTE: reference paths differ in length within a type ($hops):" \
		"the exact accounting check is left out"
fi
# A short path must say it is short. (Packets whose mark was lost carry no
# pkt: they say so by mark_lost, which is enough.)
# shellcheck disable=SC2016 # jq program
pp_expect_none "a packet with missing hops that does not say so" "$out" '
	packets[] | select((.lost_hops // 0) == 0 and (.mark_lost // false) == false)
	| select((.hops | length) < $h[.pkt.icmp_type | tostring][0])
	| "\(pkt_str) type \(.pkt.icmp_type): \(.hops | length) hops (reference: \($h[.pkt.icmp_type
		| tostring][0])), fate \(.fate.kind), no lost_hops, no mark_lost: \(path_str)"' \
	--argjson h "$hops"

pp_pass
