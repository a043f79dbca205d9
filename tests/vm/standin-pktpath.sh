#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash: local works
# A stand-in for pktpath inside the test VM (busybox sh + awk), used by
# `PKTPATH_STANDIN=1 scripts/vm-test.sh` until the real binary builds. It
# speaks pktpath's CLI and --json output, but traces with tracefs: kprobe
# events for the functions and the net/skb tracepoints for device names and
# the packet's end (skb:kfree_skb carries the drop reason). It proves the
# harness (image, modules, namespaces, markers, checks) and shows what each
# kernel really reports, which the real pktpath must then match.
#
# Limits, by design: it ignores the filter and -i, and every backend but
# tracepoint uses kprobe events, so it says nothing about pktpath's own
# attach code. It relies on the VM being quiet: the first packet seen after
# "ready" is the scenario's. Tracefs hashes skb pointers in tracepoint
# output, so events are tied to a packet by time, not by skb address.
set -u

T=/sys/kernel/tracing
GROUP=ppstandin
FUNCS="ip_output ip_finish_output2 __dev_queue_xmit veth_xmit netif_rx __netif_rx
__netif_receive_skb_core ip_rcv ip_forward ip_local_deliver icmp_rcv udp_rcv nf_hook_slow"
TPS="net/net_dev_queue net/netif_rx net/netif_receive_skb skb/kfree_skb skb/consume_skb"

backend=auto json=0 count=0 duration=0 list=0

usage() {
	echo "usage: pktpath [--backend B] [--funcs F] [-i IF]... [--json] [-c N]" \
		"[--duration S] [--list-probes] [EXPR...]" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--backend) backend=${2:?}; shift ;;
	--funcs | -i | --packet-timeout | --filter) shift ;;
	--json) json=1 ;;
	-c) count=${2:?}; shift ;;
	--duration) duration=${2:?}; shift ;;
	--list-probes) list=1 ;;
	-*) usage ;;
	*) ;;
	esac
	shift
done

# Refuse what the kernel cannot do, as pktpath must.
if [ "$backend" != auto ] && ! vmhelper backends | grep -q "^backend $backend ok"; then
	echo "pktpath: backend $backend not supported by this kernel:" \
		"$(vmhelper backends | sed -n "s/^backend $backend no //p")" >&2
	exit 1
fi
[ "$backend" = tracepoint ] && FUNCS=""

# `ip netns exec` mounts a fresh sysfs for the namespace, without tracefs on
# it; that mount is private to this process, so mounting it again is local.
[ -f "$T/trace" ] || mount -t tracefs tracefs "$T"

in_kallsyms() {
	awk -v f="$1" '$3 == f { found = 1; exit } END { exit !found }' /proc/kallsyms
}

if [ $list = 1 ]; then
	for f in $FUNCS; do
		if in_kallsyms "$f"; then echo "$f"; else echo "skip $f: not in kallsyms"; fi
	done
	for tp in $TPS; do echo "tp:$(echo "$tp" | tr / :)"; done
	exit 0
fi

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	for tp in $TPS; do echo 0 >"$T/events/$tp/enable"; done
	[ -d "$T/events/$GROUP" ] && echo 0 >"$T/events/$GROUP/enable"
	for f in $FUNCS; do echo "-:$GROUP/$f" >>"$T/kprobe_events"; done 2>/dev/null
	echo "-:$GROUP/pp_free" >>"$T/kprobe_events" 2>/dev/null
}
trap cleanup EXIT
stop=0
trap 'stop=1' INT TERM

n=0 skipped=0
for f in $FUNCS; do
	if echo "p:$GROUP/$f $f" >>"$T/kprobe_events" 2>/dev/null; then
		n=$((n + 1))
	else
		skipped=$((skipped + 1))
	fi
done
# Not a hop: the caller of kfree_skb_reason, for kernels whose kfree_skb
# tracepoint prints its location as a hashed pointer. Absent (inline) in 6.12.
in_kallsyms kfree_skb_reason &&
	echo "p:$GROUP/pp_free kfree_skb_reason caller=+0(%sp):x64" >>"$T/kprobe_events"
echo >"$T/trace"
[ -d "$T/events/$GROUP" ] && echo 1 >"$T/events/$GROUP/enable"
for tp in $TPS; do echo 1 >"$T/events/$tp/enable" && n=$((n + 1)); done

