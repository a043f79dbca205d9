# SPDX-License-Identifier: GPL-2.0
#
# bench/netbench.sh's data.jsonl (read with jq -s) -> the Markdown sections
# of docs/PERFORMANCE.md on the kernel side. Every figure is a median over
# rounds; every ratio is taken within one round (one run of each
# configuration, run one after the other) before the median is taken.
#
# Arguments: --argjson secs S, --arg skipped "TP ..." (tracepoints the
# bpftrace script could not use), --arg fixed "PROBE ...", --arg all_hooks
# "HOOK ..." (floor-all's hooks, bench/hook_empty.c's words).

def median:
	map(select(. != null)) | sort
	| if length == 0 then null
	  elif length % 2 == 1 then .[(length - 1) / 2]
	  else (.[length / 2 - 1] + .[length / 2]) / 2 end;

# A number with n decimals, "-" for null.
def fixed($n):
	if . == null then "-"
	else pow(10; $n) as $m | ((. * $m | round) / $m | tostring) as $s
		| if $n == 0 then $s
		  else ($s | if test("\\.") then . else . + "." end | split(".")) as $p
			| $p[0] + "." + ($p[1] + "000000")[:$n] end end;

def signed($n): if . == null then "-" elif . >= 0 then "+" + fixed($n) else fixed($n) end;

def per_hit: if .cnt > 0 then .ns / .cnt else null end;

# "median (min..max)" of numbers, n decimals.
def spread($n):
	map(select(. != null)) as $v
	| if ($v | length) == 0 then "-"
	  else "\($v | median | fixed($n)) (\($v | min | fixed($n))..\($v | max | fixed($n)))" end;

# a / b, null when either is unknown or b is 0.
def ratio($a; $b): if $a == null or $b == null or $b == 0 then null else $a / $b end;

def cfg_name:
	{"none": "no tracing",
	 "floor": "empty BPF programs on the same tracepoints",
	 "floor-all": "empty BPF programs on every hook (a) holds, classifier included",
	 "pp-a": "pktpath (a) `icmp and host 198.19.9.9`: nothing matches",
	 "pp-b": "pktpath (b) `icmp`: the 10 pps ping is tracked",
	 "pp-c": "pktpath (c) `udp`: the whole UDP flow is tracked",
	 "agent": "pktpath `--agent --metrics`: the node agent as shipped",
	 "pp-m": "pktpath `--metrics`, no filter: the agent as it shipped before `--agent`",
	 "bpftrace": "bpftrace, same tracepoints, lookup per hit"}[.] // .;

def plabel: if .tp != "" then "tp:" + .tp else .name end;

. as $all
| [$all[] | select(.phase == "hit")] as $hit
| ([$hit[] | .config] | unique) as $hcfgs
| ([$hit[] | .round] | unique) as $rounds

# The empty program on netif_receive_skb in the same run: the floor.
| (reduce ($hit[] | select(.owner == "floor" and .name == "pb_empty"
		and .tp == "netif_receive_skb")) as $f
	({}; .["\($f.config)/\($f.round)"] = ($f | per_hit))) as $floor
| (reduce ($hit[] | select(.owner == "btfloor")) as $f
	({}; .["\($f.config)/\($f.round)"] = ($f | per_hit))) as $btfloor

# cell(rows; floor map): "ns (x floor) +net" from per-round values.
| def cell($rows; $fl):
	[$rows[] | {v: per_hit, f: $fl["\(.config)/\(.round)"]} | select(.v != null)] as $x
	| if ($x | length) == 0 then "-"
	  else "\([$x[].v] | median | fixed(1)) (\([$x[] | select(.f != null) | .v / .f]
		| median | fixed(2))x) \([$x[] | select(.f != null) | .v - .f] | median | signed(1))"
	  end;

# Per-round weighted sum over several programs: one row per (config, round).
def weighted($rows):
	[$rows | group_by("\(.config)/\(.round)")[]
	 | {config: .[0].config, round: .[0].round, cnt: (map(.cnt) | add),
	    ns: (map(.ns) | add)}];

