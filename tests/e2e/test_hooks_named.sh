#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# No hidden hook (issue 24): every hook a running pktpath holds, read from
# its own file descriptors, is named by --list-probes with the same options,
# as attached, not skipped or off. The syscall tracepoints of the send calls
# (perf events, costly for every process) are attached only with
# --send-calls. The classifier's tcx links are the tool itself (docs/marking.md).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin bpftool

# held_hooks NAME: "KIND NAME" per link of running pktpath NAME: "tp NAME"
# for a raw tracepoint or tp_btf link, "perf PROG" for a perf event link
# (its program's name), "tcx -" for the classifier, "cgroup TYPE" for a
# cgroup link (the reads' cgroup_skb program).
held_hooks() {
	local pid=${PP_PIDS[$1]} ids
	ids=$(sed -n 's/^link_id:[[:space:]]*//p' /proc/"$pid"/fdinfo/* 2>/dev/null | jq -s -c .)
	[ "$ids" != "[]" ] || pp_fail "$1: no BPF link among pid $pid's file descriptors"
	bpftool prog show -j | jq -c 'map({key: "\(.id)", value: .name}) | from_entries' \
		>"$PP_TMP/names.json"
	bpftool link show -j | jq -r --argjson ids "$ids" --slurpfile n "$PP_TMP/names.json" '
		.[] | select(.id as $i | $ids | index($i))
		| if .type == "raw_tracepoint" then "tp \(.tp_name)"
		  elif .type == "perf_event" then "perf \($n[0]["\(.prog_id)"])"
		  elif .type == "tcx" or .type == 11 then "tcx -"
		  elif .type == "cgroup" then "cgroup \(.attach_type)"
		  else "other \(.type)" end'
}

# check NAME ARGS...: pktpath with ARGS, its held hooks against --list-probes.
check() {
	local name=$1 kind hook line
	shift
	pp_pktpath_run "$name-list" "$PP_NS_A" 30 --list-probes "$@"
	pp_expect_eq "$name: --list-probes exit status" "$PP_RC" 0
	pp_pktpath_start "$name" "$PP_NS_A" "$@"
	held_hooks "$name" | sort -u >"$PP_TMP/$name.hooks"
	pp_pktpath_stop "$name"
	pp_log "$name: $(wc -l <"$PP_TMP/$name.hooks") distinct hooks held"
	while read -r kind hook; do
		case $kind in
		tp) line=$(grep -E "^tp:[a-z0-9_]+:$hook " "$(pp_out "$name-list")") ||
			pp_fail "$name: tracepoint $hook attached, not named by --list-probes" ;;
		perf)
			hook=${hook/#pp_enter_/sys_enter_}
			hook=${hook/#pp_exit_/sys_exit_}
			line=$(grep -E "^tp:syscalls:$hook" "$(pp_out "$name-list")") ||
				pp_fail "$name: perf event ($hook) attached, not named by --list-probes"
			grep -q -- '--send-calls' <<<"$line" ||
				pp_fail "$name: $hook attached, its line names no option: $line"
			;;
		tcx) continue ;;
		cgroup)
			[ "$hook" = cgroup_inet_ingress ] ||
				pp_fail "$name: a cgroup program attached at $hook, not ingress"
			line=$(grep -E "^cgroup_skb:ingress " "$(pp_out "$name-list")") ||
				pp_fail "$name: cgroup_skb ingress attached, not named by --list-probes"
			grep -q 'never changes a verdict' <<<"$line" ||
				pp_fail "$name: its line does not say it never changes a verdict: $line"
			;;
		*) pp_fail "$name: a link of kind $kind attached, which this test does not know" ;;
		esac
		! grep -Eqi 'skipped|off \(' <<<"$line" ||
			pp_fail "$name: $kind $hook attached, but listed as not: $line"
	done <"$PP_TMP/$name.hooks"
}

check default --backend tracepoint --filter icmp
! grep -q '^perf ' "$PP_TMP/default.hooks" ||
	pp_fail "default: syscall tracepoints attached without --send-calls:" \
		"$(grep '^perf ' "$PP_TMP/default.hooks" | tr '\n' ' ')"
grep -q '^tp kmem_cache_free$' "$PP_TMP/default.hooks" ||
	pp_fail "default: the tracepoint backend holds no kmem_cache_free hook"
# The reads' hooks, where --list-probes names them (Linux 6.3+), are held.
if grep -q '^cgroup_skb:ingress ' "$(pp_out default-list)"; then
	grep -q '^cgroup ' "$PP_TMP/default.hooks" ||
		pp_fail "default: cgroup_skb ingress named by --list-probes, not attached"
	grep -q '^tp sock_recv_length$' "$PP_TMP/default.hooks" ||
		pp_fail "default: sock_recv_length named by --list-probes, not attached"
fi

check send --backend tracepoint --send-calls --filter icmp
grep -q '^perf pp_enter_sendto$' "$PP_TMP/send.hooks" ||
	pp_fail "--send-calls: no sys_enter_sendto perf event attached"
pp_pass
