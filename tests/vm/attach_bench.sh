#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash: local works
# Attach and detach time of pktpath's function backends, inside the test VM
# (busybox sh). /init runs it instead of scenarios.sh when vm.conf says
# VM_RUN=/tests/attach_bench.sh; bench/vm_attach.sh drives it and reads its
# lines from the serial console:
#
#   @@AB {"type":"list",...}   the probe lists, their sizes
#   @@AB {"type":"run",...}    one pktpath run: pktpath's own -v timings
#   @@AB {"type":"diag",...}   a diagnostic run's breakdown (VM_BENCH_DIAG)
#
# The lists: every kernel function taking an skb that pktpath's kprobe
# backend would attach here (`--list-probes --all-skb-funcs`), and evenly
# spaced samples of it (every (total/N)th function, in BTF order). Every
# backend gets the same list file; what it cannot take (fentry: more than
# six arguments) is skipped and counted.
#
# Settings (environment, from vm.conf):
#   VM_BENCH_ROUNDS    rounds (default 5); the backends' order rotates by round
#   VM_BENCH_SIZES     list sizes (default "1 100 1000 all")
#   VM_BENCH_BACKENDS  default "kprobe-multi kprobe fentry" (those the kernel has)
#   VM_BENCH_DIAG      "strace" and/or "graph": one extra run per backend of
#                      the sizes in VM_BENCH_DIAG_SIZES (default "all") under
#                      strace -T (time per syscall), or under the
#                      function_graph tracer on VM_BENCH_GRAPH_FUNCS (kernel
#                      time per function); their timings are not the bench's
set -u

