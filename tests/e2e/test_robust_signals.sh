#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# SIGINT and SIGTERM at any moment end pktpath cleanly and leave the kernel
# as it was (tc state of the root and test namespaces, pp_* programs and
# links, maps, pins):
#   - during attach: the signal comes 0 to 300 ms after the start, before
#     the "ready" line for most delays (attach takes about 200 ms here);
#     exit 0, or death by that very signal if it came before pktpath could
#     catch it (nothing is attached then);
#   - during tracing, with packets in flight: exit 0, every line written is
#     whole JSON and the summary is the last one.
# A crash (any other status) or anything left behind fails the test.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin
ppr_before

filter="icmp and src 198.18.0.1"
during_attach=0
runs=0

# early SIG MS: signal pktpath MS milliseconds after its start.
early() {
	local sig=$1 ms=$2 name pid signo comm ready=no
	name=early-$sig-$ms
	runs=$((runs + 1))
	pp_bg "$name" "$PP_NS_R" "$PKTPATH" --json --filter "$filter"
	pid=${PP_PIDS[$name]}
	sleep "$(printf '0.%03d' "$ms")"
	# What the signal meets: pktpath itself (not yet env or ip before
	# their exec), and whether it has said "ready".
	comm=$(cat "/proc/$pid/comm" 2>/dev/null || echo gone)
	grep -q '^pktpath: ready' "$(pp_err "$name")" && ready=yes
	pp_stop "$name" "$sig"
	signo=$(kill -l "$sig")
	if [ "$PP_RC" -eq $((128 + signo)) ] && [ "$ready" = no ]; then
		pp_log "$name: died of SIG$sig before it could catch it (comm $comm): nothing attached yet"
	elif [ "$PP_RC" -ne 0 ]; then
		pp_fail "SIG$sig $ms ms after the start (ready: $ready, comm $comm):" \
			"exit status $PP_RC: $(pp_brief_tail 2 "$(pp_err "$name")")"
	fi
	if [ "$comm" = pktpath ] && [ "$ready" = no ]; then
		during_attach=$((during_attach + 1))
	fi
	pp_log "$name: ready before the signal: $ready; exit $PP_RC"
	ppr_expect_clean "after SIG$sig $ms ms after the start (ready: $ready)" "$PP_BEFORE"
}

for sig in INT TERM; do
	for ms in 0 10 25 50 75 100 150 200 250 300; do
		early "$sig" "$ms"
	done
done
# Not vacuous: some signals must have met pktpath itself while attaching.
[ "$during_attach" -gt 0 ] ||
	pp_fail "none of the $runs signals reached pktpath between its start and its" \
		"ready line: the during-attach cases tested nothing"
pp_log "$during_attach of $runs signals came while pktpath was attaching"

# During tracing, with pings going through the router all the time.
for sig in INT TERM; do
	name=tracing-$sig
	out=$(pp_out "$name")
	pp_pktpath_start "$name" "$PP_NS_R" --json --filter "$filter"
	pp_bg "ping-$sig" "$PP_NS_A" ping -n -q -i 0.01 -c 1000 -w 30 198.18.1.2
	# Until some packets are out, so that some are also in flight: while
	# ping runs (1000 pings), 30 s at most, a bound for failures only.
	for ((i = 0; i < 300; i++)); do
		[ "$(grep -c '"id"' "$out" || true)" -lt 20 ] || break
		pp_alive "${PP_PIDS[ping-$sig]}" || break
		sleep 0.1
	done
	[ "$(grep -c '"id"' "$out" || true)" -ge 20 ] ||
		pp_fail "tracing-$sig: fewer than 20 packets printed while ping ran" \
			"(or in 30 s): $(pp_brief_tail 2 "$(pp_err "ping-$sig")")"
	pp_stop "$name" "$sig"
	pp_expect_eq "exit status after SIG$sig while tracing" "$PP_RC" 0
	pp_stop "ping-$sig" INT
	pp_expect_json_lines "$out" "output after SIG$sig while tracing"
	pp_expect_summary "$out"
	ppr_expect_clean "after SIG$sig while tracing" "$PP_BEFORE"
done
pp_pass
