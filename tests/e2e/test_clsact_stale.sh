#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The clsact fallback (kernels before tcx; forced here with PKTPATH_NO_TCX=1):
# filters left by killed runs are removed by the next run, and only those:
# another tool's filter on the same hook survives, and so does a live
# pktpath's. After the last run ends, no pktpath filter is left.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin
export PKTPATH_NO_TCX=1

dev=a-eth0
pp_in "$PP_NS_A" tc qdisc add dev "$dev" clsact
# u32 with a classid: this kernel has neither matchall nor tc actions.
pp_in "$PP_NS_A" tc filter add dev "$dev" ingress pref 7 u32 match u32 0 0 classid 1:1
ours() { pp_in "$PP_NS_A" tc filter show dev "$dev" "$1" | grep -c 'pp_cls_' || true; }

pp_pktpath_start live "$PP_NS_A" icmp
for i in 1 2 3 4 5; do
	pp_pktpath_start "killed$i" "$PP_NS_A" icmp
	pp_stop "killed$i" KILL
done
[ "$(ours ingress)" -ge 2 ] || pp_fail "no filter left by a killed run: the test proves nothing"

pp_pktpath_start last "$PP_NS_A" -c 1 icmp
pp_expect_grep "stale filters reported" "$(pp_err last)" 'removed a filter left by a killed'
pp_in "$PP_NS_A" ping -c 1 -W 5 198.18.1.2 >/dev/null || pp_fail "ping failed"
pp_pktpath_wait last 10
pp_expect_eq "last run: exit" "$PP_RC" 0
pp_expect_eq "pktpath filters while one pktpath lives (ingress)" "$(ours ingress)" 1
pp_pktpath_stop live
pp_expect_eq "live run: exit" "$PP_RC" 0
pp_expect_eq "pktpath filters left (ingress)" "$(ours ingress)" 0
pp_expect_eq "pktpath filters left (egress)" "$(ours egress)" 0
pp_in "$PP_NS_A" tc filter show dev "$dev" ingress | grep -q "u32.*fh 800::800" ||
	pp_fail "the other tool's filter is gone"
pp_pass
