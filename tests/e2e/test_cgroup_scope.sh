#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A scope by program (--cgroup, --pid): in namespace a, two programs talk
# to b's servers (a UDP echo and python's http.server), the same way: a
# UDP client of 5 datagrams and a curl of 200 KB each. One runs in a
# cgroup v2 the test makes (in a cgroup below the one pktpath is given),
# the other outside. pktpath runs in a, filter "udp or tcp", --cgroup
# given as the cgroup's path from the root (found through "ip netns
# exec"'s fresh /sys).
# - Every packet printed is the scoped program's: its ports, sent or
#   replied to (a UDP reply, curl's segments and the server's): as many
#   as tcpdump on a-eth0 counts for those ports, and none of the other's.
# - --pid of a process of that cgroup scopes the same way, and so does
#   --unit with the cgroup's name (a slice's, as systemd names them).
# - -- COMMAND: a shell running both clients, in a cgroup pktpath makes:
#   the same, the run ends with the command, with its exit status (0, and
#   curl's 7), and its cgroup is removed; with -u, as that user; with a
#   filter that matches the replies alone, its replies.
# - Bad input is exit 2 with nothing attached: a cgroup that does not
#   exist, a v1 directory, a gone pid, a process of the root cgroup, a
#   unit that runs nowhere.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin curl python3 tcpdump

root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$root" ] || pp_skip "no cgroup v2 hierarchy mounted"
# Named as systemd names a slice, for --unit; its clients run in a service.
cg=pktpath-e2e-$$.slice
mkdir -p "$root/$cg/client.service"
SRV=198.18.1.2
# The test's sleeps (in the cgroup, in the root cgroup) go, then the cgroups.
sleeps=()
# shellcheck disable=SC2317 # invoked through pp_defer
cg_down() {
	kill "${sleeps[@]}" 2>/dev/null
	wait "${sleeps[@]}" 2>/dev/null
	rmdir "$root/$cg/client.service" "$root/$cg"
}
pp_defer cg_down

# Bad input: exit 2, the kernel as before.
before=$PP_TMP/before.txt
pp_state_snapshot "$before"
refused() { pp_run_refused "$before" "" "$@"; }
refused "--cgroup /nosuch-$$: no such cgroup v2 directory" --cgroup "/nosuch-$$" udp
refused "no such cgroup v2 directory" --cgroup /proc udp
gone=$(sh -c 'echo $$')
refused "--pid $gone: no such process" --pid "$gone" udp
sleep 60 &
rootproc=$!
sleeps+=("$rootproc")
echo "$rootproc" >"$root/cgroup.procs"
refused "the root cgroup, which every process shares" --pid "$rootproc" udp
refused "one of them" --pid "$rootproc" --cgroup "/$cg" udp
refused "--pid-only goes with --pid" --pid-only --cgroup "/$cg" udp
refused "--unit nosuch-$$: no cgroup named nosuch-$$.service" --unit "nosuch-$$" udp

# b's servers.
mkdir -p "$PP_TMP/www"
head -c 204800 /dev/urandom >"$PP_TMP/www/blob"
pp_bg web "$PP_NS_B" python3 -m http.server 8000 --bind "$SRV" --directory "$PP_TMP/www"
cat >"$PP_TMP/echo.py" <<'EOF'
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 7000))
while True:
    d, a = s.recvfrom(2048)
    s.sendto(d, a)
EOF
cat >"$PP_TMP/client.py" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
s.bind(("0.0.0.0", int(sys.argv[1])))
for i in range(5):
    s.sendto(b"x" * 32, (sys.argv[2], 7000))
    s.recvfrom(2048)
    time.sleep(float(sys.argv[3]) if len(sys.argv) > 3 else 0)
EOF
pp_bg echo "$PP_NS_B" python3 "$PP_TMP/echo.py"
for ((i = 0; i < 100; i++)); do
	pp_in "$PP_NS_B" ss -Hltn 'sport = :8000' | grep -q . && break
	sleep 0.1
done

# Each run's scoped programs use local ports of their own (UP, TP): a
# connection from the same port as the run before may meet its TIME_WAIT.
UP=5001 TP=40001
next_ports() { UP=$((UP + 10)) TP=$((TP + 10)); }