def hits_per_s($rows): [$rows[] | .cnt / .secs] | median;

([$hit[] | select(.owner == "pktpath")]) as $pp
| ([$pp[] | plabel] | unique) as $pplabels
| ([$pplabels[] as $l | {l: $l, h: hits_per_s([$pp[] | select(plabel == $l
	and .config == "pp-a")])} | select((.h // 0) >= 100)]
	| sort_by(-.h)) as $rows

| "## Per-hit cost in the kernel",
"",
"`run_time_ns / run_cnt` of each BPF program (`kernel.bpf_stats_enabled=1`,",
"`bpftool prog show`) while 64-byte UDP flows from one namespace to the other",
"(`iperf3 -u -l 64 -b 0`, \($all | map(select(.phase == "hit")) | .[0].secs // "-") s per run)",
"with a 10 pps ping beside it. Each cell: median ns per hit,",
"(its ratio to the floor of the same run), and the median difference from",
"the floor in ns. The floor is `pb_empty` (bench/hop_floor.bpf.c), an empty",
"program attached to `netif_receive_skb` next to pktpath's in the same run:",
"what `run_time_ns` reports for a program that does nothing, i.e. the",
"measurement's own cost (two `sched_clock()` reads around an indirect call",
"into the program and its return). Only programs hit at least 100 times/s",
"in case (a) are listed; hits/s are case (a)'s.",
"",
"| program | hits/s | (a) nothing matches | (b) `icmp`, 10 pps ping | (c) `udp`, whole flow |",
"|---|---|---|---|---|",
($rows[] as $r
	| "| `\($r.l)` | \($r.h | fixed(0)) | " + ([("pp-a", "pp-b", "pp-c") as $c
		| cell([$pp[] | select(plabel == $r.l and .config == $c)]; $floor)]
		| join(" | ")) + " |"),
("| all tracepoint programs, weighted by hits | \(weighted([$pp[] | select(.tp != "" and
	.config == "pp-a")]) | hits_per_s([.[] | . + {secs: ($hit[0].secs)}]) | fixed(0)) | "
	+ ([("pp-a", "pp-b", "pp-c") as $c
	| cell(weighted([$pp[] | select(.tp != "" and .config == $c)]); $floor)] | join(" | "))
	+ " |"),
"",
"The reference programs of bench/hop_floor.bpf.c, in the runs of case (a).",
"Untracked hits: `pb_empty` (the floor), `pb_gate` (pktpath's own gate,",
"`pp_hop_gate()` in bpf/record.bpf.h, as the hop programs run it, on maps",
"where nothing is in flight), `pb_inline` (the same gate with the recording",
"inlined into the program, as the hop programs were built before: an",
"untracked hit also pays the large program's prologue),",
"`pb_lookup` (the `skb_map` lookup without the gate: what",
"every hit costs while anything is in flight, and what a tracer without a",
"gate pays on every hit). The parts of a tracked hit: `pb_ring` (ring-buffer",
"reserve and discard, no wakeup), `pb_reads` (a hop's fields read as",
"`pp_fill_hop()` reads them on the kprobe backends, a helper call each),",
"`pb_direct` (the same fields by direct BTF loads, which the JIT inlines, as",
"`pp_fill_hop()` reads them on tp_btf and fentry):",
"",
"| reference program | on `netif_receive_skb` | on `net_dev_queue` |",
"|---|---|---|",
(("pb_empty", "pb_gate", "pb_inline", "pb_lookup", "pb_ring", "pb_reads", "pb_direct") as $n
	| "| `\($n)` | " + ([("netif_receive_skb", "net_dev_queue") as $t
		| cell([$hit[] | select(.owner == "floor" and .name == $n and .tp == $t
			and .config == "pp-a")]; $floor)] | join(" | ")) + " |"),
