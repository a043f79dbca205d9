#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Another tool's tc rules on the interfaces pktpath marks on survive its
# start and its exit untouched, and their verdicts and counters are the
# same while it runs as before and after.
#
# The router gets a clsact qdisc before pktpath starts, with (this kernel
# has cls_u32 and act_mirred, not flower, matchall or gact):
#   r-eth0 ingress prio 10: UDP to port 7777 -> mirred redirect to sink0,
#                           whose peer is down: a drop rule that counts;
#   r-eth0 ingress prio 20: any UDP -> mirred mirror to sink0: pass, count;
#   r-eth1 egress  prio 10: any UDP -> mirred mirror to sink0: pass, count.
# Three rounds (before pktpath, while pktpath -i r-eth0 -i r-eth1 traces
# "udp", after it exited) each send N datagrams to port 7777 and N to port
# 7778 from host a to host b. Every round: each rule counts exactly N more,
# host b sees exactly N (UDP NoPorts: 7778 only, none of 7777). The rules
# (tc filter show) are the same before, during and after, and pktpath
# itself saw the 7777 datagrams dropped and the 7778 ones reach b-eth0.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin

N=20
R=$PP_NS_R
ip -n "$R" link add sink0 type veth peer name sink1
ip -n "$R" link set sink0 up
tc -n "$R" qdisc add dev r-eth0 clsact
tc -n "$R" qdisc add dev r-eth1 clsact
u32=(protocol ip u32 match ip protocol 17 0xff)
tc -n "$R" filter add dev r-eth0 ingress prio 10 "${u32[@]}" match ip dport 7777 0xffff \
	action mirred egress redirect dev sink0 ||
	pp_skip "cannot add a u32 filter with a mirred action (cls_u32, act_mirred)"
tc -n "$R" filter add dev r-eth0 ingress prio 20 "${u32[@]}" action mirred egress mirror dev sink0
tc -n "$R" filter add dev r-eth1 egress prio 10 "${u32[@]}" action mirred egress mirror dev sink0

ppr_before
rules_before=$PP_TMP/rules.before.txt
# The foreign rules as tc shows them (no counters); a bpf filter of a
# clsact fallback of pktpath's own is not part of them.
rules() {
	_pp_tc_state "$R" full | grep -v -E ' bpf |pp_cls' >"$1"
}
rules "$rules_before"
grep -q 'mirred (Egress Redirect to device sink0)' "$rules_before" ||
	pp_fail "the drop rule is not in place: $(pp_brief 3 "$rules_before")"

# counters: the packets of the three rules' actions, then host b's UDP NoPorts.
action_packets() {
	tc -n "$R" -s -j filter show dev "$1" "$2" |
		jq -r --argjson p "$3" '[.[] | select(.pref == $p) | .options.actions[]?.stats.packets]
			| add // "none"'
}
counters() {
	echo "$(action_packets r-eth0 ingress 10) $(action_packets r-eth0 ingress 20)" \
		"$(action_packets r-eth1 egress 10) $(ppr_snmp "$PP_NS_B" Udp NoPorts)"
}

# round NAME: send, wait (bounded) for the counters to move by N each,
# then require exactly that.
round() {
	local c0 c1 want i
	c0=$(counters)
	ppr_udp_send "$PP_NS_A" 198.18.1.2 7777 "$N"
	ppr_udp_send "$PP_NS_A" 198.18.1.2 7778 "$N"
	want=$(awk -v n="$N" '{ for (i = 1; i <= NF; i++) printf "%s%d", (i > 1 ? " " : ""), $i + n }' \
		<<<"$c0")
	# 30 s at most: the bound only decides a failure.
	for ((i = 0; i < 300; i++)); do
		c1=$(counters)
		[ "$c1" != "$want" ] || break
		sleep 0.1
	done
	# A little longer: a late extra packet (7777 reaching b) must show too.
	sleep 0.3
	c1=$(counters)
	pp_log "round $1: counters (drop rule, ingress mirror, egress mirror, b NoPorts)" \
		"$c0 -> $c1"
	[ "$c1" = "$want" ] ||
		pp_fail "round $1: counters (drop rule, ingress mirror, egress mirror," \
			"b's UDP NoPorts) went from '$c0' to '$c1', expected '$want'"
}

round "without pktpath"

pp_pktpath_start tracer "$R" --json -i r-eth0 -i r-eth1 --filter udp
rules "$PP_TMP/rules.start.txt"
cmp -s "$rules_before" "$PP_TMP/rules.start.txt" ||
	pp_fail "the foreign tc rules changed when pktpath started:" \
		"$(diff "$rules_before" "$PP_TMP/rules.start.txt" | pp_brief 4)"
round "with pktpath"
out=$(pp_out tracer)
# Every packet printed before SIGINT (open ones would not be), however
# long the machine takes.
pp_pktpath_settle tracer 60
pp_pktpath_stop tracer INT
pp_expect_eq "pktpath's exit status" "$PP_RC" 0
rules "$PP_TMP/rules.exit.txt"
cmp -s "$rules_before" "$PP_TMP/rules.exit.txt" ||
	pp_fail "the foreign tc rules changed when pktpath exited:" \
		"$(diff "$rules_before" "$PP_TMP/rules.exit.txt" | pp_brief 4)"

round "after pktpath"
ppr_expect_clean "after pktpath exited" "$PP_BEFORE"

# What pktpath saw agrees with what the rules did.
pp_expect_json_lines "$out" "pktpath's output"
n7=$(pp_jq "$out" '[packets[] | select(.pkt.dport == 7777)] | length')
n8=$(pp_jq "$out" '[packets[] | select(.pkt.dport == 7778)] | length')
pp_expect_eq "packets to port 7777 reported" "$n7" "$N"
pp_expect_eq "packets to port 7778 reported" "$n8" "$N"
pp_expect_none "a datagram to 7777 (the drop rule's) not reported dropped before r-eth1" "$out" '
	packets[] | select(.pkt.dport == 7777)
	| select(.fate.kind != "dropped" or any(.hops[]; .ifname == "r-eth1" or .ifname == "b-eth0"))
	| "\(pkt_str): fate \(.fate.kind), path \(path_str)"'
pp_expect_none "a datagram to 7778 not reported reaching b-eth0" "$out" '
	packets[] | select(.pkt.dport == 7778) | select(any(.hops[]; .ifname == "b-eth0") | not)
	| "\(pkt_str): path \(path_str)"'
pp_pass
