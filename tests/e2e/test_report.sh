#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# pktpath report: a live run records (--json --snaplen 128, with --summary
# --packets and both exports as the reference), then `pktpath report`,
# run as nobody (uid 65534, no capability), must make the same things from
# the saved file:
#   - the summary: the path summary and exit lines, byte for byte the live
#     run's last two lines (counts per path and per drop place, percentiles,
#     names); the text form with the same counts;
#   - the pcapng file and the Perfetto timeline: byte for byte the live
#     run's; tshark reads a frame per packet, each with its comment, and
#     tests/perfetto_check.sh passes the timeline.
# Then bad input as documented: a copy cut in mid-line (a killed run) and a
# damaged line are skipped and named by line number, the rest read; a key
# of a later version is ignored; --pcapng of a file recorded without
# --snaplen, a missing file, no file, a bad option, an export of two files
# (several files are joined, test hosts_join): exit 2, nothing written.
# --perfetto of a file recorded without --snaplen: the live run's timeline
# (packet names without the header);
# of an older file without times: written, and stderr says they start at 0.
# A file with no packet (empty, or a run that printed none): said on
# stderr, exit 1, nothing on stdout; a file that gives no run length: the
# summary's header says no "after 0.0 s".
#
# The traffic is test_summary's: a flood through the router, a third each to
# an open port, a port an nftables rule drops and a closed port.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin nft tshark setpriv
ppr_topo_quiet

flood=""
pp_test_tool flood udp_flood
n=1500 pps=1000
open_port=9000 nft_port=9001 closed_port=9002

pp_in "$PP_NS_R" nft -f - <<'NFT'
table ip pp_report {
	chain forward_drop {
		type filter hook forward priority filter;
		udp dport 9001 counter drop
	}
}
NFT
pp_defer ip netns exec "$PP_NS_R" nft delete table ip pp_report
pp_bg sink "$PP_NS_B" "$flood" sink "$open_port"
pp_wait_line sink '^udp_flood: listening' 10

# nobody's directory: the recording is copied there, the report's files go there.
dir=$PP_TMP/nobody
mkdir -m 0755 "$dir"
chown 65534:65534 "$dir"
live_pcap=$PP_TMP/live.pcapng live_perf=$PP_TMP/live.json

rec=$(pp_out rec)
pp_pktpath_start rec "$PP_NS_R" --backend tracepoint --json --snaplen 128 --summary --packets \
	--pcapng "$live_pcap" --perfetto "$live_perf" --filter "udp and src 198.18.0.1"
pp_in "$PP_NS_A" "$flood" send 198.18.1.2 "$n" "$pps" "$open_port" "$nft_port" \
	"$closed_port" >"$PP_TMP/send.out" 2>&1 ||
	pp_fail "flood failed: $(pp_brief_tail 2 "$PP_TMP/send.out")"
pp_pktpath_settle rec 20
pp_pktpath_stop rec
pp_expect_eq "pktpath exit status" "$PP_RC" 0
pp_stop sink
pp_expect_json_lines "$rec" "pktpath --json output"
pp_expect_eq "packet lines" "$(pp_jq "$rec" 'packets | length')" "$n"
pp_expect_eq "packet lines with head, mono_ns, real_ns" \
	"$(pp_jq "$rec" '[packets[] | select(.head and .mono_ns and .real_ns)] | length')" "$n"
cp "$rec" "$dir/rec.jsonl"
chmod 0644 "$dir/rec.jsonl"

# report NAME ARGS...: pktpath report as nobody in $dir; status in PP_RC.
report() {
	local name=$1
	shift
	PP_RC=0
	(cd "$dir" && setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$PKTPATH" report "$@") >"$(pp_out "$name")" 2>"$(pp_err "$name")" || PP_RC=$?
	pp_log "report $*: status $PP_RC, $(wc -l <"$(pp_out "$name")") lines out," \
		"stderr: $(pp_brief 2 "$(pp_err "$name")")"
}

# ---------------------------------------------------------------- summary

tail -n 2 "$rec" >"$PP_TMP/live-tail.jsonl"
report sumjson rec.jsonl --summary --json
pp_expect_eq "report --json status" "$PP_RC" 0
if ! cmp -s "$PP_TMP/live-tail.jsonl" "$(pp_out sumjson)"; then
	diff <(jq . "$PP_TMP/live-tail.jsonl") <(jq . "$(pp_out sumjson)") >"$PP_TMP/sum.diff" || true
	pp_fail "report's summary differs from the live run's: $(grep -E '^[<>]' \
		"$PP_TMP/sum.diff" | pp_brief 4)"
fi
sum=$(jq -c 'select(has("path_summary")) | .path_summary' "$(pp_out sumjson)")
pp_expect_eq "summary packets" "$(jq .packets <<<"$sum")" "$n"
pp_expect_eq "NETFILTER_DROP in the drop table" \
	"$(jq '[.drops[] | select(.reason == "NETFILTER_DROP") | .count] | add' <<<"$sum")" \
	"$(pp_in "$PP_NS_R" nft -j list table ip pp_report |
		jq '[.nftables[].rule? // empty | .expr[] | .counter? // empty | .packets] | add')"

