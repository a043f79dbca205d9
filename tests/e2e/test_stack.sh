#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --stack: the hops of the probe point named carry the kernel stack, named
# with kallsyms, innermost first; no other hop does. Pings from a to b,
# traced in the router with the stack at tp:net:net_dev_queue (the router
# sending each request on to b): its stack holds the transmit path that
# called it. A name not in the probe list is refused before anything runs.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin

err=$(pp_err bad)
pp_pktpath_run bad "$PP_NS_R" 10 --backend tracepoint --stack pp_no_such_point icmp
pp_expect_eq "--stack of a name not in the list: exit status" "$PP_RC" 2
grep -q -- "--stack pp_no_such_point: not a probe point" "$err" ||
	pp_fail "--stack of a name not in the list: $(pp_brief 2 "$err")"
pp_expect_no_pp_progs "--stack pp_no_such_point"

out=$(pp_out json)
pp_pktpath_start json "$PP_NS_R" --json --backend tracepoint -c 3 \
	--stack tp:net:net_dev_queue --filter "icmp and src 198.18.0.1"
pp_in "$PP_NS_A" ping -n -c 3 -i 0.2 -w 10 198.18.1.2 >"$PP_TMP/ping.out" 2>&1 ||
	pp_fail "ping a -> b failed: $(pp_brief_tail 2 "$PP_TMP/ping.out")"
pp_pktpath_wait json 15
pp_expect_eq "pktpath exit status" "$PP_RC" 0
pp_expect_json_lines "$out" "pktpath --json output"
pp_expect_eq "packets printed" "$(pp_jq "$out" 'packets | length')" 3
pp_expect_none "a stack on a hop of another probe point" "$out" \
	'packets[] | .hops[] | select(.stack and .func != "tp:net:net_dev_queue") | .func'
pp_expect_none "a net_dev_queue hop without its stack" "$out" '
	packets[] | .hops[] | select(.func == "tp:net:net_dev_queue" and (.stack | length) < 3)
	| tojson'
# __dev_queue_xmit() fires the tracepoint: the innermost frame names it
# (the BPF frames and bpf_trace_run's are skipped, not shown).
pp_expect_none "a stack that does not start at __dev_queue_xmit" "$out" '
	packets[] | .hops[] | select(.stack)
	| select(.stack[0] | startswith("__dev_queue_xmit+0x") | not) | .stack | join(" <- ")'
pp_log "a stack: $(pp_jq "$out" '[packets[].hops[] | select(.stack)][0].stack | join(" <- ")')"

# Text: the frames under the hop, one "at FRAME" line each.
out=$(pp_out text)
pp_pktpath_start text "$PP_NS_R" --backend tracepoint -c 1 \
	--stack tp:net:net_dev_queue --filter "icmp and src 198.18.0.1"
pp_in "$PP_NS_A" ping -n -c 1 -w 10 198.18.1.2 >/dev/null 2>&1 || pp_fail "ping a -> b failed"
pp_pktpath_wait text 15
pp_expect_eq "pktpath exit status (text)" "$PP_RC" 0
grep -A1 'tp:net:net_dev_queue$' "$out" | grep -qE '^ {53}at __dev_queue_xmit\+0x|^ {53}at ' ||
	pp_fail "text: no 'at FRAME' line under the net_dev_queue hop: $(head -c 2000 "$out")"
pp_pass
