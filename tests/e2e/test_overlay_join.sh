#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Each node's half of an overlay, joined later: the two-node overlay of
# overlay.sh (VXLAN, then Geneve where the kernel has it), traced by two
# pktpath runs in the root namespace, each scoped to one node's namespaces
# (--netns node --netns pod) under a host name of its own. pod1 pings pod2,
# then pod2 pings pod1; tcpdump in the pods counts the echoes. Node 1 marks
# its pod's packets bare and its peer's inside the outer headers on u1,
# node 2 the other way round. Checked:
# - each run has one packet per echo tcpdump saw: a run's hooks in the pod
#   and in the node (both eth0 and u1 are ifindex 2) are told apart by
#   their namespace; before, a packet crossing u1 after the pod's eth0 was
#   taken for another in a reused sk_buff (node1: 40 packets for 20);
# - `pktpath report` joins every echo, each of two parts: the sender's
#   node's (marked bare) first, the receiver's node's (marked inside the
#   tunnel, with its VNI) second, the same ICMP type, sequence and
#   addresses: none joined wrongly, none left alone. The key of a tunnel's
#   frame is its inner packet's; before, its outer headers': none joined.
# shellcheck source-path=SCRIPTDIR source=overlay.sh
. "$(dirname "$0")/overlay.sh"
pp_setup
pp_require_pktpath
pp_require_cmd tcpdump sysctl

# oj_node NAME NODE_NS POD_NS: pktpath in the root namespace scoped to one node.
oj_node() {
	env --default-signal=INT,QUIT "$PKTPATH" --json --backend tracepoint --host-name "$1" \
		--netns "$2" --netns "$3" --filter "$OV_FILTER" \
		</dev/null >"$(pp_out "$1")" 2>"$(pp_err "$1")" &
	PP_PIDS[$1]=$!
	pp_defer _pp_reap "$1"
	pp_wait_line "$1" '^pktpath: ready' "$PP_READY_TIMEOUT"
}

# oj_trace KIND: both nodes traced, tcpdump in both pods, pings both ways.
oj_trace() {
	local kind=$1 pc
	pp_bg "$kind-td-p1" "$OV_P1" tcpdump -n -U --immediate-mode -Z root -i eth0 \
		-w "$PP_TMP/$kind-p1.pcap" icmp
	pp_bg "$kind-td-p2" "$OV_P2" tcpdump -n -U --immediate-mode -Z root -i eth0 \
		-w "$PP_TMP/$kind-p2.pcap" icmp
	for pc in "$kind-td-p1" "$kind-td-p2"; do
		pp_wait_line "$pc" 'listening on' "$PP_READY_TIMEOUT"
	done
	oj_node "$kind-node1" "$OV_N1" "$OV_P1"
	oj_node "$kind-node2" "$OV_N2" "$OV_P2"
	pp_in "$OV_P1" ping -n -q -c "$OV_PINGS" -i 0.2 -w 10 10.244.0.2 >/dev/null ||
		pp_fail "pings from pod1 to pod2 were lost while tracing"
	pp_in "$OV_P2" ping -n -q -c "$OV_PINGS" -i 0.2 -w 10 10.244.0.1 >/dev/null ||
		pp_fail "pings from pod2 to pod1 were lost while tracing"
	for pc in "$kind-node1" "$kind-node2"; do
		pp_pktpath_settle "$pc" 30
		pp_pktpath_stop "$pc"
		pp_expect_eq "$pc exit status" "$PP_RC" 0
	done
	pp_wait_pcap "$PP_TMP/$kind-p2.pcap" $((4 * OV_PINGS))
	for pc in "$kind-td-p1" "$kind-td-p2"; do
		pp_stop "$pc"
	done
}

# oj_check KIND: the report joins each echo of the pods' captures, rightly.
oj_check() {
	local kind=$1 joined p1 p2 n s
	joined=$PP_TMP/$kind-joined.jsonl
	p1=$(ov_count "$PP_TMP/$kind-p1.pcap" "")
	p2=$(ov_count "$PP_TMP/$kind-p2.pcap" "")
	pp_log "tcpdump: $p1 echoes in pod1, $p2 in pod2"
	pp_expect_eq "tcpdump: pod1's echoes (pod2's: $p2)" "$p1" $((4 * OV_PINGS))
	pp_expect_eq "tcpdump: pod2's echoes (pod1's: $p1)" "$p2" $((4 * OV_PINGS))
	for n in 1 2; do
		s=$(pp_jq "$(pp_out "$kind-node$n")" 'packets | length')
		pp_expect_eq "node$n's packets (tcpdump in pod$n: $p1)" "$s" "$p1"
	done
	"$PKTPATH" report "$(pp_out "$kind-node1")" "$(pp_out "$kind-node2")" --json \
		>"$joined" 2>"$PP_TMP/$kind-report.err" ||
		pp_fail "report of the two nodes failed: $(pp_brief 2 "$PP_TMP/$kind-report.err")"
	pp_expect_json_lines "$joined" "report --json output"
	n=$(pp_jq "$joined" '[.[] | select(has("joined"))] | length')
	pp_expect_eq "$kind: joined packets (tcpdump's echoes in the pods: $p1)" "$n" "$p1"
	s=$(pp_jq "$joined" '.[-1].join_summary | "\(.hosts) \(.alone)"')
	pp_expect_eq "$kind: hosts, parts alone" "$s" "2 0"
	# shellcheck disable=SC2016 # jq program
	pp_expect_none "$kind: a packet joined wrongly" "$joined" '
		def inner: .pkt.inner // .pkt;
		def echo: inner | [.icmp_type, .icmp_seq, .src, .dst];
		.[] | select(has("joined")) | .joined
		| (if (.parts[0] | inner.src) == "10.244.0.1" then ["node1", "node2"]
			else ["node2", "node1"] end | map($kind + "-" + .)) as $hosts
		| select((.parts | length) != 2 or [.parts[].host.name] != $hosts
			or .parts[0].pkt.tunnel != null
			or .parts[1].pkt.tunnel != $kind or .parts[1].pkt.vni != 42
			or (.parts[0] | echo) != (.parts[1] | echo))
		| "key \(.key): \([.parts[] | "\(.host.name) \(.pkt.tunnel) \(echo)"])"' \
		--arg kind "$kind"
}

for kind in vxlan geneve; do
	# VXLAN is needed; Geneve where the kernel has it.
	if [ "$kind" = geneve ] && ! ov_can geneve; then
		pp_log "geneve not checked: $OV_WHY"
		continue
	fi
	ov_up "$kind"
	oj_trace "$kind"
	oj_check "$kind"
done
pp_pass
