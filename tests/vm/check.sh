#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Judge one VM's log: its results port, then its serial console, in one file
# (see tests/vm/scenarios.sh for the protocol). Usage: check.sh LABEL LOG
# Prints one line per check: "PASS|FAIL|SKIP LABEL BACKEND SCENARIO[ : note]",
# and exits 1 if any check failed.
# The chk_* functions are called by name ("chk_$scenario"), which shellcheck
# cannot follow:
# shellcheck disable=SC2317
set -euo pipefail

[ $# -eq 2 ] || {
	echo "usage: $0 LABEL CONSOLE_LOG" >&2
	exit 2
}
LABEL=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=tests/vm/host.sh
. "$(dirname "${BASH_SOURCE[0]}")/host.sh"
vm_log_text "$2" >"$WORK/log"
FAILED=0

pass() { echo "PASS $LABEL $1 $2${3:+ : $3}"; }
skip() { echo "SKIP $LABEL $1 $2 : $3"; }
fail() {
	echo "FAIL $LABEL $1 $2 : $3"
	FAILED=1
}

# Hop names that mean "the packet arrived at the other end of the veth": the
# kernel has moved these around (veth calls __netif_rx since 5.18), and which
# are probed depends on kp_func.list.
RX='netif_rx|__netif_rx|netif_rx_internal|enqueue_to_backlog|__netif_receive_skb'
RX+='|__netif_receive_skb_core|__netif_receive_skb_one_core|netif_receive_skb'
RX+='|tp:net:netif_rx|tp:net:netif_receive_skb'
TX='ip_output|ip_finish_output|ip_finish_output2'

