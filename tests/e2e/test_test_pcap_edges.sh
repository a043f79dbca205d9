#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --test-pcap must print exactly the frames tcpdump matches, on every frame
# of a capture, including the ones the kernel's test run refuses and the
# ones a capture cut short: runts (1..13 bytes), an IPv4 or IPv6 ethertype
# with less than its IP header, short VLAN frames, frames with caplen < len,
# a frame longer than a page (tests/e2e/pcap_edge_frames.c writes them).
# The filters read IP header fields, the length, the multicast and
# broadcast bits, VLAN tags, and bytes past the end of most frames.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_setup
pp_require_cmd tcpdump
pp_require_pktpath

gen=$(dirname "$PKTPATH")/../tests/pcap_edge_frames
[ -x "$gen" ] || pp_fail "no $gen (built with pktpath: cmake --build build)"
pcap=$PP_TMP/edges.pcap
total=$("$gen" "$pcap") || pp_fail "pcap_edge_frames failed"
shown=$(tcpdump -r "$pcap" -nn 2>/dev/null | wc -l)
pp_expect_eq "frames tcpdump reads" "$shown" "$total"

# tcpdump_frames FILTER: the numbers of the frames tcpdump matches. Frame N
# has the timestamp 1700000000 + N - 1 seconds (pcap_edge_frames.c).
tcpdump_frames() {
	local rc=0
	tcpdump -r "$pcap" -nn -tt "$1" >"$PP_TMP/match.txt" 2>"$PP_TMP/tcpdump.err" || rc=$?
	[ "$rc" -eq 0 ] || pp_fail "tcpdump '$1': exit $rc: $(_pp_last_line "$PP_TMP/tcpdump.err")"
	awk '{ split($1, t, "."); print t[1] - 1700000000 + 1 }' "$PP_TMP/match.txt" | xargs
}

n=0 user_refused=0 user_cut=0
# same_as_tcpdump FILTER: pktpath --test-pcap and tcpdump agree on FILTER.
same_as_tcpdump() {
	local filter=$1 want got out err
	n=$((n + 1))
	out=$(pp_out "edge$n") err=$(pp_err "edge$n")
	want=$(tcpdump_frames "$filter")
	PP_RC=0
	timeout -k 5 60 "$PKTPATH" --test-pcap "$pcap" "$filter" >"$out" 2>"$err" || PP_RC=$?
	pp_expect_eq "--test-pcap '$filter': exit status ($(_pp_last_line "$err"))" "$PP_RC" 0
	got=$(xargs <"$out") || true
	pp_expect_eq "--test-pcap '$filter': matching frames" "$got" "$want"
	pp_expect_grep "--test-pcap '$filter': stderr" "$err" \
		"^$(wc -w <<<"$want") of $total frames match$"
	grep -q "the kernel's test run refuses" "$err" && user_refused=$((user_refused + 1))
	grep -q "cut short by the capture" "$err" && user_cut=$((user_cut + 1))
	return 0
}

filters=(
	""
	"ip" "ip6" "arp" "vlan" "tcp" "udp" "icmp" "icmp6" "not ip"
	"ip[0] & 0xf = 5" "ip[0] & 0xf > 5" "ip[0] & 0xf != 5" "ip[0] & 0xf0 = 0x40"
	"ip[8] = 64" "ip[9] = 6" "ip[2:2] > 100" "ip[6:2] & 0x1fff = 0"
	"ip proto 17" "host 198.18.0.1" "dst net 224.0.0.0/4" "src host 198.18.0.9"
	"len > 60" "len < 100" "len = 60" "len >= 5000" "greater 1000" "less 64"
	"less 20" "greater 200 and ip"
	"multicast" "broadcast" "ether broadcast" "ether multicast" "ip multicast"
	"ip6 multicast" "not ether multicast"
	"ip6[6] = 58" "ip6 and tcp" "ip6 dst ff02::1" "icmp6 and ip6[40] = 128"
	"vlan 100" "vlan 200" "vlan and ip" "vlan and ip6" "vlan and ip[9] = 6"
	"tcp port 80" "udp port 53" "tcp[tcpflags] & tcp-syn != 0"
	"icmp[icmptype] = icmp-echo" "ether[12:2] = 0x0800" "ether[0] & 1 = 1"
	"ether src 02:00:00:00:00:01"
)
for f in "${filters[@]}"; do
	same_as_tcpdump "$f"
done
pp_log "$n filters: --test-pcap printed tcpdump's frames for each of $total frames"

# The point of this file: frames the kernel did not decide were decided.
[ "$user_refused" -gt 0 ] ||
	pp_fail "no filter had frames the kernel's test run refuses decided in user space"
[ "$user_cut" -gt 0 ] ||
	pp_fail "no filter had frames cut by the capture decided in user space"
pp_log "user space decided frames the kernel refuses for $user_refused filters," \
	"frames cut by the capture for $user_cut"
pp_pass
