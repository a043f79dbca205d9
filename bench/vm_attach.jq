# SPDX-License-Identifier: GPL-2.0
# bench/vm_attach.sh's results (jq -s, JSON lines) -> Markdown tables.
# Called with --arg part tables|target|diag.

def median: sort | if length == 0 then null else .[(length - 1) / 2 | floor] end;
def ms: if . == null then "-" elif . >= 100 then (round | tostring)
	else (. * 10 | round / 10 | tostring) end;
def x: if . == null then "-" elif . >= 10 then (. * 10 | round / 10 | tostring)
	else (. * 100 | round / 100 | tostring) end;
def range_of: if length == 0 then "-"
	elif (min == max) then (min | tostring) else "\(min)..\(max)" end;
def size_order: {"1": 1, "100": 2, "1000": 3, "all": 4}[.] // 9;
def backend_order: {"kprobe-multi": 1, "kprobe": 2, "fentry": 3}[.] // 9;

. as $all
| ([$all[] | select(.type == "meta" and .kind == "bench")] | last) as $bench
| [$all[] | select(.type == "meta" and .kind == "diag")] as $diags
| [$all[] | select(.id == $bench.id)] as $b
| ([$diags[].id] | map({(.): true}) | add // {}) as $diag_ids
| [$all[] | select(.type != "meta" and $diag_ids[.id])] as $d
| ([$b[] | select(.type == "kernel") | .kernel] | unique) as $kernels
# base(k): the baseline backend of kernel k: kprobe-multi where it has it.
| def base($k): if ([$b[] | select(.type == "kernel" and .kernel == $k)
	| .backends | split(" ") | index("kprobe-multi")] | first) != null
	then "kprobe-multi" else "kprobe" end;
# runs($k; $s; $be): the good runs of one cell.
def runs($k; $s; $be): [$b[] | select(.type == "run" and .kernel == $k and .size == $s
	and .backend == $be and .rc == 0 and .attach_ms != null and .detach_ms != null)];
# ratio: median over rounds of this cell's figure over the baseline's, same round.
def ratio($k; $s; $be; f): (base($k)) as $base
	| (reduce runs($k; $s; $base)[] as $r ({}; .["\($r.round)"] = ($r | f))) as $bv
	| [runs($k; $s; $be)[] | select($bv["\(.round)"] != null and $bv["\(.round)"] > 0)
		| (f) / $bv["\(.round)"]] | median;
def sum: .attach_ms + .detach_ms;

if $part == "tables" then
	[$kernels[] as $k
	| ([$b[] | select(.type == "kernel" and .kernel == $k)] | first) as $kl
	| base($k) as $base
	| ([$b[] | select(.type == "run" and .kernel == $k) | .size] | unique
		| sort_by(size_order)) as $sizes
	| ([$b[] | select(.type == "run" and .kernel == $k) | .backend] | unique
		| sort_by(backend_order)) as $bes
	| "### \($k) (\($kl.release))\n\n"
	+ "Backends this kernel can attach: \($kl.backends). Baseline: \($base).\n\n"
	+ "| list | backend | functions attached | runs ok | setup ms | attach ms | detach ms "
	+ "| attach + detach ms | x \($base): attach | detach | attach + detach (min..max) |\n"
	+ "|---|---|---|---|---|---|---|---|---|---|---|\n"
	+ ([$sizes[] as $s | $bes[] as $be
		| [$b[] | select(.type == "run" and .kernel == $k and .size == $s
			and .backend == $be)] as $all_runs
		| runs($k; $s; $be) as $r
		| select(($all_runs | length) > 0)
		| ([$b[] | select(.type == "list" and .kernel == $k and .size == $s)
			| .funcs] | first) as $listed
		| (if $base == $be then null else
			[runs($k; $s; $base)[] as $x | $r[] | select(.round == $x.round)
			| sum / ($x | sum)] end) as $rs
		| "| \($s) (\($listed)) | \($be) | "
		+ "\([$r[] | .probes - 2] | range_of) | \($r | length)/\($all_runs | length) | "
		+ "\([$r[].setup_ms] | median | ms) | \([$r[].attach_ms] | median | ms) | "
		+ "\([$r[].detach_ms] | median | ms) | \([$r[] | sum] | median | ms) | "
		+ "\(ratio($k; $s; $be; .attach_ms) | x) | \(ratio($k; $s; $be; .detach_ms) | x) | "
		+ (if $rs == null then "1" else
			"**\(ratio($k; $s; $be; sum) | x)** (\($rs | min | x)..\($rs | max | x))" end)
		+ " |"] | join("\n"))
	] | join("\n\n")
elif $part == "target" then
	[$kernels[] as $k | select(base($k) == "kprobe-multi")
	| ratio($k; "all"; "kprobe"; sum) as $r
	| ([$b[] | select(.type == "list" and .kernel == $k and .size == "all") | .funcs]
		| first) as $n
	| "- \($k): single kprobes take **\($r | x)x** the time of kprobe.multi for all "
	+ "\($n) skb functions (attach + detach, median of the per-round ratios): "
	+ (if $r == null then "not measured"
		elif $r >= 10 then "target met" else "target missed" end)
	+ "; with the setup before the attach included (the same for every backend), "
	+ "\(ratio($k; "all"; "kprobe"; .attach_ms + .detach_ms + .setup_ms) | x)x."]
	+ [$kernels[] as $k | select(base($k) != "kprobe-multi")
	| "- \($k): no kprobe.multi, so no target; fentry takes "
	+ "\(ratio($k; "all"; "fentry"; sum) | x)x the time of single kprobes for all skb functions."]
	| join("\n")
elif $part == "diag" then
	if ($diags | length) == 0 then "(no diagnostic run: bench/vm_attach.sh --diag)" else
	[$diags[] as $m
	| "Diagnostic run `\($m.cmd)`, started \($m.date), commit \($m.commit) "
	+ "(\($m.dirty_files) files changed in the working tree). Only the attach and detach "
	+ "windows, as pktpath -v bounds them, and only rows of 20 ms or more; rows nest "
	+ "(a function's time includes what it calls).\n\n"
	+ ([[$d[] | select(.id == $m.id and .type == "diag"
			and (.phase == "attach" or .phase == "detach"))]
		| group_by(.kernel, .tool, .backend, .size)[]
		| first as $g
		| ([$d[] | select(.id == $m.id and .what == "(pktpath -v)" and .kernel == $g.kernel
			and .tool == $g.tool and .backend == $g.backend and .size == $g.size)]
			| first) as $tot
		| (if $g.tool == "strace" then "strace -T: wall time in each syscall"
			else "function_graph: wall time in each kernel function, sleeps included"
			end) as $how
		| "**\($g.kernel), \($g.backend), list \($g.size), \($how)** "
		+ "(this run: attach \($tot.attach_ms | ms) ms, detach \($tot.detach_ms | ms) ms, "
		+ "rc \($tot.rc)):\n\n"
		+ "| phase | \(if $g.tool == "strace" then "syscall" else "function" end) "
		+ "| calls | ms | ms per call | max ms |\n|---|---|---|---|---|---|\n"
		+ ([.[] | select(.ms >= 20)] | sort_by(.phase != "attach", 0 - .ms)
			| map("| \(.phase) | `\(.what)` | \(.calls) | \(.ms | ms) | "
				+ "\(.ms / .calls | ms) | \(.max_ms | ms) |") | join("\n"))
		] | join("\n\n"))] | join("\n\n")
	end
elif $part == "value" then
	# One figure for the prose: the median of F over the good runs of a cell.
	$ARGS.named as $a
	| runs($a.k; $a.s; $a.be)
	| if $a.f == "sum" then [.[] | sum]
	elif $a.f == "total" then [.[] | sum + .setup_ms]
	elif $a.f == "attach_per" then [.[] | .attach_ms / (.probes - 2)]
	elif $a.f == "detach_per" then [.[] | .detach_ms / (.probes - 2)]
	elif $a.f == "funcs" then [.[] | .probes - 2]
	elif $a.f == "ratio" then [ratio($a.k; $a.s; $a.be; sum)]
	else [.[][$a.f]] end
	| median | ms
elif $part == "dg" then
	# A diagnostic figure: "MS ms in CALLS calls" for WHAT in PHASE.
	$ARGS.named as $a
	| [$d[] | select(.type == "diag" and .kernel == $a.k and .tool == $a.tool
		and .backend == $a.be and .size == ($a.s // "all") and .phase == $a.phase
		and .what == $a.what)]
	| (group_by(.id) | last // [])
	| if length == 0 then "(not traced)"
	else "\(map(.ms) | add | ms) ms in \(map(.calls) | add) calls" end
else error("unknown part \($part)") end