# first_missing: given a packet and $steps, a list of "alt1|alt2" strings,
# the first step with no hop after the previous step's hop, or null.
# shellcheck disable=SC2016 # jq variables, not shell ones
JQ_LIB='
def first_missing($steps):
  [.hops[].func] as $f
  | reduce $steps[] as $s ({i: 0, miss: null};
      if .miss != null then . else
        ($s | split("|")) as $alts
        | (first(range(.i; $f | length) as $j
                 | select(($alts | index([$f[$j]])) != null) | $j) // null) as $j
        | if $j == null then .miss = $s else .i = $j + 1 end
      end)
  | .miss;
'

# ---- one block ---------------------------------------------------------------

# extract SCENARIO BACKEND: split the block into $BLK/{out,err,kv,rc}.
extract() {
	BLK=$WORK/blk
	rm -rf "$BLK"
	mkdir -p "$BLK"
	awk -v s="$1" -v b="$2" -v d="$BLK" '
		$0 == "@@BEGIN " s " " b { on = 1; found = 1; next }
		on && index($0, "@@END " s " " b " rc=") == 1 {
			sub(/.* rc=/, ""); print > (d "/rc"); on = 0; next
		}
		!on { next }
		/^@@ERR / { print substr($0, 7) > (d "/err"); next }
		/^@@KV / { print substr($0, 6) > (d "/kv"); next }
		{ print > (d "/out") }
		END { exit !found }' "$WORK/log" || return 1
	touch "$BLK/out" "$BLK/err" "$BLK/kv"
	[ -f "$BLK/rc" ] || echo "none" >"$BLK/rc"
}

# The scenario's times inside the VM (emulated: compare them with each other).
timing() {
	local r
	r=$(kv ready_s)
	echo "${r:+ready ${r}s, }$(kv scenario_s)s"
}
# The probe runs the kernel skipped (a BPF program already running on that
# CPU), as pktpath's JSON summary line counts them; 0 without one.
skipped() {
	local n
	n=$(grep -s '^{"summary"' "$BLK/out" | jq -r '.summary.skipped // 0' | tail -n 1)
	echo "${n:-0}"
}
skipped_note() {
	local n
	n=$(skipped)
	[ "$n" = 0 ] || echo "the kernel skipped $n probe runs, "
}
kv() { awk -v k="$1" '$1 == k { sub(/^[^ ]+ ?/, ""); print; exit }' "$BLK/kv"; }
rc() { cat "$BLK/rc"; }
first_err() { head -n 1 "$BLK/err"; }
# The probe points pktpath said it skipped ("...cannot probe: a b" and the
# indented lines after it).
skipped_funcs() {
	awk '/cannot probe:/ { on = 1; sub(/.*cannot probe:/, ""); print; next }
		on && /^  / { print; next } { on = 0 }' "$BLK/err"
}
# The packet records (JSON lines with an id), one per line.
packets() { grep '^{' "$BLK/out" | jq -c 'select(.id != null)'; }
pkt() { packets | head -n 1 | jq -r "$JQ_LIB $1"; }

# Checks shared by the scenarios that trace one packet.
one_packet() {
	local r
	r=$(rc)
	[ "$r" = 0 ] || {
		echo "pktpath rc=$r ($(kv stopped_by) $(first_err))"
		return 1
	}
	# A run shared with cleanup (scenarios.sh) ends by its SIGINT.
	[ -z "$(kv stopped_by)" ] || [ "$(kv shared_with)$(kv stopped_by)" = cleanupSIGINT ] || {
		echo "did not exit by itself after its packets: $(kv stopped_by)"
		return 1
	}
	grep '^{' "$BLK/out" | jq -e . >/dev/null 2>&1 || {
		echo "output is not JSON lines"
		return 1
	}
	[ -n "$(packets)" ] || {
		echo "no packet record (ping: $(kv ping))"
		return 1
	}
}

# steps_ok NAME STEP...: the packet's hops contain the steps in order.
steps_ok() {
	local miss
	miss=$(pkt "first_missing(\$ARGS.positional)" --args "$@")
	[ "$miss" = null ] || {
		echo "no hop $miss in order; hops: $(pkt '[.hops[].func] | join(" ")')"
		return 1
	}
}

fate_is() {
	local kind
	kind=$(pkt '.fate.kind')
	[ "$kind" = "$1" ] || {
		echo "fate $kind, expected $1 ($(pkt '.fate | tostring'))"
		return 1
	}
}

ifnames_include() {
	local have n
	have=$(pkt '[.hops[].ifname] | unique | join(" ")')
	for n in "$@"; do
		[[ " $have " == *" $n "* ]] || {
			echo "no hop on $n; ifnames: $have"
			return 1
		}
	done
}

# kfact NAME: a fact of the kernel that scenarios.sh found without pktpath
# (@@KFACT): drop_reasons (enum skb_drop_reason in its BTF, 5.17+),
# consume_location (skb:consume_skb passes the caller, 6.3+),
# module_btf (veth's BTF, 5.11+: pktpath finds a function's skb argument
# there, so without it no module function is probed), reads (the
# tracepoint backend's reads' hooks load: sock:sock_recv_length, 6.3+, and
# bpf_loop()).
kfact() { awk -v k="$1" '$1 == "@@KFACT" && $2 == k { print $3; exit }' "$WORK/log"; }

# veth_xmit where the kernel's BTF covers modules, else nothing.
veth_hop() {
	[ "$(kfact module_btf)" = no ] || echo veth_xmit
}

# ---- scenarios: chk_<name> BACKEND; stdout is the FAIL reason or a note ----

chk_icmp_veth() {
	one_packet || return 1
	[ "$(kv ping)" = ok ] || {
		echo "ping a -> b failed"
		return 1
	}
	fate_is consumed || return 1
	if [ "$1" = tracepoint ]; then
		steps_ok tp:net:net_dev_queue 'tp:net:netif_rx|tp:net:netif_receive_skb' ||
			return 1
	elif [ "$(pkt .marked_at.dir)" = egress ]; then
		# Marked by the classifier inside __dev_queue_xmit: ip_output and
		# __dev_queue_xmit were entered before the packet was known (the
		# forward scenario checks that part of the path).
		# shellcheck disable=SC2046 # veth_hop: one word or none
		steps_ok $(veth_hop) "$RX" ip_rcv ip_local_deliver icmp_rcv || return 1
	else
		# shellcheck disable=SC2046
		steps_ok "$TX" __dev_queue_xmit $(veth_hop) "$RX" ip_rcv ip_local_deliver \
			icmp_rcv || return 1
	fi
	echo "marked at $(pkt '.marked_at | .func // "\(.ifname) \(.dir)"'), $(pkt '.hops | length') hops"
}

chk_forward() {
	one_packet || return 1
	[ "$(kv ping)" = ok ] || {
		echo "ping a -> c through r failed"
		return 1
	}
	fate_is consumed || return 1
	ifnames_include veth-ra veth-rc || return 1
	if [ "$1" != tracepoint ]; then
		# shellcheck disable=SC2046
		steps_ok ip_forward "$TX" __dev_queue_xmit $(veth_hop) "$RX" ip_rcv \
			ip_local_deliver icmp_rcv || return 1
	fi
	echo "$(pkt '.hops | length') hops"
}

chk_nft_drop() {
	local reason func
	one_packet || return 1
	[ "$(kv nft_dropped)" -ge 1 ] 2>/dev/null || {
		echo "the nftables rule dropped nothing (counter: $(kv nft_dropped))"
		return 1
	}
	fate_is dropped || return 1
	reason=$(pkt .fate.reason)
	func=$(pkt .fate.func)
	# nf_hook_slow frees the packet on NF_DROP, unless the kernel has
	# NF_DROP_REASON(): then nft_do_chain frees it (6.12, and Debian's 6.1.192
	# too, whose nf_tables.ko calls kfree_skb_reason).
	[[ "$func" =~ ^(nf_hook_slow|nft_do_chain)$ ]] || {
		echo "dropped in '$func', expected nf_hook_slow or nft_do_chain (reason $reason)"
		return 1
	}
	# Without drop reasons (5.10) the place tells: nf_hook_slow frees on NF_DROP only.
	if [ "$(kfact drop_reasons)" = no ]; then
		if [ "$reason" != null ] || [ "$func" != nf_hook_slow ]; then
			echo "kernel without drop reasons: reason '$reason' in '$func', expected none in nf_hook_slow"
			return 1
		fi
		hint_has "netfilter's ipv4 input hook dropped it" || return 1
		echo "no reason (the kernel gives none) in $func"
		return 0
	fi
	# Older kernels may give a less precise reason: accepted, but shown.
	if [ -z "$reason" ] || [ "$reason" = null ]; then
		echo "no drop reason"
		return 1
	fi
	# The rule is in b's input chain: the hint names that hook, on every backend.
	hint_has "netfilter's ipv4 input hook dropped it" || return 1
	echo "reason $reason in $func"
}

# The kprobe backends mark a's echo request at ip_output, and see it dropped
# by the rule of a's postrouting hook, which the hint names; the tracepoint
# backend (TC only marks, after that hook) prints nothing, and says nothing false.
chk_nft_postrouting() {
	[ "$(kv nft_dropped)" -ge 1 ] 2>/dev/null || {
		echo "the nftables rule dropped nothing (counter: $(kv nft_dropped))"
		return 1
	}
	if [ "$1" = tracepoint ]; then
		[ "$(packets | wc -l)" -eq 0 ] || {
			echo "printed a packet TC cannot have seen: $(pkt 'tostring')"
			return 1
		}
		echo "nothing printed: TC comes after the postrouting hook"
		return 0
	fi
	one_packet || return 1
	fate_is dropped || return 1
	[ "$(pkt '.marked_at.func // ""')" = ip_output ] || {
		echo "marked at $(pkt '.marked_at | tostring'), expected ip_output"
		return 1
	}
	hint_has "netfilter's ipv4 postrouting hook dropped it" || return 1
	echo "$(pkt .fate.reason) in $(pkt .fate.func)"
}

# hint_has TEXT: the packet's fate.hint holds TEXT.
hint_has() {
	local hint
	hint=$(pkt '.fate.hint // ""')
	[[ $hint == *"$1"* ]] || {
		echo "hint without '$1': $hint"
		return 1
	}
}

# agent: its exit table counts b's drops in the UDP receive as Udp NoPorts
# does; no reason claimed where the kernel gives none.
chk_agent() {
	local want counted reasons
	[ "$(rc)" = 0 ] || {
		echo "pktpath --agent exited $(rc): $(first_err)"
		return 1
	}
	want=$(kv udp_noports_delta)
	[ "${want:-0}" -ge 3 ] 2>/dev/null || {
		echo "the kernel counted ${want:-no} datagrams to a closed port in b, expected 3"
		return 1
	}
	counted=$(awk '$NF == "b" && $3 ~ /^(__udp4_lib_rcv|udp_rcv|udp_queue_rcv_skb)$/ { s += $1 }
		END { print s + 0 }' "$BLK/out")
	reasons=$(awk '$NF == "b" && $3 ~ /udp/ { print $2 }' "$BLK/out" | sort -u | tr '\n' ' ')
	[ "$counted" = "$want" ] || {
		echo "--agent counted $counted drops in b's UDP receive, Udp NoPorts $want: $(head -c 300 "$BLK/out")"
		return 1
	}
	if [ "$(kfact drop_reasons)" = no ] && [ "$reasons" != "- " ]; then
		echo "kernel without drop reasons: --agent gave reason $reasons"
		return 1
	fi
	echo "$counted drops = Udp NoPorts, reason ${reasons% }"
}

chk_udp_closed() {
	local reason
	one_packet || return 1
	[ "$(kv udp_noports_delta)" -ge 1 ] 2>/dev/null || {
		echo "the kernel counted no UDP datagram to a closed port in b"
		return 1
	}
	fate_is dropped || return 1
	reason=$(pkt .fate.reason)
	# Without drop reasons (5.10): none claimed, and no cause guessed from the place.
	if [ "$(kfact drop_reasons)" = no ]; then
		if [ "$reason" != null ] || ! [[ "$(pkt .fate.func)" =~ ^(__udp4_lib_rcv|udp_rcv)$ ]]; then
			echo "kernel without drop reasons: $(pkt '.fate | tostring'), expected no reason, in __udp4_lib_rcv"
			return 1
		fi
		hint_has "the kernel gives no reason" || return 1
		echo "no reason (the kernel gives none) in $(pkt .fate.func)"
		return 0
	fi
	[ "$reason" = NO_SOCKET ] || {
		echo "reason $reason, expected NO_SOCKET ($(pkt '.fate | tostring'))"
		return 1
	}
	if [ "$1" != tracepoint ]; then
		steps_ok ip_rcv 'udp_rcv|__udp4_lib_rcv' || return 1
	fi
	hint_has "no udp socket is bound to port 9 of 198.18.0.2 in netns" || return 1
	echo "reason $reason in $(pkt .fate.func)"
}

# The probes --list-probes announces are those a run attaches: the count of
# its non-skip lines is the count on the ready line.
# --check says yes where the backend is then accepted (exit 0), no where it
# is refused (exit 2), and that pktpath can trace here (exit 0). A kernel
# without clsact's modules: --check must not claim clsact, and can trace only
# with tcx.
chk_check() {
	local row be said rc want=0 note=""
	if [ -n "$(kv no_classifier_module)" ]; then
		[ "$(ckline clsact)" = no ] || {
			echo "no $(kv no_classifier_module) in this kernel, --check says clsact '$(ckline clsact)'"
			return 1
		}
		[ "$(ckline tcx)" = yes ] || want=1
		note=", clsact no (no $(kv no_classifier_module)), tcx $(ckline tcx)"
	fi
	[ "$(kv check_rc)" = "$want" ] || {
		echo "--check rc=$(kv check_rc), expected $want"
		return 1
	}
	for row in kprobe.multi:kprobe-multi kprobe:kprobe fentry:fentry; do
		be=${row#*:}
		said=$(ckline "${row%%:*}")
		rc=$(kv "backend_$be")
		if { [ "$said" = yes ] && [ "$rc" != 0 ]; } || { [ "$said" = no ] && [ "$rc" != 2 ]; } ||
			[ -z "$said" ]; then
			echo "--check says '$said' for ${row%%:*}, --backend $be exits $rc"
			return 1
		fi
	done
	echo "kprobe.multi $(ckline kprobe.multi), kprobe $(ckline kprobe)," \
		"fentry $(ckline fentry) as --check says$note"
}
# ckline FEATURE: --check's yes/no for a one-word feature name.
ckline() { awk -v f="$1" '$1 == "CHECK" && $2 == f { print $3; exit }' "$BLK/kv"; }

# The reassembly hook (inet_frag_reasm_prepare) is named where it is
# attached: before 6.3 (consume_skb without location) under a function
# backend, and nowhere else. auto: not known here which backend it took.
reasm_hook_named() {
	local want=no got=no
	[ "$1" != auto ] || return 0
	[ "$(kfact consume_location)" = no ] && [ "$1" != tracepoint ] && want=yes
	grep -q '^LIST inet_frag_reasm_prepare .*built in:' "$BLK/kv" && got=yes
	[ "$got" = "$want" ] || {
		echo "--list-probes names the reassembly hook: $got, expected $want"
		return 1
	}
}

chk_list_probes() {
	local listed skipped ready attached
	[ "$(kv list_rc)" = 0 ] || {
		echo "--list-probes rc=$(kv list_rc): $(kv LIST_ERR)"
		return 1
	}
	# The hooks besides the list are not in the ready line's count: the send
	# calls' ("besides the list", off without --send-calls) and the slab's
	# ("built in", on with the tracepoint backend); nor the "# list:" line.
	listed=$(grep '^LIST ' "$BLK/kv" | grep -vcE 'besides the list|built in:|^LIST #' || true)
	skipped=$(grep -ci '^LIST .*skip' "$BLK/kv" || true)
	[ "$listed" -gt 0 ] || {
		echo "--list-probes printed nothing"
		return 1
	}
	# Without bpf_loop() the reads' programs are neither loaded nor named
	# (pp_plan_reads()). 5.10 lacks sock:sock_recv_length (6.3) too, so
	# there this holds on any code: it guards a kernel with a backport.
	if [ "$(kfact bpf_loop)" = no ] &&
		grep -qE '^LIST (tp:sock:sock_recv_length|cgroup_skb:ingress) ' "$BLK/kv"; then
		echo "no bpf_loop, yet --list-probes names the reads' hooks"
		return 1
	fi
	reasm_hook_named "$1" || return 1
	ready=$(grep -m1 '^pktpath: ready' "$BLK/err" || true)
	[ -n "$ready" ] || {
		echo "no ready line (rc=$(rc)): $(first_err)"
		return 1
	}
	attached=$(sed -nE 's/.*[^0-9]([0-9]+) probes.*/\1/p; s/.*probes[=: ]+([0-9]+).*/\1/p' \
		<<<"$ready" | head -n 1)
	[ -n "$attached" ] || {
		echo "no probe count in the ready line: $ready"
		return 1
	}
	[ $((listed - skipped)) -eq "$attached" ] || {
		echo "listed $((listed - skipped)) (+$skipped skipped), ready says $attached"
		return 1
	}
	[ "$(rc)" = 0 ] || {
		echo "the --duration run ended rc=$(rc)"
		return 1
	}
	echo "$attached probes, $skipped skipped"
}

# Everything counted before pktpath ran is back to its count after, and
# something changed while it ran (else the check would prove nothing).
chk_cleanup() {
	local k before during after changed=0 leaks=""
	grep -q '^pktpath: ready' "$BLK/err" || {
		echo "never ready (rc=$(rc)): $(first_err)"
		return 1
	}
	if [ "$(rc)" != 0 ] || kv stopped_by | grep -qv SIGINT; then
		echo "SIGINT did not end pktpath cleanly: rc=$(rc) $(kv stopped_by) $(first_err)"
		return 1
	fi
	for k in kprobe_events kprobes ftrace_users trace_events bpf_progs bpf_links \
		tc_filters clsact bpftool_net; do
		before=$(kv "before_$k")
		during=$(kv "during_$k")
		after=$(kv "after_$k")
		[ "$during" = "$before" ] || changed=1
		[ "$after" = "$before" ] || leaks+=" $k $before->$after"
	done
	[ -z "$leaks" ] || {
		echo "left behind:$leaks; $(kv STATE_AFTER)"
		return 1
	}
	[ "$changed" = 1 ] || {
		echo "nothing attached while running (no 'during' state differs)"
		return 1
	}
	echo "SIGINT to exit $(kv stop_s)s"
}

# A backend the kernel lacks: pktpath must refuse it, not hang or crash.
chk_unsupported() {
	local r
	r=$(rc)
	if [ "$r" = 0 ] || [ "$r" -ge 128 ] 2>/dev/null || [ -n "$(kv stopped_by)" ]; then
		echo "expected a clean refusal, got rc=$r $(kv stopped_by)"
		return 1
	fi
	grep -q '^pktpath: ready' "$BLK/err" && {
		echo "claimed to be ready"
		return 1
	}
	# Refused for the right reason: the message names the backend.
	grep -qiE "$1|kprobe[._]multi|backend" "$BLK/err" || {
		echo "failed without naming the backend: $(first_err)"
		return 1
	}
	echo "refused, rc=$r: $(first_err)"
}

# ---- packet life: tcp-forward, tcp-nat, tcp-read, ping-reply, udp-send, gso, bridge-flood

# shellcheck disable=SC2016 # jq variables, not shell ones
LIFE_JQ='
def brief: "#\(.id) \(.pkt.src // "?"):\(.pkt.sport // "")>\(.pkt.dst // "?"):\(.pkt.dport // "")"
  + " \(.pkt.tcp_flags // .pkt.icmp_seq // "") \(.fate.kind)"
  + (if .seen_last then " last at \(.seen_last.func)" else "" end)
  + " skbs [\([.skbs[]? | "\(.skb) \(.fate.kind)"] | join(", "))]";
# The skbs of a packet with their own ends: skbs[], or else the packet as one.
def own_skbs: .skbs // [{skb: .hops[0].skb, fate: .fate}];
def path: [.hops[] | "\(.func)\(if .ifname then "@" + .ifname else "" end)"] | join(" ");
def tc_ifnames: [.hops[] | select(.func | startswith("tc:")) | .ifname] | unique;
def fates: group_by(.fate.kind) | map("\(.[0].fate.kind) \(length)") | join(", ");
'
# allp JQ: JQ applied to the array of all packet records.
allp() { packets | jq -rs "$LIFE_JQ . as \$all | $1"; }
# first_bad COND WHAT: WHAT of the first packet for which COND holds, or "".
first_bad() { allp "map(select($1)) | first // empty | $2"; }

# life_common BACKEND [self]: what every packet-life scenario demands: a
# clean exit on SIGINT (with "self": by itself) with a summary, no loss claimed (the ring is far from full), and
# on the kprobe, kprobe-multi and fentry backends every packet and every one
# of its skbs seen to its end. The tracepoint backend has no probe on the
# frees that fire no tracepoint (__kfree_skb, kfree_skbmem, the deferred and
# NAPI frees, see loader/probes/end_points.c): there "unseen" is allowed.
# Sets SUMMARY.
life_common() {
	local r bad stop=SIGINT
	r=$(rc)
	# "self": pktpath was to end by itself (-- COMMAND), not stopped.
	[ "${2:-}" != self ] || stop=
	if [ "$r" != 0 ] || [ "$(kv stopped_by)" != "$stop" ] ||
		grep -q '^stopped_by SIGKILL' "$BLK/kv"; then
		# The last stderr line: the fatal error, not the skipped-probes notice.
		echo "pktpath rc=$r, stopped by '$(kv stopped_by)' ('${stop:-none}' expected):" \
			"$(tail -n 1 "$BLK/err")"
		return 1
	fi
	grep '^{' "$BLK/out" | jq -e . >/dev/null 2>&1 || {
		echo "output is not JSON lines"
		return 1
	}
	SUMMARY=$(grep '^{' "$BLK/out" | jq -c 'select(.summary) | .summary' | tail -n 1)
	[ -n "$SUMMARY" ] || {
		echo "no summary line"
		return 1
	}
	[ "$(jq -r .lost <<<"$SUMMARY")" = 0 ] || {
		echo "records lost: $SUMMARY"
		return 1
	}
	bad=$(first_bad '.lost_hops or .mark_lost' '"\(brief): \(tojson)"')
	[ -z "$bad" ] || {
		echo "loss claimed without ring pressure: $bad"
		return 1
	}
	[ "$1" != tracepoint ] || return 0
	bad=$(first_bad '.fate.kind == "unseen" or any(.skbs[]?; .fate.kind == "unseen")' \
		'"\(brief); path \(path)"')
	# An end may go unseen where the kernel skipped the probes (pktpath says
	# how often): packet work in an interrupt of a BPF program on that CPU.
	[ -z "$bad" ] || [ "$(skipped)" != 0 ] || {
		echo "$(allp 'map(select(.fate.kind == "unseen" or any(.skbs[]?;
			.fate.kind == "unseen"))) | length') packets with an unseen end: $bad"
		return 1
	}
}

