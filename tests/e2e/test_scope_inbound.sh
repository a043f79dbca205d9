#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A cgroup scope's servers: a packet for one of its sockets joins the scope
# where it comes in, before the server has answered, with clients outside
# the scope.
# - -- COMMAND runs a server in b (TCP 8001, and UDP 7001 that never
#   answers); curl and a UDP client in a are outside the scope: every
#   packet of curl's connection is printed, its SYN first, as tcpdump counts
#   them, and each of the 5 datagrams; each names the server's process. A
#   server outside the scope (TCP 8002) that curl also asks: none of its.
# - --pid of a server that was running before pktpath started (TCP 8003),
#   in a cgroup with a second server (TCP 8004): the connection to each from
#   a, SYN included, named after it; with --pid-only, the first server's
#   alone, the second's counted at exit as tcpdump counts them.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

pp_begin curl python3 tcpdump

SRV=198.18.1.2
mkdir -p "$PP_TMP/www"
head -c 102400 /dev/urandom >"$PP_TMP/www/blob"
cat >"$PP_TMP/server.py" <<'EOF'
import functools, http.server, socket, sys, threading
if len(sys.argv) > 3:
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(("0.0.0.0", int(sys.argv[3])))
    def count():
        n = 0
        while True:
            u.recvfrom(2048)
            n += 1
            with open(sys.argv[1] + "/../udp.count", "w") as f:
                f.write(str(n))
    threading.Thread(target=count, daemon=True).start()
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
http.server.ThreadingHTTPServer(("0.0.0.0", int(sys.argv[2])), h).serve_forever()
EOF
cat >"$PP_TMP/send.py" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(5):
    s.sendto(b"x" * 32, (sys.argv[1], int(sys.argv[2])))
EOF

# listening NS PORT: wait until a TCP socket of NS listens on PORT.
listening() {
	for ((i = 0; i < 100; i++)); do
		pp_in "$1" ss -Hltn "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	pp_fail "nothing listens on $2 in $1"
}

