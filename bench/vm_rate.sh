#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What each backend costs forwarded traffic, and how long each takes to be
# ready, in Debian's kernels under QEMU (the host kernel has no kprobes and
# no fentry). Each kernel boots once with tests/vm/rate_bench.sh as its job
# (scripts/vm-test.sh's harness).
#
#   bench/vm_rate.sh [KERNEL_PKG...]   measure, add the raw results to OUT,
#                                      print the Markdown
#   bench/vm_rate.sh --report          the Markdown from OUT, measuring nothing
#
# Default kernels: what linux-image-6.12-amd64 and linux-image-amd64 depend
# on today (6.12 and 6.1, generic; BENCH_METAS in tests/vm/host.sh, which
# also runs the VMs).
#
# Start-up before and after the BTF name index: the binaries of commit
# BTF_INDEX_COMMIT (c3ded96, which added loader/btf_index.c) and of its
# parent, each built from a detached git worktree in $BUILD_DIR/ab/ (or
# SU_BEFORE / SU_AFTER: binaries already built); they go into the image
# beside the pktpath under test (which the rate runs use).
#
# Environment: BUILD_DIR (build-vmr), OUT (bench/data/vm_rate.jsonl),
# ROUNDS (3), SECS (3: seconds per flow measurement), SU_ROUNDS (2),
# SU_SLOW (0; 1: --all-skb-funcs to ready with single kprobes and fentry
# too, minutes each), SU_LISTS ("default all"), BACKENDS (all four),
# JOBS ("rate startup"), VM_JOBS (2: both kernels side
# by side, one host thread each), and what scripts/vm-test.sh takes
# (PKTPATH_BIN).
#
# OUT holds JSON lines: a "meta" line per measurement (id, date, command,
# commit), then rate_bench.sh's lines, each with "kernel" and "id".
# TCG emulates: only ratios within one VM mean anything, never the rates.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tests/vm/host.sh
. tests/vm/host.sh
LOG_TAG=vm_rate
vm_dirs build-vmr
OUT=${OUT:-bench/data/vm_rate.jsonl}
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-3}
SU_ROUNDS=${SU_ROUNDS:-2}
SU_SLOW=${SU_SLOW:-0}
SU_LISTS=${SU_LISTS:-"default all"}
BACKENDS=${BACKENDS:-"kprobe-multi kprobe fentry tracepoint"}
JOBS=${JOBS:-"rate startup"}
BTF_INDEX_COMMIT=${BTF_INDEX_COMMIT:-c3ded96}
export BUILD_DIR VM_JOBS=${VM_JOBS:-2}
TITLE="## Packet rate and start-up in QEMU kernels"

# build_rev NAME REV: pktpath of REV in $BUILD_DIR/ab/NAME; prints its path.
build_rev() {
	local src=$BUILD_DIR/ab/$1
	if [ ! -d "$src" ]; then
		git worktree add --detach "$src" "$2" >&2
	fi
	log "building pktpath of $2 ($1)"
	{ cmake -S "$src" -B "$src/build" && cmake --build "$src/build" --target pktpath; } \
		>"$BUILD_DIR/ab/$1.log" 2>&1 || {
		log "build of $2 failed: $BUILD_DIR/ab/$1.log"
		exit 1
	}
	echo "$src/build/loader/pktpath"
}

