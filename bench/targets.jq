# SPDX-License-Identifier: GPL-2.0
#
# pktpath's performance targets, checked against bench/netbench.sh's data.jsonl
# (read with jq -s) and rec_bench's rates: a Markdown table.
#
# Arguments: --arg text R, --arg json R (rec_bench, M records/s),
# --arg target R (M records/s).

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

def ratio($a; $b): if $a == null or $b == null or $b == 0 then null else $a / $b end;

def verdict(ok): if ok == null then "not measured" elif ok then "met" else "**missed**" end;

. as $all
| [$all[] | select(.phase == "hit")] as $hit
| (reduce ($hit[] | select(.owner == "floor" and .name == "pb_empty"
		and .tp == "netif_receive_skb" and .cnt > 0)) as $f
	({}; .["\($f.config)/\($f.round)"] = ($f.ns / $f.cnt))) as $floor

# Per round: every pktpath tracepoint program's time over its hits, raw and
# net of the same run's empty program.
| def per_hit($cfg):
	[$hit[] | select(.owner == "pktpath" and .tp != "" and .config == $cfg)]
	| group_by(.round)
	| map(((map(.ns) | add) / ((map(.cnt) | add) | if . == 0 then null else . end)) as $v
		| {raw: $v, net: (if $v == null or $floor["\($cfg)/\(.[0].round)"] == null then null
			else $v - $floor["\($cfg)/\(.[0].round)"] end)})
	| {raw: (map(.raw) | median), net: (map(.net) | median)};

def udp_ratio($cfg; $base):
	[$all[] | select(.phase == "traffic")] as $tr
	| (reduce ($tr[] | select(.config == $base)) as $n ({}; .["\($n.round)"] = $n.udp_pps))
	as $none
	| [$tr[] | select(.config == $cfg) | ratio(.udp_pps; $none["\(.round)"])] | median;
def udp_ratio($cfg): udp_ratio($cfg; "none");

[$all[] | select(.phase == "loss")] as $lo
# The default ring only: the small-ring case is there to make a loss to count.
| ([$lo[] | select(.case | test("/") | not) | .rate] | unique
	| sort_by(if . == 0 then 1e12 else . end)) as $rates
| ([$rates[] as $r | [$lo[] | select(.rate == $r and (.case | test("/") | not))]
	| {rate: $r, lost: ([.[].lost] | max), sent: ([.[].sent_pps] | median),
	   recs: ([.[] | (.received + .lost) / .secs] | median)}]) as $by_rate
| ([$by_rate[] | select(.lost == 0)] | last) as $clean
| ([$by_rate[] | select(.lost > 0)] | first) as $lossy
| ([$lo[] | .mark_expected - .mark_accounted] | map(fabs) | max) as $unacc

| "| target | measured (medians) | |",
"|---|---|---|",
((["pp-a", "(a) nothing matches"], ["pp-b", "(b) `icmp`, 10 pps ping"]) as [$c, $name]
	| per_hit($c) as $h
	| "| per-hit cost on untracked traffic, \($name): at most 10 ns | "
	+ "\($h.raw | fixed(1)) ns as `run_time_ns / run_cnt` (all tracepoint programs, "
	+ "weighted); \($h.net | fixed(1)) ns net of the empty program's `run_time_ns` "
	+ "| raw: \(verdict(if $h.raw == null then null else $h.raw <= 10 end)); "
	+ "net of the floor: \(verdict(if $h.net == null then null else $h.net <= 10 end)) |"),
((["pp-a", "(a)"], ["pp-b", "(b)"]) as [$c, $name]
	| udp_ratio($c) as $r
	| "| 64-byte UDP packets/s, case \($name): at least 0.95 x no tracing | "
	+ "\($r | fixed(3)) x | \(verdict(if $r == null then null else $r >= 0.95 end)) |"),
# Against empty programs on every hook (a) holds, the classifier's
# interfaces included (netbench.sh's floor-all), with that floor's own ratio.
(select(any($all[]; .phase == "traffic" and .config == "floor-all"))
	| udp_ratio("pp-a"; "floor-all") as $r
	| "| 64-byte UDP packets/s, case (a): at least 0.97 x empty programs on every hook "
	+ "it holds (floor-all) | \($r | fixed(3)) x (floor-all itself: "
	+ "\(udp_ratio("floor-all") | fixed(3)) x no tracing) "
	+ "| \(verdict(if $r == null then null else $r >= 0.97 end)) |"),
"| case (c): no lost record up to the rate the loader sustains | "
	+ (if $clean == null then "records lost at every rate tried"
	   else "no loss up to \(if $clean.rate == 0
		then "unlimited (\($clean.sent | fixed(0)) packets/s sent)"
		else "\($clean.rate) packets/s" end) (\($clean.recs | fixed(0)) records/s)"
	   end)
	+ (if $lossy == null then ", the most this machine offers with pktpath tracking every packet"
	   else "; loss from \(if $lossy.rate == 0 then "unlimited (\($lossy.sent | fixed(0)) packets/s sent)"
		else "\($lossy.rate) packets/s" end) (\($lossy.recs | fixed(0)) records/s)" end)
	+ "; the loader formats \($json) M records/s as JSON on one core (rec_bench) | "
	+ verdict(if $clean == null then false
		elif $lossy == null then true
		else $lossy.recs >= ($json | tonumber) * 1e6 end) + " |",
"| case (c): the loss beyond it counted exactly | "
	+ "\([$lo[].lost] | add | fixed(0)) records lost in all runs (\([$lo[] | select(.lost > 0)]
		| length) runs with a loss); largest \\|sent - (received + lost)\\| at `tc:egress`"
	+ " in any run: \($unacc | fixed(0)) records | "
	+ verdict(if $unacc == null or ([$lo[].lost] | add) == 0 then null
		else $unacc == 0 end) + " |",
"| loader: at least \($target) M records/s on one core | "
	+ "text \($text), JSON \($json) M records/s | "
	+ "text: \(verdict(($text | tonumber) >= ($target | tonumber))); "
	+ "JSON: \(verdict(($json | tonumber) >= ($target | tonumber))) |"