# tcp_life BACKEND: a transfer through the router, counted: every packet that
# entered the router is printed once, with hops on both its interfaces.
tcp_life() {
	local rx all matched printed bad
	life_common "$1" || return 1
	[ "$(kv send)" = ok ] || {
		echo "the transfer failed: $(kv send)"
		return 1
	}
	[ "$(kv served)" = "$(kv tcp_bytes)" ] || {
		echo "the server read '$(kv served)' bytes of $(kv tcp_bytes)"
		return 1
	}
	rx=$(kv rx_packets)
	all=$(kv nft_all)
	matched=$(kv nft_matched)
	[ "$rx" -ge 10 ] 2>/dev/null || {
		echo "only '$rx' packets entered the router"
		return 1
	}
	# RX counts every frame, nft every IPv4 packet and the connection's: all
	# equal, so the connection was all that crossed the router.
	if [ "$rx" != "$all" ] || [ "$all" != "$matched" ]; then
		echo "RX $rx, nft IPv4 $all, nft TCP $matched: other traffic crossed the router"
		return 1
	fi
	printed=$(allp length)
	[ "$printed" = "$rx" ] || short_ok "$1" "$printed" "$rx" || {
		echo "printed $printed packets, $rx entered the router ($SUMMARY)"
		return 1
	}
	bad=$(first_bad 'tc_ifnames != ["veth-ra", "veth-rc"]' \
		'"\(brief): tc hops on \(tc_ifnames | join(",")); path \(path)"')
	[ -z "$bad" ] || {
		echo "not on both router interfaces: $bad"
		return 1
	}
	echo "$printed packets = RX $rx = nft $matched; $(allp fates)"
}

