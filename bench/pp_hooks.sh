# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by bench/host_cost.sh and bench/netbench.sh: the hooks a running
# pktpath holds, in bench/hook_empty.c's words, so that an empty program can
# be put on each of them.

# pp_hooks PID DIR: "PROG_ID HOOK" for each link of process PID (DIR: for
# scratch files). A raw_tracepoint link is a tp_btf program's ("tracing") or
# a raw tracepoint's; a perf event link names no tracepoint, its program
# does (pp_enter_sendto: syscalls:sys_enter_sendto); a cgroup link is
# cgroup:ingress:DIR (cgroup_skb ingress on cgroup v2 directory DIR, found
# by its id, the directory's inode number); the classifier is
# tc:IFACE:ingress|egress, named in PID's network namespace, from its tcx
# links' fdinfo (this bpftool names neither their device nor their
# direction) or, where pktpath chose clsact, from bpftool net show.
pp_hooks() {
	local pid=$1 dir=$2
	bpftool prog show -j | jq -c 'map({key: "\(.id)", value: {type, name}}) | from_entries' \
		>"$dir/types"
	# The process's links, from its fds (this bpftool names no pids).
	sed -n 's/^link_id:[[:space:]]*//p' /proc/"$pid"/fdinfo/* 2>/dev/null | jq -s -c . \
		>"$dir/links"
	bpftool link show -j | jq -r --slurpfile l "$dir/links" --slurpfile t "$dir/types" '
		.[] | select(.id as $i | $l[0] | index($i)) | $t[0]["\(.prog_id)"] as $p
		| select(.type != 11 and .type != "tcx")
		| "\(.prog_id) " + (
		if .type == "raw_tracepoint" and $p.type == "tracing" then "btf:\(.tp_name)"
		elif .type == "raw_tracepoint" then "raw:\(.tp_name)"
		elif .type == "perf_event" then "perf:syscalls:"
			+ ($p.name | sub("^pp_enter_"; "sys_enter_") | sub("^pp_exit_"; "sys_exit_"))
		elif .type == "cgroup" then "cgroup:\(.attach_type | sub("^cgroup_inet_"; "")):"
			+ "\(.cgroup_id)"
		else "\(.type)" end)' | pp_cgroup_dirs
	nsenter --net=/proc/"$pid"/ns/net ip -j link show >"$dir/ifaces"
	# tcx: one fdinfo per link, "prog_id", "ifindex", "attach_type: 46 (ingress)".
	awk 'FNR == 1 { tcx = 0 } $1 == "link_type:" { tcx = $2 == "tcx" }
		tcx && $1 == "prog_id:" { p = $2 } tcx && $1 == "ifindex:" { i = $2 }
		tcx && $1 == "attach_type:" { gsub(/[()]/, "", $3); print p, i, $3 }' \
		/proc/"$pid"/fdinfo/* 2>/dev/null |
		jq -R -r --slurpfile ifs "$dir/ifaces" 'split(" ") as $f
			| ($ifs[0][] | select(.ifindex == ($f[1] | tonumber)) | .ifname) as $n
			| "\($f[0]) tc:\($n):\($f[2])"'
	# clsact: the filters running one of PID's programs.
	sed -n 's/^prog_id:[[:space:]]*//p' /proc/"$pid"/fdinfo/* 2>/dev/null | jq -s -c . \
		>"$dir/progs"
	nsenter --net=/proc/"$pid"/ns/net bpftool net show -j |
		jq -r --slurpfile p "$dir/progs" '.[].tc[]? | select(.id as $i | $p[0] | index($i))
			| select(.kind | test("^clsact/(ingress|egress)$"))
			| "\(.id) tc:\(.devname):\(.kind | sub("^clsact/"; ""))"'
}

# pp_cgroup_dirs: "PROG cgroup:DIR:ID" lines as "PROG cgroup:DIR:PATH", the
# cgroup v2 directory whose inode number is ID; other lines as they are.
pp_cgroup_dirs() {
	local prog hook root
	root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	while read -r prog hook; do
		if [[ $hook == cgroup:* ]] && [ -n "$root" ]; then
			hook=${hook%:*}:$(find "$root" -xdev -type d -inum "${hook##*:}" -print -quit)
		fi
		echo "$prog $hook"
	done
}
