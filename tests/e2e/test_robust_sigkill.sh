#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# SIGKILL cannot be caught: whatever pktpath holds must go with the process.
# Twenty runs are killed in a row at random moments (half of them 0 to
# 150 ms after the start, mostly while attaching; half 0 to 400 ms after
# the ready line, while tracing), with pings
# crossing the router all along so that packets are marked and in flight;
# then a normal run traces to completion (-c 3) and exits 0. After each
# kill and at the end: no pp_* program, tcx link, pktpath map or pin is
# left, no bpf tc filter on any interface of the root or test namespaces,
# and the tc state is as before (a clsact fallback would fail here: its
# filters outlive the process).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin
ppr_before

filter="icmp and src 198.18.0.1"
kills=20
after_ready=0
# -w: longer than the test may run (run.sh's 600 s); stopped below.
pp_bg pings "$PP_NS_A" ping -n -q -i 0.02 -w 590 198.18.1.2

for ((k = 1; k <= kills; k++)); do
	name=kill$k
	pp_bg "$name" "$PP_NS_R" "$PKTPATH" --json --filter "$filter"
	# Odd runs: 0-149 ms after the start, mostly while attaching; even
	# runs: 0-399 ms after the ready line, while tracing.
	# The first at once: some kill before the ready line by construction
	# (attaching takes far longer than a fork), whatever the speed.
	if ((k == 1)); then
		ms=0
	elif ((k % 2)); then
		ms=$((RANDOM % 150))
	else
		pp_wait_line "$name" '^pktpath: ready' "$PP_READY_TIMEOUT"
		ms=$((RANDOM % 400))
	fi
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	ready=no
	if grep -q '^pktpath: ready' "$(pp_err "$name")"; then
		ready=yes
		after_ready=$((after_ready + 1))
	fi
	pp_stop "$name" KILL
	pp_log "$name: SIGKILL (ready: $ready, then $ms ms)"
	ppr_expect_clean "after SIGKILL #$k (ready: $ready, then $ms ms)" "$PP_BEFORE"
done
# Not vacuous: kills on both sides of the ready line.
if [ "$after_ready" -eq 0 ] || [ "$after_ready" -eq "$kills" ]; then
	pp_fail "$after_ready of $kills kills came after the ready line: wanted some" \
		"before and some after"
fi
pp_log "$after_ready of $kills kills came after the ready line"
pp_stop pings INT

# Then a normal run, which must still work.
pp_pktpath_start final "$PP_NS_R" --json -c 3 --filter "$filter"
pp_in "$PP_NS_A" ping -n -q -c 3 -i 0.2 -w 5 198.18.1.2 >/dev/null ||
	pp_fail "ping a -> b failed after the kills"
pp_pktpath_wait final 15
pp_expect_eq "exit status of the run after the kills" "$PP_RC" 0
n=$(pp_jq "$(pp_out final)" 'packets | length')
pp_expect_eq "packets printed by the run after the kills" "$n" 3
ppr_expect_clean "after the normal run that followed the kills" "$PP_BEFORE"
pp_pass
