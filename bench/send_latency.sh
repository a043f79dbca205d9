#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Seed 000's question, "how long from sendto() to the end of the packet",
# answered by pktpath and, independently and at the same time, by bpftrace,
# on the same packets: ping sends N echo requests (sendto() on a raw socket)
# from NS-c to NS-s over a veth pair.
#
#   pktpath   --json --send-calls 'icmp[icmptype] = 8' in NS-c: per packet,
#             the END hop's t_ns, which counts from the 'syscall:send' hop
#             (the sendto() entry);
#   bpftrace  the seed's three points, with tracepoints where the seed used
#             a kprobe (this host has none): sys_enter_sendto saves the time
#             per thread, the first net:net_dev_queue in that thread carries
#             it to the skb, skb:consume_skb prints the difference.
#
# pktpath attaches first: programs on one tracepoint run in the order they
# were attached, and bpftrace's printf() at consume_skb (a perf output and
# a wakeup, some microseconds in this VM) would otherwise come before
# pktpath's END and count in pktpath's interval (attached the other way
# round, the ratio was 1.18-1.28 here; this way round 1.00-1.02).
#
# Prints both medians and their ratio, and each tool's count; writes the raw
# numbers to $OUT_DIR (default build/bench-send) and appends a line to its
# rounds.tsv. As root. --report DIR: the docs/PERFORMANCE.md section from
# DIR/rounds.tsv (bench/run.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = --report ]; then
	rounds=${2:?--report DIR}/rounds.tsv
	cat <<'TEXT'
## sendto() to the end of the packet: pktpath and bpftrace

`bench/send_latency.sh`: ping sends echo requests with `sendto()`; pktpath
(tracepoint backend, `--send-calls`) and seed 000's bpftrace script (sys_enter_sendto, the
first net_dev_queue of that thread, consume_skb) measure the same interval
on the same packets at the same time. Medians per round, and their ratio.
pktpath attaches first: attached after bpftrace, its END at consume_skb
runs after bpftrace's printf() (a perf output and a wakeup) and the ratio
was 1.18-1.28 instead.

TEXT
	if [ ! -s "$rounds" ]; then
		echo "(not run)"
		exit 0
	fi
	echo "| round | pktpath packets | pktpath median (ns) | bpftrace packets | bpftrace median (ns) | ratio |"
	echo "|---|---|---|---|---|---|"
	awk -F'\t' '{ printf "| %d | %s | %s | %s | %s | %s |\n", NR, $1, $2, $3, $4, $5 }' "$rounds"
	echo
	awk -F'\t' '{ print $5 }' "$rounds" | sort -n |
		awk '{ v[NR] = $1 } END { printf "Median ratio pktpath/bpftrace: %s over %d rounds.\n", v[int((NR + 1) / 2)], NR }'
	exit 0
fi
PKTPATH=${PKTPATH:-build/loader/pktpath}
N=${N:-200}
OUT_DIR=${OUT_DIR:-build/bench-send}
C=ppsl-c-$$
S=ppsl-s-$$
# ping under a name of its own: other pings on the host stay out of bpftrace's count.
PING=$(mktemp -d)/ppslping

cleanup() {
	[ -z "${PP_PID:-}" ] || kill -INT "$PP_PID" 2>/dev/null || true
	[ -z "${BT_PID:-}" ] || kill -INT "$BT_PID" 2>/dev/null || true
	wait 2>/dev/null || true
	ip netns delete "$C" 2>/dev/null || true
	ip netns delete "$S" 2>/dev/null || true
	rm -rf "$(dirname "$PING")"
}
trap cleanup EXIT

mkdir -p "$OUT_DIR"
cp "$(command -v ping)" "$PING"
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
ip netns add "$C"
ip netns add "$S"
ip -n "$C" link add veth-c type veth peer name veth-s netns "$S"
ip -n "$C" addr add 198.18.0.1/24 dev veth-c
ip -n "$S" addr add 198.18.0.2/24 dev veth-s
ip -n "$C" link set veth-c up
ip -n "$S" link set veth-s up
ip -n "$C" link set lo up

# wait_for FILE ERE WHAT: up to 120 s (a loaded machine is slow to attach).
wait_for() {
	for ((i = 0; i < 1200; i++)); do
		grep -Eq "$2" "$1" && return 0
		sleep 0.1
	done
	echo "send_latency: $3 not ready after 120 s" >&2
	exit 1
}
ip netns exec "$C" "$PKTPATH" --json --send-calls --backend tracepoint 'icmp[icmptype] = 8' \
	>"$OUT_DIR/pktpath.jsonl" 2>"$OUT_DIR/pktpath.err" &
PP_PID=$!
wait_for "$OUT_DIR/pktpath.err" '^pktpath: ready' pktpath
# The seed's script, on tracepoints (no kprobes on this host).
bpftrace -e '
tracepoint:syscalls:sys_enter_sendto /comm == "ppslping"/ { @start[tid] = nsecs; }
tracepoint:net:net_dev_queue /@start[tid]/ {
	@skb[args->skbaddr] = @start[tid]; delete(@start[tid]);
}
tracepoint:skb:consume_skb /@skb[args->skbaddr]/ {
	printf("%lu %lx %d\n", nsecs - @skb[args->skbaddr], args->skbaddr, tid); delete(@skb[args->skbaddr]);
}' >"$OUT_DIR/bpftrace.txt" 2>"$OUT_DIR/bpftrace.err" &
BT_PID=$!
wait_for "$OUT_DIR/bpftrace.txt" '^Attaching' bpftrace
sleep 1
ip netns exec "$C" "$PING" -n -q -c "$N" -i 0.01 198.18.0.2 >/dev/null
sleep 2
kill -INT "$BT_PID" "$PP_PID"
wait "$BT_PID" "$PP_PID" 2>/dev/null || true
unset BT_PID PP_PID

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'; }
jq -r 'select(.hops and .hops[0].func == "syscall:send") | .hops[-1].t_ns' \
	"$OUT_DIR/pktpath.jsonl" >"$OUT_DIR/pktpath.ns"
awk '$1 ~ /^[0-9]+$/ { print $1 }' "$OUT_DIR/bpftrace.txt" >"$OUT_DIR/bpftrace.ns"
pp_n=$(wc -l <"$OUT_DIR/pktpath.ns")
bt_n=$(wc -l <"$OUT_DIR/bpftrace.ns")
pp_med=$(median <"$OUT_DIR/pktpath.ns")
bt_med=$(median <"$OUT_DIR/bpftrace.ns")
echo "sendto -> consume_skb, $N echo requests, both tools at once:"
echo "  pktpath:  $pp_n packets, median $pp_med ns"
echo "  bpftrace: $bt_n packets, median $bt_med ns"
ratio=$(awk -v a="$pp_med" -v b="$bt_med" 'BEGIN { printf "%.3f", b ? a / b : 0 }')
echo "  ratio pktpath/bpftrace: $ratio"
printf '%s\t%s\t%s\t%s\t%s\n' "$pp_n" "$pp_med" "$bt_n" "$bt_med" "$ratio" >>"$OUT_DIR/rounds.tsv"
