#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# VLAN tags: a sends 802.1Q and 802.1ad (QinQ) tagged frames to the router
# from a packet socket (tests/e2e/vlan_frames.c: 5 on VLAN 100, 3 on VLAN
# 200, 2 QinQ 300/100, 2 untagged; this kernel has no 8021q). On the wire
# the tags are in the frames' bytes; on receive the kernel moves the outer
# tag into skb metadata before TC (__netif_receive_skb_core). For each
# filter, pktpath in r (r-eth0, ingress: the tag in metadata) and in a
# (a-eth0, egress: the tag in the bytes) prints exactly the frames that a
# live tcpdump on the same interface and direction prints, and the JSON
# gives the VLAN ids. --test-pcap on the same frames in a file matches
# what tcpdump -r matches.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin tcpdump
frames=""
pp_test_tool frames vlan_frames

mac=$(pp_in "$PP_NS_R" cat /sys/class/net/r-eth0/address)

# filter|frames on r-eth0 ingress|frames on a-eth0 egress. Without "vlan",
# tcpdump's live filter reads the skb as it is: untagged on ingress.
cases=(
	"vlan and icmp|8|8"
	"vlan 100|5|5"
	"vlan 200 and host 198.18.0.254|3|3"
	"vlan 300 and vlan 100 and icmp|2|2"
	"icmp|10|2"
)

# The same frames from a file: --test-pcap against tcpdump -r.
"$frames" pcap "$PP_TMP/vlan.pcap" "$mac"
for c in "${cases[@]}"; do
	f=${c%%|*}
	want=$(tcpdump -n -r "$PP_TMP/vlan.pcap" "$f" 2>/dev/null | wc -l)
	got=$("$PKTPATH" --test-pcap "$PP_TMP/vlan.pcap" --filter "$f" 2>/dev/null | wc -l)
	pp_expect_eq "--test-pcap '$f': frames matched, as tcpdump -r" "$got" "$want"
done

# run N FILTER: one round of the frames, traced on both sides; tcpdump's
# and pktpath's outputs in $PP_TMP/{td,pp}-{r,a}-N.out.
run() {
	local n=$1 f=$2 side
	pp_bg "td-r-$n" "$PP_NS_R" tcpdump -n -l -Q in -i r-eth0 "$f"
	pp_bg "td-a-$n" "$PP_NS_A" tcpdump -n -l -Q out -i a-eth0 "$f"
	pp_wait_line "td-r-$n" 'listening on' "$PP_READY_TIMEOUT"
	pp_wait_line "td-a-$n" 'listening on' "$PP_READY_TIMEOUT"
	pp_pktpath_start "pp-r-$n" "$PP_NS_R" --json --backend tracepoint -i r-eth0 --filter "$f"
	pp_pktpath_start "pp-a-$n" "$PP_NS_A" --json --backend tracepoint -i a-eth0 --filter "$f"
	pp_in "$PP_NS_A" "$frames" send a-eth0 "$mac"
	for side in r a; do
		pp_pktpath_settle "pp-$side-$n" 15
		pp_pktpath_stop "pp-$side-$n"
		pp_expect_eq "pktpath in $side ('$f') exit status" "$PP_RC" 0
		pp_expect_json_lines "$(pp_out "pp-$side-$n")" "pktpath in $side ('$f')"
		pp_stop "td-$side-$n"
	done
}

n=0
for c in "${cases[@]}"; do
	IFS='|' read -r f want_r want_a <<<"$c"
	n=$((n + 1))
	run "$n" "$f"
	for side in r a; do
		want=$want_r
		[ "$side" = r ] || want=$want_a
		td=$(grep -c ' IP ' "$(pp_out "td-$side-$n")" || true)
		pp_expect_eq "tcpdump in $side, '$f': frames" "$td" "$want"
		got=$(pp_jq "$(pp_out "pp-$side-$n")" 'packets | length')
		pp_expect_eq "pktpath in $side, '$f': packets (tcpdump saw $td)" "$got" "$td"
		# The ICMP sequence numbers: the same frames, not only as many.
		td=$(awk '{ for (i = 1; i < NF; i++) if ($i == "seq") print $(i + 1) + 0 }' \
			"$(pp_out "td-$side-$n")" | sort -n | paste -sd,)
		got=$(pp_jq "$(pp_out "pp-$side-$n")" \
			'[packets[].pkt.icmp_seq] | sort | map(tostring) | join(",")')
		pp_expect_eq "pktpath in $side, '$f': the frames tcpdump saw" "$got" "$td"
	done
done

# The VLAN ids, as marked: from metadata on r's ingress, from the bytes on a's egress.
for side in r a; do
	got=$(pp_jq "$(pp_out "pp-$side-1")" '[packets[].pkt.vlan] | sort | map(tostring) | join(",")')
	pp_expect_eq "'vlan and icmp' in $side: VLAN ids" "$got" "100,100,100,100,100,200,200,200"
	got=$(pp_jq "$(pp_out "pp-$side-4")" \
		'[packets[].pkt | "\(.vlan)/\(.vlan_inner)"] | unique | join(",")')
	pp_expect_eq "QinQ in $side: outer/inner VLAN ids" "$got" "300/100"
done
# On r the tag was in metadata: the skb is 4 bytes shorter than the frame.
got=$(pp_jq "$(pp_out pp-r-2)" '[packets[].len] | unique | map(tostring) | join(",")')
pp_log "VLAN 100 frames on r-eth0: skb len $got"
pp_pass
