#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --pcapng and --perfetto on real traffic, with --json at the same time as
# the reference: pktpath in the router (tracepoint backend), pings from a
# to b (ping's raw socket reads a copy of each reply: flows), and UDP to a
# port nobody listens on at b (dropped: NO_SOCKET).
#
#   pcapng, read back by tshark: one frame per packet printed, each with
#   its comment ("pktpath #ID: path; fate"), the path in it the JSON's hop
#   by hop, the fate the JSON's, the interface the mark's, the bytes
#   decoding to the JSON's addresses.
#   Perfetto: tests/perfetto_check.sh's rules (times in us, no later than
#   the clock now), a process per packet with a slice per hop, a flow per
#   copy, and each packet's span in us the JSON's in ns.
#   Times: without --snaplen every JSON line has its first hop's time on
#   both clocks ("mono_ns", "real_ns": within the run's wall-clock window,
#   the pcapng frame's time) and no "head"; `pktpath report --perfetto` of
#   that plain recording writes the live run's timeline (the packets'
#   names without their header line: no bytes); a
#   text header line starts "#ID HH:MM:SS.uuuuuu len", a local time inside
#   the run's window.
#
# Then where files may be written: an existing symlink is replaced, not
# followed; a directory others may write to, a missing one, an existing
# name in a sticky directory: exit 2 and nothing attached; a directory of
# the sudo user's gets its file although privileges are gone by the end.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_setup
pp_require_pktpath
pp_require_cmd tshark
pp_topo_up

out=$(pp_out exp)
pcap=$PP_TMP/paths.pcapng
perf=$PP_TMP/paths.json

# The output files replace what is there, a symlink included, never followed.
echo victim >"$PP_TMP/victim"
ln -s "$PP_TMP/victim" "$pcap"

pp_pktpath_start exp "$PP_NS_R" --json --backend tracepoint --pcapng "$pcap" \
	--perfetto "$perf" --filter "icmp or udp port 9"
t_start=$(date +%s%N)
pp_in "$PP_NS_A" ping -n -c 5 -i 0.2 -w 10 198.18.1.2 >"$PP_TMP/ping.out" 2>&1 ||
	pp_fail "ping a -> b failed: $(pp_brief_tail 2 "$PP_TMP/ping.out")"
ppr_udp_send "$PP_NS_A" 198.18.1.2 9 3
pp_pktpath_settle exp 20
pp_pktpath_stop exp
t_end=$(date +%s%N)
pp_expect_eq "pktpath exit status" "$PP_RC" 0
pp_expect_json_lines "$out" "pktpath --json output"
pp_expect_summary "$out"
n=$(pp_jq "$out" 'packets | length')
[ "$n" -ge 13 ] || pp_fail "only $n packets printed: 5 pings, 3 UDP datagrams at least"
pp_expect_grep "pcapng report" "$(pp_err exp)" "^pktpath: $n packets written to $pcap\$"
pp_expect_grep "perfetto report" "$(pp_err exp)" "^pktpath: $n packets written to $perf\$"
[ "$(cat "$PP_TMP/victim")" = victim ] || pp_fail "the symlink's target was written"
if [ ! -f "$pcap" ] || [ -L "$pcap" ]; then pp_fail "$pcap is not a regular file"; fi
pp_log "$n packets; pcapng $(stat -c %s "$pcap") bytes, perfetto $(stat -c %s "$perf") bytes"

# ---------------------------------------------------------------- pcapng

# One line per frame: number, comment, interface, direction, then the outer
# IP header's fields (an ICMP error quotes another).
tshark -r "$pcap" -T fields -E separator='|' -E occurrence=f -e frame.number -e frame.comment \
	-e frame.interface_name -e frame.packet_flags_direction -e ip.src -e ip.dst \
	-e ip.proto >"$PP_TMP/tshark.txt" 2>"$PP_TMP/tshark.err" ||
	pp_fail "tshark cannot read $pcap: $(_pp_last_line "$PP_TMP/tshark.err")"
frames=$(wc -l <"$PP_TMP/tshark.txt")
pp_expect_eq "pcapng frames (packets printed: $n)" "$frames" "$n"
tshark -r "$pcap" -V >"$PP_TMP/tshark-V.txt" 2>&1
pp_log "tshark's first frame: $(grep -m 3 -E 'Comment|Interface name|Direction' \
	"$PP_TMP/tshark-V.txt" | pp_brief 3)"

# The JSON's view of each packet as the same fields: id|comment-path|fate|ifname|dir|src|dst|proto.
# The comment's path is the hop names in order; "@dev", "[ns N]", "[copy K]" are decorations.
# shellcheck disable=SC2016 # jq program
pp_jq "$out" 'packets[] | [.id, ([.hops[].func] | join(" > ")),
	(.fate.kind + (if .fate.kind == "dropped" then ": " + .fate.reason else "" end)),
	.marked_at.ifname, (if .marked_at.dir == "ingress" then "1" else "2" end),
	.pkt.src, .pkt.dst, (if .pkt.proto == "icmp" then "1" else "17" end)] | join("|")' |
	sort -t'|' -k1,1n >"$PP_TMP/want.txt"
