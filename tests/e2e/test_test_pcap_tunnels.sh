#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The inner view of IP-in-IP and GRE, against libpcap: --test-pcap on a
# capture of tunnels' frames (tests/e2e/tunnel_frames.c: IP-in-IP, GRE
# with and without options, gretap, IPv6 in GRE, the same over an IPv6
# underlay (ip6tnl, ip6gre, ip6gretap), IPv6 in IPv4 (sit), and GRE/IP-in-IP
# frames that are no tunnel pktpath looks into) prints for each filter the frames
# tcpdump matches in that file, together with those whose inner frame
# tcpdump matches in a second file of the inner frames (loader/filter/tunnel.h:
# an IP packet behind a made-up Ethernet header). With --no-inner, only
# the first. Without the IP tunnels in the inner view, every filter on the
# pods' addresses or ports finds no tunnel's frame.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_setup
pp_require_cmd tcpdump
pp_require_pktpath
pp_test_tool gen tunnel_frames

pcap=$PP_TMP/tunnels.pcap inner=$PP_TMP/inner.pcap
# shellcheck disable=SC2154 # gen: set by pp_test_tool
total=$("$gen" "$pcap" "$inner") || pp_fail "tunnel_frames failed"
# One line per frame, its time first (MPLS adds a hex dump line).
shown=$(tcpdump -r "$pcap" -nn -tt 2>/dev/null | grep -c '^1700')
pp_expect_eq "frames tcpdump reads" "$shown" "$total"

# tcpdump_frames FILE FILTER: the numbers of the frames tcpdump matches in
# FILE (frame N of the capture has the time 1700000000 + N - 1 s).
tcpdump_frames() {
	local rc=0
	tcpdump -r "$1" -nn -tt "$2" >"$PP_TMP/match.txt" 2>"$PP_TMP/tcpdump.err" || rc=$?
	[ "$rc" -eq 0 ] || pp_fail "tcpdump '$2': exit $rc: $(_pp_last_line "$PP_TMP/tcpdump.err")"
	awk '/^1700/ { split($1, t, "."); print t[1] - 1700000000 + 1 }' "$PP_TMP/match.txt"
}

n=0 inner_only=0
# same_as_tcpdump FILTER [--no-inner]: pktpath --test-pcap matches the
# frames tcpdump does, or whose inner frame it does (not with --no-inner).
same_as_tcpdump() {
	local filter=$1 want got out err outer
	shift
	n=$((n + 1))
	out=$(pp_out "tun$n") err=$(pp_err "tun$n")
	outer=$(tcpdump_frames "$pcap" "$filter" | xargs)
	if [ $# -eq 0 ]; then
		want=$({ tcpdump_frames "$pcap" "$filter" && tcpdump_frames "$inner" "$filter"; } |
			sort -nu | xargs)
		[ "$want" = "$outer" ] || inner_only=$((inner_only + 1))
	else
		want=$outer
	fi
	PP_RC=0
	timeout -k 5 60 "$PKTPATH" --test-pcap "$pcap" "$@" "$filter" >"$out" 2>"$err" || PP_RC=$?
	pp_expect_eq "--test-pcap $* '$filter': exit status ($(_pp_last_line "$err"))" "$PP_RC" 0
	got=$(xargs <"$out") || true
	pp_expect_eq "--test-pcap $* '$filter': matching frames" "$got" "$want"
	return 0
}

filters=(
	"" "host 10.244.2.3" "src 10.244.1.2" "net 10.244.0.0/16" "icmp"
	"icmp[icmptype] = icmp-echo" "tcp port 80" "tcp[tcpflags] & tcp-syn != 0"
	"udp port 53" "udp" "ip6" "ip6 and udp" "ip6 dst fd00::2" "ip"
	"ip proto 47" "ip proto 4" "host 192.168.50.2" "ip[0] = 0x45" "ip[9] = 1"
	"ether[12:2] = 0x0800" "ether[12:2] = 0x86dd" "ether[0] = 0x02" "ether[5:2] = 0"
	"ether[10:4] = 0x800" "ether[13:4] = 0x00450000" "ether host 00:00:00:00:00:00"
	"len > 80" "len < 60" "len = 24" "ether[ip[0] & 0xf] = 0" "ip[40] = 0"
	"ip6 proto 47" "ip6 host fd50::2" "ip6 proto 41 or ip proto 41"
)
for f in "${filters[@]}"; do
	same_as_tcpdump "$f"
done
for f in "host 10.244.2.3" "tcp port 80" "ip6" "ether[12:2] = 0x0800" "udp port 53"; do
	same_as_tcpdump "$f" --no-inner
done
# The point of the file: frames matched by their inner frame only.
[ "$inner_only" -ge 10 ] ||
	pp_fail "only $inner_only filters matched a tunnel's frame by its inner frame"
pp_log "$n filters on $total frames: --test-pcap printed tcpdump's frames, outer or inner" \
	"($inner_only filters matched by an inner frame)"
pp_pass
