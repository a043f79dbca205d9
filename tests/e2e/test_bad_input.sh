#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad input is refused before anything is attached: exit status 2, one line
# on stderr, and no pp_* BPF program or link left behind. Each case runs in
# a test namespace, so a pktpath that wrongly accepted its input would
# attach only to test interfaces, and is stopped after 10 s (a failure).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin

n=0
# refused LINES WANT ARGS...: pktpath ARGS exits 2 with a message on stderr
# that matches the extended regex WANT (case-insensitive), in exactly LINES
# lines ("any": usage errors may add a hint such as "Try --help").
refused() {
	local lines=$1 want=$2 what err
	shift 2
	what="pktpath $*"
	n=$((n + 1))
	err=$(pp_err "bad$n")
	pp_pktpath_run "bad$n" "$PP_NS_R" 10 "$@"
	pp_expect_eq "$what: exit status" "$PP_RC" 2
	[ "$lines" = any ] || pp_expect_lines "$what: stderr" "$err" "$lines"
	grep -Eqi -- "$want" "$err" ||
		pp_fail "$what: stderr does not match /$want/: $(pp_brief 2 "$err")"
	pp_expect_no_pp_progs "$what"
}

# The contract: a bad filter, an unknown interface, a bad number -> one line.
refused 1 'bad filter' --filter "icmp and and"
refused 1 'bad filter' icmp and and
refused 1 'nosuchdev0' -i nosuchdev0 --filter icmp
refused 1 '12abc' -c 12abc --filter icmp
refused 1 '-1' -c -1 --filter icmp
refused 1 '1e99' --duration 1e99 --filter icmp
refused 1 'packet-timeout' --packet-timeout 0 --filter icmp
# Plain usage errors: exit 2 and a word on what was wrong.
refused any 'nosuch' --backend nosuch --filter icmp
refused any 'no-such-option' --no-such-option
pp_pass
