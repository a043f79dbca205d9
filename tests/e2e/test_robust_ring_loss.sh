#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A ring buffer too small for the traffic loses records; that loss is
# never silent, and what is printed is never wrong.
#
# A reference run (default ring) traces a short ping flood through the
# router with filter icmp and learns the path of an echo request and of an
# echo reply: hop count per ICMP type, which must be the same for every
# packet of a type (else the exact accounting below is not possible and is
# left out, with a note). Then pktpath --ring-size 4K (the minimum) traces
# a longer flood. Required of that run:
#   - records were lost: the summary's "lost" > 0, and stderr has
#     "pktpath: lost N records at PROBE" lines adding up to it;
#   - every record is accounted for: hops printed + records lost = what
#     the reference paths say the packets ping sent and received make;
#   - every printed packet's hops are in time order, ids are unique;
#   - a packet printed with fewer hops than its kind has in the reference
#     says so: "lost_hops" > 0 or "mark_lost": true.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_setup
pp_require_pktpath
pp_topo_up

# flood NAME COUNT ARGS...: pktpath ARGS in the router while host a flood
# pings host b COUNT times; stopped (SIGINT) once every packet closed
# (freed, or timed out after the default 1 s packet timeout). Leaves ping's
# "transmitted received" in FLOOD.
flood() {
	local name=$1 count=$2 n prev i
	shift 2
	pp_pktpath_start "$name" "$PP_NS_R" --json --filter icmp "$@"
	pp_in "$PP_NS_A" ping -n -q -f -c "$count" -w 20 198.18.1.2 >"$PP_TMP/$name.ping" 2>&1 ||
		pp_log "$name: ping: $(pp_brief_tail 2 "$PP_TMP/$name.ping")"
	FLOOD=$(sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\1 \2/p' \
		"$PP_TMP/$name.ping")
	[ -n "$FLOOD" ] || pp_fail "$name: no summary from ping: $(pp_brief_tail 2 "$PP_TMP/$name.ping")"
	# Until the output stops growing for 1.5 s (packet timeout 1 s), 15 s at most.
	prev=-1
	for ((i = 0; i < 50; i++)); do
		n=$(wc -l <"$(pp_out "$name")")
		[ "$n" -ne "$prev" ] || break
		prev=$n
		sleep 1.5
	done
	pp_pktpath_stop "$name" INT
	pp_expect_eq "$name: exit status" "$PP_RC" 0
	pp_expect_json_lines "$(pp_out "$name")" "$name output"
	pp_expect_summary "$(pp_out "$name")"
	pp_log "$name: ping sent/received $FLOOD; summary $PP_SUMMARY"
}

# The reference: no loss, every packet closed.
flood ref 200
ref=$(pp_out ref)
pp_expect_eq "reference run: records lost" "$(jq -r .lost <<<"$PP_SUMMARY")" 0
pp_expect_eq "reference run: packets whose end was not seen" "$(jq -r .unseen <<<"$PP_SUMMARY")" 0
read -r tx rx <<<"$FLOOD"
pp_expect_eq "reference run: packets" "$(jq -r .packets <<<"$PP_SUMMARY")" $((tx + rx))
# Hop counts per ICMP type: {"8": [min, max], "0": [min, max]}.
# shellcheck disable=SC2016 # jq program
hops=$(pp_jq "$ref" 'packets | group_by(.pkt.icmp_type)
	| map({key: (.[0].pkt.icmp_type | tostring), value: [map(.hops | length) | min, max]})
	| from_entries' -c)
pp_log "reference hop counts per ICMP type [min, max]: $hops"
for t in 8 0; do
	[ "$(jq -r --arg t "$t" '.[$t] // empty | .[0]' <<<"$hops")" != "" ] ||
		pp_fail "reference run: no packet of ICMP type $t: $hops"
done
uniform=$(jq -r 'all(.[]; .[0] == .[1])' <<<"$hops")

# The lossy run.
flood small 3000 --ring-size 4K
out=$(pp_out small)
err=$(pp_err small)
lost=$(jq -r .lost <<<"$PP_SUMMARY")
[ "$lost" -gt 0 ] ||
	pp_fail "no record lost with a 4K ring under a flood of $FLOOD: nothing tested" \
		"(summary: $PP_SUMMARY)"
per_probe=$(awk '/^pktpath: lost [0-9]+ records at / { s += $3 } END { print s + 0 }' "$err")
pp_expect_eq "sum of the 'pktpath: lost N records at ...' lines on stderr" "$per_probe" "$lost"

pp_expect_none "hops out of time order" "$out" \
	'packets[] | select(times_ordered | not) | "\(pkt_str): \([.hops[].t_ns])"'
pp_expect_eq "distinct packet ids" "$(pp_jq "$out" '[packets[].id] | unique | length')" \
	"$(pp_jq "$out" 'packets | length')"
if [ "$uniform" = true ]; then
	read -r tx rx <<<"$FLOOD"
	want=$(jq -r --argjson tx "$tx" --argjson rx "$rx" '.["8"][0] * $tx + .["0"][0] * $rx' <<<"$hops")
	printed=$(pp_jq "$out" '[packets[].hops | length] | add // 0')
	[ $((printed + lost)) -eq "$want" ] ||
		pp_fail "records unaccounted for: $printed hops printed + $lost lost =" \
			"$((printed + lost)), but $tx requests and $rx replies make $want"
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
