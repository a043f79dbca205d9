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

# The shipped list: its tp: lines that this kernel has must be attachable,
# those it lacks and all function lines skipped. A tracepoint exists where
# BTF has its btf_trace_NAME typedef (what tp_btf attaches by). The first
# word of each line is the probe; '#' starts a comment.
list=$PP_ROOT/kp_func.list
[ -r "$list" ] || pp_fail "$list is missing"
entries=$(sed -e 's/#.*//' "$list" | awk 'NF { print $1 }')
[ -n "$entries" ] || pp_fail "$list has no entries"
bpftool btf dump file /sys/kernel/btf/vmlinux |
	sed -n "s/.*TYPEDEF 'btf_trace_\([a-z0-9_]*\)'.*/\1/p" >"$PP_TMP/btf_trace.txt"
have=() lack=()
for e in $entries; do
	if [[ $e == tp:* ]] && grep -qx -- "${e##*:}" "$PP_TMP/btf_trace.txt"; then
		have+=("$e")
	else
		lack+=("$e")
	fi
done
[ ${#have[@]} -gt 0 ] || pp_fail "no tp: line of $list exists on this kernel"
pp_pktpath_run shipped "$PP_NS_A" 30 --list-probes --backend tracepoint --funcs "$list"
pp_expect_eq "--list-probes (kp_func.list): exit status" "$PP_RC" 0
check_listing shipped "${have[*]}" "${lack[*]}"
pp_pass
