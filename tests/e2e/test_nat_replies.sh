#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Replies to masqueraded packets, IPv4 and IPv6, ICMP echo (the identifier
# as a port): the router masquerades (nftables, inet) what leaves by
# r-eth1, and pktpath runs there with a filter on a's addresses alone,
#   host 198.18.0.1 or host fd00::1
# which b's echo replies, addressed to the router's r-eth1 addresses, do
# not match until conntrack undoes the NAT. a pings b, and b pings the
# router itself (echo requests into r-eth1 that no tracked packet's
# rewrite answers) while a's replies come in. Required, per family, against
# tcpdump on r-eth1:
#   - every echo request of a that left by r-eth1 is a tc:egress hop there,
#     masqueraded (now from the router's address);
#   - every echo reply to it that came in by r-eth1 is a tc:ingress hop
#     there, its mark, as a reply to one of a's requests (marked_at's
#     reply_to), with the NAT undone at r-eth0 egress (now to a);
#   - no echo request of b to the router is marked.
# Before reply_map (issue 37) the replies were first marked at r-eth0
# egress, after the NAT was undone: none had its r-eth1 hop.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin nft tcpdump

A4=198.18.0.1 A6=fd00::1 B4=198.18.1.2 B6=fd00:1::2 R4=198.18.1.254 R6=fd00:1::fe
pp_in "$PP_NS_R" nft -f - <<'NFT'
table inet pp_masq {
	chain post {
		type nat hook postrouting priority 100; policy accept;
		oifname "r-eth1" masquerade
	}
}
NFT
pp_bg tcpdump "$PP_NS_R" tcpdump -i r-eth1 -n -U --immediate-mode -s 128 \
	-w "$PP_TMP/r-eth1.pcap" icmp or icmp6
pp_wait_line tcpdump 'listening on' 20

out=$(pp_out json)
pp_pktpath_start json "$PP_NS_R" --json --backend tracepoint --filter "host $A4 or host $A6"
pp_in "$PP_NS_B" ping -q -c 40 -i 0.05 "$R4" >/dev/null &
b4=$!
pp_in "$PP_NS_B" ping -6 -q -c 40 -i 0.05 "$R6" >/dev/null &
b6=$!
pp_in "$PP_NS_A" ping -q -c 20 -i 0.05 "$B4" >/dev/null || pp_fail "ping $B4 from a failed"
pp_in "$PP_NS_A" ping -6 -q -c 20 -i 0.05 "$B6" >/dev/null || pp_fail "ping $B6 from a failed"
wait "$b4" || pp_fail "ping $R4 from b failed"
wait "$b6" || pp_fail "ping $R6 from b failed"
pp_stop tcpdump
pp_pktpath_settle json 20
pp_pktpath_stop json INT
pp_expect_eq "pktpath exit status" "$PP_RC" 0
pp_expect_json_lines "$out" "pktpath --json output"
pp_expect_summary "$out"
pp_expect_eq "records lost" "$(jq -r .lost <<<"$PP_SUMMARY")" 0

# frames FILTER: the frames tcpdump captured on r-eth1 that FILTER matches.
frames() { tcpdump -r "$PP_TMP/r-eth1.pcap" -n "$1" 2>/dev/null | wc -l; }
# The TC hops at r-eth1 of packets from SRC to DST there: a hop's headers
# are its own pkt where they changed since the mark, else the packet's.
# shellcheck disable=SC2016 # jq program
hops='[packets[] | .pkt as $p | .hops[] | select(.func == $f and .ifname == "r-eth1")
	| (.pkt // $p) | select(.src == $src and .dst == $dst)] | length'
for fam in 4 6; do
	a=A$fam b=B$fam r=R$fam
	a=${!a} b=${!b} r=${!r}
	if [ "$fam" = 4 ]; then
		req="icmp[icmptype] == icmp-echo" rep="icmp[icmptype] == icmp-echoreply"
	else
		req="icmp6 and ip6[40] == 128" rep="icmp6 and ip6[40] == 129"
	fi
	want_out=$(frames "src host $r and dst host $b and $req")
	want_in=$(frames "src host $b and dst host $r and $rep")
	pp_log "IPv$fam: tcpdump on r-eth1: $want_out requests out, $want_in replies in"
	[ "$want_in" -ge 15 ] || pp_fail "IPv$fam: tcpdump saw only $want_in replies on r-eth1"
	n=$(pp_jq "$out" "$hops" --arg f tc:egress --arg src "$r" --arg dst "$b")
	pp_expect_eq "IPv$fam: a's masqueraded requests at r-eth1 egress (tcpdump: $want_out)" \
		"$n" "$want_out"
	n=$(pp_jq "$out" "$hops" --arg f tc:ingress --arg src "$b" --arg dst "$r")
	pp_expect_eq "IPv$fam: replies at r-eth1 ingress (tcpdump: $want_in)" "$n" "$want_in"
	# shellcheck disable=SC2016 # jq program
	pp_expect_none "IPv$fam: a reply at r-eth1 not marked there as a's, or without the NAT undone" \
		"$out" '
		[packets[] | {key: "\(.id)", value: .pkt.src}] | from_entries as $src
		| packets[] | select(.pkt.src == $b and .pkt.dst == $r)
		| select(.marked_at.ifname != "r-eth1" or .marked_at.dir != "ingress"
		         or $src["\(.marked_at.reply_to)"] != $a
		         or ([.hops[] | select(.func == "tc:egress" and .ifname == "r-eth0"
		                               and .pkt.dst == $a)] | length) != 1)
		| "\(pkt_str): marked_at \(.marked_at | tojson), \(path_str)"' \
		--arg a "$a" --arg b "$b" --arg r "$r"
done
# shellcheck disable=SC2016 # jq program
pp_expect_none "an echo request of b to the router marked" "$out" '
	packets[] | select((.pkt.src == $b4 or .pkt.src == $b6) and .pkt.icmp_type != 0
	                   and .pkt.icmp_type != 129)
	| "\(pkt_str): \(.pkt | tojson), marked_at \(.marked_at | tojson)"' \
	--arg b4 "$B4" --arg b6 "$B6"
pp_pass
