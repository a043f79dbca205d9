#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Once attached, pktpath keeps only what detaching needs (loader/kernel/privs.c),
# read from /proc/PID/status after "pktpath: ready":
#   - tcx (the default here), following interfaces (the default):
#     CAP_NET_ADMIN alone, in the effective, permitted and bounding sets
#     (for the attaches to interfaces that come later);
#   - tcx with --no-follow: no capability at all, in every set;
#   - clsact (PKTPATH_NO_TCX=1): CAP_NET_ADMIN alone (netlink deletes the
#     filters and qdisc), with and without --no-follow;
#   - --tc-script: none.
# Always no_new_privs and a seccomp filter (Seccomp: 2). Then packets are
# still traced, SIGINT still ends the run with exit 0, and the kernel
# (tc state, programs, links, pins) is as before the run.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin
ppr_before
net_admin=$(printf '%016x' $((1 << 12))) # CAP_NET_ADMIN is 12
none=0000000000000000

# status_of PID FIELD: FIELD's value in /proc/PID/status.
status_of() {
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"
}

# expect_privs NAME KEPT: the sets of pktpath NAME.
expect_privs() {
	local name=$1 kept=$2 pid f
	pid=${PP_PIDS[$name]}
	for f in CapEff CapPrm CapBnd; do
		pp_expect_eq "$name: $f" "$(status_of "$pid" "$f")" "$kept"
	done
	for f in CapInh CapAmb; do
		pp_expect_eq "$name: $f" "$(status_of "$pid" "$f")" "$none"
	done
	pp_expect_eq "$name: NoNewPrivs" "$(status_of "$pid" NoNewPrivs)" 1
	pp_expect_eq "$name: Seccomp" "$(status_of "$pid" Seccomp)" 2
}

# run NAME KEPT VAR=VALUE [OPTION...]: trace two pings, check the sets, SIGINT.
run() {
	local name=$1 kept=$2 var=$3 n
	shift 3
	pp_bg "$name" "$PP_NS_A" env "$var" "$PKTPATH" --json -i a-eth0 "$@" \
		"icmp and src 198.18.0.1"
	pp_wait_line "$name" '^pktpath: ready' "$PP_READY_TIMEOUT"
	expect_privs "$name" "$kept"
	pp_in "$PP_NS_A" ping -c 2 -i 0.2 -W 1 198.18.1.2 >/dev/null || pp_fail "ping failed"
	# Both echo requests traced: the loop works without privileges.
	for ((n = 0; n < 100; n++)); do
		[ "$(grep -c '"id"' "$(pp_out "$name")" || true)" -ge 2 ] && break
		sleep 0.1
	done
	n=$(grep -c '"id"' "$(pp_out "$name")" || true)
	[ "$n" -ge 2 ] || pp_fail "$name: $n packets traced, expected 2"
	pp_pktpath_stop "$name" INT
	pp_expect_eq "$name: exit status after SIGINT" "$PP_RC" 0
	ppr_expect_clean "$name: after SIGINT" "$PP_BEFORE"
}

run tcx "$net_admin" PP_MODE=tcx
run tcx-no-follow "$none" PP_MODE=tcx --no-follow
run clsact "$net_admin" PKTPATH_NO_TCX=1
run clsact-no-follow "$net_admin" PKTPATH_NO_TCX=1 --no-follow

dir=$PP_TMP/script
pp_pktpath_start script "$PP_NS_A" --json --tc-script "$dir" -i a-eth0 icmp
expect_privs script "$none"
pp_pktpath_stop script INT
pp_expect_eq "script: exit status after SIGINT" "$PP_RC" 0
ppr_expect_clean "script: after SIGINT" "$PP_BEFORE"
pp_pass