# tshark's, from the comment and the decoded bytes.
awk -F'|' '{
	c = $2
	if (!match(c, /^pktpath #[0-9]+: /)) { print "BAD " $0; next }
	id = substr(c, 10, RLENGTH - 11)
	rest = substr(c, RLENGTH + 1)
	semi = index(rest, "; ")
	path = substr(rest, 1, semi - 1)
	fate = substr(rest, semi + 2)
	sub(/ after [0-9.]+ us.*$/, "", fate)
	sub(/ at [^ ]+$/, "", fate)
	if (fate == "end not seen") fate = "unseen"
	gsub(/@[^ >\[]+/, "", path)
	gsub(/\[(ns|copy) [0-9]+\]/, "", path)
	dir = $4
	sub(/^0x0*/, "", dir) # tshark prints the direction bits as 0x00000001
	print id "|" path "|" fate "|" $3 "|" dir "|" $5 "|" $6 "|" $7
}' "$PP_TMP/tshark.txt" | sort -t'|' -k1,1n >"$PP_TMP/got.txt"
if ! diff -u "$PP_TMP/want.txt" "$PP_TMP/got.txt" >"$PP_TMP/pcapng.diff"; then
	pp_fail "pcapng frames differ from the JSON (want, got): $(grep -E '^[-+][^-+]' \
		"$PP_TMP/pcapng.diff" | pp_brief 2)"
fi
grep -q "dropped: NO_SOCKET" "$PP_TMP/got.txt" || pp_fail "no NO_SOCKET drop among the frames"

# Without --snaplen, what the mark copied: all of these small packets.
cut=$(tshark -r "$pcap" -T fields -e frame.cap_len -e frame.len | awk '$1 != $2' | head -n 1)
[ -z "$cut" ] || pp_fail "a frame cut without --snaplen (captured, wire): $cut"

# ---------------------------------------------------------------- perfetto

now_us=$(awk '{ printf "%.0f", $1 * 1000000 + 1000000 }' /proc/uptime) # mawk: %d is 32 bits
"$PP_ROOT/tests/perfetto_check.sh" "$perf" "$now_us" >"$PP_TMP/perfetto_check.txt" ||
	pp_fail "perfetto_check: $(pp_brief 2 "$PP_TMP/perfetto_check.txt")"
pp_log "perfetto_check: $(cat "$PP_TMP/perfetto_check.txt")"
# Per packet: id, hops, copies and span in ns, from each file; they must agree.
# shellcheck disable=SC2016 # jq program
pp_jq "$out" 'packets[] | [.id, (.hops | length),
	([.skbs[]? | select(.from)] | length), .hops[-1].t_ns] | map(tostring) | join(" ")' |
	sort -n >"$PP_TMP/perf-want.txt"
# shellcheck disable=SC2016 # jq program
jq -r '.traceEvents | group_by(.pid)[] | [.[0].pid, (map(select(.ph == "X")) | length),
	(map(select(.ph == "s")) | length),
	(map(select(.ph == "X")) | ((map(.ts + .dur) | max) - (map(.ts) | min)) * 1000
	 | round)] | map(tostring) | join(" ")' "$perf" | sort -n >"$PP_TMP/perf-got.txt"
if ! diff -u "$PP_TMP/perf-want.txt" "$PP_TMP/perf-got.txt" >"$PP_TMP/perf.diff"; then
	pp_fail "perfetto packets (id hops copies span_ns) differ from the JSON: $(grep -E \
		'^[-+][^-+]' "$PP_TMP/perf.diff" | pp_brief 2)"
fi
copies=$(awk '{ s += $3 } END { print s + 0 }' "$PP_TMP/perf-want.txt")
[ "$copies" -gt 0 ] || pp_fail "no copies (ping reads one of each reply): no flow tested"
pp_log "perfetto: $copies copies as flows"

# ---------------------------------------------------------------- times

# shellcheck disable=SC2016 # jq program
pp_expect_eq "lines with mono_ns and real_ns in the run's window, no head (of $n)" \
	"$(pp_jq "$out" '[packets[] | select((.mono_ns | type) == "number"
		and .real_ns >= $a and .real_ns <= $b and (has("head") | not))] | length' \
		--argjson a "$t_start" --argjson b "$t_end")" "$n"
# pcapng's frame time is its mark hop's (the first hop here: all marked at TC).
# From the text: jq's numbers are doubles, 256 ns apart at today's dates.
sed -nE 's/^\{"id":([0-9]+),.*,"real_ns":([0-9]+)[0-9]{3}[,}].*/\1 \2/p' "$out" |
	sort -n >"$PP_TMP/t-want.txt"
tshark -r "$pcap" -T fields -e frame.comment -e frame.time_epoch 2>/dev/null |
	awk -F'\t' '{ split($1, c, /[#:]/); split($2, t, "."); print c[2], t[1] substr(t[2] "000000", 1, 6) }' |
	sort -n >"$PP_TMP/t-got.txt"