# talk [DIR]: the two clients in namespace a: in cgroup DIR from ports UP
# and TP (the process moves there, then runs them), else from any port.
talk() {
	local run=(ip netns exec "$PP_NS_A") up=0 tp=()
	# shellcheck disable=SC2016 # the inner shell's words
	[ -z "${1:-}" ] || run=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$1" "${run[@]}")
	[ -z "${1:-}" ] || up=$UP tp=(--local-port "$TP")
	"${run[@]}" python3 "$PP_TMP/client.py" "$up" "$SRV" 0.1 ||
		pp_fail "the UDP client from port $up failed"
	"${run[@]}" curl -s -o /dev/null "${tp[@]}" "http://$SRV:8000/blob" ||
		pp_fail "curl ${tp[*]} failed"
}

# dump NAME: tcpdump on a-eth0 for the scoped programs' ports, into NAME.pcap.
dump() {
	pp_bg dump "$PP_NS_A" tcpdump -U -n -i a-eth0 -w "$PP_TMP/$1.pcap" "port $UP or port $TP"
	pp_wait_line dump 'listening on' 10
}

# dump_stop NAME: tcpdump stopped once it has written as many packets as
# run NAME printed of those ports (bounded), so that none is lost in its ring.
dump_stop() {
	local n
	n=$(pp_jq "$(pp_out "$1")" "[packets[] | select([.pkt.sport, .pkt.dport]
		| any(. == $UP or . == $TP))] | length")
	pp_wait_pcap "$PP_TMP/$1.pcap" "$n"
	pp_stop dump INT
}

# traced NAME ARGS...: pktpath ARGS while the scoped programs (ports UP,
# TP) and the others talk, tcpdump beside it; then
# check_scoped.
traced() {
	local name=$1
	shift
	dump "$name"
	pp_pktpath_start "$name" "$PP_NS_A" --json --backend tracepoint --packet-timeout 5 \
		"$@" --filter "udp or tcp"
	talk "$root/$cg/client.service"
	talk
	pp_pktpath_settle "$name" 30
	pp_pktpath_stop "$name" INT
	pp_expect_eq "$name: exit status" "$PP_RC" 0
	dump_stop "$name"
	check_scoped "$name"
}

# check_scoped NAME: every packet run NAME printed is of ports UP or TP,
# and they are tcpdump's count (NAME.pcap).
check_scoped() {
	local name=$1 out n want
	out=$(pp_out "$name")
	pp_expect_json_lines "$out" "$name output"
	# shellcheck disable=SC2016 # jq program
	pp_expect_none "$name: a packet not of the scoped programs" "$out" '
		packets[] | select([.pkt.sport, .pkt.dport] | any(. == $up or . == $tp) | not)
		| "\(pkt_str) marked at \(.marked_at.ifname)"' --argjson up "$UP" --argjson tp "$TP"
	n=$(pp_jq "$out" "[packets[] | select(.pkt.sport == $UP or .pkt.dport == $UP)] | length")
	pp_expect_eq "$name: UDP packets of the scoped client (5 sent, 5 replies)" "$n" 10
	n=$(pp_jq "$out" "[packets[] | select(.pkt.sport == $TP or .pkt.dport == $TP)] | length")
	want=$(tcpdump -n -r "$PP_TMP/$name.pcap" "tcp port $TP" 2>/dev/null | wc -l)
	pp_log "$name: curl's connection: pktpath $n packets, tcpdump $want"
	[ "$want" -gt 10 ] || pp_fail "$name: tcpdump saw $want packets of curl's connection"
	pp_expect_eq "$name: packets of curl's connection, as tcpdump counts them" "$n" "$want"
	check_process "$name"
}