report sumtext rec.jsonl
pp_expect_eq "report (text) status" "$PP_RC" 0
txt=$(pp_out sumtext)
pp_expect_grep "text header" "$txt" \
	"^pktpath summary of rec.jsonl, [0-9.]+ s recorded: $n packets, $(jq .distinct <<<"$sum") distinct paths\$"
# Each path's header line, as the JSON counts it.
jq -r '.paths | to_entries[] | "path \(.key + 1): \(.value.count) packets"' <<<"$sum" \
	>"$PP_TMP/want-paths.txt"
grep -oE '^path [0-9]+: [0-9]+ packets' "$txt" >"$PP_TMP/got-paths.txt" || true
diff -u "$PP_TMP/want-paths.txt" "$PP_TMP/got-paths.txt" >/dev/null ||
	pp_fail "text paths differ from JSON's: $(diff "$PP_TMP/want-paths.txt" \
		"$PP_TMP/got-paths.txt" | pp_brief 2)"
pp_expect_grep "text exit line" "$txt" "^pktpath: $n packets \\("

# ---------------------------------------------------------------- exports

report exp rec.jsonl --pcapng rep.pcapng --perfetto rep.json --snaplen 128
pp_expect_eq "report --pcapng --perfetto status" "$PP_RC" 0
pp_expect_grep "pcapng written" "$(pp_err exp)" "^pktpath: $n packets written to rep.pcapng\$"
pp_expect_eq "pcapng owner" "$(stat -c %u "$dir/rep.pcapng")" 65534
tshark -r "$dir/rep.pcapng" -T fields -e frame.number -e frame.comment >"$PP_TMP/tshark.txt" \
	2>"$PP_TMP/tshark.err" || pp_fail "tshark cannot read rep.pcapng: $(pp_brief 1 "$PP_TMP/tshark.err")"
pp_expect_eq "pcapng frames" "$(wc -l <"$PP_TMP/tshark.txt")" "$n"
pp_expect_eq "frames with a pktpath comment" \
	"$(grep -cE $'^[0-9]+\tpktpath #[0-9]+: tc:ingress' "$PP_TMP/tshark.txt")" "$n"
cmp -s "$live_pcap" "$dir/rep.pcapng" || pp_fail "rep.pcapng differs from the live run's pcapng"
now_us=$(awk '{ printf "%.0f", $1 * 1000000 + 1000000 }' /proc/uptime)
"$PP_ROOT/tests/perfetto_check.sh" "$dir/rep.json" "$now_us" >"$PP_TMP/perfetto_check.txt" ||
	pp_fail "perfetto_check: $(pp_brief 2 "$PP_TMP/perfetto_check.txt")"
pp_log "perfetto_check: $(cat "$PP_TMP/perfetto_check.txt")"
cmp -s "$live_perf" "$dir/rep.json" || pp_fail "rep.json differs from the live run's timeline"

# ---------------------------------------------------------------- bad input

# A run killed while writing: the first 100 lines and half of the 101st.
{
	head -n 100 "$rec"
	sed -n 101p "$rec" | head -c 200
} >"$dir/cut.jsonl"
report cut cut.jsonl --json
pp_expect_eq "cut file: status" "$PP_RC" 0
pp_expect_grep "cut file: the line named" "$(pp_err cut)" \
	'^pktpath report: cut.jsonl:101: skipped: .*cut short.*was the run killed'
pp_expect_grep "cut file: no exit line" "$(pp_err cut)" 'has no exit line'
pp_expect_eq "cut file: packets read" \
	"$(jq 'select(has("summary")) | .summary.packets' "$(pp_out cut)")" 100

# A damaged line in the middle, and keys of a later version on every line.
sed -e '5s/.*/{"id":5,"hops":"not an array"}/' -e '7s/.*/garbage/' \
	-e 's/^{"id":/{"zz_later":[1,{"a":null}],"id":/' "$rec" >"$dir/odd.jsonl"
report odd odd.jsonl --json
pp_expect_eq "damaged lines: status" "$PP_RC" 0
pp_expect_grep "damaged line 5 named" "$(pp_err odd)" \
	'^pktpath report: odd.jsonl:5: skipped: "hops" is not an array$'