diff -u "$PP_TMP/t-want.txt" "$PP_TMP/t-got.txt" >"$PP_TMP/t.diff" ||
	pp_fail "real_ns (us) differs from the pcapng frames' times: $(grep -E '^[-+][^-+]' \
		"$PP_TMP/t.diff" | pp_brief 2)"
# A plain --json recording is enough for the timeline.
PP_RC=0
"$PKTPATH" report "$out" --perfetto "$PP_TMP/rep.json" >"$(pp_out report)" 2>"$(pp_err report)" ||
	PP_RC=$?
pp_log "report --perfetto: $(pp_brief 2 "$(pp_err report)")"
pp_expect_eq "report --perfetto of a plain --json recording: status" "$PP_RC" 0
# The same but for the packets' names: no header line without the bytes (--snaplen).
cmp -s <(grep -v '"process_name"' "$perf") <(grep -v '"process_name"' "$PP_TMP/rep.json") ||
	pp_fail "report's timeline differs from the live run's"

# ---------------------------------------------------------------- paths

# bad_path WHAT ARGS...: exit 2 before attaching, a message naming the option.
bad_path() {
	local what=$1
	shift
	pp_pktpath_run bad "$PP_NS_R" 30 --backend tracepoint "$@" icmp
	pp_expect_eq "$what: exit status" "$PP_RC" 2
	pp_expect_grep "$what: message" "$(pp_err bad)" '^pktpath: --(pcapng|perfetto) '
	if grep -q '^pktpath: ready' "$(pp_err bad)"; then
		pp_fail "$what: pktpath got ready"
	fi
}
mkdir -m 0777 "$PP_TMP/open"
bad_path "world-writable directory" --pcapng "$PP_TMP/open/x.pcapng"
[ ! -e "$PP_TMP/open/x.pcapng" ] || pp_fail "a file was made in a world-writable directory"
bad_path "missing directory" --perfetto "$PP_TMP/none/x.json"
mkdir -m 1777 "$PP_TMP/sticky"
ln -s "$PP_TMP/victim" "$PP_TMP/sticky/x.pcapng"
bad_path "existing name in a sticky directory" --pcapng "$PP_TMP/sticky/x.pcapng"
bad_path "a directory as the file" --pcapng "$PP_TMP"
# A bad filter after the files were made: nothing of them is left.
pp_pktpath_run badf "$PP_NS_R" 30 --backend tracepoint --pcapng "$PP_TMP/never.pcapng" \
	"not a filter ((("
pp_expect_eq "bad filter: exit status" "$PP_RC" 2
[ -z "$(find "$PP_TMP" -maxdepth 1 -name '*never*')" ] ||
	pp_fail "a run that never traced left $(find "$PP_TMP" -maxdepth 1 -name '*never*')"

# The sudo user's directory (0755): root without CAP_DAC_OVERRIDE may not
# rename in it, so the file must be in place before privileges go. And
# --snaplen: 60 bytes kept of a 98-byte echo request.
mkdir -m 0755 "$PP_TMP/user"
chown 65534 "$PP_TMP/user"
pp_bg user "$PP_NS_R" env SUDO_UID=65534 "$PKTPATH" --backend tracepoint -c 1 \
	--pcapng "$PP_TMP/user/u.pcapng" --snaplen 60 icmp
pp_wait_line user '^pktpath: ready' "$PP_READY_TIMEOUT"
t_start=$(date +%s)
pp_in "$PP_NS_A" ping -n -c 1 -w 5 198.18.1.2 >/dev/null 2>&1 || pp_fail "ping for 'user'"
pp_pktpath_wait user 15
t_end=$(date +%s)
pp_expect_eq "sudo user's directory: exit status" "$PP_RC" 0
# The text header's time: local, as date's; seconds of the day, unless midnight passed.
hms=$(sed -nE 's/^#1 ([0-9]{2}:[0-9]{2}:[0-9]{2})\.[0-9]{6} len 98 icmp .*/\1/p' "$(pp_out user)")
[ -n "$hms" ] || pp_fail "no '#1 HH:MM:SS.uuuuuu len 98 icmp' header: $(head -n 2 "$(pp_out user)" |
	pp_brief 2)"
sod() { awk -F: '{ print $1 * 3600 + $2 * 60 + $3 }' <<<"$1"; }
a=$(sod "$(date -d "@$t_start" +%T)") b=$(sod "$(date -d "@$t_end" +%T)") t=$(sod "$hms")
if [ "$a" -le "$b" ] && { [ "$t" -lt "$a" ] || [ "$t" -gt "$b" ]; }; then
	pp_fail "header time $hms is not within the ping's $(date -d "@$t_start" +%T) to" \
		"$(date -d "@$t_end" +%T)"
fi
pp_expect_eq "sudo user's directory: frames (captured, wire length)" \
	"$(tshark -r "$PP_TMP/user/u.pcapng" -T fields -e frame.cap_len -e frame.len 2>/dev/null |
		tr '\t\n' ',,')" "60,98,"
pp_expect_eq "pcapng file mode" "$(stat -c %a "$PP_TMP/user/u.pcapng")" 600
pp_pass
