#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# pktpath leaves the kernel as it found it: the tc state of every interface
# (test namespaces and the root namespace) and the list of pp_* BPF
# programs and links are the same before a run and after it, however the
# run ends: SIGINT, SIGTERM, -c reached, or even SIGKILL (tcx links, which
# this kernel has, die with the process; a clsact fallback would not).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin
ppr_before

# ping_some: a little tracked traffic, so each run stops with real state
# (marked packets, map entries) rather than an idle attach.
ping_some() {
	pp_in "$PP_NS_A" ping -n -q -c 2 -i 0.2 -w 5 198.18.1.2 >/dev/null 2>&1 ||
		pp_fail "ping a -> b failed during the $1 run"
}

# While pktpath runs, the snapshot must differ: otherwise the comparisons
# below could not see a leak either.
expect_attached() {
	local during=$PP_TMP/state.during-$1.txt
	pp_state_snapshot "$during"
	! cmp -s "$PP_BEFORE" "$during" ||
		pp_fail "$1 run: kernel state while pktpath runs equals the state before;" \
			"the snapshot does not see pktpath's programs"
}

for sig in INT TERM; do
	name=sig$sig
	pp_pktpath_start "$name" "$PP_NS_R" --filter "icmp and src 198.18.0.1"
	expect_attached "$name"
	ping_some "$name"
	pp_pktpath_stop "$name" "$sig"
	pp_expect_eq "exit status after SIG$sig" "$PP_RC" 0
	pp_expect_state "$PP_BEFORE" "after SIG$sig"
done

pp_pktpath_start count "$PP_NS_R" -c 1 --filter "icmp and src 198.18.0.1"
expect_attached count
ping_some count
pp_pktpath_wait count 15
pp_expect_eq "exit status after -c 1" "$PP_RC" 0
pp_expect_state "$PP_BEFORE" "after -c 1"

pp_pktpath_start kill "$PP_NS_R" --filter "icmp and src 198.18.0.1"
ping_some kill
pp_pktpath_stop kill KILL
pp_expect_state "$PP_BEFORE" "after SIGKILL"

pp_expect_no_pp_progs "at the end"
pp_pass
