#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Delivered means delivered, for bulk TCP downloads on the tracepoint
# backend: curl in a fetches 2 MB five times from python's http.server in b through
# r, which masquerades a's address; pktpath runs in r, as on a host whose
# containers sit behind it. tcpdump on a-eth0 counts the data segments
# that reached a. Every one of them is one packet in pktpath, and at least
# 99% end consumed, read by curl: a bulk stream's segments are coalesced
# into the skb queued before them (tcp_try_coalesce(), the backlog's
# skb_try_coalesce() in tcp_add_backlog()) and freed with no skb
# tracepoint, so their end is the read that passes them
# (bpf/reads.bpf.h, pp_queue_reads()). Before pp_state.waiting, 7 of 259
# data segments in four 2 MB downloads ended "end not seen": a transfer's
# tail, merged while no other skb was in flight, whose reads the receive
# call's program skipped at its gate.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin nft curl python3 tcpdump
ppr_topo_quiet

www=$PP_TMP/www
mkdir -p "$www"
head -c $((2 << 20)) /dev/urandom >"$www/f.bin"
pp_in "$PP_NS_R" nft -f - <<'EOF'
table ip pp_bulk {
	chain post {
		type nat hook postrouting priority 100; policy accept;
		oifname "r-eth1" masquerade
	}
}
EOF
pp_bg web "$PP_NS_B" python3 -m http.server -b 198.18.1.2 -d "$www" 8000
for ((i = 0; i < 50; i++)); do
	pp_in "$PP_NS_B" ss -Hltn 'sport = :8000' | grep -q . && break
	sleep 0.1
done
pp_bg dump "$PP_NS_A" tcpdump --immediate-mode -i a-eth0 -n -s 96 -B 16384 -w "$PP_TMP/a.pcap" -U \
	"tcp src port 8000 and (tcp[tcpflags] & tcp-syn == 0)"
pp_wait_line dump 'listening on' 10
pp_pktpath_start bulk "$PP_NS_R" --json --backend tracepoint --filter "tcp port 8000"
for ((i = 1; i <= 5; i++)); do
	got=$(pp_in "$PP_NS_A" curl -sS -o /dev/null -w '%{size_download}' \
		http://198.18.1.2:8000/f.bin)
	pp_expect_eq "curl $i: bytes downloaded" "$got" $((2 << 20))
done
pp_pktpath_settle bulk 60
pp_pktpath_stop bulk INT
pp_expect_eq "bulk: exit status" "$PP_RC" 0
out=$(pp_out bulk)
pp_expect_json_lines "$out" "bulk output"
pp_expect_summary "$out"
pp_stop dump INT

# The data segments that reached a, by tcpdump, and by pktpath.
dumped=$(tcpdump -r "$PP_TMP/a.pcap" -n 'tcp[tcpflags] & tcp-syn == 0' 2>/dev/null |
	awk '/ length [1-9]/ { n++ } END { print n + 0 }')
data='.marked_at.dir == "ingress" and .marked_at.ifname == "r-eth1" and .pkt.tcp_len > 0'
seen=$(pp_jq "$out" "[packets[] | select($data)] | length")
read=$(pp_jq "$out" "[packets[] | select($data) | select(.fate.kind == \"consumed\"
	and .fate.read.comm == \"curl\")] | length")
pp_log "bulk: tcpdump saw $dumped data segments reach a; pktpath: $seen, read by curl $read;" \
	"$(pp_jq "$out" "[packets[] | select($data) | \"\(.fate.kind) at \(.hops[-1].func)\"
	+ (if .fate.read then \" read by \(.fate.read.comm)\" else \"\" end)]
	| group_by(.) | map(\"\(length) \(.[0])\") | join(\", \")")"
pp_expect_eq "bulk: data segments, pktpath against tcpdump" "$seen" "$dumped"
[ $((read * 100)) -ge $((dumped * 99)) ] ||
	pp_fail "bulk: only $read of $dumped data segments consumed and read by curl (< 99%)"
# Read once: curl's copy and the socket's ring both see a segment read,
# and only the first may send its END (bpf/queues.bpf.h, pp_queue_clear();
# without it 2 of 318 data segments were read twice).
pp_expect_none "bulk: an skb freed or read twice" "$out" 'packets[] | ends_twice'

# A client that never reads, then closes: its queued segments coalesce,
# are never read, and end unseen at the packet timeout. pp_state.waiting
# counted them and kept the receive calls' program looking; the loader
# must clear it once no open packet explains it. Before it did, it stayed
# above 0 for good.
pp_pktpath_start unread "$PP_NS_R" --json --backend tracepoint --filter "tcp port 8000"
pp_in "$PP_NS_A" python3 -c 'import socket, time
s = socket.create_connection(("198.18.1.2", 8000))
s.sendall(b"GET /f.bin HTTP/1.0\r\n\r\n")
time.sleep(1)
s.close()'
pp_pktpath_settle unread 60
for ((i = 1; i <= 30; i++)); do
	w=$(pp_state_field unread waiting)
	[ $i = 1 ] && pp_log "unread: pp_state.waiting $w once every packet was printed"
	[ "$w" = 0 ] && break
	sleep 0.1
done
pp_expect_eq "unread: pp_state.waiting 3 s after every packet was printed" "$w" 0
pp_pktpath_stop unread INT
pp_stop web INT
pp_pass
