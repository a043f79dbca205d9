# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# A flannel-like two-node overlay in namespaces, for test_overlay_*.sh:
# node1 and node2, each with a bridge br0 and a tunnel device (vxlan42:
# VXLAN VNI 42 on Linux's and flannel's port 8472; or gnv42: Geneve VNI
# 42) on the bridge, connected by an underlay veth pair u1 (192.168.50.1)
# -- u2 (192.168.50.2); pod1 in node1 and pod2 in node2, each an eth0 on a
# veth to its node's bridge, 10.244.0.1 and 10.244.0.2.
#
# ov_run KIND: pod1 pings pod2 five times while one pktpath in node1
# traces "icmp and host 10.244.0.1 and host 10.244.0.2" (tracepoint
# backend, its TC hooks on node1's interfaces), in JSON and in text, and
# tcpdump watches the underlay and both pods. Each request is one path
# from node1's pod veth, through its encapsulation on u1, to its end in
# pod2; each reply is marked on u1 by its inner headers and ends in pod1.
# The counts equal tcpdump's, and each request has tcpdump's copy on u1
# joined; --test-pcap on the underlay's capture
# matches every frame by its inner headers, none with --no-inner.
# A kernel without the tunnel's driver is a SKIP that says so.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OV_FILTER="icmp and host 10.244.0.1 and host 10.244.0.2"
OV_PINGS=5

# ov_tunnel_add NS NAME KIND LOCAL REMOTE [UNDERLAY]: the tunnel device, VNI 42.
ov_tunnel_add() {
	local ns=$1 dev=$2 kind=$3 local=$4 remote=$5
	if [ "$kind" = vxlan ]; then
		ip -n "$ns" link add "$dev" type vxlan id 42 dstport 8472 local "$local" \
			remote "$remote" ${6:+dev "$6"}
	else
		ip -n "$ns" link add "$dev" type geneve id 42 remote "$remote"
	fi
}

# ov_can KIND: whether this kernel makes KIND devices (a scratch namespace);
# if not, OV_WHY says why.
ov_can() {
	local ns=ppe-overlay-probe-$$ err rc=0
	ip netns add "$ns"
	if ! err=$(ov_tunnel_add "$ns" t0 "$1" 192.168.50.1 192.168.50.2 2>&1); then
		OV_WHY="this kernel makes no $1 device (ip link add type $1: $err;"
		OV_WHY+=" CONFIG_$(tr '[:lower:]' '[:upper:]' <<<"$1") off or its module missing)"
		rc=1
	fi
	ip netns del "$ns"
	return $rc
}

# ov_need KIND: SKIP unless this kernel makes KIND devices.
ov_need() {
	ov_can "$1" || pp_skip "$OV_WHY"
}

# ov_node N ADDR PEER_ADDR KIND: node N's bridge, tunnel device and pod.
ov_node() {
	local n=$1 addr=$2 peer=$3 kind=$4 node=$OV_PREFIX-node$1 pod=$OV_PREFIX-pod$1
	ip -n "$node" link add br0 type bridge
	ov_tunnel_add "$node" "$OV_DEV" "$kind" "$addr" "$peer" "u$n"
	ip -n "$node" link set "$OV_DEV" master br0
	ip -n "$node" link add "vp$n" type veth peer name eth0 netns "$pod"
	ip -n "$node" link set "vp$n" master br0
	ip -n "$pod" addr add "10.244.0.$n/24" dev eth0
	# Room for the outer headers on the 1500-byte underlay.
	ip -n "$pod" link set eth0 mtu 1400
	for d in br0 "$OV_DEV" "vp$n"; do
		ip -n "$node" link set "$d" up
	done
	ip -n "$pod" link set eth0 up
	ip -n "$pod" link set lo up
}

# ov_up KIND: the two nodes and their pods. IPv6 off: no router or
# neighbour solicitations on the links while tracing.
ov_up() {
	local kind=$1 ns
	OV_PREFIX=ppe-overlay-$kind-$$
	OV_N1=$OV_PREFIX-node1
	OV_N2=$OV_PREFIX-node2
	OV_P1=$OV_PREFIX-pod1
	OV_P2=$OV_PREFIX-pod2
	OV_DEV=vxlan42
	[ "$kind" = vxlan ] || OV_DEV=gnv42
	ov_need "$kind"
	for ns in "$OV_N1" "$OV_N2" "$OV_P1" "$OV_P2"; do
		ip netns add "$ns"
		pp_defer ip netns del "$ns"
		pp_in "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1
	done
	ip -n "$OV_N1" link add u1 type veth peer name u2 netns "$OV_N2"
	ip -n "$OV_N1" addr add 192.168.50.1/24 dev u1
	ip -n "$OV_N2" addr add 192.168.50.2/24 dev u2
	ip -n "$OV_N1" link set u1 up
	ip -n "$OV_N2" link set u2 up
	ov_node 1 192.168.50.1 192.168.50.2 "$kind"
	ov_node 2 192.168.50.2 192.168.50.1 "$kind"
	# The pods' ARP and the bridges' learning, done before the trace.
	pp_in "$OV_P1" ping -n -q -c 1 -w 10 10.244.0.2 >/dev/null ||
		pp_fail "pod1 cannot reach pod2 across the $kind overlay"
	pp_log "$kind overlay up: $OV_P1 -- $OV_N1 (u1) -- (u2) $OV_N2 -- $OV_P2"
}

