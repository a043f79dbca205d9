#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Attach and detach time of kprobe.multi, single kprobes and fentry for
# 100, 1000 and all kernel functions taking an skb, in Debian's kernels
# under QEMU (the host kernel has none of these backends). Each kernel boots
# once, with tests/vm/attach_bench.sh as its job (scripts/vm-test.sh's
# harness); pktpath -v times its own attach and detach (loader/cmd/app_attach.c).
# TCG emulates: only ratios within one VM run mean anything.
#
#   bench/vm_attach.sh            measure (about 75 minutes), add the raw
#                                 results to OUT, print the Markdown
#   bench/vm_attach.sh --diag     one run per backend under strace and one
#                                 under the function_graph tracer: where the
#                                 time goes (about 30 minutes), added to OUT
#   bench/vm_attach.sh --report   the Markdown from OUT, measuring nothing
#                                 (it goes into bench/notes/vm_attach.md)
#
# Environment: BUILD_DIR (build-vmb: apart from the test matrix's, which
# may run at the same time; its vm/ can start as a hard-linked copy of
# build/vm, to download nothing), ROUNDS (5), SIZES ("1 100 1000 all"),
# DIAG ("strace graph"), DIAG_SIZES ("all"), VM_JOBS (2: both kernels side
# by side; the guests mostly wait for RCU grace periods, about half a host
# core each), OUT (bench/data/vm_attach.jsonl), and what scripts/vm-test.sh
# takes (PKTPATH_BIN, kernel packages as arguments). Default kernels: what
# linux-image-6.12-amd64 and linux-image-amd64 depend on today (6.12 and
# 6.1, generic; BENCH_METAS in tests/vm/host.sh, which also runs the VMs).
#
# OUT holds JSON lines: a "meta" line per measurement (id, date, command
# line, commit), then tests/vm/attach_bench.sh's "kernel", "list", "run" and
# "diag" lines, each with "kernel" and the measurement's "id". --report uses
# the newest bench and diag measurements. OUT is committed: the VM run is
# long and separate from bench/run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tests/vm/host.sh
. tests/vm/host.sh
LOG_TAG=vm_attach
vm_dirs build-vmb
ROUNDS=${ROUNDS:-5}
SIZES=${SIZES:-"1 100 1000 all"}
OUT=${OUT:-bench/data/vm_attach.jsonl}
export BUILD_DIR VM_JOBS=${VM_JOBS:-2}
TITLE="## Attach and detach time in QEMU kernels"

