#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tcx or clsact, per interface (loader/tc/tc_attach.c, use_tcx()): tcx links
# while pktpath holds at most 16 interfaces, clsact filters past that,
# except on an interface where another program is on tcx.
#   1. A pktpath X on the router's r-eth0 only: "(tcx)", and r-eth0 holds
#      X's tcx links.
#   2. With 10 more veth pairs in the router (more than 16 interfaces), a
#      second pktpath Y on all of them: r-eth0, where X is on tcx, gets
#      Y's tcx links; every other interface gets Y's clsact filters; the
#      ready line says "(tcx 1, clsact N-1)".
#   3. N UDP datagrams from a to b: Y prints each once, marked at r-eth0
#      ingress (tcx) and crossing r-eth1 (clsact).
# At the end nothing of either is left.
# Skipped where the kernel has no tcx (before Linux 6.6).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin
R=$PP_NS_R
N=10
udp_sendto=""
pp_test_tool udp_sendto udp_sendto

tcx_progs=""
pp_test_tool tcx_progs tcx_progs

# tc_kinds DEV: how pktpath's programs hang on DEV, e.g. "tc tc" or "tcx tcx".
tc_kinds() {
	{
		pp_in "$R" bpftool -j net show dev "$1" |
			jq -r '.[] | (.tc // [])[] | select((.name // "") | startswith("pp_")) | "tc"'
		pp_in "$R" "$tcx_progs" "$1" | awk '$2 ~ /^pp_/ { print "tcx" }'
	} | sort | paste -sd ' '
}

# 10 more veth pairs: more than 16 interfaces in the router.
for ((i = 0; i < 10; i++)); do
	echo "link add m$i type veth peer name n$i"
	echo "link set m$i up"
	echo "link set n$i up"
done >"$PP_TMP/batch"
ip -n "$R" -batch "$PP_TMP/batch"
ppr_before

pp_pktpath_start X "$R" -i r-eth0 --no-follow udp
grep -q '^pktpath: ready: .* 1 interface (tcx)$' "$(pp_err X)" ||
	pp_skip "no tcx here: $(grep '^pktpath: ready' "$(pp_err X)")"
pp_expect_eq "X: r-eth0" "$(tc_kinds r-eth0)" "tcx tcx"

pp_pktpath_start Y "$R" --json --no-follow udp
ready=$(grep '^pktpath: ready' "$(pp_err Y)")
echo "$ready" >"$PP_TMP/ready.Y"
total=$(sed -n 's/.* \([0-9]*\) interfaces (.*/\1/p' <<<"$ready")
[ "${total:-0}" -gt 16 ] || pp_fail "Y: want more than 16 interfaces: $ready"
pp_expect_grep "Y: ready line" "$PP_TMP/ready.Y" "interfaces \\(tcx 1, clsact $((total - 1))\\)\$"
pp_expect_eq "Y and X: r-eth0" "$(tc_kinds r-eth0)" "tcx tcx tcx tcx"
pp_expect_eq "Y: r-eth1" "$(tc_kinds r-eth1)" "tc tc"
pp_expect_eq "Y: m3" "$(tc_kinds m3)" "tc tc"

pp_in "$PP_NS_A" "$udp_sendto" 198.18.1.2 7001 "$N"
pp_pktpath_settle Y 30
pp_pktpath_stop Y INT
pp_expect_eq "Y: exit status" "$PP_RC" 0
out=$(pp_out Y)
pp_expect_json_lines "$out" "Y"
pp_expect_eq "Y: datagrams printed" "$(pp_jq "$out" 'packets | length')" "$N"
pp_expect_eq "Y: marked at r-eth0 ingress (tcx)" \
	"$(pp_jq "$out" '[packets[] | select(.marked_at.ifname == "r-eth0" and .marked_at.dir == "ingress")]
		| length')" "$N"
pp_expect_eq "Y: crossed r-eth1 (clsact)" \
	"$(pp_jq "$out" '[packets[] | select([.hops[].ifname] | index("r-eth1"))] | length')" "$N"
pp_pktpath_stop X INT
pp_expect_eq "X: exit status" "$PP_RC" 0
ppr_expect_clean "after X and Y" "$PP_BEFORE"
pp_pass
