# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the end-to-end tests (tests/e2e/test_*.sh).
#
# A test sources this file, calls pp_begin (or pp_setup, for a test that
# needs no network, as test_test_pcap_edges.sh), and ends with pp_pass; on
# any problem it calls pp_fail or pp_skip. The protocol with run.sh:
#   exit 0 = pass, 1 = fail, 77 = skip; the reason is the first "FAIL: why"
#   or "SKIP: why" line on stdout; everything else goes to stderr.
# Cleanup is a stack (pp_defer) run on EXIT, INT and TERM, so namespaces and
# pktpath processes go away on every path, failure included.
#
# Environment:
#   PKTPATH            the binary (default build/loader/pktpath in the repo)
#   PP_E2E_WORKDIR     where pktpath's output and other artifacts go (run.sh
#                      sets it per test; default: a temporary directory that
#                      is removed after a pass and kept after a failure)
#   PP_READY_TIMEOUT   seconds to wait for "pktpath: ready" (default 20)
#   PP_STOP_TIMEOUT    seconds to wait for exit after a signal (default 10)
#   PP_FREE_GRACE      seconds that BPF objects may take to be freed after
#                      their last holder went, before they count as leaked
#                      (default 20: RCU and work queues of a loaded machine)

PP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PKTPATH=${PKTPATH:-$PP_ROOT/build/loader/pktpath}
# A relative PKTPATH means relative to where the caller stood; make it
# absolute now, before anything changes directory.
[[ $PKTPATH == /* ]] || PKTPATH=$PWD/$PKTPATH
PP_TEST=$(basename "$0" .sh)
PP_TEST=${PP_TEST#test_}
PP_READY_TIMEOUT=${PP_READY_TIMEOUT:-20}
PP_STOP_TIMEOUT=${PP_STOP_TIMEOUT:-10}
PP_FREE_GRACE=${PP_FREE_GRACE:-20}
PP_TMP=
PP_TMP_OWNED=0
PP_RC=0
PP_BEFORE=
PP_CLEANUPS=()
declare -A PP_PIDS=()

# ---------------------------------------------------------------- results

# Each line says when, in seconds since the test began: on a loaded machine
# that shows where the time went.
pp_log() {
	echo "[$PP_TEST +${SECONDS}s] $*" >&2
}

# The verdict goes to fd 3, the test's stdout as it was when this file was
# sourced: a failure inside $(...) or inside a block whose output goes to
# a file still reaches run.sh. The first verdict printed is the cause;
# run.sh reads that one.
exec 3>&1

pp_pass() {
	echo "PASS" >&3
	exit 0
}

pp_fail() {
	echo "FAIL: $*" >&3
	exit 1
}

pp_skip() {
	echo "SKIP: $*" >&3
	exit 77
}

# ---------------------------------------------------------------- cleanup

# pp_defer CMD ARGS...: run CMD ARGS at exit, last deferred first. The
# words are quoted now, so arguments with spaces survive the later eval.
pp_defer() {
	PP_CLEANUPS+=("$(printf '%q ' "$@")")
}

_pp_on_exit() {
	local rc=$? i
	trap - EXIT INT TERM ERR
	set +e
	for ((i = ${#PP_CLEANUPS[@]} - 1; i >= 0; i--)); do
		eval "${PP_CLEANUPS[i]}"
	done
	if [ "$PP_TMP_OWNED" = 1 ] && [ -n "$PP_TMP" ]; then
		if [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ]; then
			rm -rf "$PP_TMP"
		else
			pp_log "artifacts kept in $PP_TMP"
		fi
	fi
	exit "$rc"
}

# An unexpected failing command (set -e) must still say what failed, and
# must not exit with the command's own status: a stray 77 would read as
# a skip.
_pp_on_err() {
	local rc=$? line=$1 cmd=$2
	pp_fail "line $line: '$cmd' failed (exit $rc)"
}

# pp_setup: the first call of every test. Needs root (network namespaces,
# BPF); no root is a skip, not a failure.
pp_setup() {
	set -euo pipefail
	set -E
	trap _pp_on_exit EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap '_pp_on_err "$LINENO" "$BASH_COMMAND"' ERR
	[ "$(id -u)" -eq 0 ] || pp_skip "needs root (network namespaces, BPF)"
	pp_require_cmd ip tc jq bpftool ping stat timeout env
	if [ -n "${PP_E2E_WORKDIR:-}" ]; then
		PP_TMP=$PP_E2E_WORKDIR
		mkdir -p "$PP_TMP"
	else
		PP_TMP=$(mktemp -d "/tmp/pktpath-e2e-$PP_TEST.XXXXXX")
		PP_TMP_OWNED=1
	fi
	# From the repo root pktpath finds its default probe list, which it
	# looks for as ./kp_func.list first, as a user of a checkout would.
	cd "$PP_ROOT"
}

# pp_require_cmd CMD...: a missing tool is a skip that says which.
pp_require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
			pp_skip "$c not installed (scripts/install-deps.sh)"
	done
}

# A missing pktpath binary is a failure: the tests exist to test it.
pp_require_pktpath() {
	[ -x "$PKTPATH" ] ||
		pp_fail "pktpath binary not found at $PKTPATH (build it: cmake --build build)"
}

# pp_begin [TOOL...]: the preamble of a test on the test topology: pp_setup,
# the pktpath binary (pp_require_pktpath), the TOOLs besides those that
# every test needs (pp_require_cmd), then pp_topo_up.
# shellcheck disable=SC2120 # the TOOLs are optional: most tests name none
pp_begin() {
	pp_setup
	pp_require_pktpath
	[ $# -eq 0 ] || pp_require_cmd "$@"
	pp_topo_up
}

# pp_test_tool VAR NAME: VAR = the path of tests/e2e/NAME.c's binary, built
# with pktpath (build/tests/NAME); fails the test if it is not there (not
# in a $(...) subshell, whose exit would not end the test).
pp_test_tool() {
	local bin
	bin=$(dirname "$PKTPATH")/../tests/$2
	[ -x "$bin" ] || pp_fail "no $bin (built with pktpath: cmake --build build)"
	printf -v "$1" '%s' "$bin"
}

# ---------------------------------------------------------------- topology

# pp_topo_up: scripts/topology.sh's three namespaces under a prefix of this
# test's own (name and pid), so tests never collide with each other or with
# the demo's pp-a/pp-r/pp-b. Sets PP_NS_A, PP_NS_R, PP_NS_B.
pp_topo_up() {
	local name=${PP_TEST//_/-}
	local prefix=ppe-${name:0:16}-$$
	PP_NS_A=$prefix-a
	PP_NS_R=$prefix-r
	PP_NS_B=$prefix-b
	pp_defer "$PP_ROOT/scripts/topology.sh" down "$prefix"
	"$PP_ROOT/scripts/topology.sh" up "$prefix" >"$PP_TMP/topology.log" 2>&1 ||
		pp_fail "topology up failed: $(_pp_last_line "$PP_TMP/topology.log")"
	pp_log "topology $PP_NS_A -- $PP_NS_R -- $PP_NS_B up"
}

# pp_netns_inode NS: the inode that identifies NS, as pktpath's hops report
# it. The bind mount under /run/netns is the namespace file itself; this
# avoids "ip netns exec", which would also make a new mount namespace.
pp_netns_inode() {
	stat -L -c %i "/run/netns/$1"
}

# pp_in NS CMD...: run CMD in namespace NS.
pp_in() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

# ---------------------------------------------------------------- processes

# pp_alive PID: true while PID runs. kill -0 is not enough: it succeeds on a
# zombie, and our children stay zombies until we wait for them.
pp_alive() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

# pp_out NAME / pp_err NAME: the stdout/stderr files of background process
# NAME (pp_bg) or of pktpath run NAME (pp_pktpath_*).
pp_out() { echo "$PP_TMP/$1.out"; }
pp_err() { echo "$PP_TMP/$1.err"; }

# pp_bg NAME NS CMD...: run CMD in namespace NS in the background, output
# in pp_out/pp_err NAME; stopped at exit unless stopped before (pp_stop).
# A background job of a non-interactive shell starts with SIGINT ignored;
# env puts the default back so that SIGINT works as from a terminal. Both
# env and ip netns exec exec, so $! is CMD's own pid, and our signals go
# to it directly.
pp_bg() {
	local name=$1 ns=$2
	shift 2
	[ -z "${PP_PIDS[$name]:-}" ] || pp_fail "internal: '$name' started twice"
	env --default-signal=INT,QUIT ip netns exec "$ns" "$@" \
		</dev/null >"$(pp_out "$name")" 2>"$(pp_err "$name")" &
	PP_PIDS[$name]=$!
	pp_defer _pp_reap "$name"
	pp_log "started '$name' (pid $!) in $ns: $*"
}

# pp_pktpath_start NAME NS ARGS...: start pktpath and wait (bounded) for
# its "pktpath: ready" line, so traffic sent afterwards is traced.
pp_pktpath_start() {
	local name=$1 ns=$2
	shift 2
	pp_bg "$name" "$ns" "$PKTPATH" "$@"
	pp_wait_line "$name" '^pktpath: ready' "$PP_READY_TIMEOUT"
}

# pp_root_bg NAME CMD...: as pp_bg, in the root namespace.
pp_root_bg() {
	local name=$1
	shift
	env --default-signal=INT,QUIT "$@" </dev/null >"$(pp_out "$name")" 2>"$(pp_err "$name")" &
	PP_PIDS[$name]=$!
	pp_defer _pp_reap "$name"
}

# pp_root_start NAME ARGS...: pktpath in the root namespace (pp_pktpath_start
# runs it inside a named one), until its ready line.
pp_root_start() {
	pp_root_bg "$1" "$PKTPATH" "${@:2}"
	pp_wait_line "$1" '^pktpath: ready' "$PP_READY_TIMEOUT"
}

# pp_state_field NAME FIELD: FIELD of pktpath run NAME's state_map (struct
# pp_state), found among the maps its file descriptors hold.
pp_state_field() {
	local id
	while read -r id; do
		[ "$(bpftool -j map show id "$id" | jq -r .name)" = state_map ] || continue
		bpftool -j map dump id "$id" | jq --arg f "$2" '.[0].formatted.value[$f]'
		return 0
	done < <(awk '/^map_id:/ { print $2 }' "/proc/${PP_PIDS[$1]}/fdinfo/"* 2>/dev/null)
	pp_fail "$1: no state_map among the fds of pid ${PP_PIDS[$1]}"
}

# pp_wait_line NAME ERE SECONDS: wait until background process NAME prints
# a line matching ERE on stderr. Exiting first, or not printing it within
# SECONDS, is a failure that quotes its last stderr line.
pp_wait_line() {
	local name=$1 re=$2 secs=$3 pid i
	pid=${PP_PIDS[$name]:?$name not started}
	for ((i = 0; i < secs * 10; i++)); do
		# 2>/dev/null: the child may not have opened the file yet.
		grep -Eq -- "$re" "$(pp_err "$name")" 2>/dev/null && return 0
		if ! pp_alive "$pid"; then
			PP_RC=0
			wait "$pid" || PP_RC=$?
			unset "PP_PIDS[$name]"
			pp_fail "'$name' exited (status $PP_RC) before printing /$re/:" \
				"$(_pp_last_line "$(pp_err "$name")")"
		fi
		sleep 0.1
	done
	pp_fail "'$name' printed nothing matching /$re/ within $secs s:" \
		"$(_pp_last_line "$(pp_err "$name")")"
}

# _pp_wait_exit PID SECONDS: wait up to SECONDS for PID to end; reap it and
# put its exit status in PP_RC. Returns 1 if it is still running.
_pp_wait_exit() {
	local pid=$1 i
	for ((i = 0; i < $2 * 10; i++)); do
		pp_alive "$pid" || break
		sleep 0.1
	done
	pp_alive "$pid" && return 1
	PP_RC=0
	wait "$pid" || PP_RC=$?
	return 0
}

# pp_stop NAME [SIG]: send SIG (default INT) to background process NAME and
# wait, bounded. Not exiting in time is a failure (after a SIGKILL, so
# nothing lingers). The exit status is left in PP_RC.
# pp_wait_pcap FILE N: wait (up to 5 s) until tcpdump has written N packets
# to FILE, so that stopping it loses none still in its capture ring.
pp_wait_pcap() {
	for _ in $(seq 50); do
		[ "$(tcpdump -r "$1" 2>/dev/null | wc -l)" -ge "$2" ] && return 0
		sleep 0.1
	done
}

pp_stop() {
	local name=$1 sig=${2:-INT} pid
	pid=${PP_PIDS[$name]:?$1 not started}
	kill "-$sig" "$pid" 2>/dev/null || true
	if ! _pp_wait_exit "$pid" "$PP_STOP_TIMEOUT"; then
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" || true
		unset "PP_PIDS[$name]"
		pp_fail "'$name' did not exit within ${PP_STOP_TIMEOUT} s of SIG$sig"
	fi
	unset "PP_PIDS[$name]"
	pp_log "'$name' exited with status $PP_RC after SIG$sig"
}

# pp_pktpath_settle NAME SECONDS: wait until pktpath NAME has printed every
# packet it tracked, when no traffic that its filter matches is under way
# (call it after the traffic's sender has exited). Without that, a SIGINT
# loses what is still open: pktpath does not print packets open at exit.
# The loader tells its state by how it waits for records (loader/cmd/trace.c):
# in epoll_wait with a 10 ms timeout while a packet is open or an skb is in
# flight, with 250 ms (0xfa, the 4th syscall argument) only when nothing
# is. Two such waits, the second begun after the first was seen, mean that
# it looked after the traffic: a wait seen only once may have begun before.
# No sleep decides anything: this is as fast as the machine allows, and
# SECONDS only bounds a failure.
pp_pktpath_settle() {
	local name=$1 secs=$2 pid end sc csw first=
	pid=${PP_PIDS[$name]:?pktpath $1 not started}
	end=$((SECONDS + secs))
	while :; do
		sc=$(cat "/proc/$pid/syscall" 2>/dev/null) || sc=
		sc=${sc#* * * * } # the 4th argument starts the string now
		if [ "${sc%% *}" = 0xfa ]; then
			csw=$(awk '$1 == "voluntary_ctxt_switches:" { print $2 }' \
				"/proc/$pid/status" 2>/dev/null) || csw=
			if [ -z "$first" ]; then
				first=$csw
			elif [ -n "$csw" ] && [ "$csw" != "$first" ]; then
				return 0
			fi
		fi
		pp_alive "$pid" ||
			pp_fail "'$name' exited while settling: $(_pp_last_line "$(pp_err "$name")")"
		[ "$SECONDS" -lt "$end" ] ||
			pp_fail "'$name' still had packets open or in flight $secs s after the" \
				"traffic (its last wait: $(cat "/proc/$pid/syscall" 2>/dev/null))"
		sleep 0.05
	done
}

# pp_proc_state PID: the state letter of PID (R, S, T, Z...), or "gone".
pp_proc_state() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || {
		echo gone
		return 0
	}
	stat=${stat##*) }
	echo "${stat%% *}"
}

# pp_freeze NAME / pp_thaw NAME: SIGSTOP background process NAME and wait
# until it is stopped (the signal takes effect when it is next scheduled),
# or SIGCONT it. A stopped pktpath reads no records; its BPF programs go on
# writing them, so its ring fills whatever the machine's speed.
pp_freeze() {
	local pid i
	pid=${PP_PIDS[$1]:?$1 not started}
	kill -STOP "$pid"
	for ((i = 0; i < 200; i++)); do
		[ "$(pp_proc_state "$pid")" != T ] || return 0
		sleep 0.05
	done
	pp_fail "'$1' not stopped 10 s after SIGSTOP (state $(pp_proc_state "$pid"))"
}

pp_thaw() {
	kill -CONT "${PP_PIDS[$1]:?$1 not started}"
}

# pp_pktpath_stop NAME [SIG]: pp_stop, named for what the tests stop most.
pp_pktpath_stop() {
	pp_stop "$@"
}

# pp_pktpath_done NAME: pktpath run NAME (--json) settled, every packet
# closed (60 s at most), and stopped with SIGINT: its exit status 0, its
# output whole JSON lines, its summary in PP_SUMMARY, no record lost.
pp_pktpath_done() {
	local out
	out=$(pp_out "$1")
	pp_pktpath_settle "$1" 60
	pp_pktpath_stop "$1" INT
	pp_expect_eq "pktpath's exit status" "$PP_RC" 0
	pp_expect_json_lines "$out" "pktpath's output"
	pp_expect_summary "$out"
	pp_expect_eq "records lost" "$(jq -r .lost <<<"$PP_SUMMARY")" 0
}

# pp_pktpath_wait NAME SECONDS: wait for pktpath to exit by itself (-c N,
# --duration); still running after SECONDS is a failure. Status in PP_RC.
pp_pktpath_wait() {
	local name=$1 secs=$2 pid n
	pid=${PP_PIDS[$name]:?pktpath $1 not started}
	if ! _pp_wait_exit "$pid" "$secs"; then
		n=$(wc -l <"$(pp_out "$name")")
		pp_fail "pktpath '$name' still running ${secs} s after the traffic" \
			"($n lines of output so far)"
	fi
	unset "PP_PIDS[$name]"
	pp_log "'$name' exited by itself with status $PP_RC"
}

# pp_pktpath_run NAME NS SECONDS ARGS...: run pktpath in the foreground,
# for invocations that should end on their own (bad input, --test-pcap,
# --list-probes). Still running after SECONDS is a failure: it means the
# command was taken as a tracing session. Exit status in PP_RC.
pp_pktpath_run() {
	local name=$1 ns=$2 secs=$3
	shift 3
	PP_RC=0
	timeout -s INT -k 5 "$secs" env --default-signal=INT,QUIT \
		ip netns exec "$ns" "$PKTPATH" "$@" \
		</dev/null >"$(pp_out "$name")" 2>"$(pp_err "$name")" || PP_RC=$?
	if [ "$PP_RC" -eq 124 ] || [ "$PP_RC" -eq 137 ]; then
		pp_fail "pktpath $* was still running after ${secs} s" \
			"(stderr: $(_pp_last_line "$(pp_err "$name")"))"
	fi
	pp_log "pktpath '$name' ($*) exited with $PP_RC"
}

# pp_trace_five_pings NAME NS: pktpath NAME, in namespace NS, traces five
# pings from a to b (tracepoint backend, --json, -c 5, filter "icmp and
# src 198.18.0.1") and must exit 0 by itself, having printed five packets
# as whole JSON lines, in pp_out NAME: icmp_seq 1 to 5, each with its hops
# in time order.
pp_trace_five_pings() {
	local name=$1 out n
	out=$(pp_out "$name")
	pp_pktpath_start "$name" "$2" --json --backend tracepoint -c 5 \
		--filter "icmp and src 198.18.0.1"
	pp_in "$PP_NS_A" ping -n -c 5 -i 0.2 -w 10 198.18.1.2 >"$PP_TMP/ping.out" 2>&1 ||
		pp_fail "ping a -> b failed: $(pp_brief_tail 2 "$PP_TMP/ping.out")"
	pp_pktpath_wait "$name" 15
	pp_expect_eq "pktpath exit status" "$PP_RC" 0
	pp_expect_json_lines "$out" "pktpath --json output"
	n=$(pp_jq "$out" 'packets | length')
	pp_expect_eq "packets printed" "$n" 5
	n=$(pp_jq "$out" '[packets[].pkt.icmp_seq] | sort | map(tostring) | join(",")')
	pp_expect_eq "icmp_seq values" "$n" "1,2,3,4,5"
	pp_expect_none "hops out of time order" "$out" \
		'packets[] | select(times_ordered | not) | "\(pkt_str): t_ns \([.hops[].t_ns])"'
}

# _pp_reap NAME: the deferred end of every background process, for the
# paths on which the test did not stop it itself (a failure, a signal).
# Only a pid still in PP_PIDS is signalled: one already reaped may have
# been reused by an unrelated process.
_pp_reap() {
	local pid=${PP_PIDS[$1]:-}
	[ -n "$pid" ] || return 0
	unset "PP_PIDS[$1]"
	kill -INT "$pid" 2>/dev/null
	_pp_wait_exit "$pid" "$PP_STOP_TIMEOUT" && return 0
	pp_log "'$1' (pid $pid) ignored SIGINT for ${PP_STOP_TIMEOUT} s; killing it"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

# For failure messages, which are built in $(...) inside pp_fail's
# arguments: these never fail, since under set -E a failure there would
# trip the ERR trap inside the substitution and garble the message.

# _pp_last_line FILE: FILE's last non-empty line, or <nothing>.
_pp_last_line() {
	local l
	l=$(awk 'NF { l = $0 } END { print l }' "$1" 2>/dev/null) || true
	echo "${l:-<nothing>}"
}

# pp_brief N [FILE]: the first N non-empty lines of FILE (default: stdin)
# joined on one line.
pp_brief() {
	awk -v n="$1" 'NF && k < n {
		sub(/[ \t]+$/, "")
		printf "%s%s", (k++ ? "; " : ""), $0
	}' "${2:--}" 2>/dev/null || true
}

# pp_brief_tail N FILE: the same for FILE's last N lines.
pp_brief_tail() {
	tail -n "$1" "$2" 2>/dev/null | pp_brief "$1"
}

# ---------------------------------------------------------------- kernel state

# _pp_tc_state NS|"" full|hooks: tc state of every interface of NS ("" is
# the root namespace). "hooks" keeps only what pktpath could add (clsact
# or ingress qdiscs and the filters on them): other tools may change the
# root namespace's ordinary qdiscs meanwhile and must not fail a test.
_pp_tc_state() {
	local ns=$1 mode=$2 nsarg=() dev
	[ -z "$ns" ] || nsarg=(-n "$ns")
	for dev in $(ip "${nsarg[@]}" -j link show | jq -r '.[].ifname' | sort); do
		# A device can vanish between listing and asking: ignore errors.
		{
			if [ "$mode" = full ]; then
				tc "${nsarg[@]}" qdisc show dev "$dev"
			else
				tc "${nsarg[@]}" qdisc show dev "$dev" | grep -E '^qdisc (clsact|ingress) '
			fi
			tc "${nsarg[@]}" filter show dev "$dev" ingress
			tc "${nsarg[@]}" filter show dev "$dev" egress
		} 2>/dev/null | sed "s/^/$dev: /" || true
	done
}

# _pp_foreign_prog_ids: ids of the BPF programs that live processes other
# than this test's hold through a file descriptor (a program's or a link's
# fdinfo names its prog_id): another pktpath running on this machine, say
# someone's demo. They are not ours to judge. A program no process holds
# (pinned, or left attached by clsact) is a leak and still counts.
_pp_foreign_prog_ids() {
	# grep exits 2 when a process ends while it reads; no match is fine too.
	{ grep -s '^prog_id:' /proc/[0-9]*/fdinfo/* || true; } |
		awk -v mine=" ${PP_PIDS[*]} $$ " -F '[/:[:space:]]+' '
			index(mine, " " $3 " ") == 0 { print $NF }' | sort -un | xargs
}

# _pp_bpftool_list TYPE: "bpftool -j TYPE show" (prog, link, map), checked
# to be a JSON array of objects with no "error" among them. bpftool walks
# the ids, then asks for each: an object going away meanwhile (another
# pktpath exiting) can make it print an error instead. Tried again then.
_pp_bpftool_list() {
	local out i
	for ((i = 0; i < 20; i++)); do
		out=$(bpftool -j "$1" show 2>/dev/null) || out=
		if jq -e 'type == "array" and all(.[]; type == "object" and (has("error") | not))' \
			<<<"$out" >/dev/null 2>&1; then
			echo "$out"
			return 0
		fi
		sleep 0.1
	done
	pp_fail "bpftool -j $1 show gave no usable list 20 times: $(head -c 200 <<<"$out")"
}

# _pp_foreign_tc_prog_ids: ids of the BPF programs attached as tc filters
# in the named network namespaces (/run/netns) that are not this test's:
# another engineer's test killed its pktpath with a clsact filter attached
# (test_clsact_stale.sh does, on purpose), and no process holds it until
# that test removes it. A namespace can vanish meanwhile: errors are no
# programs.
_pp_foreign_tc_prog_ids() {
	local ns ours=" ${PP_NS_A:-} ${PP_NS_R:-} ${PP_NS_B:-} "
	for ns in /run/netns/*; do
		[ -e "$ns" ] || continue
		ns=${ns##*/}
		[[ $ours != *" $ns "* ]] || continue
		ip netns exec "$ns" bpftool -j net show 2>/dev/null |
			jq -r '.[]?.tc[]?.id // empty' 2>/dev/null || true
	done | sort -un | xargs
}

