#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad surroundings and bad combinations are refused before anything is
# attached: exit status 2, one line on stderr that names the problem, and
# the kernel as it was (tc state, pp_* programs and links, maps, pins).
#   - -i naming an interface that exists only in another namespace (alone,
#     and after a good one: nothing may be attached to the good one);
#   - options that contradict each other (--test-pcap with -c, -i or
#     --duration; --list-probes with -c; --filter and a trailing filter);
#   - no privileges: an unprivileged user (setpriv), and root with the
#     capabilities pktpath needs dropped (capsh): the line names them;
#   - no usable kernel BTF: an empty file bind-mounted over
#     /sys/kernel/btf/vmlinux in a private mount namespace (skipped, with a
#     note, if the bind mount cannot be made): the line says BTF.
# (test_bad_input.sh covers bad filters, unknown interfaces and numbers.)
#
# Every case runs in the router namespace of a test topology, and every
# case runs even when one fails; the verdict lists all that failed.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin setpriv capsh unshare mount
ppr_before

# refused WANT CMD...: CMD (pktpath, possibly wrapped) exits 2 with exactly
# one line on stderr matching the extended regex WANT (case-insensitive),
# and leaves nothing behind.
# shellcheck disable=SC2317 # invoked through ppr_case
refused() {
	local want=$1
	shift
	ppr_run "env$PPR_CASES" "$PP_NS_R" 10 "$@"
	ppr_expect_refused "env$PPR_CASES" "$want" "after $*" -i
}

f=(--filter icmp)

# b-eth0 is the router's neighbour's: it exists, but in another namespace.
ip -n "$PP_NS_B" link show b-eth0 >/dev/null 2>&1 || pp_fail "b-eth0 missing in $PP_NS_B"
ip -n "$PP_NS_R" link show b-eth0 >/dev/null 2>&1 && pp_fail "b-eth0 also in $PP_NS_R?"
ppr_case "-i in another namespace" refused 'b-eth0' "$PKTPATH" -i b-eth0 "${f[@]}"
ppr_case "-i good, then another namespace's" refused 'b-eth0' \
	"$PKTPATH" -i r-eth0 -i b-eth0 "${f[@]}"

# Contradictions. The pcap file need not exist: the options alone are wrong.
pcap=$PP_TMP/none.pcap
ppr_case "--test-pcap with --count" refused 'test-pcap.*(-c|count)|(-c|count).*test-pcap' \
	"$PKTPATH" --test-pcap "$pcap" --count 3 "${f[@]}"
ppr_case "--test-pcap with -i" refused 'test-pcap.*-i|-i.*test-pcap' \
	"$PKTPATH" --test-pcap "$pcap" -i r-eth0 "${f[@]}"
ppr_case "--test-pcap with --duration" refused 'test-pcap.*duration|duration.*test-pcap' \
	"$PKTPATH" --test-pcap "$pcap" --duration 5 "${f[@]}"
ppr_case "--list-probes with -c" refused 'list-probes.*(-c|count)|(-c|count).*list-probes' \
	"$PKTPATH" --list-probes -c 3
ppr_case "--filter and a trailing filter" refused 'filter' "$PKTPATH" --filter a b
ppr_case "--filter and a trailing filter (valid ones)" refused 'filter' \
	"$PKTPATH" --filter icmp udp

# No privileges. nobody must be able to run the binary at all for this to
# test pktpath's check rather than the file system's.
setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$PKTPATH" ||
	pp_fail "user 65534 cannot execute $PKTPATH: the capability cases would test nothing"
ppr_case "unprivileged user" refused 'cap|root|permi' \
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
	"$PKTPATH" "${f[@]}"
# capsh --drop takes them from the bounding set: root's exec of bash then
# gets none of them. The script execs pktpath with its arguments.
# shellcheck disable=SC2016 # for the inner bash
drop_run=(-c 'exec "$@"' capsh-bash "$PKTPATH")
ppr_case "root without CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN, CAP_NET_ADMIN" refused 'cap' \
	capsh --drop=cap_bpf,cap_perfmon,cap_sys_admin,cap_net_admin -- "${drop_run[@]}" "${f[@]}"
ppr_case "root without CAP_NET_ADMIN" refused 'cap|net_admin' \
	capsh --drop=cap_net_admin -- "${drop_run[@]}" "${f[@]}"

# No usable BTF. "ip netns exec" mounts a fresh /sys, so the private mount
# namespace and the bind mount come after it, just before pktpath.
empty=$PP_TMP/empty-btf
: >"$empty"
# shellcheck disable=SC2016 # for the inner sh
no_btf=(unshare -m --propagation private sh -c
	'mount --bind "$1" /sys/kernel/btf/vmlinux || exit 99
	[ ! -s /sys/kernel/btf/vmlinux ] || exit 98
	shift; exec "$@"' no-btf "$empty")
ppr_run btf-probe "$PP_NS_R" 10 "${no_btf[@]}" true
if [ "$PP_RC" -eq 0 ]; then
	ppr_case "no BTF" refused 'btf' "${no_btf[@]}" "$PKTPATH" "${f[@]}"
	ppr_case "no BTF, --list-probes" refused 'btf' "${no_btf[@]}" "$PKTPATH" --list-probes
else
	pp_log "NOTE: no-BTF cases not run: cannot hide /sys/kernel/btf/vmlinux" \
		"(exit $PP_RC: $(_pp_last_line "$(pp_err btf-probe)"))"
fi

ppr_verdict
pp_expect_no_pp_progs "at the end"
pp_pass
