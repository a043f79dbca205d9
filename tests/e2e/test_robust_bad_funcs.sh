#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A bad probe list (--funcs FILE) is refused before anything is attached:
# exit status 2, one line on stderr that names the problem, and the kernel
# as it was (tc state of every namespace, pp_* programs and links, maps,
# pins). Cases: a missing file, a directory, a file that cannot be read
# (/proc/self/mem: open works, read fails with EIO), malformed lines (the
# message names FILE:LINE), a list of unknown functions only, and a file
# that is one endless line (/dev/zero, under an address-space limit).
#
# Every case runs in the router namespace of a test topology, so a pktpath
# that wrongly accepted its input would attach to test interfaces only, and
# is stopped after 10 s (a failure). Every case runs even when one fails;
# the verdict lists all that failed.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin prlimit
ppr_before

# refused WANT ARGS...: pktpath ARGS exits 2 with exactly one line on
# stderr, matching the extended regex WANT, and leaves nothing behind.
# (Run by ppr_case, which numbers the cases.) WRAP, if set, is a command
# that runs pktpath (a resource limit).
WRAP=()
# shellcheck disable=SC2317 # invoked through ppr_case
refused() {
	local want=$1
	shift
	ppr_run "funcs$PPR_CASES" "$PP_NS_R" 10 "${WRAP[@]}" "$PKTPATH" "$@"
	ppr_expect_refused "funcs$PPR_CASES" "$want" "after pktpath $*"
}

list=$PP_TMP/lists
mkdir -p "$list/a-directory.list"
printf 'ip_rcv\n# a comment\ntp:net:netif_receive_skb\nip rcv\n' >"$list/space.list"
printf 'ip_rcv\ntp:net\n' >"$list/tp-no-name.list"
printf 'ip_rcv\n\n%s\n' "$(printf 'x%.0s' {1..300})" >"$list/long.list"
printf 'ip_rcv\n9lives\n' >"$list/digit.list"
printf '# only functions no kernel has\npp_no_such_function_1\npp_no_such_function_2\n' \
	>"$list/unknown.list"
missing=$list/no-such-file.list

f=(--filter icmp)
ppr_case "missing file" refused "$missing: .*(No such file|not found|does not exist)" \
	--funcs "$missing" "${f[@]}"
ppr_case "a directory" refused "$list/a-directory.list" --funcs "$list/a-directory.list" "${f[@]}"
ppr_case "unreadable (EIO)" refused "/proc/self/mem" --funcs /proc/self/mem "${f[@]}"
ppr_case "malformed: space" refused "$list/space.list:4([^0-9]|$)" \
	--funcs "$list/space.list" "${f[@]}"
ppr_case "malformed: tp without name" refused "$list/tp-no-name.list:2([^0-9]|$)" \
	--funcs "$list/tp-no-name.list" "${f[@]}"
ppr_case "malformed: too long" refused "$list/long.list:3([^0-9]|$)" \
	--funcs "$list/long.list" "${f[@]}"
ppr_case "malformed: leading digit" refused "$list/digit.list:2([^0-9]|$)" \
	--funcs "$list/digit.list" "${f[@]}"
# Nothing of the list can be probed: whatever the wording, the one line
# must say that (or name the functions, or the file).
ppr_case "unknown functions only" refused \
	"nothing to trace|unknown|pp_no_such_function_1|$list/unknown.list" \
	--funcs "$list/unknown.list" "${f[@]}"

# An endless line (/dev/zero has no newline): pktpath must stop reading at
# the longest line it accepts, not buffer the file until memory runs out.
# The address-space limit (2 GiB) keeps a failure here from hurting the
# machine; it shows as a wrong message or a different exit.
WRAP=(prlimit --as=$((2 << 30)) --)
ppr_case "endless line (/dev/zero)" refused "/dev/zero" --funcs /dev/zero "${f[@]}"
WRAP=()

ppr_verdict
pp_expect_no_pp_progs "at the end"
pp_pass