# pp_pp_progs: "prog ID TYPE NAME" for every loaded BPF program whose name
# starts with pp_ (all of pktpath's do), then "link ID TYPE prog ID" for
# every link holding one of them (tcx links have no name of their own).
# Programs held by other processes are left out (_pp_foreign_prog_ids), and
# so are programs attached in other tests' namespaces: looked up only when
# something is left, as that costs a bpftool run per namespace.
pp_pp_progs() {
	local progs foreign
	foreign="[$(_pp_foreign_prog_ids | tr ' ' ',')]"
	progs=$(_pp_bpftool_list prog | jq -c --argjson f "$foreign" '[.[]
		| select((.name // "") | startswith("pp_"))
		| select(.id as $i | $f | index([$i]) | not)]')
	if [ "$progs" != "[]" ]; then
		foreign="[$(_pp_foreign_tc_prog_ids | tr ' ' ',')]"
		progs=$(jq -c --argjson f "$foreign" \
			'[.[] | select(.id as $i | $f | index([$i]) | not)]' <<<"$progs")
	fi
	jq -r '.[] | "prog \(.id) \(.type) \(.name)"' <<<"$progs"
	_pp_bpftool_list link | jq -r --argjson p "$progs" \
		'($p | map(.id)) as $ids | .[] | select(.prog_id as $i | $ids | index([$i]))
		 | "link \(.id) \(.type) prog \(.prog_id)"'
}

# pp_state_snapshot FILE [NS...]: what pktpath may leave in the kernel:
# tc state of the root namespace (hooks only) and of the given namespaces
# (default: the test topology), and pktpath's BPF programs and links.
pp_state_snapshot() {
	local file=$1 ns
	shift
	if [ $# -eq 0 ] && [ -n "${PP_NS_A:-}" ]; then
		set -- "$PP_NS_A" "$PP_NS_R" "$PP_NS_B"
	fi
	{
		echo "== root namespace (clsact/ingress qdiscs and their filters)"
		_pp_tc_state "" hooks
		for ns in "$@"; do
			echo "== namespace $ns"
			_pp_tc_state "$ns" full
		done
		echo "== BPF programs named pp_* and their links"
		pp_pp_progs
	} >"$file"
}

# pp_expect_state BEFORE WHAT [NS...]: the kernel state equals the snapshot
# BEFORE. Programs and links are freed a little after their last file
# descriptor closes (RCU, a work queue), so look again for PP_FREE_GRACE
# seconds, by the clock, before calling a difference a leak.
pp_expect_state() {
	local before=$1 what=$2 after end=$((SECONDS + PP_FREE_GRACE))
	shift 2
	after=$PP_TMP/state.$((++_PP_SNAP)).txt
	while :; do
		pp_state_snapshot "$after" "$@"
		cmp -s "$before" "$after" && return 0
		[ "$SECONDS" -lt "$end" ] || break
		sleep 0.1
	done
	pp_fail "$what: kernel state differs from before (-before +after):" \
		"$(pp_brief 4 <(diff --unchanged-line-format= --old-line-format='-%L' \
			--new-line-format='+%L' "$before" "$after" || true))" \
		"(full: diff $before $after)"
}
_PP_SNAP=0

# pp_run_refused BEFORE NS WANT ARGS...: pktpath ARGS exits 2 within 10 s
# with WANT (an ERE) on stderr, and the kernel state is still the snapshot
# BEFORE (pp_state_snapshot, with namespace NS unless it is "").
pp_run_refused() {
	local before=$1 ns=$2 want=$3 err=$PP_TMP/refused.err rc=0
	shift 3
	timeout -k 5 10 "$PKTPATH" "$@" </dev/null >/dev/null 2>"$err" || rc=$?
	pp_expect_eq "pktpath $*: exit status" "$rc" 2
	grep -Eq -- "$want" "$err" || pp_fail "pktpath $*: stderr not /$want/: $(pp_brief 2 "$err")"
	pp_expect_state "$before" "pktpath $*" ${ns:+"$ns"}
}

# pp_expect_no_pp_progs WHAT: no pktpath program or link is loaded (with
# the same grace period as pp_expect_state).
pp_expect_no_pp_progs() {
	local left end=$((SECONDS + PP_FREE_GRACE))
	while :; do
		left=$(pp_pp_progs)
		[ -n "$left" ] || return 0
		[ "$SECONDS" -lt "$end" ] || break
		sleep 0.1
	done
	pp_fail "$1: pktpath's BPF objects still loaded: $(pp_brief 4 <<<"$left")"
}

# ---------------------------------------------------------------- JSON

# jq definitions prepended to every pp_jq program. Input: the whole output
# file slurped into one array (one element per JSON line).
# shellcheck disable=SC2016 # jq variables, not shell ones
PP_JQ_LIB='
def packets: [.[] | select(type == "object" and has("id"))];
def summaries: [.[] | select(type == "object" and has("summary")) | .summary];
# "func@ifname" for each hop: what failure messages show of a path.
def path_str: [.hops[] | "\(.func)@\(.ifname // "-")"] | join(" ");
def pkt_str: "packet \(.id) (icmp_seq \(.pkt.icmp_seq // "-"))";
# hop_is($p): the hop matches pattern $p = {funcs: [..], ifname?, netns?}.
def hop_is($p):
  (.func as $f | any($p.funcs[]; . == $f))
  and ($p.ifname == null or .ifname == $p.ifname)
  and ($p.netns == null or .netns == $p.netns);
def pat_str($p):
  "\($p.funcs | join("|"))"
  + (if $p.ifname then " on \($p.ifname)" else "" end)
  + (if $p.netns then " in netns \($p.netns)" else "" end);
# path_miss($pats): null if the hops contain the patterns in this order
# (other hops may come between), else the first pattern not found.
def path_miss($pats):
  . as $pkt
  | reduce $pats[] as $p ({at: 0, miss: null};
      if .miss != null then .
      else .at as $at
        | ($pkt | first(.hops | to_entries[]
                        | select(.key >= $at and (.value | hop_is($p))) | .key) // null) as $i
        | if $i == null then .miss = $p else .at = $i + 1 end
      end)
  | .miss;
# times_ordered: t_ns never decreases along the path.
def times_ordered: [.hops[].t_ns] as $t | all(range(1; $t | length); $t[.] >= $t[. - 1]);
# ends_twice: for a packet, one line per skb address freed more often, or
# read (sock_recv_length) more often, than the packet has skbs there. One
# skb may end twice, by its read and by its free (loader/paths/path.h):
# frees and reads are counted apart.
def ends_twice:
  . as $p
  | [.hops[] | select(.func | test("^tp:(skb:kfree_skb|skb:consume_skb|kmem:kmem_cache_free|sock:sock_recv_length)$"))
     | {skb, how: (if .func == "tp:sock:sock_recv_length" then "read" else "freed" end)}]
  | group_by([.skb, .how])[] | . as $f
  | ([$p.skbs[]? | select(.skb == $f[0].skb)] | length | [., 1] | max) as $n
  | select(length > $n)
  | "\($p | pkt_str): \($f[0].skb) \($f[0].how) \(length) times, \($n) skbs";
'

# pp_jq FILE PROG [JQ-OPTIONS...]: PROG (with PP_JQ_LIB) over FILE slurped;
# raw output.
pp_jq() {
	local file=$1 prog=$2
	shift 2
	jq -s -r "$@" "$PP_JQ_LIB $prog" "$file"
}

# pp_expect_json_lines FILE WHAT: every line of FILE is one JSON object.
pp_expect_json_lines() {
	local bad
	# shellcheck disable=SC2016 # jq program
	bad=$(jq -R -n -r '[inputs] | to_entries[]
		| (.value | try fromjson catch null) as $v
		| select(($v | type) != "object")
		| "line \(.key + 1): \(.value[0:70])"' "$1")
	[ -z "$bad" ] || pp_fail "$2: not one JSON object per line: $(pp_brief 2 <<<"$bad")"
}

# pp_expect_none WHAT FILE PROG [JQ-OPTIONS...]: PROG prints one line per
# violation; any line fails the test, showing the first few.
pp_expect_none() {
	local what=$1 file=$2 prog=$3 out n
	shift 3
	out=$(pp_jq "$file" "$prog" "$@" 2>"$PP_TMP/jq.err") ||
		pp_fail "$what: jq failed on $(basename "$file"): $(_pp_last_line "$PP_TMP/jq.err")"
	[ -n "$out" ] || return 0
	n=$(wc -l <<<"$out")
	pp_fail "$what: $(pp_brief 2 <<<"$out") ($n in all)"
}

# pp_expect_summary FILE: exactly one summary object, and it is the last
# line. Leaves it (compact JSON) in PP_SUMMARY.
pp_expect_summary() {
	local n
	n=$(pp_jq "$1" 'summaries | length')
	[ "$n" -eq 1 ] || pp_fail "expected one summary line, found $n"
	# shellcheck disable=SC2034 # for the caller
	PP_SUMMARY=$(pp_jq "$1" 'summaries[0]' -c)
	pp_jq "$1" '.[-1] | has("summary")' -e >/dev/null ||
		pp_fail "the summary is not the last line"
	# The probe runs the kernel skipped (0 where it skipped none, or does not count).
	jq -e '.skipped | type == "number" and . >= 0' <<<"$PP_SUMMARY" >/dev/null ||
		pp_fail "the summary has no count of probe runs skipped: $PP_SUMMARY"
}

# ---------------------------------------------------------------- assertions

# pp_expect_eq WHAT ACTUAL EXPECTED
pp_expect_eq() {
	[ "$2" == "$3" ] || pp_fail "$1: got '$2', expected '$3'"
}

# pp_expect_grep WHAT FILE ERE: FILE has a line matching ERE.
pp_expect_grep() {
	grep -Eq -- "$3" "$2" ||
		pp_fail "$1: no line matching /$3/ in $(basename "$2"): $(_pp_last_line "$2")"
}

# pp_expect_lines WHAT FILE N: FILE has exactly N lines.
pp_expect_lines() {
	local n
	n=$(wc -l <"$2")
	[ "$n" -eq "$3" ] ||
		pp_fail "$1: $(basename "$2") has $n lines, expected $3: $(pp_brief 3 "$2")"
}

# ================================================================ robustness
# Added for the robustness tests (tests/e2e/test_robust_*.sh, soak.sh).
# Everything below is new and prefixed ppr_; nothing above uses it.

# ppr_run NAME NS SECONDS CMD...: pp_pktpath_run for any command line (a
# pktpath under setpriv, capsh or unshare). Same files, same PP_RC, same
# failure when it is still running after SECONDS.
ppr_run() {
	local name=$1 ns=$2 secs=$3
	shift 3
	PP_RC=0
	timeout -s INT -k 5 "$secs" env --default-signal=INT,QUIT \
		ip netns exec "$ns" "$@" \
		</dev/null >"$(pp_out "$name")" 2>"$(pp_err "$name")" || PP_RC=$?
	if [ "$PP_RC" -eq 124 ] || [ "$PP_RC" -eq 137 ]; then
		pp_fail "$* was still running after ${secs} s" \
			"(stderr: $(_pp_last_line "$(pp_err "$name")"))"
	fi
	pp_log "'$name' ($*) exited with $PP_RC"
}

# ppr_case WHAT CMD...: run CMD as one case of a test with many, in a
# subshell whose pp_fail (or unexpected failing command) is recorded
# instead of ending the test, so every case runs and the verdict lists all
# that failed (ppr_verdict). CMD must not start background processes: the
# subshell's deferred cleanups would never run.
PPR_CASES=0
PPR_FAILED=()
ppr_case() {
	local what=$1 verdict rc=0
	shift
	PPR_CASES=$((PPR_CASES + 1))
	verdict=$PP_TMP/case.$PPR_CASES.verdict
	: >"$verdict"
	# In the background, so that set -e and the ERR trap still hold inside
	# (in an "if" or "||" they would not); wait gives its status.
	(
		exec 3>"$verdict"
		"$@"
	) &
	wait $! || rc=$?
	if [ "$rc" -eq 0 ]; then
		pp_log "case '$what': ok"
		return 0
	fi
	PPR_FAILED+=("$what: $(sed -n 's/^FAIL: //p' "$verdict" | head -n 1)")
	pp_log "case '$what': FAILED: ${PPR_FAILED[-1]}"
}

# ppr_verdict: fail listing every failed case, else return.
ppr_verdict() {
	local n=${#PPR_FAILED[@]} all
	[ "$n" -gt 0 ] || return 0
	all=$(printf '%s | ' "${PPR_FAILED[@]}")
	pp_fail "$n of $PPR_CASES cases failed: ${all% | }"
}

# ppr_pp_maps: "map ID TYPE NAME" for every map named as pktpath's are
# that no live process holds, directly (a map fd) or through a program or
# link it holds: a map nothing holds but a pin, or a program left attached
# by a clsact filter, is a leak. Processes of this test count too: call it
# after stopping them.
#
# A program attached as a tc filter in another test's namespace holds its
# maps too (_pp_foreign_tc_prog_ids: someone's SIGKILLed clsact pktpath),
# looked up only when some map seems left.
ppr_pp_maps() {
	local held left
	held=$({ grep -s -h -E '^(map|prog)_id:' /proc/[0-9]*/fdinfo/* || true; } |
		awk '{ print $1, $2 }' | sort -u | jq -R -s -c 'split("\n") | map(select(length > 0)
			| split(" ")) | { maps: map(select(.[0] == "map_id:") | .[1] | tonumber),
			progs: map(select(.[0] == "prog_id:") | .[1] | tonumber) }')
	left=$(_ppr_unheld_maps "$held")
	if [ -n "$left" ]; then
		held=$(jq -c --argjson f "[$(_pp_foreign_tc_prog_ids | tr ' ' ',')]" \
			'.progs += $f' <<<"$held")
		left=$(_ppr_unheld_maps "$held")
	fi
	[ -z "$left" ] || echo "$left"
}

# _ppr_unheld_maps HELD: ppr_pp_maps' lines, given HELD = {maps, progs}.
_ppr_unheld_maps() {
	_pp_bpftool_list prog | jq -r --argjson h "$1" --argjson m "$(_pp_bpftool_list map)" '
		([.[] | select(.id as $i | $h.progs | index([$i])) | .map_ids // [] | .[]]
		 + $h.maps) as $held
		| $m[] | select(.name | test("^(skb_map|path_map|state_map|lost_map)$|^(probes|classifi)\\."))
		| select(.id as $i | $held | index([$i]) | not)
		| "map \(.id) \(.type) \(.name)"'
}

# ppr_pp_pins: pktpath-PID directories (pktpath's pins) in every bpffs of
# this mount namespace whose PID no longer runs.
ppr_pp_pins() {
	local dev mnt fstype rest d
	while read -r dev mnt fstype rest; do
		[ "$fstype" = bpf ] || continue
		for d in "$mnt"/pktpath-*; do
			[ -e "$d" ] || continue
			pp_alive "${d##*/pktpath-}" || echo "pin $d"
		done
	done </proc/mounts
}

# ppr_tc_bpf NS...: every tc filter of a "bpf" kind (what a clsact fallback
# of pktpath adds) on any interface of the namespaces NS ("" for the root).
ppr_tc_bpf() {
	local ns nsarg dev dir
	for ns in "$@"; do
		nsarg=()
		[ -z "$ns" ] || nsarg=(-n "$ns")
		for dev in $(ip "${nsarg[@]}" -j link show 2>/dev/null | jq -r '.[].ifname'); do
			for dir in ingress egress; do
				tc "${nsarg[@]}" filter show dev "$dev" "$dir" 2>/dev/null |
					grep -E ' bpf |pp_cls' | sed "s/^/${ns:-root} $dev $dir: /" || true
			done
		done
	done
}

# ppr_expect_clean WHAT BEFORE [NS...]: the kernel is as in snapshot BEFORE
# (pp_expect_state), and no pktpath map, pin or tc bpf filter is left on
# the namespaces NS (default: the test topology) or the root namespace
# that was not there when ppr_snapshot_before took BEFORE (someone else's).
ppr_expect_clean() {
	local what=$1 before=$2 left end
	shift 2
	pp_expect_state "$before" "$what" "$@"
	if [ $# -eq 0 ] && [ -n "${PP_NS_A:-}" ]; then
		set -- "$PP_NS_A" "$PP_NS_R" "$PP_NS_B"
	fi
	# A grace period (objects are freed a little after their last holder
	# goes, later on a loaded machine), by the clock: one look takes a while.
	end=$((SECONDS + PP_FREE_GRACE))
	while :; do
		# Only what was not there before (ppr_snapshot_before kept a list).
		left=$(ppr_leftovers "$@" | sort | comm -13 <(sort "$before.left" 2>/dev/null) -)
		[ -n "$left" ] || return 0
		[ "$SECONDS" -lt "$end" ] || break
		sleep 0.1
	done
	# For the post-mortem: who else has pp_ programs, and which maps they use.
	pp_log "$what: pp_ programs loaded now (id name maps):" \
		"$(_pp_bpftool_list prog | jq -r '[.[] | select((.name // "") | startswith("pp_"))
			| "\(.id) \(.name) \(.map_ids // [])"] | join("; ")')"
	pp_log "$what: named namespaces now: $(ip netns list 2>/dev/null | awk '{ print $1 }' | xargs)"
	pp_fail "$what: pktpath objects left: $(pp_brief 4 <<<"$left")"
}

# ppr_expect_refused NAME WANT WHAT [GREP-OPTION...]: run NAME (ppr_run)
# was refused as bad input must be: exit status 2, exactly one line on
# stderr, matching the extended regex WANT, and nothing left behind
# (ppr_expect_clean WHAT against ppr_before's snapshot).
ppr_expect_refused() {
	local err want=$2 what=$3
	err=$(pp_err "$1")
	shift 3
	[ "$PP_RC" -eq 2 ] ||
		pp_fail "exit status $PP_RC, expected 2 (stderr: $(pp_brief 2 "$err"))"
	[ "$(wc -l <"$err")" -eq 1 ] ||
		pp_fail "$(wc -l <"$err") lines on stderr, expected one: $(pp_brief 3 "$err")"
	grep -Eq "$@" -- "$want" "$err" ||
		pp_fail "stderr does not match /$want/: $(pp_brief 2 "$err")"
	ppr_expect_clean "$what" "$PP_BEFORE"
}

# ppr_leftovers [NS...]: ppr_pp_maps, ppr_pp_pins and ppr_tc_bpf of the
# root namespace and NS, one line each.
ppr_leftovers() {
	ppr_pp_maps
	ppr_pp_pins
	ppr_tc_bpf "" "$@"
}

# ppr_link_stats NS DEV: "rx_packets rx_bytes tx_packets tx_bytes" of DEV.
ppr_link_stats() {
	ip -n "$1" -s -j link show dev "$2" |
		jq -r '.[0].stats64 | "\(.rx.packets) \(.rx.bytes) \(.tx.packets) \(.tx.bytes)"'
}

# ppr_snmp NS PROTO FIELD: a counter of /proc/net/snmp in NS (e.g. Udp
# NoPorts): the header line names the fields, the next line has values.
ppr_snmp() {
	pp_in "$1" cat /proc/net/snmp | awk -v p="$2:" -v f="$3" '
		$1 == p && !h { for (i = 2; i <= NF; i++) if ($i == f) c = i; h = 1; next }
		$1 == p && h { print $c; exit }'
}

# ppr_udp_send NS DST PORT N: N one-byte UDP datagrams from NS to DST:PORT,
# one socket each (bash's /dev/udp), so no other tool is needed.
ppr_udp_send() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	pp_in "$1" bash -c 'for ((i = 0; i < $3; i++)); do echo >"/dev/udp/$1/$2"; done' \
		ppr_udp_send "$2" "$3" "$4"
}

# ppr_topo_quiet: no traffic on the test topology's links but the test's
# own: IPv6 off (no neighbour or router solicitations, no MLD reports) and
# permanent ARP entries on both ends of both links (no ARP refresh), so
# that packet counters move by exactly what the test sends.
ppr_topo_quiet() {
	local ns
	for ns in "$PP_NS_A" "$PP_NS_R" "$PP_NS_B"; do
		pp_in "$ns" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1
	done
	_ppr_static_neigh "$PP_NS_A" a-eth0 198.18.0.254 "$PP_NS_R" r-eth0
	_ppr_static_neigh "$PP_NS_R" r-eth0 198.18.0.1 "$PP_NS_A" a-eth0
	_ppr_static_neigh "$PP_NS_R" r-eth1 198.18.1.2 "$PP_NS_B" b-eth0
	_ppr_static_neigh "$PP_NS_B" b-eth0 198.18.1.254 "$PP_NS_R" r-eth1
}

# _ppr_static_neigh NS DEV ADDR PEER-NS PEER-DEV: ADDR on DEV is PEER-DEV's MAC.
_ppr_static_neigh() {
	local mac
	mac=$(ip -n "$4" -j link show dev "$5" | jq -r '.[0].address')
	ip -n "$1" neigh replace "$3" lladdr "$mac" dev "$2" nud permanent
}

# ppr_before: the state this test must leave the kernel in, as it is now
# (ppr_snapshot_before of the test topology), in the file PP_BEFORE names:
# what ppr_expect_clean and pp_expect_state compare with.
ppr_before() {
	PP_BEFORE=$PP_TMP/state.before.txt
	ppr_snapshot_before "$PP_BEFORE"
}

# ppr_snapshot_before FILE [NS...]: pp_state_snapshot of the state a test
# must restore, taken once no pp_* program is loaded but those that live
# processes hold. Another pktpath that has just exited (someone's demo, a
# test next door) leaves its programs for a moment; caught in the snapshot
# they would make every later comparison fail. Still there after
# PP_FREE_GRACE seconds: an earlier run leaked them, and the test fails
# saying so.
ppr_snapshot_before() {
	local file=$1 end=$((SECONDS + PP_FREE_GRACE))
	shift
	while [ "$SECONDS" -le "$end" ]; do
		pp_state_snapshot "$file" "$@"
		if ! sed -n '/^== BPF programs/,$p' "$file" | grep -q -E '^(prog|link) '; then
			if [ $# -eq 0 ] && [ -n "${PP_NS_A:-}" ]; then
				set -- "$PP_NS_A" "$PP_NS_R" "$PP_NS_B"
			fi
			ppr_leftovers "$@" >"$file.left"
			return 0
		fi
		sleep 0.1
	done
	pp_fail "pp_ BPF objects loaded before the test (an earlier run leaked them?):" \
		"$(sed -n '/^== BPF programs/,$p' "$file" | grep -E '^(prog|link) ' | pp_brief 3)"
}