# measure KIND CMD [KERNEL_PKG...]: one VM per kernel, by default the two
# the report describes (bench_kernels), not the harness's whole matrix.
measure() {
	local kind=$1 cmd=$2 id
	shift 2
	# shellcheck disable=SC2046 # package names, one word each
	[ $# -gt 0 ] || set -- $(bench_kernels)
	# None found (no package lists yet): the harness would run its whole matrix.
	[ $# -gt 0 ] || { log "no kernel package for $BENCH_METAS: name the kernels"; exit 1; }
	id="$kind-$(date -u +%Y%m%dT%H%M%SZ)"
	bench_meta "$id" "$cmd${*:+ $*}" kind="$kind"
	VM_TIMEOUT=${VM_TIMEOUT:-7200} \
		VM_EXTRA_TOOLS=${VM_EXTRA_TOOLS:-$(command -v strace || true)} \
		bench_harness attach_bench.sh AB label "$id" "$@"
}

# part NAME: a part of the Markdown, from bench/vm_attach.jq.
part() {
	jq -s -r --arg part "$1" -f bench/vm_attach.jq "$OUT"
}

# meta KEY: a field of the newest bench measurement's meta line.
meta() {
	jq -s -r --arg k "$1" \
		'[.[] | select(.type == "meta" and .kind == "bench")] | last | .[$k]' "$OUT"
}

render() {
	if ! [ -s "$OUT" ] || [ "$(meta id)" = null ]; then
		printf '%s\n\nNot measured in this run: run bench/vm_attach.sh (%s is empty).\n' \
			"$TITLE" "$OUT"
		return 0
	fi
	cat <<DOC
$TITLE

Target: attach plus detach of all skb functions with kprobe.multi
at least 10 x faster than with single kprobes.

\`$(meta cmd)\`, started $(meta date), commit $(meta commit) ($(meta dirty_files) files
changed in the working tree); host $(meta host), $(meta qemu), TCG (KVM hangs on
these machines), \`-smp 2 -m 1024\`, the two kernels side by side. TCG emulates: the
milliseconds are the guest's, only ratios within one VM run mean anything.
Raw results: \`$OUT\`.

In each kernel, the list "all" is every function taking an skb that the
kprobe backend would attach there (\`pktpath --list-probes --backend kprobe
--all-skb-funcs\`: in BTF, traceable, one kallsyms entry); 1, 100 and 1000
are evenly spaced samples of it. Every backend gets the same list through
\`--funcs\`; fentry skips functions with more than six arguments ("functions
attached" is what each attached, besides the two free tracepoints every run
has). Each round runs every list size with every backend, the backends'
order rotating by round; each cell is the median of the rounds, and the
ratios are medians of per-round ratios to the baseline (kprobe.multi, or
single kprobes where the kernel has no kprobe.multi) for the same list in
the same round. pktpath runs with \`-v --duration 0.1\` and a filter that
matches nothing, under \`ulimit -n 65536\` (see below), and reports
(loader/cmd/app_attach.c, CLOCK_MONOTONIC):

- *attach*: \`pp_attacher_load()\` and \`pp_attacher_attach()\`: open
  and load the probe programs (and for fentry, one more program load per
  function), create every link;
- *detach*: \`pp_attacher_destroy()\`: destroy every link, close every fd and
  the BPF object; kernel work deferred past the last close (RCU callbacks
  freeing programs and trampolines) is not in it;
- *setup*: from \`main()\` to the attach: BTF, the probe list's resolution,
  the classifier's load; the same work for every backend.

$(part tables)

$(part target)

$(analysis)
DOC
}

# v KERNEL SIZE BACKEND FIGURE: a median of the bench (bench/vm_attach.jq's
# "value": attach_ms, detach_ms, setup_ms, sum, total, attach_per,
# detach_per, funcs, ratio).
v() {
	jq -s -r --arg part value --arg k "$1" --arg s "$2" --arg be "$3" --arg f "$4" \
		-f bench/vm_attach.jq "$OUT"
}

# dg KERNEL TOOL BACKEND PHASE WHAT [SIZE]: a diagnostic figure, "X ms in N calls".
dg() {
	jq -s -r --arg part dg --arg k "$1" --arg tool "$2" --arg be "$3" --arg phase "$4" \
		--arg what "$5" --arg s "${6:-all}" -f bench/vm_attach.jq "$OUT"
}

# Why the figures are what they are: the mechanisms, with the figures of
# the tables above; the host profile is a one-off, dated.
analysis() {
	local n=6.12.117 o=6.1.192
	cat <<TEXT
### Why

**The target, in $n.** For all $(v $n all kprobe-multi funcs) skb functions, attach
plus detach takes $(v $n all kprobe-multi sum) ms with kprobe.multi and
$(v $n all kprobe sum) ms with single kprobes: $(v $n all kprobe ratio)x, far past 10x. A
single kprobe costs the same per function whatever the list's size (attach
$(v $n 100 kprobe attach_per) / $(v $n all kprobe attach_per) ms, detach $(v $n 100 kprobe detach_per) / $(v $n all kprobe detach_per) ms per function for 100 / all), while
kprobe.multi's cost hardly grows with the list ($(v $n 1 kprobe-multi sum) ms for one function,
$(v $n all kprobe-multi sum) ms for all): its work is per link, and pktpath makes one link per
skb argument position (five), whatever the count of functions. With one
function, kprobe.multi is no faster than a single kprobe.

**What a user waits for is mostly the setup.** Before anything attaches,
pktpath resolves its probe list: $(v $n 1 kprobe-multi setup_ms) ms for one function, $(v $n all kprobe-multi setup_ms) ms
for all in $n ($(v $o 1 kprobe setup_ms) and $(v $o all kprobe setup_ms) ms in $o, whose BTF is smaller). With it, a
kprobe.multi run on all skb functions spends most of its start and exit
in setup, and the ratio to single kprobes falls to the one in the target
line above, near 10. A host profile (2026-11-21, this machine's 6.18 kernel,
126572 BTF types, not emulated: \`perf record --call-graph dwarf pktpath
--list-probes --funcs LIST\`) puts 89% of that CPU time in
\`pp_probe_list_resolve()\` -> \`pp_probe_resolve_func()\`, most of it \`strcmp()\`
under libbpf's \`btf__find_by_name_kind()\`, which in libbpf 1.1 scans every
BTF type for each name: 0.06 s of user time for one function, 0.49 s for
1000, 1.06 s for all 2285. One pass over BTF that indexes the names (or,
for \`--all-skb-funcs\`, keeping the ids \`pp_btf_skb_funcs()\` already found)
would take this to a few milliseconds per run.

$(have_diag && analysis_diag)
**$o has no kprobe.multi** (Debian builds it without CONFIG_FPROBE), so
\`--backend auto\` takes single kprobes there: $(v $o all kprobe sum) ms of attach and detach for
all $(v $o all kprobe funcs) skb functions under TCG. No choice of backend meets the target on
such a kernel; fewer functions would help, and perhaps closing the probes
from several threads, so that their RCU grace periods overlap (not tried).

**Found on the way, and fixed.** A single kprobe or fentry costs pktpath
two file descriptors (the perf event or program, and its link): under the
usual soft limit of 1024 open files, \`--all-skb-funcs\` with \`--backend
kprobe\` or \`fentry\` failed from about 500 probes on ("Too many open
files"). pktpath now raises its soft \`RLIMIT_NOFILE\` to the hard limit
at start (this bench's runs predate that and raised it with \`ulimit\`).
TEXT
}

# Whether OUT holds a diagnostic run's results.
have_diag() {
	jq -e -s 'any(.[]; .type == "diag")' "$OUT" >/dev/null
}

# The mechanisms, from the diagnostic run (--diag): strace and function_graph
# figures inside the attach and detach windows.
analysis_diag() {
	local n=6.12.117 o=6.1.192
	cat <<TEXT
### Where the time goes

$(part diag)

**Single kprobes wait for grace periods, one probe after another.** The
detach is closes (strace, $n, all: $(dg $n strace kprobe detach close)), and in the
kernel it is RCU: \`synchronize_rcu()\` $(dg $n graph kprobe detach synchronize_rcu), three per
kprobe, and \`synchronize_rcu_tasks_trace()\` $(dg $n graph kprobe detach synchronize_rcu_tasks_trace),
one per kprobe: together nearly all of the detach. They are waited for in
\`perf_release()\` (closing the perf event: $(dg $n graph kprobe detach perf_release);
\`unregister_kprobe()\` alone $(dg $n graph kprobe detach unregister_kprobe)) and in
\`bpf_link_release()\` of the perf link ($(dg $n graph kprobe detach bpf_link_release)). $o
is the same ($(dg $o graph kprobe detach synchronize_rcu) in \`synchronize_rcu()\`, $(dg $o graph kprobe detach synchronize_rcu_tasks_trace)
in \`synchronize_rcu_tasks_trace()\`). pktpath closes one probe at a time, so
N probes wait for about 4N grace periods in a row; callers that wait at the
same time share a grace period, so closing from several threads would
overlap them (not tried here). The attach is one \`perf_event_open()\` per
function ($(dg $n strace kprobe attach perf_event_open) under strace, which slows it), each
creating a kprobe event, registering it (\`register_kprobe()\` $(dg $n graph kprobe attach register_kprobe))
and arming it through ftrace (the call-site patching itself, \`text_poke_finish()\`,
$(dg $n graph kprobe attach text_poke_finish)); the rest is in kernel/trace/, which is built
without ftrace hooks and cannot be traced this way.

**fentry waits for a Tasks RCU grace period per function.** Each function
gets its own program load ($(dg $n strace fentry attach bpf:BPF_PROG_LOAD): the verifier runs
for each copy) and trampoline (\`BPF_RAW_TRACEPOINT_OPEN\` $(dg $n strace fentry attach bpf:BPF_RAW_TRACEPOINT_OPEN)).
Detaching a trampoline unregisters its ftrace direct call and waits for
\`synchronize_rcu_tasks()\` ($(dg $n graph fentry detach synchronize_rcu_tasks) in $n,
$(dg $o graph fentry detach synchronize_rcu_tasks) in $o), the slowest grace period there is: so fentry
detaches slowest of all, and is no alternative to single kprobes where
kprobe.multi is missing ($o: $(v $o all fentry ratio)x single kprobes' time for all).

**kprobe.multi's time is per link.** Attach: \`kallsyms_on_each_symbol()\`
$(dg $n graph kprobe-multi attach kallsyms_on_each_symbol), once per link (the kernel resolves the link's
names by walking every kernel symbol), then one ftrace update for all the
link's functions. Detach: \`synchronize_rcu_tasks()\` $(dg $n graph kprobe-multi detach synchronize_rcu_tasks)
and \`synchronize_rcu()\` $(dg $n graph kprobe-multi detach synchronize_rcu), a few per link, not per function.
TEXT
}

main() {
	local cmd
	case ${1:-} in
	--report)
		render
		;;
	--diag)
		shift
		export VM_BENCH_ROUNDS=0 VM_BENCH_DIAG=${DIAG:-"strace graph"} \
			VM_BENCH_DIAG_SIZES=${DIAG_SIZES:-all} VM_BENCH_SIZES=${DIAG_SIZES:-all}
		cmd="bench/vm_attach.sh --diag (DIAG=\"$VM_BENCH_DIAG\""
		measure diag "$cmd DIAG_SIZES=\"$VM_BENCH_DIAG_SIZES\")" "$@"
		render
		;;
	-*)
		echo "usage: $0 [--diag|--report] [KERNEL_PKG...]" >&2
		exit 2
		;;
	*)
		export VM_BENCH_ROUNDS=$ROUNDS VM_BENCH_SIZES=$SIZES
		measure bench "bench/vm_attach.sh (ROUNDS=$ROUNDS SIZES=\"$SIZES\")" "$@"
		render
		;;
	esac
}

# On one line: bash reads a script as it runs, and this one may be edited
# during its hour-long run.
main "$@"; exit $?
