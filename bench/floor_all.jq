# SPDX-License-Identifier: GPL-2.0
#
# Where case (a)'s time above floor-all goes: bench/netbench.sh's data.jsonl
# (read with jq -s) from a run with HIT_CONFIGS="pp-a floor-all" and
# TRAFFIC_CONFIGS holding both, as a Markdown table. Per hook, from the hit
# phase (kernel.bpf_stats_enabled=1): hits/s and ns per hit of pktpath's
# program (pp-a) and of the empty one there (floor-all), medians over the
# rounds; "above empty" times hits per UDP packet is what pktpath's bodies
# add per packet. bpftool's figures are per program: pktpath's classifier
# is one program per direction on every interface it holds (lo, veth-c),
# the empty ones are one per interface and direction, all named he_tc, so
# the classifier's row sums them all, both sides alike.

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

def hook:
	if .tp != "" then "tp:" + .tp
	elif .name | test("cls|he_tc") then "tc (every interface and direction)"
	elif .name | test("cg") then "cgroup_skb ingress"
	else .name end;

. as $all
| [$all[] | select(.phase == "hit" and (.owner == "pktpath" and .config == "pp-a"
	or .owner == "empty" and .config == "floor-all"))] as $h
# Per config and round: each hook's hits and ns, summed over its programs.
| [$h | group_by([.config, .round, hook])[]
	| {config: .[0].config, round: .[0].round, hook: (.[0] | hook),
	   hits_s: ((map(.cnt) | add) / .[0].secs), ns: (map(.ns) | add), cnt: (map(.cnt) | add)}]
	as $rows
# The UDP packets/s of each hit run, to put hits per packet beside.
| (reduce ($all[] | select(.phase == "hit-udp")) as $u ({};
	.["\($u.config)/\($u.round)"] = $u.udp_pps)) as $pps
| ([$rows[].hook] | unique) as $hooks
| [$hooks[] as $k
	| [$rows[] | select(.hook == $k and .config == "pp-a")] as $p
	| [$rows[] | select(.hook == $k and .config == "floor-all")] as $e
	| {hook: $k,
	   hits_s: ([$p[].hits_s] | median),
	   per_pkt: ([$p[] | .hits_s / ($pps["pp-a/\(.round)"] // null)] | median),
	   pp: ([$p[] | select(.cnt > 0) | .ns / .cnt] | median),
	   empty: ([$e[] | select(.cnt > 0) | .ns / .cnt] | median)}
	| . + {above: (if .pp == null or .empty == null then null else .pp - .empty end)}
	| . + {per_pkt_ns: (if .above == null or .per_pkt == null then null
		else .above * .per_pkt end)}
	| select((.hits_s // 0) >= 100)] | sort_by(-(.per_pkt_ns // 0))
| "| hook | hits/s (a) | hits per UDP packet | pktpath ns/hit | empty ns/hit | above empty | ns per packet above empty |",
"|---|---|---|---|---|---|---|",
(.[] | "| `\(.hook)` | \(.hits_s | fixed(0)) | \(.per_pkt | fixed(2)) | \(.pp | fixed(1)) | "
	+ "\(.empty | fixed(1)) | \(.above | fixed(1)) | \(.per_pkt_ns | fixed(1)) |"),
"| all of them | | | | | | \(map(.per_pkt_ns // 0) | add | fixed(1)) |"
