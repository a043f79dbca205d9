#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A scope by container (--container), for real: two rootful podman
# containers on podman's bridge, busybox wget in one fetching from httpd
# in the other, and pktpath in the root namespace scoped to the server by
# its name.
# - Every hop printed is in the server's namespace, except a packet's one
#   last hop where it left (fate "left": the server's replies, at their
#   first hop on the host's side of its veth); none in the client's.
# - The names equal `podman ps`: netns_name and the container object
#   (runtime, name, full id) of every hop in the server's namespace.
# - A container name that names nothing is exit 2 with nothing attached,
#   also beside a good one (tc in the server's namespace and the BPF
#   programs as before).
# Without the hop recorder's scope check the replies would have hops on
# the bridge and in the client; without --container, every case is exit 2.
# shellcheck source-path=SCRIPTDIR source=podman.sh
. "$(dirname "$0")/podman.sh"
pp_setup
pp_require_pktpath
pod_setup

web=pp-e2e-sweb-$$ cli=pp-e2e-scli-$$
pod_web "$web"
ip=$POD_IP
pod_client "$cli"
web_id=$(pod_id "$web") cli_id=$(pod_id "$cli")
web_ino=$(pod_netns "$web") cli_ino=$(pod_netns "$cli")
{ [ -n "$web_id" ] && [ -n "$cli_id" ]; } || pp_fail "podman ps lists no $web or $cli"

# The server's namespace by its /run/netns name (podman makes one), for
# the tc snapshot.
ns=$(podman inspect -f '{{.NetworkSettings.SandboxKey}}' "$web")
ns=${ns#/run/netns/}
[ -e "/run/netns/$ns" ] || pp_skip "podman made no /run/netns entry for $web ($ns)"

# A bad scope: exit 2, the kernel as before.
before=$PP_TMP/before.txt
pp_state_snapshot "$before" "$ns"
refused() { pp_run_refused "$before" "$ns" "$@"; }
refused "--container nosuch-$$: no .*container" --container "nosuch-$$" tcp
refused "--container nosuch-$$: no .*container" --container "$web" --container "nosuch-$$" tcp

# The scoped run, from the root namespace (pp_bg runs in a named one).
out=$(pp_out scoped)
env --default-signal=INT,QUIT "$PKTPATH" --json --backend tracepoint --container "$web" \
	--filter "tcp port 80 and host $ip" </dev/null >"$out" 2>"$(pp_err scoped)" &
PP_PIDS[scoped]=$!
pp_defer _pp_reap scoped
pp_wait_line scoped '^pktpath: ready' "$PP_READY_TIMEOUT"
pp_expect_grep "ready line" "$(pp_err scoped)" 'in 1 network namespace'
pod_get "$cli" "$ip"
pp_pktpath_settle scoped 20
pp_stop scoped
pp_expect_json_lines "$out" "pktpath --json output"

n=$(pp_jq "$out" '[packets[] | select(.fate.kind == "consumed")] | length')
[ "$n" -gt 0 ] || pp_fail "no packet consumed in $web: $(pp_brief 4 "$out")"
n=$(pp_jq "$out" '[packets[] | select(.fate.kind == "left")] | length')
[ "$n" -gt 0 ] || pp_fail "no reply of $web left the scope: $(pp_brief 4 "$out")"
# shellcheck disable=SC2016 # jq program
pp_expect_none "a hop out of $web's namespace" "$out" '
	packets[]
	| select(any((if .fate.kind == "left" then .hops[0:-1] else .hops end)[];
		     .netns != $web)
		 or (.fate.kind == "left" and (.hops[-1].netns == $web
					       or .hops[-1].netns == $cli)))
	| "\(pkt_str): fate \(.fate.kind), \(path_str) netns \([.hops[].netns])"' \
	--argjson web "$web_ino" --argjson cli "$cli_ino"
# shellcheck disable=SC2016 # jq program
pp_expect_none "a hop in $web's namespace not named as podman ps" "$out" '
	packets[].hops[] | select(.netns == $web)
	| select(.netns_name != $name or .container.runtime != "podman"
		 or .container.name != $name or .container.id != $id)
	| "\(.func): \(.netns_name) \(.container)"' \
	--argjson web "$web_ino" --arg name "$web" --arg id "$web_id"
pp_expect_state "$before" "after the scoped run" "$ns"
pp_pass
