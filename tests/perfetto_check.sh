#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# perfetto_check.sh FILE [MAX_TS_US]: is FILE a Trace Event Format trace
# that ui.perfetto.dev and chrome://tracing will show as pktpath means it?
# A reader of its own (jq), by the format's rules:
#
#   - a JSON object with a traceEvents array (displayTimeUnit, if given,
#     "ms" or "ns"), or a bare array of events;
#   - every event has name (string), ph (one of X, M, s, f), pid and tid
#     (integers >= 0); every event but metadata (M) has ts, a number >= 0
#     in microseconds: with MAX_TS_US (the clock's value now, in us), none
#     may lie beyond it, which a time in ns would;
#   - X (complete) events have dur >= 0; M events are process_name,
#     thread_name (args.name, a string) or process_sort_index (args.sort_index);
#   - per track (pid, tid), times never go back in file order, and X slices
#     nest or follow each other, never overlap in part;
#   - flows: every "s" id has exactly one "f" of the same id and cat, and
#     the other way round; each end lies within an X slice of its track,
#     which is what a viewer binds it to.
#
# stdout: one line per violation (the first 20), or on success
# "ok: N events, N tracks, N slices, N flows". Exit 0 ok, 1 violations,
# 2 not JSON or bad usage.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 FILE [MAX_TS_US]" >&2
	exit 2
fi
file=$1
max=${2:-}
[[ -z $max || $max =~ ^[0-9]+(\.[0-9]+)?$ ]] || {
	echo "perfetto_check: MAX_TS_US must be a number: '$max'" >&2
	exit 2
}
jq -e . "$file" >/dev/null 2>&1 || {
	echo "not JSON: $(jq . "$file" 2>&1 >/dev/null | head -n 1)"
	exit 2
}

# shellcheck disable=SC2016 # jq program
out=$(jq -r --arg max "$max" '
def eps: 0.0005; # half the last decimal (ns) of a time in us
def int_ok: type == "number" and . >= 0 and . == floor;
def where: "event \(.i) (\(.e.ph // "?") \(.e.name // "?") pid \(.e.pid // "?") tid \(.e.tid // "?"))";

# Per-event rules: one message per broken rule.
def event_errors:
  .e as $e
  | if ($e | type) != "object" then "\(where): not an object"
    else
      (if ($e.name | type) != "string" then "\(where): no name string" else empty end),
      (if ($e.ph | IN("X", "M", "s", "f") | not) then "\(where): ph \($e.ph | tojson) not X, M, s or f" else empty end),
      (if ($e.pid | int_ok | not) then "\(where): pid \($e.pid | tojson) not an integer >= 0" else empty end),
      (if ($e.tid | int_ok | not) then "\(where): tid \($e.tid | tojson) not an integer >= 0" else empty end),
      (if $e.ph != "M" and (($e.ts | type) != "number" or $e.ts < 0) then "\(where): ts \($e.ts | tojson) not a number >= 0" else empty end),
      (if $e.ph != "M" and ($max != "") and ($e.ts | type) == "number" and $e.ts > ($max | tonumber) then "\(where): ts \($e.ts) beyond the clock now (\($max) us): not microseconds?" else empty end),
      (if $e.ph == "X" and (($e.dur | type) != "number" or $e.dur < 0) then "\(where): X without a dur >= 0 (\($e.dur | tojson))" else empty end),
      (if $e.ph == "M" and ($e.name | IN("process_name", "thread_name", "process_sort_index") | not) then "\(where): unknown metadata \($e.name | tojson)" else empty end),
      (if $e.ph == "M" and ($e.name | test("_name$")) and ($e.args.name | type) != "string" then "\(where): no args.name" else empty end),
      (if $e.ph == "M" and $e.name == "process_sort_index" and ($e.args.sort_index | type) != "number" then "\(where): no args.sort_index" else empty end),
      (if ($e.ph == "s" or $e.ph == "f") and ($e.id == null or ($e.cat | type) != "string") then "\(where): a flow without id and cat" else empty end)
    end;

# Per-track rules, over the events of one track in file order.
def track_errors:
  (map(select(.e.ph != "M")) as $t
   | range(1; $t | length) as $k
   | select($t[$k].e.ts < $t[$k - 1].e.ts)
   | "\($t[$k] | where): ts \($t[$k].e.ts) before the track'"'"'s previous event (\($t[$k - 1].e.ts))"),
  (map(select(.e.ph == "X")) | sort_by(.e.ts, -.e.dur)
   | reduce .[] as $s ({stack: [], errs: []}; # stack: the ends of the slices open
       .stack |= map(select(. > $s.e.ts + eps))
       | if (.stack | length) > 0 and $s.e.ts + $s.e.dur > .stack[-1] + eps
         then .errs += ["\($s | where): overlaps a slice of its track in part"] else . end
       | .stack += [$s.e.ts + $s.e.dur])
   | .errs[]),
  (map(select(.e.ph == "X")) as $x
   | .[] | select(.e.ph == "s" or .e.ph == "f") as $fl
   | select([$x[] | select(.e.ts <= $fl.e.ts + eps and $fl.e.ts <= .e.ts + .e.dur + eps)] | length == 0)
   | "\(where): flow end outside every slice of its track");

# Flow pairing, over all events.
def flow_errors:
  [.[] | select(.e.ph == "s" or .e.ph == "f")]
  | group_by([.e.cat, .e.id])[]
  | (map(select(.e.ph == "s")) | length) as $s
  | (map(select(.e.ph == "f")) | length) as $f
  | select($s != 1 or $f != 1)
  | "flow \(.[0].e.cat) id \(.[0].e.id): \($s) start(s), \($f) end(s); one each wanted";

(if type == "array" then . elif type == "object" then .traceEvents else null end) as $ev
| if ($ev | type) != "array" then "no traceEvents array"
  elif type == "object" and has("displayTimeUnit") and (.displayTimeUnit | IN("ms", "ns") | not)
  then "displayTimeUnit \(.displayTimeUnit | tojson) not ms or ns"
  else
    [$ev | to_entries[] | {i: .key, e: .value}] as $all
    | ([$all[] | event_errors]) as $bad
    | if ($bad | length) > 0 then $bad[]
      else
        ([$all | group_by([.e.pid, .e.tid])[] | sort_by(.i) | track_errors]
         + [$all | flow_errors]) as $bad2
        | if ($bad2 | length) > 0 then $bad2[]
          else "ok: \($all | length) events, \([$all[] | select(.e.ph != "M") | [.e.pid, .e.tid]] | unique | length) tracks, \([$all[] | select(.e.ph == "X")] | length) slices, \([$all[] | select(.e.ph == "s")] | length) flows"
          end
      end
  end
' "$file")
if [[ $out == ok:* ]]; then
	echo "$out"
	exit 0
fi
head -n 20 <<<"$out"
exit 1
