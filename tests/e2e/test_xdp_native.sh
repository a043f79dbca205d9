#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Packets a native XDP program takes (veth's driver mode): in the router,
# a program on r-eth0 drops UDP to 7005 and passes the rest
# (tests/e2e/bpf_dropper.c). The datagrams a sends have less headroom than
# XDP wants, so the driver copies each for the program and consumes the
# packet's own skb (skb_pp_cow_data()): pktpath, tracing a, must not call
# them consumed (they were, before), nor follow what it cannot see. Each
# of the 3 datagrams to 7005 and 3 to 7006 ends "went on past XDP" at
# r-eth0; against the kernel's counts, the program dropped the 3 to 7005
# (its own counter) and the 3 to 7006 went on to b, which has no socket
# on the port (b's Udp NoPorts); each one's hint names the program at the
# hook. Needs consume_skb's location (6.3+).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin

dropper=""
pp_test_tool dropper bpf_dropper
grep -q 'skb_pp_cow_data$' /proc/kallsyms ||
	pp_skip "this kernel copies for veth's XDP without skb_pp_cow_data()"

pp_bg xdp "$PP_NS_R" "$dropper" r-eth0 xdp-native 7005 e2e_xdp_native
pp_wait_line xdp '^id [0-9]+$' 10
noports0=$(ppr_snmp "$PP_NS_B" Udp NoPorts)

out=$(pp_out native)
pp_pktpath_start native "$PP_NS_A" --json --backend tracepoint --filter "udp and dst 198.18.1.2"
for port in 7005 7006; do
	ppr_udp_send "$PP_NS_A" 198.18.1.2 "$port" 3
done
pp_pktpath_settle native 20
pp_pktpath_stop native INT
pp_stop xdp INT
pp_expect_json_lines "$out" "pktpath --json output"
pp_expect_summary "$out"

dropped=$(sed -n 's/^dropped //p' "$(pp_err xdp)")
pp_expect_eq "datagrams the XDP program dropped (its own count)" "$dropped" 3
pp_expect_eq "datagrams b had no socket for (Udp NoPorts)" \
	"$(($(ppr_snmp "$PP_NS_B" Udp NoPorts) - noports0))" 3
pp_expect_eq "packets" "$(pp_jq "$out" '[packets[]] | length')" 6
pp_expect_none "a packet not ended past XDP at r-eth0" "$out" '
	packets[] | select(.fate.kind != "xdp" or .hops[-1].ifname != "r-eth0")
	| "\(pkt_str): \(.fate.kind) at \(.hops[-1].func) on \(.hops[-1].ifname)"'
pp_expect_eq "the summary's xdp count" "$(jq -r .xdp <<<"$PP_SUMMARY")" 6
want="XDP on r-eth0; BPF programs there now: e2e_xdp_native (id $(sed -n 's/^id //p' "$(pp_err xdp)"), xdp native)"
pp_expect_none "a packet whose hint does not name the program" "$out" "
	packets[] | select(.fate.hint != \"$want\") | \"\\(pkt_str): \\(.fate.hint)\""
pp_pass
