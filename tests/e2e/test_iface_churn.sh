#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Interfaces that come and go while pktpath traces (a host starting and
# stopping containers). pktpath runs in the router's namespace with the
# default interface choice, which follows new interfaces. Meanwhile:
#   - a UDP flow of N datagrams (10 ms apart) from pp-a through the router
#     to pp-b, counted at pp-b by the kernel (Udp NoPorts: nobody listens);
#   - 50 veth pairs are created in the router's namespace and deleted
#     again, twice over, while the flow runs;
#   - one more pair, cx0 (router) -- cx1 (pp-b), is created, and after one
#     second a datagram is sent over it.
# Then: pktpath printed each of the N datagrams once (nothing lost on the
# surviving interfaces), the datagram over cx0 was marked at cx0 (the new
# interface got the classifier within a second), pktpath reported no error
# about interfaces that went away, and at exit nothing is left attached:
# no tcx link, no tc filter, no pp_ program. Run for tcx and for clsact
# (PKTPATH_NO_TCX=1).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_setup
pp_require_pktpath
pp_topo_up
ppr_topo_quiet

udp_sendto=$(dirname "$PKTPATH")/../tests/udp_sendto
[ -x "$udp_sendto" ] || pp_fail "no $udp_sendto (built with pktpath: cmake --build build)"
N=${PP_CHURN_PACKETS:-400}
PAIRS=50

ppr_snapshot_before "$PP_TMP/before.txt"

# churn ROUND: PAIRS veth pairs up in the router's namespace, then gone.
churn() {
	local i batch=$PP_TMP/churn.batch
	for ((i = 0; i < PAIRS; i++)); do
		echo "link add ch$1x$i type veth peer name cp$1x$i"
		echo "link set ch$1x$i up"
		echo "link set cp$1x$i up"
	done >"$batch"
	ip -n "$PP_NS_R" -batch "$batch" || return 1
	sleep 0.5
	for ((i = 0; i < PAIRS; i++)); do
		echo "link del ch$1x$i"
	done >"$batch"
	ip -n "$PP_NS_R" -batch "$batch"
}

# Nothing of pktpath's on any interface of NS: tcx links and tc filters.
expect_nothing_attached() {
	local ns left
	for ns in "$PP_NS_A" "$PP_NS_R" "$PP_NS_B"; do
		left=$(pp_in "$ns" bpftool -j net show | jq -r '.[] | (.tc // [])[], (.tcx // [])[]
			| select((.name // "") | startswith("pp_")) | "\(.devname) \(.kind)"')
		[ -z "$left" ] || pp_fail "$1: still attached in $ns: $(pp_brief 3 <<<"$left")"
	done
	pp_expect_no_pp_progs "$1"
}

run() {
	local mode=$1 name=churn-$1 out nop0 nop1 got i
	shift
	out=$(pp_out "$name")
	pp_log "mode $mode"
	pp_pktpath_start "$name" "$PP_NS_R" --json "$@" \
		'udp and (dst port 9999 or dst port 9998)'
	nop0=$(ppr_snmp "$PP_NS_B" Udp NoPorts)
	pp_bg "flow-$mode" "$PP_NS_A" "$udp_sendto" 198.18.1.2 9999 "$N"
	churn 1 || pp_fail "$mode: creating or deleting veths failed"
	# The new interface to stay: created while the flow runs.
	ip -n "$PP_NS_R" link add cx0 type veth peer name cx1 netns "$PP_NS_B"
	ip -n "$PP_NS_R" addr add 198.18.7.254/24 dev cx0
	ip -n "$PP_NS_B" addr add 198.18.7.2/24 dev cx1
	ip -n "$PP_NS_R" link set cx0 up
	ip -n "$PP_NS_B" link set cx1 up
	# By the line -v prints, not by a sleep: a loaded machine may take longer.
	pp_wait_line "$name" '^pktpath: cx0: classifier attached' 30
	pp_in "$PP_NS_B" "$udp_sendto" 198.18.7.254 9998 3
	churn 2 || pp_fail "$mode: creating or deleting veths failed"
	# udp_sendto ends by itself after N datagrams (N * 10 ms and more).
	pp_pktpath_wait "flow-$mode" 60
	pp_expect_eq "$mode: udp_sendto exit status" "$PP_RC" 0
	# Until the last datagrams reach pp-b (bounded), and pktpath printed them.
	for ((i = 0; i < 100; i++)); do
		nop1=$(ppr_snmp "$PP_NS_B" Udp NoPorts)
		[ "$((nop1 - nop0))" -lt "$N" ] || break
		sleep 0.1
	done
	pp_expect_eq "$mode: datagrams pp-b counted" "$((nop1 - nop0))" "$N"
	pp_pktpath_settle "$name" 60
	pp_stop "$name" INT
	pp_expect_eq "$mode: pktpath exit status" "$PP_RC" 0
	! grep -E 'cannot attach|cannot list|netlink' "$(pp_err "$name")" >"$PP_TMP/complaints" ||
		pp_fail "$mode: pktpath complained: $(pp_brief 2 "$PP_TMP/complaints")"
	pp_expect_json_lines "$out" "$mode: output"
	got=$(pp_jq "$out" '[packets[] | select(.pkt.dport == 9999)] | length')
	pp_expect_eq "$mode: flow datagrams traced" "$got" "$N"
	got=$(pp_jq "$out" '[packets[] | select(.pkt.dport == 9999) | .pkt.sport] | unique | length')
	pp_expect_eq "$mode: one source port" "$got" 1
	got=$(pp_jq "$out" '[packets[] | select(.pkt.dport == 9998 and .marked_at.ifname == "cx0"
		and .marked_at.dir == "ingress")] | length')
	pp_expect_eq "$mode: datagrams marked at the new cx0" "$got" 3
	pp_expect_summary "$out"
	pp_expect_eq "$mode: summary.lost" "$(jq -r '.lost' <<<"$PP_SUMMARY")" 0
	grep -q 'interfaces while tracing: [1-9][0-9]* came, [1-9][0-9]* went, 0 failed' \
		"$(pp_err "$name")" ||
		pp_fail "$mode: no interface came and went: $(grep 'while tracing' "$(pp_err "$name")")"
	expect_nothing_attached "$mode: after exit"
	ip -n "$PP_NS_R" link del cx0
}

run tcx -v
export PKTPATH_NO_TCX=1
run clsact -v
unset PKTPATH_NO_TCX
pp_expect_state "$PP_TMP/before.txt" "after both runs"
pp_pass