pp_expect_grep "damaged line 7 named" "$(pp_err odd)" '^pktpath report: odd.jsonl:7: skipped: '
pp_expect_grep "skipped count" "$(pp_err odd)" '^pktpath report: 2 lines of odd.jsonl skipped'
pp_expect_eq "damaged lines: packets read" \
	"$(jq 'select(has("summary")) | .summary.packets' "$(pp_out odd)")" $((n - 2))

# Recorded without --snaplen: the summary works, --pcapng is bad input.
sed -E 's/,"head":"[0-9a-f]*"//' "$rec" >"$dir/plain.jsonl"
report plain plain.jsonl --json
pp_expect_eq "without head: summary status" "$PP_RC" 0
pp_expect_eq "without head: same path summary" \
	"$(jq -c 'select(has("path_summary")) | .path_summary | del(.elapsed_s)' "$(pp_out plain)")" \
	"$(jq -c 'del(.elapsed_s)' <<<"$sum")"
report nohead plain.jsonl --pcapng no.pcapng
pp_expect_eq "--pcapng without head: status" "$PP_RC" 2
pp_expect_grep "--pcapng without head: message" "$(pp_err nohead)" \
	'^pktpath report: plain.jsonl:1: no packet bytes \("head"\): --pcapng needs'
[ ! -e "$dir/no.pcapng" ] || pp_fail "--pcapng without head left no.pcapng"
[ -z "$(find "$dir" -name '*no.pcapng*')" ] || pp_fail "--pcapng without head left a file"
report plainperf plain.jsonl --perfetto plain.json
pp_expect_eq "--perfetto without head: status" "$PP_RC" 0
# The same timeline; a packet's name has no header line without its bytes.
cmp -s <(grep -v '"process_name"' "$live_perf") <(grep -v '"process_name"' "$dir/plain.json") ||
	pp_fail "plain.json differs from the live run's timeline"
pp_expect_eq "--perfetto without head: packet names" \
	"$(grep -c '"process_name"' "$dir/plain.json")" "$n"
! grep -qE '"process_name".*"name":"#[0-9]+ udp ' "$dir/plain.json" ||
	pp_fail "--perfetto without head: a packet name with a header line"

# An older file: no times at all. The timeline is written from 0, and says so.
sed -E 's/,"mono_ns":[0-9]+,"real_ns":[0-9]+//' "$dir/plain.jsonl" >"$dir/old.jsonl"
report oldperf old.jsonl --perfetto old.json
pp_expect_eq "--perfetto without times: status" "$PP_RC" 0
pp_expect_grep "--perfetto without times: said" "$(pp_err oldperf)" \
	'^pktpath report: old.jsonl:1: no packet times .*: in old.json such packets all start at 0$'
pp_expect_eq "--perfetto without times: packets" \
	"$(jq '[.traceEvents[].pid] | unique | length' "$dir/old.json")" "$n"
# No path_summary line and no times: no run length to give.
grep -v '"path_summary"' "$dir/old.jsonl" >"$dir/nolen.jsonl"
report nolen nolen.jsonl
pp_expect_eq "no run length: status" "$PP_RC" 0
pp_expect_grep "no run length: header" "$(pp_out nolen)" \
	"^pktpath summary of nolen.jsonl: $n packets, [0-9]+ distinct paths\$"

# No packet: an empty file, a run that printed none.
: >"$dir/empty.jsonl"
printf '{"summary":{"packets":0,"consumed":0,"dropped":0,"merged":0,"segmented":0,%s}}\n' \
	'"unseen":0,"lost":0,"map_full":0' >"$dir/none.jsonl"
for f in "empty:it is empty" "none:the run it recorded printed none"; do
	report "${f%%:*}" "${f%%:*}.jsonl"
	pp_expect_eq "${f%%:*}: status" "$PP_RC" 1
	pp_expect_grep "${f%%:*}: message" "$(pp_err "${f%%:*}")" \
		"^pktpath report: ${f%%:*}.jsonl holds no packet: ${f#*:}\$"
	[ ! -s "$(pp_out "${f%%:*}")" ] || pp_fail "${f%%:*}: printed $(pp_brief 1 "$(pp_out "${f%%:*}")")"
done

for bad in "missing file:nothere.jsonl" "no file:" "bad option:rec.jsonl --bogus" \
	"two files and an export:rec.jsonl rec.jsonl --pcapng x.pcapng" \
	"bad snaplen:rec.jsonl --pcapng x.pcapng --snaplen 0"; do
	# shellcheck disable=SC2086 # the arguments are words
	report bad ${bad#*:}
	pp_expect_eq "${bad%%:*}: status" "$PP_RC" 2
	pp_expect_grep "${bad%%:*}: message" "$(pp_err bad)" '^pktpath report: '
done
report help --help
pp_expect_eq "--help status" "$PP_RC" 0
pp_expect_grep "--help" "$(pp_out help)" '^Usage: pktpath report FILE'
pp_pass
