# SPDX-License-Identifier: GPL-2.0
#
# The scope test's cost per hop: bench/netbench.sh's data.jsonl (read with
# jq -s) from a run with HIT_CONFIGS="pp-c pp-cs" TRAFFIC_CONFIGS="pp-c
# pp-cs" -> a Markdown table of bench/notes/scope.md. pp-c tracks the whole
# UDP flow unscoped; pp-cs the same, scoped to both namespaces, so that
# every hop is in the scope and each tracepoint program runs the test and
# records as before. Each cell: the median over rounds of ns per hit; the
# ratio is taken within a round (pp-cs / pp-c, run one after the other)
# before its median. Only tracepoint programs with at least 100 hits/s.

def median:
	map(select(. != null)) | sort
	| if length == 0 then null
	  elif length % 2 == 1 then .[(length - 1) / 2]
	  else (.[length / 2 - 1] + .[length / 2]) / 2 end;

def fixed($n):
	if . == null then "-"
	else pow(10; $n) as $m | ((. * $m | round) / $m | tostring) as $s
		| if $n == 0 then $s
		  else ($s | if test("\\.") then . else . + "." end | split(".")) as $p
			| $p[0] + "." + ($p[1] + "000000")[:$n] end end;

def per_hit: if .cnt > 0 then .ns / .cnt else null end;

# { "round": value } of ROWS (one per round) through F.
def by_round(rows; f): reduce rows as $r ({}; .["\($r.round)"] = ($r | f));

# "median c | median cs | median of the per-round ratios (their range)"
def cells($c; $cs):
	[$c | to_entries[] | .key as $k | select($cs[$k] != null and .value != null and .value > 0)
	 | $cs[$k] / .value] as $ratios
	| "\([$c[]] | median | fixed(1)) | \([$cs[]] | median | fixed(1)) | \($ratios | median
		| fixed(2))x (\($ratios | min | fixed(2))..\($ratios | max | fixed(2)))";

[.[] | select(.phase == "hit" and .owner == "pktpath" and .tp != "")] as $pp
| [.[] | select(.phase == "traffic")] as $tr
| ($pp[0].secs // 1) as $secs
| ([$pp[] | select(.config == "pp-c") | .tp] | unique
	| map(. as $t | {t: $t, h: ([$pp[] | select(.config == "pp-c" and .tp == $t)
		| .cnt / $secs] | median)})
	| map(select(.h >= 100)) | sort_by(-.h)) as $rows
| "| tracepoint program | hits/s | `udp` (ns/hit) | `udp`, scoped (ns/hit) | scoped / not (range over rounds) |",
"|---|---|---|---|---|",
($rows[] as $r
	| "| `tp:\($r.t)` | \($r.h | fixed(0)) | "
	+ cells(by_round($pp[] | select(.config == "pp-c" and .tp == $r.t); per_hit);
		by_round($pp[] | select(.config == "pp-cs" and .tp == $r.t); per_hit)) + " |"),
(def weighted($c): [$pp[] | select(.config == $c)] | group_by(.round)
	| map({round: .[0].round, cnt: (map(.cnt) | add), ns: (map(.ns) | add)});
"| all of them, weighted by hits | | "
	+ cells(by_round(weighted("pp-c")[]; per_hit); by_round(weighted("pp-cs")[]; per_hit))
	+ " |"),
(if ($tr | length) > 0 then
	"| UDP packets/s received (traffic phase, no bpf_stats) | | "
	+ cells(by_round($tr[] | select(.config == "pp-c"); .udp_pps);
		by_round($tr[] | select(.config == "pp-cs"); .udp_pps)) + " |"
 else empty end)
