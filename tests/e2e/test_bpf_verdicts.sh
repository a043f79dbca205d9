#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Drops by other BPF programs, on the host (no fexit on BPF programs: the
# VM scenario bpf-verdicts tests --verdicts' hops): in
# the router, one program drops UDP to port 7001 at r-eth0's clsact
# ingress, one UDP to 7002 in XDP's generic mode on r-eth0, one UDP to
# 7003 at r-eth1's tcx egress (tests/e2e/bpf_dropper.c); UDP to 7004 goes
# through. pktpath runs in a, so that its own classifier is not on those
# hooks, and the router is another namespace to look into. Each dropped
# datagram's hint names the program at that hook by its name, id and
# attachment, as the kernel lists them (the ids bpf_dropper printed);
# the datagram that went through is not dropped there. Then the same
# datagrams again, under --summary and an agent with --metrics: their drop
# places name the programs (2 drops each in the agent's counters).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin curl

dropper="" udp_sendto=""
pp_test_tool dropper bpf_dropper
pp_test_tool udp_sendto udp_sendto

# drop NAME IFACE HOOK PORT: bpf_dropper in r, attached.
drop() {
	pp_bg "$1" "$PP_NS_R" "$dropper" "$2" "$3" "$4" "$1"
	pp_wait_line "$1" '^id [0-9]+$' 10
}
# id NAME: the id of bpf_dropper NAME's program.
id() { sed -n 's/^id //p' "$(pp_err "$1")"; }

drop e2e_tc_drop r-eth0 clsact-ingress 7001
drop e2e_xdp_drop r-eth0 xdp-generic 7002
drop e2e_tcx_drop r-eth1 tcx-egress 7003
tc_id=$(id e2e_tc_drop) xdp_id=$(id e2e_xdp_drop) tcx_id=$(id e2e_tcx_drop)
pp_log "programs: e2e_tc_drop $tc_id, e2e_xdp_drop $xdp_id, e2e_tcx_drop $tcx_id"

out=$(pp_out verdicts)
# --verdicts where the kernel has no BPF trampolines (this host's): said, and
# the programs at the hook named as without it.
pp_pktpath_start verdicts "$PP_NS_A" --json --backend tracepoint --verdicts \
	--filter "udp and dst 198.18.1.2"
grep -q -- "--verdicts: this kernel has no BPF trampolines" "$(pp_err verdicts)" ||
	pp_fail "--verdicts without trampolines not said: $(head -n 3 "$(pp_err verdicts)")"
for port in 7001 7002 7003 7004; do
	pp_in "$PP_NS_A" "$udp_sendto" 198.18.1.2 "$port" 2
done
pp_pktpath_settle verdicts 20
pp_pktpath_stop verdicts INT
pp_expect_json_lines "$out" "pktpath --json output"
pp_expect_summary "$out"

# hint PORT: the hints of the datagrams to PORT, one per line.
hint() { pp_jq "$out" "packets[] | select(.pkt.dport == $1) | .fate.hint // \"-\""; }
# named PORT PROGRAM: both of PORT's datagrams name PROGRAM.
named() {
	local n
	n=$(hint "$1" | grep -cF -- "BPF programs there now: $2")
	pp_expect_eq "datagrams to $1 whose hint names $2 ($(hint "$1" | head -1))" "$n" 2
}
named 7001 "e2e_tc_drop (id $tc_id, clsact)"
named 7002 "e2e_xdp_drop (id $xdp_id, xdp generic)"
named 7003 "e2e_tcx_drop (id $tcx_id, tcx)"
pp_expect_none "a datagram to 7004 dropped in the router" "$out" '
	packets[] | select(.pkt.dport == 7004 and .fate.kind == "dropped"
		and (.fate.hint | test("netns [^)]*-r\\)"))) | "\(pkt_str): \(.fate | tojson)"'

# Drops by program: the summary's drop places (--summary) and the agent's
# counters (--agent --metrics, in the root namespace) name the programs.
addr=127.0.0.1:$((20000 + $$ % 20000))
pp_pktpath_start summary "$PP_NS_A" --summary --backend tracepoint --filter "udp and dst 198.18.1.2"
pp_root_start agent --agent --metrics "$addr"
for port in 7001 7002 7003 7004; do
	pp_in "$PP_NS_A" "$udp_sendto" 198.18.1.2 "$port" 2
done
pp_pktpath_settle summary 20
pp_pktpath_stop summary INT
progs=("e2e_tc_drop (id $tc_id, clsact)" "e2e_xdp_drop (id $xdp_id, xdp generic)"
	"e2e_tcx_drop (id $tcx_id, tcx)")
# agent_drops PROG: the drops the agent's metrics count for PROG.
agent_drops() {
	awk -v p="bpf_programs=\"$1\"" '/^pktpath_drops_total\{/ && index($0, p) { s += $NF }
		END { print s + 0 }' "$PP_TMP/metrics.txt"
}
# The agent reads the kernel's drop counters once a second: the drops are
# in its metrics from its next read on.
for _ in $(seq 10); do
	curl -sf "http://$addr/metrics" >"$PP_TMP/metrics.txt" || pp_fail "no metrics from the agent"
	[ "$(agent_drops "${progs[0]}")$(agent_drops "${progs[1]}")$(agent_drops "${progs[2]}")" != 222 ] ||
		break
	sleep 1
done
pp_stop agent INT
for prog in "${progs[@]}"; do
	n=$(grep -cF "BPF programs there now: $prog" "$(pp_out summary)" || true)
	pp_expect_eq "summary drop places naming $prog" "$n" 1
	pp_expect_eq "the agent's drops counted for $prog" "$(agent_drops "$prog")" 2
done
pp_pass