"",
(if ($hcfgs | index("bpftrace")) then
	([$hit[] | select(.owner == "bpftrace")]) as $bt
	| ([$bt[] | plabel] | unique | map(. as $l | {l: $l, h: hits_per_s([$bt[]
		| select(plabel == $l)])}) | map(select((.h // 0) >= 100)) | sort_by(-.h)) as $btrows
	| "The bpftrace script (`\($bt | length / ($rounds | length) | floor)` programs, one per",
	"tracepoint with an `skbaddr` field; left out for want of one: \($skipped)).",
	"Its floor is an empty bpftrace program on `netif_receive_skb`, a classic",
	"(perf) tracepoint program like the script's, in the same run; bpftrace's",
	"cost of filling the tracepoint's record before the program runs is not",
	"in `run_time_ns` (it is in the traffic cost below).",
	"",
	"| program | hits/s | bpftrace: ns/hit (x floor) vs floor | pktpath (a), same tracepoint |",
	"|---|---|---|---|",
	($btrows[] as $r
		| "| `\($r.l)` | \($r.h | fixed(0)) | "
		+ cell([$bt[] | select(plabel == $r.l)]; $btfloor) + " | "
		+ cell([$pp[] | select(plabel == $r.l and .config == "pp-a")]; $floor) + " |"),
	"| all, weighted by hits | | " + cell(weighted($bt); $btfloor) + " | "
		+ cell(weighted([$pp[] | select(.tp != "" and .config == "pp-a")]); $floor) + " |",
	"| the floor (empty program) | | "
		+ "\([$hit[] | select(.owner == "btfloor") | per_hit] | median | fixed(1)) | "
		+ "\([$hit[] | select(.owner == "floor" and .name == "pb_empty"
			and .tp == "netif_receive_skb" and .config == "pp-a") | per_hit]
			| median | fixed(1)) |",
	""
 else empty end),

# ---- traffic ----
([$all[] | select(.phase == "traffic")]) as $tr
| (reduce ($tr[] | select(.config == "none")) as $n ({}; .["\($n.round)"] = $n)) as $none
| "## Traffic cost",
"",
"Receiver-side 64-byte UDP packets/s (`iperf3 -u -l 64 -b 0`: datagrams the",
"server received, per second) and TCP Gbit/s (iperf3's defaults), \($tr[0].secs // $secs) s",
"each, with `kernel.bpf_stats_enabled=0`, the same 10 pps ping in every",
"configuration; configurations in turn within each round. \"x none\" is the",
"median of each round's ratio to no tracing in the same round (min..max).",
"",
"| configuration | UDP kpackets/s | x none | UDP sent kpackets/s | TCP Gbit/s | x none | records lost | records after their packet was printed, most in a round |",
"|---|---|---|---|---|---|---|---|",
(["none", "floor", "floor-all", "agent", "pp-a", "pp-b", "pp-c", "pp-m", "bpftrace"][] as $c
	| [$tr[] | select(.config == $c)] as $x
	| select($x | length > 0)
	| "| \($c | cfg_name) | \([$x[].udp_pps / 1e3] | median | fixed(1)) | "
	+ "\([$x[] | ratio(.udp_pps; $none["\(.round)"].udp_pps)] | spread(3)) | "
	+ "\([$x[].udp_sent_pps / 1e3] | median | fixed(1)) | "
	+ "\([$x[].tcp_gbps] | median | fixed(2)) | "
	+ "\([$x[] | ratio(.tcp_gbps; $none["\(.round)"].tcp_gbps)] | spread(3)) | "
	+ (if $c | startswith("pp-") then "\([$x[].lost] | median | fixed(0))" else "-" end)
	+ (if $c | startswith("pp-") and all($x[]; .late != null)
		then " | \([$x[].late] | max | fixed(0))" else " | -" end)
	+ " |"),
"",
(if any($tr[]; .config == "floor-all") then
	(reduce ($tr[] | select(.config == "floor-all")) as $n ({}; .["\($n.round)"] = $n))
		as $fa
	| "Against `floor-all` (an empty program on each of the \($all_hooks | split(" ")
		| map(select(length > 0)) | length) hooks case (a) holds: \($all_hooks | split(" ")
		| map(select(length > 0) | "`" + . + "`") | join(", "))), UDP packets/s, median",
	"of each round's ratio (min..max); `floor` covers only the probe list's tracepoints:",
	"",
	"| configuration | UDP x floor-all | TCP x floor-all |",
	"|---|---|---|",
	(["floor", "pp-a", "pp-b", "pp-c", "bpftrace"][] as $c
		| [$tr[] | select(.config == $c)] as $x
		| select($x | length > 0)
		| "| \($c | cfg_name) | "
		+ "\([$x[] | ratio(.udp_pps; $fa["\(.round)"].udp_pps)] | spread(3)) | "
		+ "\([$x[] | ratio(.tcp_gbps; $fa["\(.round)"].tcp_gbps)] | spread(3)) |"),
	""
 else empty end),

