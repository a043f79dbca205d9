#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tcpdump on every interface of a two-node VXLAN overlay (both pods' eth0,
# the nodes' pod veths, tunnel devices and underlay), one capture for each
# direction, while one pktpath traces the four namespaces: each copy the
# kernel made for a capture joins its packet, before and after the tunnel.
# A packet leaving a device is cloned once for its captures
# (dev_queue_xmit_nit()); a capture on the way in reads the skb itself, no
# copy made. So on each device pktpath's tap copies equal tcpdump's
# outbound frames there, 4 a packet (its pod's eth0, the tunnel device,
# the underlay and the pod veth on the far node), and none come from the
# inbound captures, though tcpdump has as many frames there.
# shellcheck source-path=SCRIPTDIR source=overlay.sh
. "$(dirname "$0")/overlay.sh"

# Each capture: namespace suffix and device.
TAPS="node1:u1 node1:vxlan42 node1:vp1 node2:u2 node2:vxlan42 node2:vp2 pod1:eth0 pod2:eth0"

# tap_start DIR: a tcpdump -Q DIR (in, out) on every device of TAPS.
tap_start() {
	local t ns dev
	for t in $TAPS; do
		ns=$OV_PREFIX-${t%%:*}
		dev=${t#*:}
		pp_bg "td-$1-$t" "$ns" tcpdump -n -U --immediate-mode -Z root -Q "$1" -i "$dev" \
			-w "$PP_TMP/$1-${t/:/-}.pcap" icmp or udp port 8472
		pp_wait_line "td-$1-$t" 'listening on' "$PP_READY_TIMEOUT"
	done
}

tap_stop() {
	local t d
	for d in in out; do
		for t in $TAPS; do
			pp_wait_pcap "$PP_TMP/$d-${t/:/-}.pcap" "$OV_PINGS"
			pp_stop "td-$d-$t"
		done
	done
}

# The tap copies pktpath ended on each device: "SUFFIX:DEV N" lines. A
# copy's end is its free on the device it left by (a raw socket's clone,
# which may take the same address, ends with no device).
tap_ends() {
	# shellcheck disable=SC2016 # a jq program
	pp_jq "$1" '[packets[] | [.skbs[]? | select(.tap) | .skb] as $t | .hops[]
		| select(.func == "tp:skb:consume_skb" and .ifname != null and (.skb | IN($t[])))
		| "\(.netns_name | split("-") | last):\(.ifname)"]
		| group_by(.) | map("\(.[0]) \(length)") | .[]'
}

pp_setup
pp_require_pktpath
pp_require_cmd tcpdump sysctl
ov_up vxlan
tap_start out
tap_start in
pp_root_bg json "$PKTPATH" --json --backend tracepoint --netns "$OV_N1" --netns "$OV_N2" \
	--netns "$OV_P1" --netns "$OV_P2" --filter "$OV_FILTER"
pp_wait_line json '^pktpath: ready' "$PP_READY_TIMEOUT"
pp_in "$OV_P1" ping -n -q -c "$OV_PINGS" -i 0.2 -w 10 10.244.0.2 >/dev/null ||
	pp_fail "pings from pod1 to pod2 were lost while tracing"
pp_pktpath_settle json 30
pp_pktpath_stop json INT
pp_expect_eq "pktpath --json exit status" "$PP_RC" 0
tap_stop
out=$(pp_out json)
pp_expect_json_lines "$out" "pktpath --json"
ends=$(tap_ends "$out")
pp_log "tap copies ended per device: $(tr '\n' ' ' <<<"$ends")"
total=0
for t in $TAPS; do
	sent=$(ov_count "$PP_TMP/out-${t/:/-}.pcap" "")
	seen=$(ov_count "$PP_TMP/in-${t/:/-}.pcap" "")
	got=$(sed -n "s/^$t //p" <<<"$ends")
	pp_expect_eq "tcpdump -Q in on $t: frames captured (one way)" "$seen" "$OV_PINGS"
	pp_expect_eq "pktpath: tap copies on $t (tcpdump -Q out: $sent; -Q in: $seen, no copy)" \
		"${got:-0}" "$sent"
	total=$((total + sent))
done
pp_expect_eq "tcpdump: outbound frames, 4 devices a packet" "$total" $((8 * OV_PINGS))
got=$(pp_jq "$out" '[packets[] | .skbs[]? | select(.tap)] | length')
pp_expect_eq "pktpath: tap copies in all (tcpdump's outbound frames)" "$got" "$total"
got=$(pp_jq "$out" '[packets[] | select([.skbs[]? | select(.tap)] | length != 4)] | length')
pp_expect_eq "pktpath: packets without 4 tap copies" "$got" 0
got=$(pp_jq "$out" 'packets | length')
pp_expect_eq "pktpath: packets (pings and replies)" "$got" $((2 * OV_PINGS))
pp_pass
