#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Records reach the loader without a wakeup each (pp_wake_flags() in
# bpf/hop.bpf.h; the loader polls, loader/cmd/trace.c). That must cost
# neither output latency nor records, nor make an idle loader spin:
#   - idle, with nothing in flight, pktpath sleeps: a few wakeups a second;
#   - a lone ping after that idle time prints at once (the mark wakes the
#     loader): median latency of seven pings under 100 ms. Each is sent
#     just after the loader began an idle wait of 250 ms, so a lost wakeup
#     would make most of them wait some 150-250 ms; the median of seven
#     bears the odd sample that a loaded machine delays (seen: 93, 232,
#     425 ms among 4-9 ms at load 15);
#   - SIGINT right after a burst of pings: every packet printed, none lost
#     (the exit drains the ring);
#   - --duration ends the run on time, with the same packets printed.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin

# count_packets NAME: packets in pktpath run NAME's JSON output.
count_packets() {
	pp_jq "$(pp_out "$1")" 'packets | length'
}

# now_ms: the monotonic clock, ms.
now_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

ctx_switches() {
	awk '$1 == "voluntary_ctxt_switches:" { print $2 }' "/proc/$1/status"
}

# lone_ping: ms from ping's return until pktpath "idle" printed both paths.
lone_ping() {
	local n0 t0 i
	n0=$(wc -l <"$(pp_out idle)")
	pp_in "$PP_NS_A" ping -n -q -c 1 -w 5 198.18.1.2 >/dev/null ||
		pp_fail "ping a -> b failed"
	t0=$(date +%s%N)
	for ((i = 0; i < 1000; i++)); do
		[ "$(wc -l <"$(pp_out idle)")" -lt $((n0 + 2)) ] || break
		sleep 0.005
	done
	echo $((($(date +%s%N) - t0) / 1000000))
}

pp_pktpath_start idle "$PP_NS_R" --json --backend tracepoint --filter icmp
pid=${PP_PIDS[idle]}
sleep 0.5
# Per second of the time measured, not of the time asked for: a loaded
# machine's "sleep 3" can last longer, with more (timer) wakeups in it.
t0=$(now_ms)
c0=$(ctx_switches "$pid")
sleep 3
c1=$(ctx_switches "$pid")
t1=$(now_ms)
pp_log "idle: $((c1 - c0)) voluntary context switches in $((t1 - t0)) ms"
[ $(((c1 - c0) * 3000)) -le $((20 * (t1 - t0))) ] ||
	pp_fail "idle pktpath woke $((c1 - c0)) times in $((t1 - t0)) ms" \
		"(expected a few a second, 20 in 3 s at most)"

# Each ping is sent when pktpath has just begun an idle wait (250 ms):
# pp_pktpath_settle returns on seeing the second one begin. Only a wakeup
# by the mark can then print the paths sooner; a fixed sleep could not
# tell whether the busy polls (10 ms) were over.
lat=()
for i in 1 2 3 4 5 6 7; do
	pp_pktpath_settle idle 30
	lat+=("$(lone_ping)")
done
median=$(printf '%s\n' "${lat[@]}" | sort -n | sed -n 4p)
pp_log "lone ping: both paths printed after ${lat[*]} ms (median $median)"
[ "$median" -lt 100 ] ||
	pp_fail "a lone ping's paths printed after ${lat[*]} ms (median $median, want < 100)"
# A path that took longer than lone_ping waited must still be counted.
pp_pktpath_settle idle 30
pp_pktpath_stop idle INT
pp_expect_eq "idle run: exit status" "$PP_RC" 0
pp_expect_eq "idle run: packets" "$(count_packets idle)" 14

# Forty packets, SIGINT at once: what the ring holds must still print.
pp_pktpath_start burst "$PP_NS_R" --json --backend tracepoint --filter icmp
pp_in "$PP_NS_A" ping -n -q -c 20 -i 0.01 -w 5 198.18.1.2 >/dev/null ||
	pp_fail "ping burst a -> b failed"
pp_pktpath_stop burst INT
pp_expect_eq "burst run: exit status" "$PP_RC" 0
pp_expect_summary "$(pp_out burst)"
pp_expect_eq "burst run: packets printed (SIGINT right after 20 pings)" \
	"$(count_packets burst)" 40
pp_expect_eq "burst run: records lost" "$(jq -r .lost <<<"$PP_SUMMARY")" 0

# --duration: on time, everything printed.
# From the ready line, not from the start: attaching takes what the machine
# makes it take, and is not what --duration bounds.
pp_pktpath_start timed "$PP_NS_R" --json --backend tracepoint --filter icmp --duration 3
t0=$(now_ms)
pp_in "$PP_NS_A" ping -n -q -c 10 -i 0.05 -w 5 198.18.1.2 >/dev/null ||
	pp_fail "ping a -> b failed"
pp_pktpath_wait timed 10
t1=$(now_ms)
pp_expect_eq "--duration run: exit status" "$PP_RC" 0
pp_expect_eq "--duration run: packets" "$(count_packets timed)" 20
# 3 s of tracing, plus the exit; 5 s of slack for a loaded machine.
[ $((t1 - t0)) -lt 8000 ] || pp_fail "--duration 3 ran for $((t1 - t0)) ms"
pp_log "--duration 3: exited $((t1 - t0)) ms after the ready line was seen"

pp_pass
