#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Delivered means delivered, on the tracepoint backend (the host kernel has
# no kprobes), traced in the receiver's namespace b:
#   udp:   datagrams from a to a reader in b (udp_flood sink): each ends
#          consumed, read by the reader, as many as it says it read;
#          udp_recvmsg() copies a linear datagram inline, where no
#          tracepoint fires, and frees it unseen (skb_attempt_defer_free());
#   tcp:   a stream written in 300-byte pieces and read 100 bytes at a time
#          (three reads a segment): each data segment ends consumed, read by
#          the reader, as many as its bytes make; the writer's FIN ends
#          read by the reader too (its read returned 0); pure ACKs, which
#          no process reads, never say "read by"; no segment is read twice
#          (by its copy's END and its socket's ring's: 394 of 400 data
#          segments, before pp_read_end() emptied the ring's slot);
#   flood: 20 s of 2000 datagrams/s (each sk_buff address is taken again
#          by a later datagram, many times over): no packet gains a hop it
#          did not make: none in a namespace other than b's, none longer than the
#          datagram was at its mark (an sk_buff that took a freed
#          datagram's address is another packet, bpf/identity.bpf.h).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin taskset
ppr_topo_quiet

flood="" tcp=""
pp_test_tool flood udp_flood
pp_test_tool tcp tcp_reads
nsb=$(pp_netns_inode "$PP_NS_B")

# reads_start NAME FILTER: pktpath in b on the tracepoint backend, JSON. A
# receiver the machine's load keeps from reading for a second must not turn
# a queued packet into an end not seen: --packet-timeout 10.
reads_start() {
	pp_pktpath_start "$1" "$PP_NS_B" --json --backend tracepoint --packet-timeout 10 \
		--filter "$2"
}

reads_stop() {
	pp_pktpath_settle "$1" 60
	pp_pktpath_stop "$1" INT
	pp_expect_eq "$1: exit status" "$PP_RC" 0
	pp_expect_json_lines "$(pp_out "$1")" "$1 output"
	pp_expect_summary "$(pp_out "$1")"
}