# One packet: the hops from the first event after "ready" up to the first
# kfree_skb/consume_skb, printed as pktpath's JSON.
packets() {
	grep -v '^#' "$T/trace" | awk -v json="$json" '
	function hop(fn, ifn) {
		if (!started) {
			started = 1; id++; hops = ""; mark_if = ""; cur_if = ""
		}
		if (ifn != "") {
			cur_if = ifn
			if (mark_if == "") {
				mark_if = ifn
				mark_dir = fn ~ /net_dev_queue/ ? "egress" : "ingress"
			}
		}
		if (fn !~ /^tp:/)
			last_func = fn
		hops = hops (hops == "" ? "" : ",") sprintf( \
			"{\"func\":\"%s\",\"t_ns\":%.0f,\"netns\":0,\"ifname\":\"%s\"," \
			"\"cpu\":%d,\"pid\":%d,\"comm\":\"%s\"}",
			fn, ts * 1e9, cur_if, cpu, pid, comm)
	}
	function fate(kind, rest,   reason, loc) {
		reason = ""; loc = last_func
		if (match(rest, /reason: [A-Z_0-9]+/))
			reason = substr(rest, RSTART + 8, RLENGTH - 8)
		# 6.12 prints the location as sym+off; 6.1 hashes it, so take the
		# caller of kfree_skb_reason that pp_free saw (resolved later).
		if (match(rest, /location=[A-Za-z_][A-Za-z_0-9.]*\+/))
			loc = substr(rest, RSTART + 9, RLENGTH - 10)
		else if (kind == "dropped" && free_caller != "")
			loc = "@" free_caller
		free_caller = ""
		printf "{\"id\":%d,\"len\":0,\"pkt\":{\"standin\":true}," \
			"\"marked_at\":{\"ifname\":\"%s\",\"dir\":\"%s\"},\"hops\":[%s]," \
			"\"fate\":{\"kind\":\"%s\",\"reason\":\"%s\",\"func\":\"%s\"}}\n",
			id, mark_if, mark_dir, hops, kind, reason, loc
		started = 0
	}
	{
		for (i = 1; i <= NF && $i !~ /^\[[0-9]+\]$/; i++)
			;
		if (i > NF)
			next
		task = $1
		for (j = 2; j < i; j++)
			task = task " " $j
		pid = task; sub(/.*-/, "", pid)
		comm = task; sub(/-[0-9]+$/, "", comm); gsub(/["\\]/, "", comm)
		cpu = substr($i, 2, length($i) - 2)
		ts = $(i + 2); sub(/:$/, "", ts)
		ev = $(i + 3); sub(/:$/, "", ev)
		rest = substr($0, index($0, " " $(i + 3) " ") + length($(i + 3)) + 2)
		ifn = ""
		if (match(rest, /dev=[^ ]+/))
			ifn = substr(rest, RSTART + 4, RLENGTH - 4)
		if (ev == "pp_free") {
			if (match(rest, /caller=0x[0-9a-f]+/))
				free_caller = substr(rest, RSTART + 9, RLENGTH - 9)
		} else if (ev == "kfree_skb") {
			if (started) fate("dropped", rest)
		} else if (ev == "consume_skb") {
			if (started) fate("consumed", rest)
		} else if (ev ~ /^(net_dev_queue|netif_rx|netif_receive_skb)$/) {
			hop("tp:net:" ev, ifn)
		} else {
			hop(ev, "")
		}
	}'
}

# "@ADDR" fate functions: the symbol below ADDR in kallsyms. Same-length
# lowercase hex strings compare like the numbers, which awk's doubles cannot.
resolve_locations() {
	local line addr sym
	while IFS= read -r line; do
		case $line in
		*'"func":"@'*)
			addr=$(echo "$line" | sed 's/.*"func":"@\(0x\)\{0,1\}\([0-9a-f]*\)".*/\2/')
			sym=$(awk -v a="$(printf '%016s' "$addr" | tr ' ' 0)" '
				$2 ~ /^[tT]$/ && $1 <= a && $1 > best { best = $1; name = $3 }
				END { print name }' /proc/kallsyms)
			line=$(echo "$line" | sed "s/\"func\":\"@[0-9a-fx]*\"/\"func\":\"$sym\"/")
			;;
		esac
		echo "$line"
	done
}

echo "pktpath: ready: $n probes attached, $skipped skipped (tracefs stand-in)" >&2
elapsed=0
while [ $stop = 0 ]; do
	[ "$count" -gt 0 ] && [ "$(packets | grep -c .)" -ge "$count" ] && break
	[ "$duration" -gt 0 ] && [ $elapsed -ge $((duration * 2)) ] && break
	usleep 500000
	elapsed=$((elapsed + 1))
done
if [ "$count" -gt 0 ]; then packets | head -n "$count"; else packets; fi | resolve_locations
echo "{\"summary\":{\"packets\":$(packets | grep -c .),\"standin\":true}}"
exit 0
