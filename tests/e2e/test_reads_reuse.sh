#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A socket at a freed socket's address reads only its own packets, on the
# tracepoint backend, traced in the receiver's namespace b. sk_reuse's
# receiver closes each connection with its data unread until the kernel
# gives a new connection's socket the address of the one it closed (both
# ends on one CPU: the slab hands the freed object out again), and reads
# that one. Every connection comes from the same port, so the new stream's
# sequence numbers lie just past the old one's (the initial sequence number
# moves on with the clock). The closed connection's segments were queued
# to its socket (bpf/reads.bpf.h, pp_queue_note()) and freed by its close
# with no skb tracepoint (tcp_close() -> __kfree_skb()): none of them may
# end "read by sk_reuse"; the read connection's segments, told by their
# size (100 + its number), end read by it, as many bytes as it read.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin taskset
ppr_topo_quiet

reuse=""
pp_test_tool reuse sk_reuse

pp_bg sink "$PP_NS_B" taskset -c 0 "$reuse" sink 9003 30
pp_wait_line sink '^sk_reuse: listening' 10
pp_pktpath_start reuse "$PP_NS_B" --json --backend tracepoint --packet-timeout 2 \
	--filter "tcp port 9003"
pp_in "$PP_NS_A" taskset -c 0 "$reuse" send 198.18.1.2 9003 40003 30 10 \
	>"$PP_TMP/send.out" || true
for ((i = 0; i < 100; i++)); do
	pp_alive "${PP_PIDS[sink]}" || break
	sleep 0.1
done
pp_stop sink INT
pp_pktpath_settle reuse 30
pp_pktpath_stop reuse INT
pp_expect_eq "exit status" "$PP_RC" 0
out=$(pp_out reuse)
pp_expect_json_lines "$out" "reuse output"
pp_log "sender: $(tr '\n' ';' <"$PP_TMP/send.out")"
pp_log "receiver: $(tr '\n' ';' <"$(pp_out sink)")"
line=$(grep '^reused ' "$(pp_out sink)" || true)
[ -n "$line" ] || pp_skip "no connection's socket took a closed one's address in 30 tries"
read -r _ conn _ bytes _ <<<"${line/:/}"
size=$((100 + conn))

data='.marked_at.dir == "ingress" and .pkt.tcp_len > 0'
pp_log "data segments: $(pp_jq "$out" "[packets[] | select($data)
	| \"\(.pkt.tcp_len) bytes: \(.fate.kind)\"
	+ (if .fate.read then \" read by \(.fate.read.comm)\" else \"\" end)]
	| group_by(.) | map(\"\(length) of \(.[0])\") | join(\", \")")"
# shellcheck disable=SC2016 # jq program
pp_expect_none "a closed connection's segment read by the new socket" "$out" "
	packets[] | select($data and .pkt.tcp_len != \$size and .fate.read)
	| \"\(pkt_str): \(path_str)\"" --argjson size "$size"
read=$(pp_jq "$out" "[packets[] | select($data and .pkt.tcp_len == $size
	and .fate.kind == \"consumed\" and .fate.read.comm == \"sk_reuse\") | .pkt.tcp_len]
	| add // 0")
pp_expect_eq "connection $conn: bytes of segments read by sk_reuse" "$read" "$bytes"
pp_pass