# read_share NAME N COMM [SELECT]: of N packets (SELECT) the receiver
# counted, at least 99% printed consumed and read by COMM, and not more.
read_share() {
	local name=$1 n=$2 comm=$3 sel=${4:-true} out read
	out=$(pp_out "$name")
	read=$(pp_jq "$out" "[packets[] | select($sel)
		| select(.fate.kind == \"consumed\" and .fate.read.comm == \"$comm\")] | length")
	pp_log "$name: receiver counted $n, pktpath: consumed and read by $comm $read;" \
		"$(fates "$out" "$sel")"
	[ "$read" -le "$n" ] || pp_fail "$name: $read read by $comm, more than the $n it read"
	[ $((read * 100)) -ge $((n * 99)) ] ||
		pp_fail "$name: only $read of $n consumed and read by $comm (< 99%)"
}

# fates FILE SELECT: "N FATE at FUNC [read by COMM]" of the packets SELECT.
fates() {
	pp_jq "$1" "[packets[] | select($2) | \"\(.fate.kind) at \(.hops[-1].func)\"
		+ (if .fate.read then \" read by \(.fate.read.comm)\" else \"\" end)]
		| group_by(.) | map(\"\(length) \(.[0])\") | join(\", \")"
}

# sent FILE: the datagrams udp_flood sent.
sent() {
	awk '/^sent/ { n += $2 } END { print n + 0 }' "$1"
}

# UDP: 4000 datagrams at 2000/s.
pp_bg sink "$PP_NS_B" "$flood" sink 9000
pp_wait_line sink '^udp_flood: listening' 10
reads_start udp "udp port 9000"
pp_in "$PP_NS_A" "$flood" send 198.18.1.2 4000 2000 9000 >"$PP_TMP/send.out"
reads_stop udp
pp_stop sink INT
pp_expect_eq "udp: datagrams printed" "$(pp_jq "$(pp_out udp)" 'packets | length')" \
	"$(sent "$PP_TMP/send.out")"
read_share udp "$(awk '/^received/ { print $2 }' "$(pp_out sink)")" udp_flood

# TCP: 400 writes of 300 bytes, 2 ms apart, read 100 bytes at a time; the
# reader on another CPU than the writer, as a server's would often be.
pp_bg tsink "$PP_NS_B" taskset -c 1 "$tcp" sink 9001 100
pp_wait_line tsink '^tcp_reads: listening' 10
reads_start tcp "tcp port 9001"
pp_in "$PP_NS_A" taskset -c 0 "$tcp" send 198.18.1.2 9001 400 300 2000 >/dev/null
for ((i = 0; i < 100; i++)); do
	pp_alive "${PP_PIDS[tsink]}" || break
	sleep 0.1
done
reads_stop tcp
pp_stop tsink INT
bytes=$(awk '/^received/ { print $2 }' "$(pp_out tsink)")
pp_expect_eq "tcp: bytes received" "$bytes" 120000
# Against the bytes the reader read: a segment may carry several writes.
data='.marked_at.dir == "ingress" and .pkt.tcp_len > 0'
read=$(pp_jq "$(pp_out tcp)" "[packets[] | select($data) | select(.fate.kind == \"consumed\"
	and .fate.read.comm == \"tcp_reads\") | .pkt.tcp_len] | add // 0")
pp_log "tcp: the reader read $bytes bytes; data segments consumed and read by tcp_reads" \
	"carried $read; $(fates "$(pp_out tcp)" "$data")"
[ "$read" -le "$bytes" ] || pp_fail "tcp: segments read carried $read bytes, more than $bytes"
[ $((read * 100)) -ge $((bytes * 99)) ] ||
	pp_fail "tcp: segments consumed and read by tcp_reads carried only $read of $bytes bytes"
pp_expect_none "tcp: an skb freed or read twice" "$(pp_out tcp)" 'packets[] | ends_twice'
pp_expect_none "tcp: a packet without data or FIN said read" "$(pp_out tcp)" '
	packets[] | select(.pkt.tcp_len == 0 and (.pkt.tcp_flags | contains("F") | not)
		and .fate.read) | "\(pkt_str): \(path_str)"'
# The writer's FIN, when it came alone: the read that reached it returned 0
# (the end of the stream), and it ends read by the reader, as data does.
# Its free is no sure end: the reader's skb_attempt_defer_free() frees it
# with no tracepoint on the CPU that allocated it, and on another CPU only
# when that one next receives.
fin='.marked_at.dir == "ingress" and .pkt.tcp_len == 0 and (.pkt.tcp_flags | contains("F"))'
pp_log "tcp: FINs without data: $(fates "$(pp_out tcp)" "$fin")"
pp_expect_none "tcp: a FIN not read by tcp_reads" "$(pp_out tcp)" "
	packets[] | select($fin and .fate.read.comm != \"tcp_reads\") | \"\\(pkt_str): \\(path_str)\""

# 20 s of 2000 datagrams/s: no hop it did not make.
pp_bg fsink "$PP_NS_B" "$flood" sink 9002
pp_wait_line fsink '^udp_flood: listening' 10
reads_start flood "udp port 9002"
pp_in "$PP_NS_A" "$flood" send 198.18.1.2 40000 2000 9002 >"$PP_TMP/fsend.out"
reads_stop flood
pp_expect_eq "flood: datagrams printed" "$(pp_jq "$(pp_out flood)" 'packets | length')" \
	"$(sent "$PP_TMP/fsend.out")"
pp_stop fsink INT
# shellcheck disable=SC2016 # jq program
pp_expect_none "flood: a hop in a namespace the datagram never entered" "$(pp_out flood)" '
	packets[] | select(any(.hops[]; .netns and .netns != $ns)) | "\(pkt_str): \(path_str)"' \
	--argjson ns "$nsb"
# shellcheck disable=SC2016 # jq program
pp_expect_none "flood: a hop longer than the datagram" "$(pp_out flood)" '
	packets[] | .len as $l | select(any(.hops[]; .len > $l)) | "\(pkt_str): \(path_str)"'
read_share flood "$(awk '/^received/ { print $2 }' "$(pp_out fsink)")" udp_flood
pp_pass