measure() {
	local id before after cmd
	mkdir -p "$BUILD_DIR/ab"
	before=${SU_BEFORE:-$(build_rev before "$BTF_INDEX_COMMIT^")}
	after=${SU_AFTER:-$(build_rev after "$BTF_INDEX_COMMIT")}
	# shellcheck disable=SC2046 # package names, one word each
	[ $# -gt 0 ] || set -- $(bench_kernels)
	# None found (no package lists yet): the harness would run its whole matrix.
	[ $# -gt 0 ] || { log "no kernel package for $BENCH_METAS: name the kernels"; exit 1; }
	id="rate-$(date -u +%Y%m%dT%H%M%SZ)"
	cmd="bench/vm_rate.sh (JOBS=\"$JOBS\" ROUNDS=$ROUNDS SECS=$SECS SU_ROUNDS=$SU_ROUNDS"
	cmd+=" SU_SLOW=$SU_SLOW SU_LISTS=\"$SU_LISTS\" BACKENDS=\"$BACKENDS\" VM_JOBS=$VM_JOBS) $*"
	bench_meta "$id" "$cmd" \
		before="$(git rev-parse --short "$BTF_INDEX_COMMIT^")" \
		after="$(git rev-parse --short "$BTF_INDEX_COMMIT")"
	VM_TIMEOUT=${VM_TIMEOUT:-5400} VM_EXTRA_TOOLS="$before $after" \
		VM_BENCH_JOBS=$JOBS VM_BENCH_ROUNDS=$ROUNDS VM_BENCH_SECS=$SECS \
		VM_BENCH_SU_ROUNDS=$SU_ROUNDS VM_BENCH_SU_SLOW=$SU_SLOW VM_BENCH_SU_LISTS=$SU_LISTS \
		VM_BENCH_BACKENDS=$BACKENDS \
		VM_BENCH_SU_BINS="before=$before after=$after" \
		bench_harness rate_bench.sh RB release "$id" "$@"
}

# meta KEY: a field of the newest measurement's meta line.
meta() {
	jq -s -r --arg k "$1" '([.[] | select(.type == "rate") | .id] | last) as $id
		| [.[] | select(.type == "meta" and .id == $id)] | last | .[$k]' "$OUT"
}

part() { jq -s -r --arg part "$1" -f bench/vm_rate.jq "$OUT"; }

render() {
	if ! [ -s "$OUT" ] || [ "$(meta id)" = null ]; then
		printf '%s\n\nNot measured in this run: run bench/vm_rate.sh (%s is empty).\n' \
			"$TITLE" "$OUT"
		return 0
	fi
	cat <<DOC
$TITLE

What tracing costs forwarded traffic on distro kernels, per
backend, and the time to \`ready\` before and after the BTF name index.

\`$(meta cmd)\`, started $(meta date), commit $(meta commit) ($(meta dirty_files) files
changed in the working tree); host $(meta host), $(meta qemu), TCG,
\`-smp 2 -m 1024\`, \`thread=single\` (both vCPUs in one host thread), the
kernels side by side. TCG emulates: the guest's packets/s and seconds are not
a real machine's, only ratios within one VM run mean anything. Raw results:
\`$OUT\`.

### Packet rate

Topology a - r - c over two veth pairs, r forwards (no conntrack, no
nftables). \`vmhelper udp-flood\` sends 18-byte UDP datagrams (64-byte
frames) from a to c as fast as \`send()\` returns for $(meta cmd | sed -n 's/.*SECS=\([0-9.]*\).*/\1/p') s; c reads them
(\`udp-sink\`); the rate is c's veth RX packets per second. On veth most
of each datagram's path (a's output, r's receive, forwarding and output,
c's receive up to the socket) runs in the softirq that follows the send,
on the sender's CPU, so the rate is mostly what the path costs. pktpath runs in r: \`pktpath -v --backend B --detail LEVEL
"udp and dst port 7000"\`, text output to /dev/null. *Untracked*: the
flood goes to port 7001, which the filter never matches: every packet
still runs every probe on its path (the classifier on r's two veths and
each probed function or tracepoint, which only checks the packet is not
tracked); *tracked*: the flood goes to port 7000, every packet is marked
at r's ingress and followed, each hop a ring-buffer record the loader
reads and prints. For each backend and list, every round measures both
floods with no tracing, then starts pktpath and measures both again; the
ratio is traced over not traced of that round; each cell is the median
(min..max) over the rounds, the configurations' order rotating by round.
*BPF runs per packet*: all BPF programs' \`run_cnt\` (kernel.bpf_stats_enabled)
over the flood divided by the packets c received: how many probes each
packet fires (the loader's own traffic is none). *probes*: attached, as
\`-v\` reports. Levels: *full* is kp_func.list, *short* kp_func.min.list
(the default, one step per layer, below); the tracepoint backend skips the
function lines of both.

$(part rate)

### Start-up: time to \`ready\`, before and after the BTF name index

The binaries of commit $(meta after) (which added loader/btf_index.c) and of its
parent $(meta before), side by side in the same VM, alternating. \`pktpath -v
--backend B --funcs kp_func.list [--all-skb-funcs] --duration 0.1 "icmp and
host 198.19.9.9"\` in r. *setup*: pktpath's own -v figure, from \`main()\` to
the first attach (BTF, the probe list's resolution, the classifier's
load); *to ready*: wall time from the start to the \`ready\` line on
stderr (polled every 0.2 s). Rows measured with \`--list-probes\` are
its wall time: the setup alone; attaching every skb function with single
kprobes or fentry takes minutes under TCG and does not depend on the
index (see "Attach and detach time in QEMU kernels" for those times).
Medians of the rounds; after / before: median (min..max) of per-round
ratios.

$(part startup)

$(part sources)

$(analysis)
DOC
}

# What the tables show; the figures quoted are of the rate run of
# 2026-11-26 (commit 192981f) and the start-up run of 2026-11-24 (commit
# e6a4f2a): rerunning changes the tables, not this text.
analysis() {
	cat <<'TEXT'
### What the figures say (rate: run of 2026-11-26; start-up: 2026-11-24)

**Every probe on a packet's path costs it, tracked or not.** With
`--detail full` (kp_func.list), an untracked forwarded datagram fires 67
BPF programs on the function backends (the classifier on r's two veths,
and every listed function and tracepoint on its path: a's output, r's
receive, forwarding and output, c's receive, socket and free); the
tracepoint backend fires 13-14. Each of those runs only checks that the
packet is not tracked: what costs is the number of probes crossed, the
entry into each (ftrace, the kprobe or trampoline dispatch, the program
call), not pktpath's work in them.

**The default, `--detail short`, fires a third of that: 21 programs per
packet** on every function backend of both kernels, against 67 (the short
list of before this level existed fired 19: the two more are
`tp:net:netif_rx` on the two veths, a tracepoint the short list now keeps so
that the tracepoint backend's path is the same at both levels). Since
then the short list marks `tp:net:netif_rx` `tracepoint-only`
(docs/probes.md, the list's format): the function backends skip it, since
`netif_receive_skb` names the same device and namespace one step later, and
the tracepoint backend keeps it. Measured on 6.12, kprobe-multi, 2 rounds
(2026-11-27, `flock -o /tmp/pp-vm.lock env BUILD_DIR=build
OUT=build/bench/vm_rate_short15.jsonl SU_BEFORE=$PWD/build/vm-build/loader/pktpath
SU_AFTER=$PWD/build/vm-build/loader/pktpath VM_BENCH_LISTS=short JOBS=rate
BACKENDS=kprobe-multi ROUNDS=2 SECS=3 VM_JOBS=1 bench/vm_rate.sh
linux-image-6.12.117+deb12-amd64`; raw results not in bench/data): 21 BPF
runs per untracked packet (62 probes), against 23 (63 probes) for the same
binary with the list unmarked. The reads' hooks came after the run above:
`sock:sock_recv_length` and the `cgroup_skb` ingress program run once each
per datagram c's socket takes and reads, so that build's 21 is 19 for the
classifier, the list's probes and the built-in ends, plus those two. A
by-hand count per program (bpftool's `run_cnt` before and after a tracked
flood of the same bench, not part of it) saw each of the two at 1.0 run
per packet, the classifier's two at 1.0, `pp_kmulti1` at 8, `pp_kmark` and
the `netif_receive_skb`, `net_dev_queue` and `net_dev_start_xmit`
tracepoints at 2, `consume_skb` at 1, and no `netif_rx` program. Since
then the two hooks are the tracepoint backend's only (docs/packet-life.md,
"Reads": on the function backends a probe sees the socket's free of a read
skb first, so they ended nothing there that the free did not; the VM's
`udp-send` and `tcp-read` named the same readers with and without them on
6.12 and 7.2): **19 BPF runs per untracked packet** (62 probes), against 21
(62 probes) for main's binary, measured back to back on 6.12, kprobe-multi,
2 rounds each (2026-11-27, `flock -o /tmp/pp-vm.lock env BUILD_DIR=build
PKTPATH_BIN=$PWD/build/bin-B/pktpath OUT=build/bench/vm_rate_reads16_B.jsonl
SU_BEFORE=$PWD/build/bin-B/pktpath SU_AFTER=$PWD/build/bin-B/pktpath
VM_BENCH_LISTS=short JOBS=rate BACKENDS=kprobe-multi ROUNDS=2 SECS=3
VM_JOBS=1 bench/vm_rate.sh linux-image-6.12.117+deb12-amd64`, B the binary
of commit 8912f1e, then of 590172b; raw results not in bench/data): 19 and
19 in both rounds, tracked 19, against 21 and 21; untracked 0.635
(0.542..0.729) x no tracing against 0.434 (0.373..0.495), with a build
with the host loaded. That is the 19 of the short list of then. The short
list keeps one
step per layer, with tracepoints where the kernel has one at a layer's step.
The rates in this run, taken on a loaded host, spread
widely (one cell 0.35..1.31); their medians put short at 2-3 times full's
forwarded rate on each function backend (6.12: kprobe-multi 0.64 against
0.33, kprobe 0.79 against 0.27, fentry 0.63 against 0.26; 6.1: kprobe 0.73
against 0.21, fentry 0.69 against 0.28). On the tracepoint backend the two
levels attach the same tracepoints (the function lines are skipped): the
same runs per packet. The ends of packets and the copy points are built
in (they end paths: docs/probes.md, "The probe list"), so no list goes below them
with the function backends.

**Tracked packets cost their records.** Every hop of a tracked packet
is a ring-buffer record the loader reads and prints: 0.04-0.06 of no
tracing with the full list, 0.10-0.20 with the short one, about 0.2 with
tracepoints. No record was lost: the sender slowed down instead (under
TCG the loader shares the guest's two vCPUs, in one host thread, with it).
On a real host a narrow filter is what keeps this small.

**Between the function backends**, under TCG, the order of their costs
changes from run to run: the backends' entry paths are different code
(fprobe, a kprobe on ftrace, a BPF trampoline) and TCG emulates, so their
order is not a real CPU's, while the ratio between levels, a count of probes
crossed, carries over. What does carry over is attach and detach time
("Attach and detach time in QEMU kernels"): kprobe-multi attaches and
detaches a list at once, single kprobes and fentry pay per function, fentry
the most on detach.

**Choosing.** The default is for busy hosts; `--detail full` for a
question about the steps between layers (GRO, the IP layer's finish
functions, neighbours, TCP's internals), `--probe` for a single step more,
`--backend tracepoint` for the fewest probes, and a filter that matches
only what is asked about.

**Start-up: the index makes `--all-skb-funcs` start 2.5x sooner.** Before
it, pktpath looked every name up with libbpf's `btf__find_by_name_kind()`,
which scans all of BTF per name: 13.6 s of setup under TCG in 6.12 for
the 1599 skb functions, 3.4 s after (kprobe-multi: 17.1 s to ready before,
6.8 s after; single kprobes' and fentry's resolution, by `--list-probes`:
12.5 and 12.8 s before, 3.4 and 3.3 s after). 6.1's BTF is smaller: 9.2 s
to 4.7 s of setup. With the default list (about 160 names) the index saves
up to 0.8 s of a 3.5-4.6 s setup: what is left (about 3 s under TCG in both
binaries) is not name resolution; the BTF load, the probe object's and
classifier's loads are the candidates, not measured apart here. With single
kprobes or fentry on every skb function (one round, SU_SLOW=1), the attach
itself, 23-48 s under TCG, outweighs the setup: to ready 45.5 -> 38.1 s
(kprobe) and 45.9 -> 33.8 s (fentry) in 6.12, 45.3 -> 26.1 s and
57.9 -> 47.5 s in 6.1; their detach at exit took another 110-206 s either
way.
TEXT
}

main() {
	case ${1:-} in
	--report) render ;;
	-*)
		echo "usage: $0 [--report] [KERNEL_PKG...]" >&2
		exit 2
		;;
	*)
		measure "$@"
		render
		;;
	esac
}

# On one line: bash reads a script as it runs, and this one may be edited
# during its run.
main "$@"; exit $?