# conn_checks NAME PORT COMM: run NAME printed every packet of the one
# connection to PORT, as tcpdump (NAME.pcap) counts them, its SYN first,
# each naming COMM.
conn_checks() {
	local out n want
	out=$(pp_out "$1")
	want=$(tcpdump -n -r "$PP_TMP/$1.pcap" "tcp port $2" 2>/dev/null | wc -l)
	n=$(pp_jq "$out" "[packets[] | select(.pkt.sport == $2 or .pkt.dport == $2)] | length")
	[ "$want" -gt 10 ] || pp_fail "$1: tcpdump saw $want packets of the connection to $2"
	pp_expect_eq "$1: packets of the connection to $2, as tcpdump counts them" "$n" "$want"
	n=$(pp_jq "$out" "[packets[] | select(.pkt.dport == $2)][0]
		| \"\(.pkt.tcp_flags) at \(.marked_at.ifname) \(.marked_at.dir)\"")
	pp_expect_eq "$1: the connection's first packet" "$n" "S at b-eth0 ingress"
	n=$(pp_jq "$out" "[packets[] | select(.pkt.sport == $2 or .pkt.dport == $2)
		| select(.process.comm == \"$3\" and .process.pid > 1)] | length")
	pp_expect_eq "$1: packets of the connection to $2 that name $3" "$n" "$want"
}

# -- COMMAND: the server starts in pktpath's cgroup; a server outside it.
pp_bg other "$PP_NS_B" python3 "$PP_TMP/server.py" "$PP_TMP/www" 8002
pp_bg dump1 "$PP_NS_B" tcpdump -U -n -i b-eth0 -w "$PP_TMP/command.pcap" \
	"tcp port 8001 or udp port 7001"
pp_wait_line dump1 'listening on' 10
pp_pktpath_start command "$PP_NS_B" --json --backend tracepoint --packet-timeout 2 \
	"tcp or udp" -- python3 "$PP_TMP/server.py" "$PP_TMP/www" 8001 7001
listening "$PP_NS_B" 8001
listening "$PP_NS_B" 8002
pp_in "$PP_NS_A" curl -sf -o /dev/null "http://$SRV:8001/blob" || pp_fail "curl of the scoped server"
pp_in "$PP_NS_A" curl -sf -o /dev/null "http://$SRV:8002/blob" || pp_fail "curl of the other server"
pp_in "$PP_NS_A" python3 "$PP_TMP/send.py" "$SRV" 7001
for ((i = 0; i < 50; i++)); do
	[ "$(cat "$PP_TMP/udp.count" 2>/dev/null)" = 5 ] && break
	sleep 0.1
done
pp_expect_eq "datagrams the scoped server read" "$(cat "$PP_TMP/udp.count" 2>/dev/null)" 5
pp_pktpath_settle command 30
pp_pktpath_stop command TERM
pp_wait_pcap "$PP_TMP/command.pcap" 20
pp_stop dump1 INT
out=$(pp_out command)
pp_expect_json_lines "$out" "command output"
conn_checks command 8001 python3
# shellcheck disable=SC2016 # jq program
pp_expect_none "command: a packet of the server outside the scope" "$out" '
	packets[] | select(.pkt.sport == 8002 or .pkt.dport == 8002) | pkt_str'
n=$(pp_jq "$out" '[packets[] | select(.pkt.dport == 7001)
	| select(.process.comm == "python3")] | length')
pp_expect_eq "command: datagrams to the scoped UDP server, each naming python3" "$n" 5

# --pid of a server that was there first, in a cgroup of its own: its
# sockets are older than pktpath.
root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$root" ] || pp_fail "no cgroup v2 hierarchy mounted"
cg=$root/pktpath-e2e-$$-early
mkdir "$cg"
# shellcheck disable=SC2317 # invoked through pp_defer
cg_down() {
	kill "${PP_PIDS[early]:-}" "${PP_PIDS[early2]:-}" 2>/dev/null
	wait "${PP_PIDS[early]:-}" "${PP_PIDS[early2]:-}" 2>/dev/null
	rmdir "$cg"
}
pp_defer cg_down
# Moved before it enters b: "ip netns exec" hides the cgroup mounts. A
# second server in the same cgroup (TCP 8004).
# shellcheck disable=SC2016 # the inner shell's words
in_cg='echo $$ >"$0/cgroup.procs" && exec "$@"'
pp_root_bg early sh -c "$in_cg" "$cg" \
	ip netns exec "$PP_NS_B" python3 "$PP_TMP/server.py" "$PP_TMP/www" 8003
pp_root_bg early2 sh -c "$in_cg" "$cg" \
	ip netns exec "$PP_NS_B" python3 "$PP_TMP/server.py" "$PP_TMP/www" 8004
listening "$PP_NS_B" 8003
listening "$PP_NS_B" 8004

# byearly NAME ARGS...: pktpath ARGS in b while a fetches from both servers.
byearly() {
	local name=$1
	shift
	pp_bg "dump-$name" "$PP_NS_B" tcpdump -U -n -i b-eth0 -w "$PP_TMP/$name.pcap" \
		"tcp port 8003 or tcp port 8004"
	pp_wait_line "dump-$name" 'listening on' 10
	pp_pktpath_start "$name" "$PP_NS_B" --json --backend tracepoint --packet-timeout 2 \
		--pid "${PP_PIDS[early]}" "$@" tcp
	for port in 8003 8004; do
		pp_in "$PP_NS_A" curl -sf -o /dev/null "http://$SRV:$port/blob" ||
			pp_fail "curl of the early server on $port"
	done
	pp_pktpath_done "$name"
	pp_wait_pcap "$PP_TMP/$name.pcap" 40
	pp_stop "dump-$name" INT
}

byearly bypid
pp_expect_grep "bypid: the scope said" "$(pp_err bypid)" \
	"scope: every socket of pid ${PP_PIDS[early]}'s cgroup"
conn_checks bypid 8003 python3
conn_checks bypid 8004 python3

# --pid-only: the second server's packets, marked, are not shown, and counted.
byearly pidonly --pid-only
pp_expect_grep "pidonly: the scope said" "$(pp_err pidonly)" \
	"scope: the sockets of pid ${PP_PIDS[early]} alone"
conn_checks pidonly 8003 python3
# shellcheck disable=SC2016 # jq program
pp_expect_none "pidonly: a packet of the other server of the cgroup" "$(pp_out pidonly)" '
	packets[] | select(.pkt.sport == 8004 or .pkt.dport == 8004) | pkt_str'
n=$(tcpdump -n -r "$PP_TMP/pidonly.pcap" "tcp port 8004" 2>/dev/null | wc -l)
pp_expect_grep "pidonly: the other server's packets counted at exit" "$(pp_err pidonly)" \
	"--pid-only: $n packets of other processes of pid ${PP_PIDS[early]}'s cgroup not shown"
pp_pass
