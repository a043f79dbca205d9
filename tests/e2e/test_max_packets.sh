#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --max-packets under a flood: a packet that matched while skb_map was
# full is counted once in map_full, however many TC hooks it crosses. N
# datagrams cross the router (r-eth0 ingress, r-eth1 egress) while
# pktpath there may track 4 at a time; the router's nftables counter at
# prerouting (after TC ingress, where the datagrams are marked) is the
# independent count of the datagrams the filter matched. Each is either a
# packet printed or one of map_full, exactly: printed + map_full = N.
# Counting at every hook made map_full twice the untracked packets.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin nft
ppr_topo_quiet

flood=""
pp_test_tool flood udp_flood
n=6000 pps=20000 port=9000

pp_in "$PP_NS_R" nft -f - <<'NFT'
table ip pp_maxp {
	chain pre {
		type filter hook prerouting priority raw;
		ip saddr 198.18.0.1 udp dport 9000 counter
	}
}
NFT
pp_defer ip netns exec "$PP_NS_R" nft delete table ip pp_maxp
pp_bg sink "$PP_NS_B" "$flood" sink "$port"
pp_wait_line sink '^udp_flood: listening' 10

out=$(pp_out maxp)
pp_pktpath_start maxp "$PP_NS_R" --backend tracepoint --json --max-packets 4 \
	--filter "udp and src 198.18.0.1 and dst port $port"
pp_in "$PP_NS_A" "$flood" send 198.18.1.2 "$n" "$pps" "$port" >"$PP_TMP/send.out" 2>&1 ||
	pp_fail "flood failed: $(pp_brief_tail 2 "$PP_TMP/send.out")"
pp_pktpath_settle maxp 20
pp_pktpath_stop maxp
pp_expect_eq "pktpath exit status" "$PP_RC" 0
pp_stop sink
pp_expect_json_lines "$out" "pktpath --json output"
pp_expect_summary "$out"

matched=$(pp_in "$PP_NS_R" nft -j list table ip pp_maxp |
	jq '[.nftables[].rule? // empty | .expr[] | .counter? // empty | .packets] | add')
printed=$(pp_jq "$out" 'packets | length')
full=$(jq -r '.map_full' <<<"$PP_SUMMARY")
pp_log "nft prerouting: $matched datagrams; pktpath: $printed printed, map_full $full," \
	"$(grep -m1 -E 'untracked|map' "$(pp_err maxp)" || true)"
[ "$full" -gt 0 ] || pp_fail "skb_map was never full: the flood did not test the count"
pp_expect_eq "packets printed + map_full (the router's nft count)" $((printed + full)) "$matched"
# Tracked ones are whole: marked where they came in, never at r-eth1 from the middle.
pp_expect_eq "packets marked at r-eth0 ingress (of $printed)" \
	"$(pp_jq "$out" '[packets[] | select(.marked_at.ifname == "r-eth0")] | length')" "$printed"
pp_pass