# ---- loss ----
([$all[] | select(.phase == "loss")]) as $lo
| ($fixed | split(" ") | map(select(length > 0))) as $fx
| def range_of(f): [.[] | f] as $v
	| "\($v | median | fixed(0)) (\($v | min | fixed(0))..\($v | max | fixed(0)))";
"## Case (c): records received and lost by rate",
"",
"pktpath `--json udp` into bench/json_tally while 64-byte UDP datagrams are",
"sent at a fixed rate (unlimited: as fast as iperf3 goes) for \($lo[0].secs // $secs) s, no ping;",
"the last row with a ring buffer small enough to overflow, to have a loss to count.",
"*Received*: hops of the flow's packets in pktpath's output; *lost*: the",
"`lost` of its JSON summary (failed ring-buffer reserves). Medians, with",
"(min..max) where exactness is the question:",
"",
"- *unaccounted at tc:egress*: datagrams sent (the flow's, and iperf3's",
"  connect datagram) - (`tc:egress` records received + pktpath's `lost N",
"  records at tc:egress`). Only packets that match the filter make a",
"  `tc:egress` record, one each, so 0 means every record of that probe was",
"  either printed or counted as lost.",
"- *excess at the fixed probes*: records received + lost at",
"  \($fx | map("`" + . + "`") | join(", ")),",
"  which every datagram sent crosses once, minus \($fx | length) x datagrams sent.",
"  Above 0: hops of other packets (not UDP) filed under a tracked packet's",
"  id, because their skb reused the address of a tracked skb whose free no",
"  tracepoint saw (see the analysis).",
"- *timed out*: packets closed by `--packet-timeout` because no free was seen.",
"- *loader*: pktpath's CPU time (user + system) per record received or",
"  lost, and how often it went to sleep waiting for records",
"  (voluntary context switches) per 1000 records, from /proc, between",
"  \"ready\" and the stop.",
"",
"| offered packets/s | sent packets/s | records received/s | records lost/s | lost % | unaccounted at tc:egress | excess at the fixed probes | packets timed out | loader us CPU / record | loader sleeps / 1000 records |",
"|---|---|---|---|---|---|---|---|---|---|",
([$lo[] | {case, rate}] | unique | sort_by([(if .rate == 0 then 1e12 else .rate end), .case])[])
	as $k
	| [$lo[] | select(.case == $k.case)] as $x
	| "| \(if $k.rate == 0 then "unlimited" else $k.rate | tostring end)"
	+ "\(if $k.case | test("/") then ", `--ring-size \($k.case | sub(".*/"; ""))`" else "" end) | "
	+ "\([$x[].sent_pps] | median | fixed(0)) | "
	+ "\([$x[] | .received / .secs] | median | fixed(0)) | "
	+ "\([$x[] | .lost / .secs] | median | fixed(0)) | "
	+ "\([$x[] | ratio(100 * .lost; .received + .lost)] | median | fixed(2)) | "
	+ "\($x | range_of(.mark_expected - .mark_accounted)) | "
	+ "\($x | range_of(.fixed_accounted - .fixed_expected)) | "
	+ "\($x | range_of(.timeout)) | "
	+ "\([$x[] | ratio(.loader_cpu_s * 1e6; .received + .lost)] | median | fixed(2)) | "
	+ "\([$x[] | ratio(.loader_wakeups * 1000; .received + .lost)] | median | fixed(1)) |"