# ov_count FILE FILTER: the frames of capture FILE that tcpdump's FILTER
# matches and that carry an ICMP echo (tcpdump prints a tunnel's outer and
# inner headers on two lines: the inner one says it, once a frame).
ov_count() {
	tcpdump -n -r "$1" "$2" 2>/dev/null | grep -c 'ICMP echo' || true
}

ov_trace() {
	local kind=$1 port=8472 pc
	[ "$kind" = vxlan ] || port=6081
	pp_bg td-u1 "$OV_N1" tcpdump -n -U --immediate-mode -Z root -i u1 -w "$PP_TMP/u1.pcap" \
		"udp port $port"
	pp_bg td-p1 "$OV_P1" tcpdump -n -U --immediate-mode -Z root -i eth0 -w "$PP_TMP/p1.pcap" icmp
	pp_bg td-p2 "$OV_P2" tcpdump -n -U --immediate-mode -Z root -i eth0 -w "$PP_TMP/p2.pcap" icmp
	for pc in td-u1 td-p1 td-p2; do
		pp_wait_line "$pc" 'listening on' "$PP_READY_TIMEOUT"
	done
	pp_pktpath_start json "$OV_N1" --json --backend tracepoint --filter "$OV_FILTER"
	pp_pktpath_start text "$OV_N1" --backend tracepoint --filter "$OV_FILTER"
	pp_in "$OV_P1" ping -n -q -c "$OV_PINGS" -i 0.2 -w 10 10.244.0.2 >/dev/null ||
		pp_fail "pings from pod1 to pod2 were lost while tracing"
	pp_pktpath_settle json 30
	pp_pktpath_settle text 30
	pp_pktpath_stop json INT
	pp_expect_eq "pktpath --json exit status" "$PP_RC" 0
	pp_pktpath_stop text INT
	pp_expect_eq "pktpath (text) exit status" "$PP_RC" 0
	pp_wait_pcap "$PP_TMP/u1.pcap" $((2 * OV_PINGS))
	for pc in td-u1 td-p1 td-p2; do
		pp_stop "$pc"
	done
}

# ov_check_counts: pktpath's packets equal tcpdump's frames, each place.
ov_check_counts() {
	local out=$1 u1 p1 p2 got
	u1=$(ov_count "$PP_TMP/u1.pcap" "")
	p1=$(ov_count "$PP_TMP/p1.pcap" "icmp[icmptype] = icmp-echo")
	p2=$(ov_count "$PP_TMP/p2.pcap" "icmp[icmptype] = icmp-echoreply")
	pp_log "tcpdump: $u1 frames on the underlay, $p1 requests sent by pod1, $p2 replies by pod2"
	pp_expect_eq "tcpdump on u1: frames of the overlay" "$u1" $((2 * OV_PINGS))
	got=$(pp_jq "$out" 'packets | length')
	pp_expect_eq "pktpath: packets (tcpdump: $u1 on the underlay)" "$got" "$u1"
	got=$(pp_jq "$out" '[packets[] | select(any(.hops[]; .ifname == "u1"))] | length')
	pp_expect_eq "pktpath: packets that crossed u1 (tcpdump: $u1)" "$got" "$u1"
	got=$(pp_jq "$out" '[packets[] | select((.pkt.inner // .pkt).icmp_type == 8)] | length')
	pp_expect_eq "pktpath: echo requests (tcpdump in pod1: $p1)" "$got" "$p1"
	got=$(pp_jq "$out" '[packets[] | select((.pkt.inner // .pkt).icmp_type == 0)] | length')
	pp_expect_eq "pktpath: echo replies (tcpdump in pod2: $p2)" "$got" "$p2"
	# tcpdump on u1 clones each request as it leaves, encapsulated: a copy
	# of the packet, first seen at its free, its bytes where the request's
	# were though the headers in front are new.
	got=$(pp_jq "$out" '[packets[] | select(.pkt.icmp_type == 8)
		| select([.skbs[]? | select(.tap)] | length == 1)] | length')
	pp_expect_eq "pktpath: requests with tcpdump's copy on u1 (tcpdump in pod1: $p1)" \
		"$got" "$p1"
}

