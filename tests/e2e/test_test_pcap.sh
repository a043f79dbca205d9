#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --test-pcap runs pktpath's own filter translation (libpcap's classic BPF
# turned into eBPF) over a capture file; for every filter, the matching
# frame numbers must be the ones tcpdump itself (libpcap's interpreter)
# finds in the same file. The file is a real capture from the test
# topology: ICMP echo and reply, an ICMP error, ICMPv6 echo, and whatever
# IPv6 housekeeping (MLD, neighbour discovery) the links send meanwhile.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin tcpdump

pcap=$PP_TMP/capture.pcap
# -Z root: tcpdump otherwise drops to its own user before it opens the
# output file, which lives in root's private directory. --immediate-mode:
# frames still in the capture ring at SIGINT would be missed otherwise.
pp_bg tcpdump "$PP_NS_A" tcpdump -i a-eth0 -nn -U --immediate-mode -Z root -w "$pcap"
pp_wait_line tcpdump 'listening on' 10
pp_in "$PP_NS_A" ping -n -q -c 3 -i 0.2 -w 5 198.18.1.2 >/dev/null
pp_in "$PP_NS_A" ping -n -q -c 2 -i 0.2 -w 5 fd00:1::2 >/dev/null
# A UDP datagram to a closed port: b answers with ICMP port unreachable,
# an ICMP message that is not an echo.
pp_in "$PP_NS_A" bash -c 'echo probe >/dev/udp/198.18.1.2/9'
# Stop the capture once it holds the last frames, not after a fixed 0.5 s
# that a loaded machine outlasts. tcpdump -U writes frames in order, each
# at once: once the probe is in the file, every ping frame is; then wait
# for b's ICMP error too (a note if it never comes: the checks below
# compare with tcpdump's own reading of the same file either way).
in_capture() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		# The file is being written: a truncated last frame is an error.
		tcpdump -r "$pcap" -nn "$1" 2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	return 1
}
in_capture 'udp port 9' 30 || pp_fail "the UDP probe is not in the capture after 30 s"
in_capture 'icmp[icmptype] == icmp-unreach' 10 ||
	pp_log "NOTE: no ICMP port unreachable captured within 10 s"
pp_stop tcpdump INT
pp_expect_eq "tcpdump exit status" "$PP_RC" 0

total=$(tcpdump -r "$pcap" -nn 2>/dev/null | wc -l)
[ "$total" -ge 10 ] || pp_fail "the capture has only $total frames"

# tcpdump_frames FILTER: the numbers of the frames tcpdump matches. Its -#
# numbers only the frames it prints, so with a filter they count matches,
# not frames: instead, walk all frames (numbered) and the matching ones
# side by side, both in file order, pairing identical lines (-tt: the
# timestamp makes each line unique in practice).
tcpdump_frames() {
	tcpdump -r "$pcap" -nn -tt "$1" >"$PP_TMP/match.txt" 2>/dev/null
	tcpdump -r "$pcap" -nn -tt -# 2>/dev/null | awk -v m="$PP_TMP/match.txt" '
		BEGIN { have = (getline want < m) > 0 }
		have {
			n = $1
			sub(/^[[:space:]]*[0-9]+[[:space:]]+/, "")
			if ($0 == want) { print n; have = (getline want < m) > 0 }
		}' | xargs
}

n=0
# same_as_tcpdump FILTER: pktpath --test-pcap and tcpdump agree on FILTER.
same_as_tcpdump() {
	local filter=$1 want got
	n=$((n + 1))
	want=$(tcpdump_frames "$filter")
	pp_pktpath_run "pcap$n" "$PP_NS_A" 20 --test-pcap "$pcap" "$filter"
	pp_expect_eq "--test-pcap '$filter': exit status" "$PP_RC" 0
	# Numbers only, however they are laid out (one per line expected).
	got=$(grep -Eo '[0-9]+' "$(pp_out "pcap$n")" | xargs) || true
	pp_expect_eq "--test-pcap '$filter': matching frames" "$got" "$want"
	pp_expect_grep "--test-pcap '$filter': stderr" "$(pp_err "pcap$n")" \
		"(^|[^0-9])$(wc -w <<<"$want") of $total frames match"
}

echo_count=$(tcpdump -r "$pcap" -nn 'icmp[icmptype] == icmp-echo' 2>/dev/null | wc -l)
[ "$echo_count" -ge 3 ] || pp_fail "the capture has only $echo_count echo requests"
same_as_tcpdump "icmp[icmptype] == icmp-echo"
same_as_tcpdump "icmp6"
same_as_tcpdump "icmp and not icmp[icmptype] == icmp-echo"
same_as_tcpdump "udp port 9"
same_as_tcpdump "tcp" # nothing matches: "0 of N"

# Not a capture file, and no file at all: bad input.
echo "this is not a pcap file" >"$PP_TMP/not.pcap"
pp_pktpath_run notpcap "$PP_NS_A" 20 --test-pcap "$PP_TMP/not.pcap" icmp
pp_expect_eq "--test-pcap on a text file: exit status" "$PP_RC" 2
pp_pktpath_run nofile "$PP_NS_A" 20 --test-pcap "$PP_TMP/missing.pcap" icmp
pp_expect_eq "--test-pcap on a missing file: exit status" "$PP_RC" 2
pp_pass
