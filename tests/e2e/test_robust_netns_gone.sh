#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Interfaces and namespaces that vanish under a running pktpath do not stop
# it: it keeps tracing what is left and exits cleanly on SIGINT.
# pktpath runs in the router (every interface of it, plus an extra veth
# x0 made for the purpose); echo requests from host a, two per step:
#   1. to b, through the router: traced;
#   2. x0, a traced interface, deleted (ip link del): to b again, traced;
#   3. namespace b deleted, which takes r-eth1 (a traced interface) with
#      it: to the router's own address, traced;
#   4. the router's namespace name deleted while pktpath runs inside (the
#      namespace lives on with it): to the router again, traced.
# Then SIGINT: exit 0, whole JSON lines with the summary last, 8 packets;
# no pp_* program, link, map or pin left, the root namespace's tc hooks as
# before, and no bpf filter in host a's namespace.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin

R=$PP_NS_R
ip -n "$R" link add x0 type veth peer name x1
ip -n "$R" link set x0 up
ip -n "$R" link set x1 up
ppr_before
root_before=$(_pp_tc_state "" hooks)

out=$(pp_out tracer)
pp_pktpath_start tracer "$R" --json --filter "icmp and src 198.18.0.1"
pp_expect_grep "interfaces marked" "$(pp_err tracer)" '^pktpath: ready: .* [4-9] interfaces'

# step WHAT DST: two echo requests to DST; then (bounded) wait until
# pktpath printed them, and check it is still running.
total=0
step() {
	local i n
	pp_in "$PP_NS_A" ping -n -q -c 2 -i 0.2 -w 5 "$2" >"$PP_TMP/ping.out" 2>&1 ||
		pp_fail "$1: ping $2 failed: $(pp_brief_tail 2 "$PP_TMP/ping.out")"
	total=$((total + 2))
	# 30 s at most: the bound only decides a failure.
	for ((i = 0; i < 300; i++)); do
		n=$(grep -c '"id"' "$out" || true)
		[ "$n" -lt "$total" ] || break
		sleep 0.1
	done
	pp_alive "${PP_PIDS[tracer]}" ||
		pp_fail "$1: pktpath is gone: $(pp_brief_tail 2 "$(pp_err tracer)")"
	[ "$n" -eq "$total" ] ||
		pp_fail "$1: pktpath printed $n packets in all, expected $total" \
			"(stderr: $(_pp_last_line "$(pp_err tracer)"))"
	pp_log "$1: traced ($n packets so far)"
}

# gone NS DEV: wait (bounded) until DEV no longer exists in NS.
gone() {
	local i
	for ((i = 0; i < 100; i++)); do
		ip -n "$1" link show dev "$2" >/dev/null 2>&1 || return 0
		sleep 0.1
	done
	pp_fail "$2 still exists in $1 10 s after its deletion"
}

step "all interfaces up" 198.18.1.2
ip -n "$R" link del x0
gone "$R" x0
step "x0 deleted" 198.18.1.2
ip netns delete "$PP_NS_B"
gone "$R" r-eth1
step "namespace b deleted" 198.18.0.254
# The namespace outlives its name while pktpath is in it; reach it by pid.
ip netns delete "$R"
step "router namespace's name deleted" 198.18.0.254

pp_pktpath_stop tracer INT
pp_expect_eq "exit status after SIGINT" "$PP_RC" 0
pp_expect_json_lines "$out" "pktpath's output"
pp_expect_summary "$out"
sp=$(jq -r '.packets' <<<"$PP_SUMMARY")
pp_expect_eq "summary.packets" "$sp" "$total"
to_r=$(pp_jq "$out" '[packets[] | select(.pkt.dst == "198.18.0.254")] | length')
pp_expect_eq "packets to the router after b's namespace went" "$to_r" 4

pp_expect_no_pp_progs "after exit"
end=$((SECONDS + PP_FREE_GRACE))
while [ "$SECONDS" -le "$end" ]; do
	left=$(ppr_leftovers "$PP_NS_A" | sort | comm -13 <(sort "$PP_BEFORE.left") -)
	[ -n "$left" ] || break
	sleep 0.1
done
[ -z "$left" ] || pp_fail "pktpath objects left after exit: $(pp_brief 3 <<<"$left")"
# (Again with a grace period: someone else's tool may be changing them.)
end=$((SECONDS + PP_FREE_GRACE))
while [ "$SECONDS" -le "$end" ]; do
	root_after=$(_pp_tc_state "" hooks)
	[ "$root_before" != "$root_after" ] || break
	sleep 0.1
done
[ "$root_before" = "$root_after" ] ||
	pp_fail "root namespace tc hooks changed:" \
		"$(diff <(echo "$root_before") <(echo "$root_after") | pp_brief 3)"
pp_pass