PP=/usr/bin/pktpath
T=/sys/kernel/tracing
ROUNDS=${VM_BENCH_ROUNDS:-5}
SIZES=${VM_BENCH_SIZES:-"1 100 1000 all"}
WANT=${VM_BENCH_BACKENDS:-"kprobe-multi kprobe fentry"}
DIAG=${VM_BENCH_DIAG:-}
DIAG_SIZES=${VM_BENCH_DIAG_SIZES:-all}
# Kernel functions whose time tells where attach and detach go; those this
# kernel cannot trace are left out (kernel/trace/ is built without ftrace
# hooks: fprobe, ftrace's own updates, kprobe events).
GRAPH_FUNCS=${VM_BENCH_GRAPH_FUNCS:-"synchronize_rcu synchronize_rcu_expedited
synchronize_rcu_tasks synchronize_rcu_tasks_rude synchronize_rcu_tasks_trace
rcu_barrier rcu_barrier_tasks_trace register_kprobe unregister_kprobe unregister_kprobes
kallsyms_on_each_symbol kallsyms_lookup_name module_kallsyms_on_each_symbol
text_poke_finish text_poke_bp text_poke_sync bpf_check bpf_prog_select_runtime
bpf_trampoline_link_prog bpf_trampoline_unlink_prog perf_release perf_kprobe_init
perf_event_set_bpf_prog bpf_link_release"}
# Hard limit of one pktpath run: single kprobes on every skb function are slow.
RUN_TIMEOUT=${VM_BENCH_RUN_TIMEOUT:-1800}
FILTER="icmp and host 198.19.9.9" # matches nothing: attach and detach only
ERR=/tmp/ab.err

# shellcheck source=tests/vm/vmlib.sh
. "$(dirname "$0")/vmlib.sh"

# pktpath needs an Ethernet-like interface to put its classifier on.
topo() {
	ip netns add a
	ip netns add b
	ip link add veth-a netns a type veth peer name veth-b netns b
	ip -n a link set veth-a up
	ip -n b link set veth-b up
}

# The kprobe backend's view of every skb function: LIST.all, then samples.
make_lists() {
	local n total
	"$PP" --list-probes --backend kprobe --funcs /dev/null --all-skb-funcs >/tmp/ab.list \
		2>/tmp/ab.list.err
	grep -v '^tp:' /tmp/ab.list | grep -v ' skipped: ' | cut -d' ' -f1 >/tmp/list.all
	total=$(grep -c . /tmp/list.all)
	printf '@@AB {"type":"list","size":"all","funcs":%s,"btf_skb_funcs":%s}\n' "$total" \
		"$(grep -vc '^tp:' /tmp/ab.list)"
	for n in $SIZES; do
		[ "$n" != all ] || continue
		awk -v n="$n" -v t="$total" 'int(NR * n / t) != int((NR - 1) * n / t)' \
			/tmp/list.all >"/tmp/list.$n"
		printf '@@AB {"type":"list","size":"%s","funcs":%s}\n' "$n" \
			"$(grep -c . "/tmp/list.$n")"
	done
}

pp_cmd() {
	local backend="$1" size="$2"
	shift 2
	/usr/sbin/ip netns exec a timeout -s KILL "$RUN_TIMEOUT" "$@" "$PP" -v \
		--backend "$backend" --funcs "/tmp/list.$size" --duration 0.1 "$FILTER"
}

# run_pp BACKEND SIZE [WRAPPER...]: one pktpath run, which ends 0.1 s after
# it is ready; its stderr in $ERR, its wall time (uptime, 10 ms steps) in
# WALL, its exit code in RC. MARKERS=1: its stderr also goes into the trace
# buffer, as trace markers, so that its -v timings mark the trace.
run_pp() {
	local t0
	t0=$(uptime_s)
	if [ "${MARKERS:-0}" = 1 ]; then
		{
			pp_cmd "$@" 2>&1 >/dev/null
			echo $? >/tmp/ab.rc
		} | tee "$ERR" >"$T/trace_marker"
		RC=$(cat /tmp/ab.rc)
	else
		pp_cmd "$@" >/dev/null 2>"$ERR"
		RC=$?
	fi
	WALL=$(awk -v t="$t0" '{ printf "%.2f", $1 - t }' /proc/uptime)
}

# The -v lines of main.c: "attached N probes in X ms (backend B; setup S ms)"
# and "detached N probes in Y ms".
record_run() {
	local round="$1" backend="$2" size="$3" att det skipped failed
	att=$(sed -n 's/^.*pktpath: attached \([0-9]*\) probes in \([0-9.]*\) ms .*setup \([0-9.]*\) ms.*/\1 \2 \3/p' \
		"$ERR")
	det=$(sed -n 's/^pktpath: detached [0-9]* probes in \([0-9.]*\) ms$/\1/p' "$ERR")
	skipped=$(sed -n 's/^pktpath: skipped \([0-9]*\) of .*/\1/p' "$ERR")
	failed=$(grep -c 'attach failed' "$ERR")
	# shellcheck disable=SC2086 # att is three words or none
	set -- $att
	printf '@@AB {"type":"run","round":%s,"size":"%s","backend":"%s","listed":%s,' \
		"$round" "$size" "$backend" "$(grep -c . "/tmp/list.$size")"
	printf '"probes":%s,"attach_ms":%s,"setup_ms":%s,"detach_ms":%s,' \
		"$(num "${1:-}")" "$(num "${2:-}")" "$(num "${3:-}")" "$(num "$det")"
	printf '"skipped":%s,"failed":%s,"wall_s":%s,"rc":%s}\n' "${skipped:-0}" "$failed" \
		"$WALL" "$RC"
	if [ -z "$att" ] || [ -z "$det" ] || [ "$RC" != 0 ]; then
		sed 's/^/@@ABERR /' "$ERR" | grep -v 'attaching [0-9]* of' | tail -n 5
	fi
}

bench() {
	local r size backend
	for r in $(seq 1 "$ROUNDS"); do
		for size in $SIZES; do
			# shellcheck disable=SC2086 # a list of words
			for backend in $(rotate $((r - 1)) $BACKENDS); do
				run_pp "$backend" "$size"
				record_run "$r" "$backend" "$size"
				# Let deferred frees (RCU callbacks) end before the next run.
				sleep 1
			done
		done
	done
}

# ---- diagnostics ---------------------------------------------------------------

# PHASES: awk that reads "TIME WHAT MS" records (TIME in seconds, any
# origin) and pktpath's -v lines ("attached N probes in X ms" at time T: the
# attach is T-X..T; the same for "detached"), and prints a diag line per
# phase and WHAT: calls, total and maximum ms. Phases: setup (before the
# attach), attach, between (TC, tracing, the summary), detach, after.
# shellcheck disable=SC2016 # awk's variables
PHASES='
function phase(t) {
	if (t < ta - am / 1000) return "setup"
	if (t <= ta) return "attach"
	if (t < td - dm / 1000) return "between"
	if (t <= td) return "detach"
	return "after"
}
NR == FNR {
	if (match($0, /pktpath: attached [0-9]+ probes in [0-9.]+ ms/)) {
		m = substr($0, RSTART, RLENGTH); sub(/ ms$/, "", m); sub(/.* in /, "", m)
		ta = $1; am = m
	}
	if (match($0, /pktpath: detached [0-9]+ probes in [0-9.]+ ms/)) {
		m = substr($0, RSTART, RLENGTH); sub(/ ms$/, "", m); sub(/.* in /, "", m)
		td = $1; dm = m
	}
	next
}
$1 == "R" {
	k = phase($2) SUBSEP $3
	n[k]++; ms[k] += $4; if ($4 > mx[k]) mx[k] = $4
}
END {
	for (k in n) {
		split(k, p, SUBSEP)
		printf "@@AB {\"type\":\"diag\",\"tool\":\"%s\",\"backend\":\"%s\",", tool, b
		printf "\"size\":\"%s\",\"phase\":\"%s\",\"what\":\"%s\",", s, p[1], p[2]
		printf "\"calls\":%d,\"ms\":%.1f,\"max_ms\":%.1f}\n", n[k], ms[k], mx[k]
	}
}'

# strace -T: the wall time of each syscall, by kind (bpf by command).
diag_strace() {
	local backend="$1" size="$2"
	run_pp "$backend" "$size" strace --seccomp-bpf -f -ttt -T -s 200 -o /tmp/ab.strace \
		-e trace=bpf,perf_event_open,ioctl,close,write
	# "PID TIME call(...) = RET <SECONDS>": pktpath is single-threaded.
	awk '
		{ sub(/^[0-9]+ +/, "") }
		/^[0-9.]+ write\(2, / { print; next }
		!/<[0-9.]+>$/ { next }
		{
			t = $NF; gsub(/[<>]/, "", t)
			call = ($2 == "<..." ? $3 : $2); sub(/\(.*/, "", call)
			if (call == "bpf") {
				c = $2; sub(/^bpf\(/, "", c); sub(/,.*/, "", c); call = "bpf:" c
			}
			if (call == "ioctl" && match($0, /PERF_EVENT_IOC_[A-Z_]+/))
				call = "ioctl:" substr($0, RSTART, RLENGTH)
			print "R", $1, call, t * 1000
		}' /tmp/ab.strace >/tmp/ab.rec
	awk -v tool=strace -v b="$backend" -v s="$size" "$PHASES" /tmp/ab.rec /tmp/ab.rec
	diag_totals strace "$backend" "$size"
}

# The run's own timings, for the diag lines to be read against.
diag_totals() {
	local att det
	att=$(sed -n 's/^.*pktpath: attached \([0-9]*\) probes in \([0-9.]*\) ms .*/\2/p' "$ERR")
	det=$(sed -n 's/^pktpath: detached [0-9]* probes in \([0-9.]*\) ms$/\1/p' "$ERR")
	printf '@@AB {"type":"diag","tool":"%s","backend":"%s","size":"%s",' "$1" "$2" "$3"
	printf '"what":"(pktpath -v)","attach_ms":%s,"detach_ms":%s,"wall_s":%s,"rc":%s}\n' \
		"$(num "$att")" "$(num "$det")" "$WALL" "$RC"
	[ "$RC" = 0 ] || sed 's/^/@@ABERR /' "$ERR" | grep -v 'attaching [0-9]* of' | tail -n 5
}

graph_setup() {
	local f
	echo 0 >"$T/tracing_on"
	echo nop >"$T/current_tracer"
	: >"$T/set_ftrace_filter"
	for f in $GRAPH_FUNCS; do
		grep -qx "$f" "$T/available_filter_functions" && echo "$f" >>"$T/set_ftrace_filter"
	done
	echo 16384 >"$T/buffer_size_kb"
	echo 1 >"$T/options/funcgraph-tail"
	echo 1 >"$T/options/sleep-time"
	printf '@@AB {"type":"diag","tool":"graph","what":"(traced)","funcs":"%s"}\n' \
		"$(tr '\n' ' ' <"$T/set_ftrace_filter")"
}

# function_graph on GRAPH_FUNCS: calls and wall time (sleeps included) per
# function; pktpath's stderr is in the trace as markers (MARKERS=1).
diag_graph() {
	local backend="$1" size="$2"
	: >"$T/trace"
	echo function_graph >"$T/current_tracer"
	echo 1 >"$T/options/funcgraph-abstime"
	echo 1 >"$T/tracing_on"
	MARKERS=1 run_pp "$backend" "$size"
	echo 0 >"$T/tracing_on"
	cat "$T/trace" >/tmp/ab.graph
	echo nop >"$T/current_tracer"
	# " TIME |  CPU)  DURATION us  |  } /* FUNC */" or "... |  FUNC();"
	awk '
		/^ *[0-9]+\.[0-9]+ / && / us +\|/ && (/\} \/\* [A-Za-z0-9_.]+ \*\/$/ || /\(\);$/) {
			f = $0; sub(/.*\/\* /, "", f); sub(/ \*\/$/, "", f)
			if ($0 ~ /\(\);$/) { f = $0; sub(/\(\);$/, "", f); sub(/.*[| ]/, "", f) }
			us = $0; sub(/ us +\|.*/, "", us); sub(/.*[^0-9.]/, "", us)
			print "R", $1, f, us / 1000
			next
		}
		/pktpath: (at|de)tached/ { print }' /tmp/ab.graph >/tmp/ab.rec
	printf '@@AB {"type":"diag","tool":"graph","backend":"%s","size":"%s","what":"(lost)",' \
		"$backend" "$size"
	printf '"lines":%s}\n' "$(grep -c LOST /tmp/ab.graph)"
	awk -v tool=graph -v b="$backend" -v s="$size" "$PHASES" /tmp/ab.rec /tmp/ab.rec
	diag_totals graph "$backend" "$size"
}

diag() {
	local tool size backend
	for tool in $DIAG; do
		[ "$tool" != graph ] || graph_setup
		for size in $DIAG_SIZES; do
			for backend in $BACKENDS; do
				"diag_$tool" "$backend" "$size"
				sleep 1
			done
		done
	done
}

# ---- main ----------------------------------------------------------------------

# A single kprobe or fentry costs pktpath two descriptors (the perf event or
# program, and its link), and pktpath leaves RLIMIT_NOFILE as it finds it:
# under the usual soft limit of 1024 it fails from about 500 probes on.
ulimit -n 65536

# shellcheck disable=SC2086 # a list of words
usable_backends $WANT
printf '@@AB {"type":"kernel","release":"%s","backends":"%s","rounds":%s}\n' "$(uname -r)" \
	"$BACKENDS" "$ROUNDS"
topo
make_lists
[ "$ROUNDS" = 0 ] || bench
[ -z "$DIAG" ] || diag
ip -all netns delete
