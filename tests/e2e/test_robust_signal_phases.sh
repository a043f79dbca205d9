#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Ctrl-C and SIGTERM end pktpath at once in every phase, with big filters:
#   - while libpcap compiles a filter it takes minutes over ("tcp and (host
#     A or ... 3000 hosts)": a top-level "and", so compiled whole, as tcpdump
#     would): death by that signal within 2 s, nothing attached, nothing
#     left in the kernel;
#   - traced with a 3000-host chain compiled in chunks, whose only address
#     of the test network is the last term: the pings are traced (the joined
#     chunks mark what the last one matches), and the signal detaches
#     cleanly: exit 0, nothing left.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_setup
pp_require_pktpath
pp_topo_up

before=$PP_TMP/state.before.txt
ppr_snapshot_before "$before"

# hosts N: "host 198.19.X.Y or ..." N terms, none an address of the topology.
hosts() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++)
		printf "%shost 198.19.%d.%d", (i ? " or " : ""), int(i / 250) % 250, i % 250 + 1 }'
}

slow="tcp and ($(hosts 3000))"
for sig in TERM INT; do
	name=compile-$sig
	# One argument per word: the whole is past a single argument's 128 KiB.
	# shellcheck disable=SC2086
	pp_bg "$name" "$PP_NS_R" "$PKTPATH" $slow
	pid=${PP_PIDS[$name]}
	sleep 1.5
	pp_alive "$pid" || pp_fail "$name: pktpath ended before the signal:" \
		"$(pp_brief_tail 2 "$(pp_err "$name")")"
	! grep -q '^pktpath: ready' "$(pp_err "$name")" ||
		pp_fail "$name: compiled and attached in 1.5 s: the compile phase was not tested"
	t0=$(date +%s%N)
	pp_stop "$name" "$sig"
	ms=$((($(date +%s%N) - t0) / 1000000))
	pp_expect_eq "$name: exit status (death by SIG$sig)" "$PP_RC" $((128 + $(kill -l "$sig")))
	[ "$ms" -le 2000 ] || pp_fail "$name: exit took $ms ms after SIG$sig (at most 2000)"
	pp_log "$name: ended $ms ms after SIG$sig, status $PP_RC"
	ppr_expect_clean "after SIG$sig while compiling" "$before"
done

chain="$(hosts 2999) or host 198.18.1.2"
for sig in TERM INT; do
	name=traced-$sig
	out=$(pp_out "$name")
	# shellcheck disable=SC2086
	pp_pktpath_start "$name" "$PP_NS_R" --json $chain
	pp_in "$PP_NS_A" ping -n -q -c 3 -i 0.2 198.18.1.2 >/dev/null ||
		pp_fail "$name: ping failed"
	pp_pktpath_settle "$name" 10
	t0=$(date +%s%N)
	pp_stop "$name" "$sig"
	ms=$((($(date +%s%N) - t0) / 1000000))
	pp_expect_eq "$name: exit status after SIG$sig" "$PP_RC" 0
	[ "$ms" -le 2000 ] || pp_fail "$name: exit took $ms ms after SIG$sig (at most 2000)"
	pp_expect_json_lines "$out" "$name output"
	n=$(grep -c '"proto":"icmp"' "$out" || true)
	[ "$n" -ge 3 ] || pp_fail "$name: $n ICMP packets traced, expected the 3 echo" \
		"requests at least (the last term of 3000)"
	pp_log "$name: $n ICMP packets traced; ended $ms ms after SIG$sig"
	ppr_expect_clean "after SIG$sig while tracing a 3000-host filter" "$before"
done
pp_pass