# ov_check_paths KIND: each request from node1's pod veth, encapsulated on
# u1, to its end in pod2; each reply marked on u1 in its outer headers,
# decapsulated on the tunnel device, ending in pod1.
ov_check_paths() {
	local kind=$1 out=$2 p1 p2
	p1=$(pp_netns_inode "$OV_P1")
	p2=$(pp_netns_inode "$OV_P2")
	# shellcheck disable=SC2016 # jq programs
	pp_expect_none "requests: marked on vp1, encapsulated on u1, ended in pod2" "$out" '
		packets[] | select(.pkt.icmp_type == 8)
		| select(.marked_at.ifname != "vp1"
			or ([.hops[] | select(.encap)] != [.hops[] | select(.ifname == "u1"
				and .func == "tc:egress")])
			or ([.hops[].encap | select(.)] | unique
				!= [{tunnel: $kind, vni: 42, via: "u1"}])
			or .hops[-1].netns != $p2)
		| "request seq \(.pkt.icmp_seq): marked_at \(.marked_at.ifname), encap \([.hops[]
			| select(.encap) | .encap] | tojson), last hop netns \(.hops[-1].netns)"' \
		--arg kind "$kind" --argjson p2 "$p2"
	# shellcheck disable=SC2016 # jq programs
	pp_expect_none "replies: marked on u1 as $kind 42, decapsulated on $OV_DEV, ended in pod1" \
		"$out" '
		packets[] | select(.pkt.inner.icmp_type == 0)
		| select(.marked_at.ifname != "u1" or .pkt.tunnel != $kind or .pkt.vni != 42
			or .pkt.inner.src != "10.244.0.2"
			or ([.hops[] | select(.decap) | [.ifname, .decap.tunnel, .decap.vni]]
				!= [[$dev, $kind, 42]])
			or .hops[-1].netns != $p1)
		| "reply seq \(.pkt.inner.icmp_seq): marked_at \(.marked_at.ifname) \(.pkt.tunnel)
			\(.pkt.vni), decap \([.hops[] | select(.decap) | [.ifname, .decap]] | tojson)"' \
		--arg kind "$kind" --arg dev "$OV_DEV" --argjson p1 "$p1"
}

# ov_check_text KIND FILE: the header lines and the hops' encap and decap lines.
ov_check_text() {
	local kind=$1 out=$2 n
	# A long header takes a line of its own, under the packet's number.
	n=$(grep -cE "^(#.* | +)udp 192\.168\.50\.2\.[0-9]+ > 192\.168\.50\.1\.[0-9]+ $kind 42: icmp 10\.244\.0\.2 > 10\.244\.0\.1 echo reply" "$out" || true)
	pp_expect_eq "text: reply headers, outer and inner" "$n" "$OV_PINGS"
	n=$(grep -cE "^ +encap $kind 42 via u1, now 192\.168\.50\.1\.[0-9]+ > 192\.168\.50\.2\.[0-9]+$" "$out" || true)
	pp_expect_eq "text: 'encap $kind 42 via u1' lines" "$n" "$OV_PINGS"
	n=$(grep -cE "^ +decap $kind 42, now 10\.244\.0\.2 > 10\.244\.0\.1 id [0-9]+$" "$out" || true)
	pp_expect_eq "text: 'decap $kind 42' lines" "$n" "$OV_PINGS"
}

# ov_check_test_pcap KIND: --test-pcap on the underlay's capture.
ov_check_test_pcap() {
	local kind=$1 got want
	got=$("$PKTPATH" --test-pcap "$PP_TMP/u1.pcap" --filter "$OV_FILTER" 2>/dev/null | wc -l)
	pp_expect_eq "--test-pcap on u1's capture: frames matched by their inner headers" \
		"$got" $((2 * OV_PINGS))
	got=$("$PKTPATH" --no-inner --test-pcap "$PP_TMP/u1.pcap" --filter "$OV_FILTER" \
		2>/dev/null | wc -l)
	want=$(ov_count "$PP_TMP/u1.pcap" "$OV_FILTER")
	pp_expect_eq "--no-inner --test-pcap: frames matched, as tcpdump -r" "$got" "$want"
	# libpcap knows Geneve ("geneve" looks into the inner frame), not VXLAN.
	[ "$kind" = geneve ] || return 0
	want=$(ov_count "$PP_TMP/u1.pcap" "geneve and $OV_FILTER")
	pp_expect_eq "--test-pcap on u1's capture, as tcpdump -r 'geneve and ...'" \
		$((2 * OV_PINGS)) "$want"
}

ov_run() {
	local kind=$1
	pp_setup
	pp_require_pktpath
	pp_require_cmd tcpdump sysctl
	ov_up "$kind"
	ov_trace "$kind"
	pp_expect_json_lines "$(pp_out json)" "pktpath --json"
	ov_check_counts "$(pp_out json)"
	ov_check_paths "$kind" "$(pp_out json)"
	ov_check_text "$kind" "$(pp_out text)"
	ov_check_test_pcap "$kind"
	pp_pass
}