# short_ok BACKEND PRINTED RX: a shortfall the tracepoint backend has where
# the slab tracepoints pass no cache (Linux 5.10: kfact slab_cache): an skb
# whose free no skb tracepoint saw, reused at once for the connection's next
# segment, can be taken for the same packet (docs/kernels.md). At most 2% of
# the packets, said on the result line; anywhere else, none.
short_ok() {
	[ "$1" = tracepoint ] && [ "$(kfact slab_cache)" = no ] && [ "$2" -lt "$3" ] &&
		[ $(($3 - $2)) -le $(($3 / 50 + 1)) ] || return 1
	echo "($(($3 - $2)) of $3 packets joined to the one before: no cache in the slab tracepoints)" >&2
}

chk_tcp_forward() { tcp_life "$1"; }
# tcp-read: every data segment (tcp_len > 0) that b's server took, to its
# end in b: consumed and read by the server (vmhelper). The tracepoint
# backend names the reader at the end of the receive call
# (tp:sock:sock_recv_length), whichever skb ended up holding the data; the
# function backends by the reader's copy (tp:skb:skb_copy_datagram_iovec)
# before the socket's free. There a segment that TCP coalesced into the skb
# queued before it (tcp_queue_rcv()'s tcp_try_coalesce()) ends merged at
# kfree_skb_partial(), without a reader: its data is read in that skb,
# another packet's. The note counts them. Where the reads' hooks do not
# load (the tracepoint backend before 6.3), segments end consumed at their
# free with no reader named, or end not seen where that free fires no
# tracepoint (skb_attempt_defer_free()); a duplicate TCP drops ends dropped.
# Before drop reasons (5.17) TCP drops a segment it cannot queue (a
# duplicate, out of window, no receive memory) with tcp_drop(), which is
# __kfree_skb(), the consume path: that segment ends consumed, unread, at
# __kfree_skb after tcp_rcv_established, and another segment printed (the
# retransmission, or the original) holds its first byte.
chk_tcp_read() {
	local data bytes bad merged silent
	life_common "$1" || return 1
	{ [ "$(kv send)" = ok ] && [ "$(kv served)" = "$(kv tcp_bytes)" ]; } || {
		echo "the transfer failed: send '$(kv send)', served '$(kv served)' of $(kv tcp_bytes)"
		return 1
	}
	data=$(allp 'map(select(.pkt.tcp_len > 0)) | length')
	bytes=$(allp 'map(.pkt.tcp_len // 0) | add // 0')
	# Each byte sent is in a segment printed (more: a retransmission).
	[ "$bytes" -ge "$(kv tcp_bytes)" ] || {
		echo "$data data segments printed hold $bytes bytes, $(kv tcp_bytes) were sent"
		return 1
	}
	local read='(.fate.kind == "consumed" and .fate.read.comm == "vmhelper")'
	local coalesced='("'"$1"'" != "tracepoint" and .fate.kind == "merged"
		and .fate.read == null and .hops[-1].func == "kfree_skb_partial")'
	# Without the reads' hooks (the tracepoint backend before 6.3, or no
	# bpf_loop()) a segment ends at its free, consumed, no reader named,
	# or not seen where that free fires no tracepoint.
	# A segment TCP dropped (a retransmission's duplicate) ends as the
	# kernel said; its bytes came in another (the count above).
	local unnamed=false nodrop=false ok
	[ "$1" != tracepoint ] || [ "$(kfact reads)" = yes ] || unnamed=true
	[ "$(kfact drop_reasons)" = yes ] || nodrop=true
	# shellcheck disable=SC2016 # jq variables, not shell ones
	silent='('"$nodrop"' and .fate.kind == "consumed" and .fate.read == null
		and .hops[-1].func == "__kfree_skb" and any(.hops[]; .func == "tcp_rcv_established")
		and (. as $p | $all | any(.[]; .id != $p.id and .pkt.tcp_len > 0
			and ($p.pkt.tcp_seq - .pkt.tcp_seq + 4294967296) % 4294967296 < .pkt.tcp_len)))'
	ok="$read or $coalesced or $silent or .fate.kind == \"dropped\"
		or ($unnamed and ((.fate.kind == \"consumed\" and .fate.read == null)
			or .fate.kind == \"unseen\"))"
	bad=$(first_bad ".pkt.tcp_len > 0 and ($ok | not)" \
		'"\(brief) read \(.fate.read | tojson): path \(path)"')
	[ -z "$bad" ] || {
		echo "$(allp "map(select(.pkt.tcp_len > 0 and ($ok | not))) | length")" \
			"of $data data segments neither read by the server nor coalesced: $bad"
		return 1
	}
	$unnamed || [ "$(allp "map(select(.pkt.tcp_len > 0 and $read)) | length")" -ge 1 ] || {
		echo "none of $data data segments read by the server"
		return 1
	}
	merged=$(allp "map(select(.pkt.tcp_len > 0 and $coalesced)) | length")
	echo "$data data segments ($bytes bytes):" \
		"$(allp "map(select(.pkt.tcp_len > 0 and $read)) | length") read by the server, ended at" \
		"$(allp "[.[] | select(.pkt.tcp_len > 0 and $read) | .hops[-1].func] | group_by(.)
		| map(\"\\(.[0]) \\(length)\") | join(\", \")"); $merged coalesced" \
		"(merged at kfree_skb_partial, no reader named);" \
		"$(allp "map(select(.pkt.tcp_len > 0 and $silent)) | length") dropped by tcp_drop()" \
		"(consumed at __kfree_skb, its first byte in another); $(allp fates)"
}

# tcp-nat: tcp_life, and the DNAT shown where it happens: every packet has
# one TC hop that gives its rewritten headers (the hop's pkt: a's packets
# going to c, c's replies coming from R_A:NAT_PORT), and on the function
# backends the rewrite itself, nf_nat_manip_pkt.
chk_tcp_nat() {
	local note bad r_a port c
	note=$(tcp_life "$1") || {
		echo "$note"
		return 1
	}
	read -r r_a port c <<<"$(kv nat)"
	# shellcheck disable=SC2016 # jq variables, not shell ones
	bad=$(first_bad '[.hops[] | select(.pkt)] as $h
		| ($h | length) != 1 or ($h[0].func | startswith("tc:") | not)
		or (if .pkt.dport == '"$port"' then $h[0].pkt.dst != "'"$c"'"
		    else $h[0].pkt.src != "'"$r_a"'" or $h[0].pkt.sport != '"$port"' end)' \
		'"\(brief): hops with headers \([.hops[] | select(.pkt) | {func, ifname, pkt}]
		| tojson)"')
	[ -z "$bad" ] || {
		echo "NAT not shown where seen: $bad"
		return 1
	}
	# nf_nat_manip_pkt is nf_nat.ko's: probed only where BTF covers modules.
	[ "$1" = tracepoint ] || [ "$(kfact module_btf)" = no ] ||
		bad=$(first_bad 'all(.hops[]; .func != "nf_nat_manip_pkt")' \
		'"\(brief): no nf_nat_manip_pkt; path \(path)"')
	[ -z "$bad" ] || {
		echo "the NAT step not seen: $bad"
		return 1
	}
	echo "$note; the rewritten headers on every packet"
}

# ping-reply: each reply is consumed, by ping reading its raw socket's clone
# (busybox ping as root uses a raw ICMP socket); the original goes on to
# icmp_rcv, where no ICMP datagram socket wants it. Under -- COMMAND: the
# command's ping alone (one echo id), none of the other ping's, which got its
# replies, each naming ping; pktpath ends by itself with ping's exit status (0).
chk_ping_reply() {
	local n printed ids bad
	life_common "$1" self || return 1
	n=$(kv ping_received)
	[ "$n" -ge 1 ] 2>/dev/null || {
		echo "ping got no reply ('$n')"
		return 1
	}
	[ "$(kv other_received)" -ge 1 ] 2>/dev/null || {
		echo "the other ping got no reply ('$(kv other_received)')"
		return 1
	}
	printed=$(allp length)
	[ "$printed" = "$n" ] || {
		echo "printed $printed replies, the command's ping received $n"
		return 1
	}
	ids=$(allp '[.[].pkt.icmp_id] | unique | length')
	[ "$ids" = 1 ] || {
		echo "replies of $ids echo ids, expected the command's one: $(allp '[.[] | brief] | join("; ")')"
		return 1
	}
	bad=$(first_bad '.fate.kind != "consumed"' '"\(brief): \(.fate | tojson)"')
	[ -z "$bad" ] || {
		echo "a reply not consumed: $bad"
		return 1
	}
	bad=$(first_bad '.process.comm != "ping"' '"\(brief): process \(.process | tojson)"')
	[ -z "$bad" ] || {
		echo "a reply that does not name ping: $bad"
		return 1
	}
	# shellcheck disable=SC2016 # jq variables, not shell ones
	bad=$(first_bad '.skbs[0].skb as $o | [.skbs[]? | select(.from == $o) | .skb] as $c
		| any(.hops[]; (.func == "skb_copy_datagram_iter"
			or .func == "tp:skb:skb_copy_datagram_iovec")
			and .comm == "ping" and (.skb as $s | $c | index([$s]) != null)) | not' \
		'"\(brief); path \(path)"')
	[ -z "$bad" ] || {
		echo "a reply without a copy of the original read by ping: $bad"
		return 1
	}
	echo "$printed replies consumed by ping's copy, one echo id (the other ping's" \
		"$(kv other_received) not shown); originals:" \
		"$(allp 'map(.skbs[0].fate | "\(.kind) \(.reason // "")") | unique | join(", ")')"
}

# bridge-flood: each broadcast from h1 printed once, a copy of it sent out of
# pb2 and of pb3 and consumed there (by h2's and h3's ICMP, which reply).
chk_bridge_flood() {
	local sent printed bad
	life_common "$1" || return 1
	sent=$(kv ping_sent)
	[ "$sent" -ge 1 ] 2>/dev/null || {
		echo "ping sent no broadcast ('$sent')"
		return 1
	}
	[ "$(kv pb1_rx)" = "$sent" ] || {
		echo "pb1 received $(kv pb1_rx) frames, ping sent $sent: other traffic"
		return 1
	}
	printed=$(allp length)
	[ "$printed" = "$sent" ] || {
		echo "printed $printed broadcasts, ping sent $sent"
		return 1
	}
	bad=$(first_bad '[.hops[] | select(.func == "tc:egress") | .ifname] | sort
		!= ["pb2", "pb3"]' '"\(brief): path \(path)"')
	[ -z "$bad" ] || {
		echo "not flooded once to each of pb2 and pb3: $bad"
		return 1
	}
	# Each port's tc:egress hop is on a copy of its own, consumed.
	# shellcheck disable=SC2016 # jq variables, not shell ones
	bad=$(first_bad '. as $p | [.hops[] | select(.func == "tc:egress") | .skb] as $e
		| ($e | unique | length) != 2 or any($e[]; . as $s
			| any($p.skbs[]?; .skb == $s and .from != null
				and .fate.kind == "consumed") | not)' \
		'"\(brief): \(.skbs | tojson); path \(path)"')
	[ -z "$bad" ] || {
		echo "a port without its own consumed copy: $bad"
		return 1
	}
	# br_* are bridge.ko's: probed only where BTF covers modules.
	if [ "$1" != tracepoint ] && [ "$(kfact module_btf)" != no ]; then
		bad=$(first_bad 'any(.hops[]; .func | startswith("br_")) | not' '"\(brief): \(path)"')
		[ -z "$bad" ] || {
			echo "no bridge function (br_*) on the path (bridge probes not attached?): $bad"
			return 1
		}
	fi
	echo "$printed broadcasts, 2 copies each consumed; $(allp fates)"
}

# gso: every segment that entered r from a is printed once, as an skb with
# hops on both of r's interfaces. On the kprobe backends, the large skbs are
# marked in a, end "segmented", and their segments are copies that joined at
# __skb_gso_segment: fewer packets than segments. The tracepoint backend sees
# no segmenting: each segment is a packet of its own, marked at r.
chk_gso() {
	local segs printed bad lost
	life_common "$1" || return 1
	[ "$(kv no_tso)" != fail ] || {
		echo "could not turn TSO off on veth-a"
		return 1
	}
	{ [ "$(kv send)" = ok ] && [ "$(kv served)" = "$(kv tcp_bytes)" ]; } || {
		echo "the transfer failed: send '$(kv send)', served '$(kv served)' of $(kv tcp_bytes)"
		return 1
	}
	# shellcheck disable=SC2016 # jq variables, not shell ones
	segs=$(allp '[.[] | .hops as $h | [$h[] | select(.func == "tc:ingress"
		and .ifname == "veth-ra") | .skb] | unique | .[]] | length')
	[ "$segs" = "$(kv nft_matched)" ] || {
		echo "$segs skbs printed at veth-ra's ingress, nft counted $(kv nft_matched) from a"
		return 1
	}
	# shellcheck disable=SC2016 # jq variables, not shell ones
	bad=$(first_bad '. as $p | [.hops[] | select(.func == "tc:ingress") | .skb] | unique
		| any(.[]; . as $s | (any($p.hops[]; .skb == $s and .func == "tc:egress"
			and .ifname == "veth-rc") or any($p | own_skbs[]; .skb == $s
			and .fate.kind == "dropped")) | not)' '"\(brief): path \(path)"')
	[ -z "$bad" ] || {
		echo "a segment neither forwarded out of veth-rc nor dropped: $bad"
		return 1
	}
	# r's loss rule: each segment it dropped ends dropped there, once (before
	# drop reasons, in nf_hook_slow); TCP sent it again, a packet of its
	# own, counted above among the segments.
	lost=$(allp '[.[] | own_skbs[] | select(.fate | .kind == "dropped" and
		(.reason == "NETFILTER_DROP" or (.reason == null and .func == "nf_hook_slow")))] | length')
	{ [ "$(kv lost_segments)" -ge 1 ] 2>/dev/null && [ "$lost" = "$(kv lost_segments)" ]; } || {
		echo "$lost segments printed as dropped, r's loss rule dropped '$(kv lost_segments)'"
		return 1
	}
	printed=$(allp length)
	if [ "$1" = tracepoint ]; then
		[ "$printed" = "$segs" ] || {
			echo "printed $printed packets for $segs segments"
			return 1
		}
		echo "$segs segments ($lost lost), each its own packet; $(allp fates)"
		return 0
	fi
	bad=$(allp 'map(select(any(.skbs[]?; .func == "__skb_gso_segment"))) | length')
	[ "$bad" -ge 1 ] 2>/dev/null || {
		echo "no packet with segments joined at __skb_gso_segment: $(allp fates)"
		return 1
	}
	# TCP keeps each segment it sends until acknowledged and sends a clone:
	# neither the kept skb (sent again, or freed at the ACK) nor a clone of
	# it sent again is a copy of the packet sent before.
	bad=$(allp '[.[] | .skbs[]? | select(.from and .func != "__skb_gso_segment") | .func]
		| group_by(.) | map("\(length) at \(.[0])") | join(", ")')
	[ -z "$bad" ] || {
		echo "copies that GSO did not make: $bad"
		return 1
	}
	# Each segment has its own end (TCP may drop one: TCP_INVALID_SEQUENCE
	# under a starved VM); the original's is "segmented", whatever theirs.
	bad=$(first_bad 'any(.skbs[]?; .func == "__skb_gso_segment")
		and .skbs[0].fate.kind != "segmented"' '"\(brief): path \(path)"')
	[ -z "$bad" ] || {
		echo "a segmented packet whose original did not end segmented: $bad"
		return 1
	}
	echo "$segs segments ($lost lost) in $printed packets, $(allp 'map(select(any(.skbs[]?;
		.func == "__skb_gso_segment"))) | length') cut by GSO; $(allp fates)"
}

# udp-send: each datagram printed once, starting at its sendto() in vmhelper,
# consumed, and read by the server: on the function backends at
# skb_consume_udp; on the tracepoint backend, which sees no copy of a linear
# datagram, by the receive call's own free (consume_skb called from
# skb_consume_udp, 6.3 to 6.17: PP_HOP_READ), told by the tracepoint's
# location. Before 6.3 (no location) the tracepoint backend's datagrams end
# consumed in the reader's task without a reader named, and the note says so.
chk_udp_send() {
	local n printed bad loc unread note=""
	life_common "$1" || return 1
	n=$(kv udp_sent)
	{ [ "$n" -ge 1 ] 2>/dev/null && [ "$(kv send)" != fail ]; } || {
		echo "sent '$n' datagrams, send '$(kv send)'"
		return 1
	}
	[ "$(kv udp_served)" = "$n" ] || {
		echo "the server read '$(kv udp_served)' of $n datagrams"
		return 1
	}
	printed=$(allp length)
	[ "$printed" = "$n" ] || {
		echo "printed $printed datagrams, sent $n"
		return 1
	}
	# The tracepoint backend may not see the end: 7.2 (not 6.12) frees a
	# datagram read by recvmsg in skb_attempt_defer_free (7.2's kprobe
	# backends end it there), which fires no tracepoint: "unseen" is true.
	loc=$(kfact consume_location)
	bad=$(first_bad '.hops[0].func != "syscall:send" or .hops[0].comm != "vmhelper"
		or (.fate.kind != "consumed"
			and ("'"$1"'" != "tracepoint" or .fate.kind != "unseen"))
		or (("'"$1"'" != "tracepoint" or ("'"$loc"'" == "yes" and .fate.kind == "consumed"))
			and .fate.read.comm != "vmhelper")' \
		'"\(brief) read \(.fate.read | tojson): path \(path)"')
	[ -z "$bad" ] || {
		echo "not sent by vmhelper's sendto, consumed and read by vmhelper: $bad"
		return 1
	}
	# --stack __dev_queue_xmit: its hops (kprobe backends) carry a stack that
	# starts at the function or its caller, not in BPF's own frames.
	bad=$(first_bad 'any(.hops[]; .func == "__dev_queue_xmit" and ((.stack | length) < 3
		or any(.stack[0:2][]; startswith("bpf_"))
		or (any(.stack[0:3][]; startswith("__dev_queue_xmit+")
			or startswith("ip_finish_output2+") or startswith("neigh_")) | not)))' \
		'"\(brief): \([.hops[] | select(.func == "__dev_queue_xmit") | .stack] | tojson)"')
	[ -z "$bad" ] || {
		echo "a __dev_queue_xmit hop without its stack from there: $bad"
		return 1
	}
	[ "$1" = tracepoint ] || [ "$(allp '[.[].hops[] | select(.stack)] | length')" -ge "$n" ] || {
		echo "no stack on the __dev_queue_xmit hops: $(allp '[.[].hops[]
			| select(.func == "__dev_queue_xmit")] | length') such hops"
		return 1
	}
	unread=$(allp 'map(select(.fate.kind == "consumed" and .fate.read == null)) | length')
	[ "$unread" = 0 ] || note=", $unread consumed without a reader named: consume_skb has no location here"
	echo "$n datagrams from sendto() to the server ($(allp 'map(select(.fate.kind
		== "unseen")) | length') ending unseen$note), read at $(allp 'map(.fate.read.t_ns
		// "-" | if type == "number" then (. / 1000 | floor | tostring) + " us" else . end)
		| join(", ")') from the call"
}

# overlay BACKEND KIND ENCAP XMIT RCV: pod1's three pings across the
# overlay, traced in node1: six packets; each request marked on vp1 and
# encapsulated on u1 (its hop's encap ENCAP), each reply marked on u1 by its
# inner headers (its tunnel and id those of ENCAP) with one decap hop: at
# the tunnel device's ingress, but for IP-in-IP at vp1's egress, the first
# TC hook after (ov42 is no Ethernet device: pktpath puts no classifier
# there). On the kprobe backends the tunnel's transmit function XMIT is on
# the requests' paths and its receive function RCV on every path.
overlay() {
	local kind=$2 encap=$3 xmit=$4 rcv=$5 n bad
	life_common "$1" || return 1
	[ "$(kv ping_received)" = 3 ] || {
		echo "ping got '$(kv ping_received)' of 3 replies (overlay_ping: $(kv overlay_ping))"
		return 1
	}
	n=$(allp length)
	[ "$n" = 6 ] || {
		echo "printed $n packets, not 3 requests and 3 replies: $(allp 'map(brief) | join("; ")')"
		return 1
	}
	bad=$(first_bad "if .pkt.tunnel then .marked_at.ifname != \"u1\"
			or (.pkt | {tunnel, vni, key} | with_entries(select(.value != null)))
				!= ($encap | del(.via))
			or ([.hops[].decap | select(.)] | length) != 1
		else .marked_at.ifname != \"vp1\" or ([.hops[].encap | select(.)]
			!= [$encap]) end" '"\(brief): path \(path)"')
	[ -z "$bad" ] || {
		echo "no encap $encap on u1 (requests) or not one decap (replies): $bad"
		return 1
	}
	[ "$1" != tracepoint ] || {
		echo "3 requests encapsulated ($kind) on u1, 3 replies marked on u1 and decapsulated"
		return 0
	}
	# A kernel without BTF for modules (5.10): pktpath skips their
	# functions, and says so.
	if grep -q '^@@KFACT module_btf no' "$WORK/log" &&
		skipped_funcs | grep -qw -e "$xmit" -e "$rcv"; then
		echo "3 requests encapsulated ($kind) on u1, 3 replies decapsulated;" \
			"$xmit or $rcv skipped by pktpath: this kernel has no BTF for modules"
		return 0
	fi
	bad=$(first_bad "(.pkt.tunnel == null and (any(.hops[]; .func == \"$xmit\") | not))
		or (any(.hops[]; .func == \"$rcv\") | not)" '"\(brief): path \(path)"')
	[ -z "$bad" ] || {
		echo "$xmit (requests) or $rcv (all) not on the path: $bad"
		return 1
	}
	echo "3 requests through $xmit, encapsulated ($kind) on u1; 3 replies marked on u1," \
		"through $rcv"
}
chk_overlay_vxlan() {
	overlay "$1" vxlan '{tunnel: "vxlan", vni: 42, via: "u1"}' vxlan_xmit_one vxlan_rcv
}
chk_overlay_geneve() {
	overlay "$1" geneve '{tunnel: "geneve", vni: 42, via: "u1"}' geneve_xmit \
		geneve_udp_encap_recv
}
chk_overlay_gre() {
	overlay "$1" gre '{tunnel: "gre", key: 42, via: "u1"}' gre_tap_xmit __ipgre_rcv
}
chk_overlay_ipip() {
	overlay "$1" ipip '{tunnel: "ipip", via: "u1"}' ipip_tunnel_xmit ipip_tunnel_rcv
}

# kvd NAME: the kernel counter NAME's growth over the scenario (NAME_0 to NAME_1).
kvd() { echo $(($(kv "${1}_1") - $(kv "${1}_0"))); }

# fragments: the datagrams that a (MTU 1500) and r (veth-rc, MTU 1000) cut
# and c reassembled, traced in a, r and c with "udp port 9000" (as
# tests/e2e/test_fragments.sh, against the kernel's counters): each datagram
# one packet, marked in a (at veth-a, or at ip_output before it); the
# fragments a and r cut are copies of it (as many as IpFragCreates: a's
# first fragment is the datagram's own skb); r's
# originals end segmented; c's fragments (IpReasmReqds) cross veth-c's TC
# ingress, all but one end merged and the one left goes on as the datagram,
# read by vmhelper. On the function backends ip_do_fragment (the cutting)
# and ip_defrag (the reassembly) are hops of every packet.
chk_fragments() {
	local n=4 ca cr reqds oks bad got merged unmerged=0 loose=0 note=""
	life_common "$1" || return 1
	# Before 6.3 skb:consume_skb passes no location: the fragment that
	# inet_frag_reasm_prepare() consumes after skb_morph() moved its data
	# into the one that completed the datagram ends merged only where the
	# reassembly hook on inet_frag_reasm_prepare() marks it: the function
	# backends (kprobe, kprobe-multi, fentry). The tracepoint backend sees
	# no caller there and ends it consumed, one a datagram (docs/kernels.md).
	if [ "$(kfact consume_location)" = no ] && [ "$1" = tracepoint ]; then
		unmerged=$n
		note=" ($n of c's fragments consumed, not merged: consume_skb has no location here)"
	fi
	# Where the slab tracepoints pass no cache (5.10), up to one more a
	# datagram ends consumed on the tracepoint backend (12 or 16 merged of
	# 16 in 5.10 runs). Likely, by 5.10's source: a fragment that
	# inet_frag_reasm_finish() coalesced without stealing its head, freed by
	# __kfree_skb(), whose kmem_cache_free() call site is kfree_skbmem(),
	# any skb's.
	if [ "$(kfact slab_cache)" = no ] && [ "$1" = tracepoint ]; then
		loose=$n
		note+=" (up to $n more: no call site tells reassembly's __kfree_skb() here)"
	fi
	ca=$(kvd creates_a) cr=$(kvd creates_r) reqds=$(kvd reasm_reqds_c) oks=$(kvd reasm_oks_c)
	if ! { [ "$(kv udp_served)" = "$n" ] && [ "$oks" = "$n" ] && [ "$ca" -gt "$n" ] &&
		[ "$cr" -gt "$ca" ] && [ "$(kv send)" != fail ]; }; then
		echo "traffic: read '$(kv udp_served)' of $n, ReasmOKs c $oks, FragCreates a $ca," \
			"r $cr, send '$(kv send)'"
		return 1
	fi
	# shellcheck disable=SC2016 # jq variables
	got=$(allp '[length, ([.[] | select((.marked_at.ifname // first(.hops[].ifname | select(.))) != "veth-a")] | length),
		([.[].skbs[]? | select(.from)] | length),
		([.[].skbs[]? | select(.fate.kind == "segmented")] | length),
		([.[].hops[] | select(.func == "tc:ingress" and .ifname == "veth-c")] | length),
		([.[].skbs[]? | select(.fate.kind == "merged")] | length)] | join(" ")')
	merged=${got##* }
	if ! { [ "${got% *}" = "$n 0 $((ca - n + cr)) $ca $reqds" ] &&
		[ "$merged" -le $((reqds - n - unmerged)) ] &&
		[ "$merged" -ge $((reqds - n - unmerged - loose)) ]; }; then
		echo "packets, marked elsewhere than in a, copies, segmented, veth-c ingress hops," \
			"merged: $got; the kernel's: $n 0 $((ca - n + cr)) $ca $reqds" \
			"$((reqds - n - unmerged))$note" \
			"(FragCreates a $ca, r $cr; ReasmReqds c $reqds); $(allp 'map(brief) | join("; ")')"
		return 1
	fi
	bad=$(first_bad '.fate.kind != "consumed" or .fate.read.comm != "vmhelper"' \
		'"\(brief) read \(.fate.read | tojson)"')
	[ -z "$bad" ] || {
		echo "a datagram not consumed, read by vmhelper: $bad"
		return 1
	}
	if [ "$1" != tracepoint ] && [ "$1" != auto ]; then
		bad=$(first_bad '(any(.hops[]; .func == "ip_do_fragment") | not)
			or (any(.hops[]; .func == "ip_defrag") | not)' '"\(brief): path \(path)"')
		[ -z "$bad" ] || {
			echo "ip_do_fragment or ip_defrag not on the path: $bad"
			return 1
		}
	fi
	echo "$n datagrams, $ca + $cr fragments cut (copies), $ca segmented, $reqds reassembled" \
		"into $oks$note; $(allp fates)"
}

# fragments-left: traced in a alone, each datagram one packet whose later
# fragments, each crossing veth-a after the skbs before it left the scope,
# are copies of it (IpFragCreates in a, less the datagram's own skb), and
# every skb ends left. Before PP_HOP_FRAGS a packet was its first fragment
# alone.
chk_fragments_left() {
	local n=4 ca got
	life_common "$1" || return 1
	ca=$(kvd creates_a)
	if ! { [ "$(kv udp_served)" = "$n" ] && [ "$ca" -gt "$n" ] && [ "$(kv send)" != fail ]; }; then
		echo "traffic: read '$(kv udp_served)' of $n, FragCreates a $ca, send '$(kv send)'"
		return 1
	fi
	got=$(allp '[length, ([.[].skbs[]? | select(.from)] | length),
		([.[] | select(.fate.kind != "left" or any(.skbs[]?; .fate.kind != "left"))]
			| length)] | join(" ")')
	[ "$got" = "$n $((ca - n)) 0" ] || {
		echo "packets, copies, not left: $got; the kernel's: $n $((ca - n)) 0" \
			"(FragCreates a $ca); $(allp 'map(brief) | join("; ")')"
		return 1
	}
	echo "$n datagrams, $((ca - n)) later fragments joined after the first left; $(allp fates)"
}

# ---- bpf-verdicts -----------------------------------------------------------

# verdict_hops PORT LABEL VERDICT: datagrams to PORT with a hop of LABEL giving VERDICT.
verdict_hops() {
	allp "map(select(.pkt.dport == $1 and any(.hops[]; .func == \"$2\"
		and .verdict == \"$3\"))) | length"
}

# Each program's drops: hops naming it with its drop verdict, the drop's
# hint naming it, as many as its own counter; what went through: its pass.
# XDP's generic mode where the kernel has bpf_prog_run_generic_xdp (5.16+);
# the clsact program, loaded after pktpath started, named on stderr.
chk_bpf_verdicts() {
	local f port id label n want drop pass
	life_common "$1" || return 1
	n=$(allp length)
	[ "$n" = 8 ] || {
		echo "$n datagrams printed, 8 sent: $(allp 'map(brief) | join("; ")')"
		return 1
	}
	# The clsact program came after the start: the rescan names it.
	id=$(kv tc_id)
	grep -q "recording the verdicts of BPF program vm_tc_drop#$id too (loaded since the start)" \
		"$BLK/err" || {
		echo "pktpath did not record the verdicts of vm_tc_drop#$id, loaded since the start:" \
			"$(grep -i verdict "$BLK/err" | tr '\n' ' ')"
		return 1
	}
	for f in xdp tc tcx; do
		id=$(kv "${f}_id")
		[ -n "$id" ] || continue
		case $f in
		xdp) port=7005 drop=XDP_DROP pass=XDP_PASS ;;
		tc) port=7001 drop=TC_ACT_SHOT pass=TC_ACT_OK ;;
		tcx) port=7003 drop=TC_ACT_SHOT pass=TC_ACT_OK ;;
		esac
		[ "$f" != xdp ] || [ "$(kv xdp_generic)" = yes ] || continue
		label="bpf:vm_${f}_drop#$id"
		want=$(kv "${f}_dropped")
		n=$(allp "map(select(.pkt.dport == $port and .fate.kind == \"dropped\"
			and (.fate.hint | contains(\"BPF program vm_${f}_drop#$id returned $drop\"))
			and .fate.decided_by == \"vm_${f}_drop#$id returned $drop\"
			and any(.hops[]; .func == \"$label\" and .verdict == \"$drop\"))) | length")
		if [ "$want" != 2 ] || [ "$n" != "$want" ]; then
			echo "$label: $n datagrams to $port dropped with its $drop named," \
				"its own counter says '$want' (2 sent): $(allp 'map(brief + " " + path) | join("; ")')"
			return 1
		fi
		n=$(verdict_hops 7004 "$label" "$pass")
		[ "$n" = 2 ] || {
			echo "$label: $n of 2 datagrams to 7004 with its $pass: $(allp 'map(path) | join("; ")')"
			return 1
		}
	done
	echo "XDP generic: $(kv xdp_generic); $(allp fates)"
}

# ---- xdp-native ------------------------------------------------------------

# The 4 datagrams end at veth-b, where veth copied them for the XDP program:
# "xdp" (went on past XDP), each hint naming the program, where consume_skb
# has its location (6.3+); "consumed" before, as documented. The program's
# own counter: the 2 to 7005 dropped.
# dropped_two KIND: bpf_dropper's vm_KIND_drop counted the 2 datagrams to 7005 itself.
dropped_two() {
	[ "$(kv "${1}_dropped")" = 2 ] && return 0
	echo "the XDP program dropped '$(kv "${1}_dropped")' (id '$(kv "${1}_id")'), 2 sent to 7005"
	return 1
}

chk_xdp_native() {
	local n want fate=xdp id
	life_common "$1" && dropped_two xdpn || return 1
	id=$(kv xdpn_id)
	[ "$(kfact consume_location)" = yes ] || fate=consumed
	want="XDP on veth-b; BPF programs there now: vm_xdpn_drop (id $id, xdp native)"
	n=$(allp "map(select(.fate.kind == \"$fate\" and .hops[-1].ifname == \"veth-b\"
		and ((.fate.hint // \"$want\") == \"$want\"))) | length")
	if [ "$(allp length)" != 4 ] || [ "$n" != 4 ]; then
		echo "$n of $(allp length) datagrams (4 sent) ended $fate at veth-b, hint" \
			"'$want': $(allp 'map(brief + " " + path) | join("; ")')"
		return 1
	fi
	echo "consume_skb's location: $(kfact consume_location); $(allp fates)"
}

# ---- xdp-frames ------------------------------------------------------------

# frames_told KIND MODE: the 2 datagrams to 7005 are frames vm_KIND_drop
# dropped, each a packet of its own, its one hop the program's XDP_DROP at
# veth-b, its drop decided by it; the 2 to 7006 it passed start at TC
# ingress, dropped by b's UDP.
frames_told() {
	local id n label
	id=$(kv "${1}_id")
	label="bpf:vm_${1}_drop#$id"
	n=$(allp "map(select(.pkt.dport == 7005 and .fate.kind == \"dropped\"
		and .fate.decided_by == \"vm_${1}_drop#$id returned XDP_DROP\"
		and .hops[0].func == \"$label\" and .hops[0].verdict == \"XDP_DROP\"
		and .hops[0].ifname == \"veth-b\")) | length")
	[ "$n" = 2 ] || {
		echo "$n of 2 frames to 7005 dropped by $label ($2): $(allp 'map(brief + " " + path) | join("; ")')"
		return 1
	}
	n=$(allp "map(select(.pkt.dport == 7006 and .fate.kind == \"dropped\"
		and .hops[0].func == \"tc:ingress\")) | length")
	if [ "$n" != 2 ] || [ "$(allp length)" != 4 ]; then
		echo "$n of 2 datagrams to 7006 from TC ingress to a drop, $(allp length) printed" \
			"(4 sent): $(allp 'map(brief + " " + path) | join("; ")')"
		return 1
	fi
	echo "$(allp fates); hint: $(allp 'map(select(.pkt.dport == 7005) | .fate.hint) | first')"
}

# The program, loaded after the start, named on stderr; its frames told.
chk_xdp_frames() {
	local id
	life_common "$1" && dropped_two xdpf || return 1
	id=$(kv xdpf_id)
	# The program came after the start: the rescan names it.
	grep -q "recording the verdicts of BPF program vm_xdpf_drop#$id too" "$BLK/err" || {
		echo "vm_xdpf_drop#$id, loaded since the start, not recorded:" \
			"$(grep -i verdict "$BLK/err" | tr '\n' ' ')"
		return 1
	}
	frames_told xdpf native
}

# ---- xdp-redirect ------------------------------------------------------------

# redirected_to N WHERE: N frames to 7005 whose program's XDP_REDIRECT went
# WHERE ("to vr-b", or with ", which failed: ENETDOWN"), each a packet of
# its own whose fate and last hop's "redirect" say so.
redirected_to() {
	local want=$1 fate=$2 errno=$3 judge n
	judge="vm_xdpr_drop#$(kv xdpr_id) returned XDP_REDIRECT to vr-b$4"
	n=$(allp "map(select(.pkt.dport == 7005 and .fate.kind == \"$fate\"
		and .fate.decided_by == \"$judge\" and .hops[0].verdict == \"XDP_REDIRECT\"
		and .hops[-1].redirect.dev == \"vr-b\"
		and (.hops[-1].redirect.errno // 0) == $errno)) | length")
	[ "$n" = "$want" ] && return 0
	echo "$n of $want frames to 7005 $fate, '$judge': $(allp 'map(brief + " " + path) | join("; ")')"
	return 1
}

# from_tc_ingress N PORT DEV: N datagrams to PORT start at TC ingress on DEV.
from_tc_ingress() {
	local n
	n=$(allp "map(select(.pkt.dport == $2 and .hops[0].func == \"tc:ingress\"
		and .hops[0].ifname == \"$3\")) | length")
	[ "$n" = "$1" ] && return 0
	echo "$n of $1 datagrams to $2 from TC ingress on $3: $(allp 'map(brief + " " + path) | join("; ")')"
	return 1
}

# The program's own count: 4 redirected (2 while vr-b was up, 2 after);
# pktpath: 2 went on to vr-b, each then a packet of its own out of vr-c,
# 2 dropped by the failed redirect, and the 2 datagrams to 7006 from TC
# ingress on veth-b to b's UDP drop: 8 in all.
chk_xdp_redirect() {
	life_common "$1" || return 1
	[ "$(kv xdpr_redirected)" = 4 ] || {
		echo "the XDP program redirected '$(kv xdpr_redirected)' (id '$(kv xdpr_id)'), 4 sent to 7005"
		return 1
	}
	redirected_to 2 xdp 0 "" && redirected_to 2 dropped 100 ", which failed: ENETDOWN" &&
		from_tc_ingress 2 7006 veth-b && from_tc_ingress 2 7005 vr-c || return 1
	[ "$(allp length)" = 8 ] || {
		echo "$(allp length) printed, 8 expected: $(allp 'map(brief + " " + path) | join("; ")')"
		return 1
	}
	allp fates
}

# ---- xdp-frames-generic ---------------------------------------------------------

# As xdp-frames in generic mode, where the kernel has the fexit that knows
# the frame's skb (bpf_prog_run_generic_xdp, 5.16+); before, the frames the
# program drops are not seen: the 2 datagrams to 7006 alone.
chk_xdp_frames_generic() {
	life_common "$1" && dropped_two xdpg || return 1
	[ "$(kv xdp_generic)" = no ] || {
		frames_told xdpg generic
		return
	}
	if [ "$(allp 'map(select(.pkt.dport == 7006)) | length')" != 2 ] ||
		[ "$(allp length)" != 2 ]; then
		echo "without bpf_prog_run_generic_xdp, $(allp length) printed, 2 expected:" \
			"$(allp 'map(brief + " " + path) | join("; ")')"
		return 1
	fi
	echo "no bpf_prog_run_generic_xdp: the dropped frames not seen; $(allp fates)"
}

# ---- xdp-copies -------------------------------------------------------------

# Where consume_skb has its location (6.3+), each of the 4 datagrams is one
# packet: the copy veth made for XDP joins it with the program's verdict,
# the 2 to 7005 dropped by it (its own counter: 2), the 2 to 7006 passed
# ("xdp", went on past XDP). Before, the copy's end is not told from a
# delivery: the 4 end consumed at veth-b, and b's frames are out of the
# scope (pktpath runs in a), so none is a packet of its own.
chk_xdp_copies() {
	local id n judge
	life_common "$1" && dropped_two xdpc || return 1
	id=$(kv xdpc_id)
	judge="vm_xdpc_drop#$id returned"
	if [ "$(kfact consume_location)" = yes ]; then
		n=$(allp "map(select((.pkt.dport == 7005 and .fate.kind == \"dropped\"
			and .fate.decided_by == \"$judge XDP_DROP\")
			or (.pkt.dport == 7006 and .fate.kind == \"xdp\"
			and .fate.decided_by == \"$judge XDP_PASS\"))
			| select(.skbs | length == 2)) | length")
		[ "$n" = 4 ] && [ "$(allp length)" = 4 ]
	else
		n=$(allp 'map(select(.fate.kind == "consumed" and .hops[-1].ifname == "veth-b")) | length')
		[ "$n" = 4 ] && [ "$(allp length)" = 4 ]
	fi || {
		echo "$n packets as expected, $(allp length) printed:" \
			"$(allp 'map(brief + " " + .fate.kind + " " + path) | join("; ")')"
		return 1
	}
	echo "consume_skb's location: $(kfact consume_location); $(allp fates)"
}

# ---- the VM as a whole ---------------------------------------------------------

check_vm() {
	local bad absent
	if grep -q '^@@DONE' "$WORK/log"; then
		pass vm boot "$(sed -n 's/^@@TIME //p' "$WORK/log")"
	elif grep -q '^@@START' "$WORK/log"; then
		# Died with the tests running: never retried, always a FAIL.
		fail vm boot "died during the scenarios (after $(last_block)): $(death)"
	else
		fail vm boot "no first scenario (@@START), boots retried as set: $(death)"
	fi
	bad=$(awk '/^@@MODULE / && $3 != "ok" && $3 != "absent" { printf "%s ", $2 }' "$WORK/log")
	absent=$(awk '/^@@MODULE / && $3 == "absent" { printf " %s", $2 }' "$WORK/log")
	if ! grep -q '^@@MODULE .* ok$' "$WORK/log"; then
		fail vm modules "no module was loaded"
	elif [ -n "$bad" ]; then
		fail vm modules "failed: $bad"
	else
		pass vm modules "$(grep -c '^@@MODULE .* ok$' "$WORK/log") loaded${absent:+, absent:$absent}"
	fi
	if grep -q '^@@DMESG' "$WORK/log"; then
		fail vm kernel-log "$(grep '^@@DMESG' "$WORK/log" | head -n 6 | cut -c9- | tr '\n' '|')"
	fi
}

# The console lines that show how a kernel died: panic, oops, BUG, warning,
# else the last lines.
death() {
	local l
	l=$(grep -E 'Kernel panic|Oops|BUG:|WARNING:|RIP:|general protection' "$WORK/log" |
		head -n 6)
	[ -n "$l" ] || l=$(grep -v '^$' "$WORK/log" | tail -n 3)
	tr '\n' '|' <<<"$l"
}
last_block() {
	grep -E '^@@(BEGIN|END|SKIPPED) ' "$WORK/log" | tail -n 1 | cut -d' ' -f1-3 || true
}

# Every Debian kernel has kprobes, fentry and BTF tracepoints: only
# kprobe.multi (CONFIG_FPROBE, 5.18+) may be missing.
check_backends() {
	local name state reason
	while read -r _ name state reason; do
		if [ "$state" = ok ]; then
			pass "$name" attach-probe
		elif [ "$name" = kprobe-multi ]; then
			skip "$name" scenarios "the kernel cannot attach it: $reason"
		else
			fail "$name" attach-probe "$reason"
		fi
	done < <(grep '^@@BACKEND ' "$WORK/log")
}

check_blocks() {
	local backend scenarios s msg
	while read -r _ backend scenarios; do
		for s in $scenarios; do
			if msg=$(grep -m1 "^@@SKIPPED $s $backend " "$WORK/log"); then
				skip "$backend" "$s" "${msg#@@SKIPPED "$s" "$backend" }"
			elif ! extract "$s" "$backend"; then
				fail "$backend" "$s" "no output block (VM died or timed out?)"
			elif msg=$("chk_${s//-/_}" "$backend"); then
				pass "$backend" "$s" "${msg:+$msg, }$(skipped_note)$(timing)"
			else
				fail "$backend" "$s" "$msg"
			fi
		done
	done < <(grep '^@@PLAN ' "$WORK/log")
}

check_vm
check_backends
check_blocks
exit $FAILED