# check_process NAME: the process named by each packet of run NAME that
# names one is the program of its ports (python3, curl); the UDP client,
# which lives half a second, is named by each of its packets, sent and
# replies, and so is curl, which ends a few ms after its first packet (a
# 200 KB download over veth), before a look at /proc finds it: the kernel
# told its socket's maker (6.1 on; this machine's kernel is newer).
check_process() {
	local out n all
	out=$(pp_out "$1")
	n=$(pp_jq "$out" "[packets[] | select(.pkt.sport == $UP or .pkt.dport == $UP)
		| select(.process.comm == \"python3\" and .process.pid > 1)] | length")
	pp_expect_eq "$1: UDP client packets that name python3 and its pid" "$n" 10
	[ "$1" = command ] || pp_expect_eq "$1: UDP client packets that name its unit" \
		"$(pp_jq "$out" "[packets[] | select(.pkt.sport == $UP or .pkt.dport == $UP)
		| select(.process.unit == \"client.service\")] | length")" 10
	all=$(pp_jq "$out" "[packets[] | select(.pkt.sport == $TP or .pkt.dport == $TP)] | length")
	n=$(pp_jq "$out" "[packets[] | select(.pkt.sport == $TP or .pkt.dport == $TP)
		| select(.process.comm == \"curl\" and .process.pid > 1)] | length")
	pp_expect_eq "$1: packets of curl's connection that name curl and its pid" "$n" "$all"
	# shellcheck disable=SC2016 # jq program
	pp_expect_none "$1: a packet named with another program's process" "$out" '
		packets[] | select(.process) | select(.process.comm != (if .pkt.sport == $up
			or .pkt.dport == $up then "python3" else "curl" end))
		| "\(pkt_str): process \(.process)"' --argjson up "$UP"
	pp_log "$1: packets naming their process: $(pp_jq "$out" '[packets[] | select(.process)]
		| "\(length), \([.[] | .process.comm] | unique | join(" "))"')"
}

traced bycgroup -v --cgroup "/$cg"
pp_expect_grep "bycgroup: the scope in -v" "$(pp_err bycgroup)" 'cgroup scope: id [0-9]+, level [1-9]'

sleep 300 &
member=$!
sleeps+=("$member")
echo "$member" >"$root/$cg/client.service/cgroup.procs"
next_ports
traced bypid --pid "$member"
next_ports
traced byunit -v --unit "$cg"
pp_expect_grep "byunit: the unit's cgroup in -v" "$(pp_err byunit)" "--unit $cg: cgroup /$cg\$"

# -- COMMAND: a shell that runs the UDP client, waits for the other
# programs to have talked, then runs curl: both its children are traced,
# the run ends with it, and its cgroup goes.
next_ports
dump command
go=$PP_TMP/others.done
pp_pktpath_start command "$PP_NS_A" --json --backend tracepoint --packet-timeout 2 \
	--filter "udp or tcp" -- sh -c "python3 $PP_TMP/client.py $UP $SRV 0.1 &&
		while [ ! -e $go ]; do sleep 0.1; done &&
		curl -s -o /dev/null --local-port $TP http://$SRV:8000/blob"
cmdcg=$root/pktpath-${PP_PIDS[command]}
[ -d "$cmdcg" ] || pp_fail "no cgroup $cmdcg while the command runs"
talk
touch "$go"
pp_pktpath_wait command 30
pp_expect_eq "command: exit status (the command's)" "$PP_RC" 0
dump_stop command
check_scoped command
[ ! -d "$cmdcg" ] || pp_fail "the command's cgroup is left: $cmdcg"
rc=0
pp_in "$PP_NS_A" "$PKTPATH" --backend tracepoint tcp -- curl -s "http://$SRV:9/" >/dev/null 2>"$PP_TMP/refused7.err" || rc=$?
pp_expect_eq "-- curl to a closed port: pktpath's exit status (curl's 7)" "$rc" 7
refused "-- nosuch-$$: no such command to run" -- "nosuch-$$"
refused "-u nosuch-$$: no such user" -u "nosuch-$$" -- true
# -u: the command as that user, traced as before.
pp_in "$PP_NS_A" "$PKTPATH" --json --backend tracepoint -u nobody icmp -- \
	sh -c "id -u; ping -n -c 2 -i 0.2 $SRV >/dev/null" >"$PP_TMP/user.out" 2>"$PP_TMP/user.err" ||
	pp_fail "-u nobody -- ping: $(pp_brief 2 "$PP_TMP/user.err")"
grep -qx "$(id -u nobody)" "$PP_TMP/user.out" || pp_fail "-u nobody: the command's id -u is not nobody's"
n=$(grep '^{' "$PP_TMP/user.out" | pp_jq /dev/stdin '[packets[] | select(.pkt.proto == "icmp")] | length')
pp_expect_eq "-u nobody -- ping: its requests and replies" "$n" 4
# A filter that matches the replies alone: the conversations are noted from
# every packet the command sends, whatever the filter says of them.
pp_in "$PP_NS_A" "$PKTPATH" --json --backend tracepoint "udp and src port 7000" -- \
	python3 "$PP_TMP/client.py" 0 "$SRV" >"$PP_TMP/replies.out" 2>"$PP_TMP/replies.err" ||
	pp_fail "-- client.py: $(pp_brief 2 "$PP_TMP/replies.err")"
n=$(pp_jq "$PP_TMP/replies.out" '[packets[] | select(.pkt.sport == 7000)] | length')
pp_expect_eq "'src port 7000' -- client.py: its 5 replies" "$n" 5
n=$(pp_jq "$PP_TMP/replies.out" 'packets | length')
pp_expect_eq "'src port 7000' -- client.py: packets in all" "$n" 5
pp_expect_state "$before" "after the scoped runs"
pp_pass
