#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --tc-script DIR: pktpath attaches no classifier itself; paths appear only
# after the user runs DIR/attach.sh (plain tc commands on pinned objects),
# and DIR/detach.sh brings the tc state back to what it was, the clsact
# qdisc included. At exit pktpath unpins and reminds to detach.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin

dir=$PP_TMP/script
ppr_before
pp_pktpath_start tcs "$PP_NS_A" --json -c 2 --tc-script "$dir" "icmp and src 198.18.0.1"
pid=${PP_PIDS[tcs]}
{ [ -x "$dir/attach.sh" ] && [ -x "$dir/detach.sh" ]; } || pp_fail "no attach.sh/detach.sh in $dir"
# pktpath must not attach by itself: no clsact, no tcx link on a-eth0.
! pp_in "$PP_NS_A" tc qdisc show | grep -q clsact ||
	pp_fail "a clsact qdisc before attach.sh: $(pp_in "$PP_NS_A" tc qdisc show)"
# Only links to this pktpath's programs (the ones its descriptors hold): other
# engineers' pktpaths on this machine have tcx links of their own.
mine=$({ grep -h '^prog_id:' /proc/"$pid"/fdinfo/* || true; } | awk '{ print $2 }' | jq -s -c .)
[ "$mine" != "[]" ] || pp_fail "pktpath (pid $pid) holds no BPF program: nothing to check"
! _pp_bpftool_list link | jq -e --argjson m "$mine" \
	'.[] | select(.type == "tcx" and (.prog_id as $i | $m | index([$i])))' >/dev/null ||
	pp_fail "a tcx link to pktpath's programs before attach.sh"

pp_in "$PP_NS_A" ping -c 2 -i 0.2 -W 5 198.18.1.2 >/dev/null || pp_fail "ping failed"
sleep 0.5
[ ! -s "$(pp_out tcs)" ] || pp_fail "paths before attach.sh: $(head -1 "$(pp_out tcs)")"

pp_in "$PP_NS_A" sh "$dir/attach.sh" >"$PP_TMP/attach.log" 2>&1 ||
	pp_fail "attach.sh failed: $(tail -2 "$PP_TMP/attach.log")"
pp_in "$PP_NS_A" ping -c 2 -i 0.2 -W 5 198.18.1.2 >/dev/null || pp_fail "ping failed"
pp_pktpath_wait tcs 10
pp_expect_eq "pktpath exit" "$PP_RC" 0
n=$(grep -c '"id"' "$(pp_out tcs)" || true)
pp_expect_eq "packets traced after attach.sh" "$n" 2
pp_expect_grep "reminder to detach" "$(pp_err tcs)" 'detach\.sh'
# This pktpath's pins only: another pktpath running --tc-script meanwhile
# has its own pktpath-PID directory.
[ ! -e "/sys/fs/bpf/pktpath-$pid" ] || pp_fail "pins left in /sys/fs/bpf/pktpath-$pid"
grep -qF "pktpath-$pid" "$dir/attach.sh" ||
	pp_fail "attach.sh does not use /sys/fs/bpf/pktpath-$pid: the pin check looks elsewhere"

pp_in "$PP_NS_A" sh "$dir/detach.sh" >"$PP_TMP/detach.log" 2>&1 ||
	pp_fail "detach.sh failed: $(tail -2 "$PP_TMP/detach.log")"
pp_expect_state "$PP_BEFORE" "after detach.sh"
pp_pass
