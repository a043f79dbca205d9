#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Two pktpath binaries, the same answers: stdout, stderr and exit status of
# each command below, byte for byte. For changes meant to keep behaviour
# (a refactor): build the commit before in its own build dir, then
#
#   tests/cli_compare.sh OLD-BINARY NEW-BINARY [RECORDED.jsonl...]
#
# The commands attach nothing: --help and --version, bad input of each kind
# (refused before anything is attached), --check, --list-probes and its
# command, --test-pcap of a file made here, and `pktpath report` on the
# given recordings (pktpath --json output; none: report's bad input only).
# --check and --list-probes read the kernel (BTF, feature probes): run as
# root for them. Prints "same: ARGS" or a diff per command; exit status 1
# if any differ.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OLD-BINARY NEW-BINARY [RECORDED.jsonl...]" >&2 && exit 2; }
old=$(realpath "$1") new=$(realpath "$2")
list=$(realpath "$(dirname "$0")/../kp_func.min.list")
full=$(realpath "$(dirname "$0")/../kp_func.list")
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
differ=0

# run BIN DIR ARGS...: BIN's stdout, stderr and status in DIR (in $tmp/DIR as cwd).
run() {
	local bin=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	(cd "$dir" && timeout 10 "$bin" "$@" </dev/null >out 2>err
		echo $? >rc)
}

# same ARGS...: the two binaries agree on ARGS.
same() {
	rm -rf "$tmp/a" "$tmp/b"
	run "$old" "$tmp/a" "$@"
	run "$new" "$tmp/b" "$@"
	# Timings differ run to run: " in 12.3 ms" is compared without its number.
	sed -i -E 's/[0-9]+\.[0-9] ms/N ms/g' "$tmp/a/err" "$tmp/b/err"
	if diff -r "$tmp/a" "$tmp/b" >"$tmp/diff"; then
		echo "same: $*"
	else
		echo "DIFFER: $*"
		sed 's/^/  /' "$tmp/diff" | head -n 20
		differ=1
	fi
}

# A capture for --test-pcap: one ICMP echo request on Ethernet.
pcap=$tmp/one.pcap
{
	printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x01\x00\x00\x00'
	printf '\x00\x00\x00\x00\x00\x00\x00\x00\x2a\x00\x00\x00\x2a\x00\x00\x00'
	printf '\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00'
	printf '\x45\x00\x00\x1c\x00\x01\x00\x00\x40\x01\x00\x00\xc6\x12\x00\x01\xc6\x12\x00\x02'
	printf '\x08\x00\xf7\xff\x00\x00\x00\x00'
} >"$pcap"

same --help
same -h
same --version
same report --help
same report -h
# Bad input: tests/e2e/test_bad_input.sh's, test_robust_bad_env.sh's combinations, each option's range.
same --filter "icmp and and"
same icmp and and
same -i nosuchdev0 --filter icmp
same -c 12abc --filter icmp
same -c -1 --filter icmp
same --duration 1e99 --filter icmp
same --packet-timeout 0 --filter icmp
same --backend nosuch --filter icmp
same --backend
same --no-such-option
same -x
same --test-pcap "$pcap" -c 1 icmp
same --test-pcap "$pcap" -i lo icmp
same --test-pcap "$pcap" --duration 1 icmp
same --list-probes -c 1
same --list-probes --duration 1
same --filter a b
same --filter icmp icmp
same --tc-script /nonexistent --check
same --pcapng a --check
same --pcapng a --perfetto a icmp
same --snaplen 64 icmp
same --snaplen 0 --json icmp
same --snaplen 129 --json icmp
same --interval 1 icmp
same --interval 0.01 --summary icmp
same --packets icmp
same --metrics-top 5 icmp
same --metrics-top 0 --metrics 0 icmp
same --metrics-idle 5 icmp
same --metrics 9999 --check
same --summary --check
same --summary --list-probes
same --summary --test-pcap "$pcap"
same --detail medium icmp
same --detail full --funcs x icmp
same --max-packets 0 icmp
same --max-packets 4194305 icmp
same --ring-size 3000 icmp
same --ring-size 3M icmp
same --ring-size 2048M icmp
same --count 0 icmp
same --duration -1 icmp
same --duration nan icmp
same --interval inf --summary icmp
same --netns "" icmp
same --check probes
same probes check
same filter
same filter test
same check --list-probes
same -- check
same --funcs /nonexistent/kp_func.list icmp
same --funcs /proc/self/mem icmp
same --probe-regex '(' icmp
same --test-pcap /nonexistent icmp
same --test-pcap "$pcap" icmp
same filter test "$pcap" 'icmp[icmptype] = icmp-echo'
same filter test "$pcap" tcp
same --check
same check
same --list-probes
same probes --probe-regex '^tcp_v4_'
same --list-probes --backend tracepoint --detail full
same --list-probes -v
same --list-probes --backend kprobe
same --list-probes --funcs "$list"
same --list-probes --funcs "$list" -v
same --list-probes --funcs "$full" -vv --backend tracepoint
same --list-probes --funcs "$full" --backend kprobe-multi
same --list-probes --funcs "$list" --stack kfree_skb --send-calls --all-skb-funcs
same probes --funcs "$list" --probe 'tp:skb:kfree_skb' --probe-regex '^ip_rcv'
same --funcs "$list" --backend fentry nosuchword
same --funcs "$list" --stack nosuch icmp
# report: bad usage and bad input.
same report
same report --nosuch x
same report --snaplen 0 x
same report --snaplen 129 x
same report --snaplen 64 x
same report --window 0 x
same report --window 4000 a b
same report --clock-tolerance -1 a b
same report --window 1 x
same report --summary a b
same report /nonexistent
same report /dev/null
same report "$pcap"
same report --pcapng x.pcapng --perfetto x.pcapng y
same report --help --snaplen 0
same report --snaplen 0 --help
same report -h x
same report --sum /dev/null
same report --p x
same report --snaplen
same report --json=1 x
same report x --json
same report -- --json
same report -
same report --window 0.5 a
same report a b --snaplen 5
same report --clock-tolerance 0 a b
same report --clock-tolerance 0.5 --window 3600 a b c
same report --window 3600.1 a b
same report --clock-tolerance nan a b
same report --snaplen 128 --pcapng p x
same report -x
same report --version
same -v report x
same --json report x
for f in "$@"; do
	f=$(realpath "$f")
	same report "$f"
	same report "$f" --json
	same report "$f" --summary
	same report "$f" --summary --json
	same report "$f" --summary --pcapng out.pcapng --perfetto out.json
	same report "$f" --pcapng out.pcapng --snaplen 40
	same report "$f" --perfetto out.json
	same report "$f" "$f" --json
	same report "$f" "$f" --window 0.5 --clock-tolerance 0
	head -c 300 "$f" >"$tmp/cut.jsonl"
	same report "$tmp/cut.jsonl"
done
exit $differ
