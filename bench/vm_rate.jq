# SPDX-License-Identifier: GPL-2.0
# Markdown from bench/vm_rate.sh's JSON lines (jq -s, $part: "rate",
# "startup", "sources" or "verdict"): the newest measurement's lines.

def median: sort | if length == 0 then null
	elif length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;
def r3: if . == null then "-" else (. * 1000 | round) / 1000 | tostring end;
def r2: if . == null then "-" else (. * 100 | round) / 100 | tostring end;
def r1: if . == null then "-" else (. * 10 | round) / 10 | tostring end;
def r0: if . == null then "-" else round | tostring end;
def spread: if length == 0 then "-"
	else "\(median | r3) (\(min | r3)..\(max | r3))" end;
def beorder: {"kprobe-multi": 0, "kprobe": 1, "fentry": 2, "tracepoint": 3}[.] // 9;

# The newest measurement that has lines of this part's type.
def newest($type):
	([.[] | select(.type == $type) | .id] | last) as $id
	| [.[] | select(.id == $id and .kernel != null)];

def rate_table:
	group_by(.kernel)[] as $k
	| ($k | map(select(.type == "rate"))) as $runs
	| ($k[0].kernel) as $kernel
	| "### \($kernel)\n",
	  "| backend | list | probes | BPF runs per packet: untracked | tracked | x no tracing: untracked | tracked | no tracing pkt/s (guest) | records lost | runs ok |",
	  "|---|---|---|---|---|---|---|---|---|---|",
	  ($runs | group_by([.list, (.backend | beorder)])[]
	   | . as $g
	   | [$g[] | select(.rc == 0 and .untracked != null and .none_untracked > 0)] as $ok
	   | "| \($g[0].backend) | \($g[0].list) | \([$ok[].probes] | median | r0) "
	     + "| \([$ok[].runs_untracked] | median | r1) | \([$ok[].runs_tracked] | median | r1) "
	     + "| **\([$ok[] | .untracked / .none_untracked] | spread)** "
	     + "| **\([$ok[] | select(.none_tracked > 0) | .tracked / .none_tracked] | spread)** "
	     + "| \([$ok[].none_untracked] | median | r0) "
	     + "| \([$ok[].lost] | add // 0) | \($ok | length)/\($g | length) |"),
	  "";

def startup_table:
	group_by(.kernel)[] as $k
	| ($k | map(select(.type == "startup"))) as $runs
	| "### \($k[0].kernel)\n",
	  "| list | backend | measured | probes | before: setup s | to ready s | after: setup s | to ready s | after / before, to ready | runs ok (both) |",
	  "|---|---|---|---|---|---|---|---|---|---|",
	  ($runs | group_by([(.list != "default"), (.backend | beorder), .mode])[]
	   | . as $g
	   | [$g[] | select(.rc == 0)] as $ok
	   | ($ok | map(select(.bin == "before"))) as $b
	   | ($ok | map(select(.bin == "after"))) as $a
	   | ([$ok[].round] | unique) as $rounds
	   | [$rounds[] as $r
	      | ([$b[] | select(.round == $r) | .wall_s] | first) as $x
	      | ([$a[] | select(.round == $r) | .wall_s] | first) as $y
	      | select($x != null and $y != null and $x > 0) | $y / $x] as $ratios
	   | (if $g[0].list == "default" then "kp_func.list" else "kp_func.list + --all-skb-funcs" end) as $list
	   | (if $g[0].mode == "run" then "to ready" else "`--list-probes`" end) as $how
	   | "| \($list) | \($g[0].backend) | \($how) | \([$a[].probes] | median | r0) "
	     + "| \([$b[].setup_ms | select(. != null) / 1000] | median | r2) "
	     + "| \([$b[].wall_s] | median | r1) "
	     + "| \([$a[].setup_ms | select(. != null) / 1000] | median | r2) "
	     + "| \([$a[].wall_s] | median | r1) "
	     + "| **\($ratios | spread)** | \($ok | length)/\($g | length) |"),
	  "";

# Another program's mean ns per run, without and with pktpath's fexit on it.
def verdict_table:
	"| kernel | program | without pktpath: ns per run | with: ns per run | added ns | with / without | rounds ok |",
	"|---|---|---|---|---|---|---|",
	(group_by([.kernel, .prog // "tc"])[]
	 | map(select(.ns != null and .rc == 0)) as $ok
	 | ([$ok[] | select(.traced == 0) | .ns] | median) as $without
	 | ([$ok[] | select(.traced == 1) | .ns] | median) as $with
	 | "| \(.[0].kernel) | \(.[0].prog // "tc") | \($without | r0) | \($with | r0) "
	   + "| \(if $with and $without then $with - $without | r0 else "-" end) "
	   + "| \(if $with and $without then $with / $without | r2 else "-" end) "
	   + "| \([$ok[] | select(.traced == 1)] | length)/\([.[] | select(.traced == 1)] | length) |");

if $part == "rate" then newest("rate") | rate_table
elif $part == "startup" then
	# Per row, the newest measurement that has it: a later run of some rows
	# (SU_SLOW=1 for the slow backends) completes the table.
	[.[] | select(.type == "startup")]
	| group_by([.kernel, .list, .backend, .mode])
	| map((map(.id) | max) as $id | map(select(.id == $id)))
	| flatten | startup_table
elif $part == "sources" then
	# The measurements the start-up table's rows come from.
	([.[] | select(.type == "startup")]
	 | group_by([.kernel, .list, .backend, .mode])
	 | map(map(.id) | max) | unique) as $ids
	| "Start-up rows from: " + ([.[] | select(.type == "meta" and (.id | IN($ids[])))
		| "`\(.cmd)`, \(.date), commit \(.commit)"] | join("; ")) + "."
elif $part == "verdict" then newest("verdict") | verdict_table
else error("part: rate, startup, sources or verdict") end
