#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Both sk_buff caches are learned before the probes load (issue 24), also on
# a host where no TCP runs: the slab programs compare each object's cache
# with them, and without both they would look at every object of the host.
# pktpath makes the frees it learns from in a network namespace of its own
# (loader/probes/slab_learn.c). Checked from outside: the caches in the
# probe object's .rodata, read through the maps pktpath's fds hold, are
# both set once it is ready; the namespace it runs in saw no TCP connect or
# reset (/proc/net/snmp), and a "tcp" filter there printed no packet.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin bpftool

# tcp_counters NS: ActiveOpens and OutRsts of NS's TCP.
tcp_counters() {
	# shellcheck disable=SC2016 # awk program
	pp_in "$1" awk '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 }
		else print $c["ActiveOpens"], $c["OutRsts"] }' /proc/net/snmp
}

# caches NAME: the settings' skb_cache and fclone_cache (0 when unknown),
# from run NAME's probes.rodata as bpftool formats it with the object's BTF
# (jq's numbers: enough to tell 0 from an address).
caches() {
	local id
	while read -r id; do
		[ "$(bpftool -j map show id "$id" | jq -r .name)" = probes.rodata ] || continue
		bpftool -j map dump id "$id" | jq -r '[.[0].formatted.value[".rodata"][]] | add
			| "\(.pp_cfg.skb_cache // 0) \(.pp_cfg.fclone_cache // 0)"'
		return 0
	done < <(awk '/^map_id:/ { print $2 }' "/proc/${PP_PIDS[$1]}/fdinfo/"* 2>/dev/null)
	pp_fail "$1: no probes.rodata among the fds of pid ${PP_PIDS[$1]}"
}

before=$(tcp_counters "$PP_NS_A")
pp_pktpath_start learn "$PP_NS_A" -v --backend tracepoint --json --filter tcp
read -r skb fclone < <(caches learn)
sleep 1
pp_pktpath_stop learn
pp_expect_eq "pktpath exit status" "$PP_RC" 0
pp_log "caches: skb $skb, fclone $fclone; $(grep 'sk_buff caches' "$(pp_err learn)")"
[ "$skb" != 0 ] || pp_fail "the sk_buff head cache is not known once ready"
[ "$fclone" != 0 ] || pp_fail "the sk_buff fclone cache is not known once ready"
pp_expect_eq "TCP active opens and resets sent in pktpath's namespace" \
	"$(tcp_counters "$PP_NS_A")" "$before"
pp_expect_eq "packets printed for 'tcp'" "$(pp_jq "$(pp_out learn)" '[packets[]] | length')" 0
pp_pass
