#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --list-probes with the tracepoint backend: every tp: line of the probe
# list that the kernel has is reported attachable, naming the backend;
# every kernel function line is reported skipped (the tracepoint backend
# cannot probe functions, and this host has no kprobes at all); so is a
# tracepoint the kernel lacks, never fatally. The format is checked
# loosely: some line names the probe and says which.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin

# line_for FILE PROBE: the first line of FILE naming PROBE as a whole word:
# a function name must not match inside its tracepoint's name
# (netif_rx in tp:net:netif_rx), hence no ':' allowed before it.
line_for() {
	grep -m 1 -E -- "(^|[][[:space:]\"'(,])$2(\$|[][[:space:]\"'),:;])" "$1"
}

# check_listing NAME TP-LINES FUNC-LINES: the output of run NAME (stdout and
# stderr together: skipped lines may be reported as warnings) shows each
# of TP-LINES as attachable and each of FUNC-LINES as skipped.
check_listing() {
	local run=$1 all=$PP_TMP/$1.all p line
	cat "$(pp_out "$run")" "$(pp_err "$run")" >"$all"
	for p in $2; do
		line=$(line_for "$all" "$p") || pp_fail "$run: $p not listed"
		grep -Eqi 'tracepoint|tp_btf' <<<"$line" ||
			pp_fail "$run: the line for $p does not name the backend: $line"
		! grep -qi 'skip' <<<"$line" ||
			pp_fail "$run: $p reported skipped on a kernel that has it: $line"
	done
	for p in $3; do
		line=$(line_for "$all" "$p") || pp_fail "$run: $p not listed"
		grep -qi 'skip' <<<"$line" ||
			pp_fail "$run: $p not reported skipped: $line"
	done
}

# A list of our own, so the expectations do not depend on kp_func.list.
funcs=$PP_TMP/funcs.list
printf '%s\n' tp:net:netif_receive_skb tp:net:net_dev_queue tp:skb:kfree_skb \
	ip_rcv __dev_queue_xmit tp:net:pp_no_such_tracepoint >"$funcs"
pp_pktpath_run own "$PP_NS_A" 30 --list-probes --backend tracepoint --funcs "$funcs"
pp_expect_eq "--list-probes (own list): exit status" "$PP_RC" 0
check_listing own "tp:net:netif_receive_skb tp:net:net_dev_queue tp:skb:kfree_skb" \
	"ip_rcv __dev_queue_xmit tp:net:pp_no_such_tracepoint"

# The shipped lists, as --detail names them: their tp: lines that this
# kernel has must be attachable, those it lacks and all function lines
# skipped, and the listing must name the file. A tracepoint exists where
# BTF has its btf_trace_NAME typedef (what tp_btf attaches by). The first
# word of each line is the probe; '#' starts a comment.
bpftool btf dump file /sys/kernel/btf/vmlinux |
	sed -n "s/.*TYPEDEF 'btf_trace_\([a-z0-9_]*\)'.*/\1/p" >"$PP_TMP/btf_trace.txt"

# check_shipped LEVEL FILE [OPTION...]: the run with OPTIONs lists FILE.
check_shipped() {
	local level=$1 name=$2 list=$PP_ROOT/$2 entries e have=() lack=()
	shift 2
	[ -r "$list" ] || pp_fail "$list is missing"
	entries=$(sed -e 's/#.*//' "$list" | awk 'NF { print $1 }')
	[ -n "$entries" ] || pp_fail "$list has no entries"
	for e in $entries; do
		if [[ $e == tp:* ]] && grep -qx -- "${e##*:}" "$PP_TMP/btf_trace.txt"; then
			have+=("$e")
		else
			lack+=("$e")
		fi
	done
	[ ${#have[@]} -gt 0 ] || pp_fail "no tp: line of $list exists on this kernel"
	pp_pktpath_run "$level" "$PP_NS_A" 30 --list-probes --backend tracepoint "$@"
	pp_expect_eq "--list-probes ($level): exit status" "$PP_RC" 0
	grep -q "^# list: .*$name (--detail $level" "$(pp_out "$level")" ||
		pp_fail "--list-probes ($level) does not name $name: $(head -n 1 "$(pp_out "$level")")"
	check_listing "$level" "${have[*]}" "${lack[*]}"
}
check_shipped short kp_func.min.list
check_shipped full kp_func.list --detail full

# A level that does not exist, or two ways of choosing the list: exit 2.
pp_pktpath_run bad_level "$PP_NS_A" 30 --list-probes --detail most
pp_expect_eq "--detail most: exit status" "$PP_RC" 2
pp_pktpath_run two_lists "$PP_NS_A" 30 --list-probes --detail full --funcs "$funcs"
pp_expect_eq "--detail with --funcs: exit status" "$PP_RC" 2
pp_pass
