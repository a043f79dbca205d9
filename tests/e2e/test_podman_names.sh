#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Containers by name, for real: two rootful podman containers on podman's
# bridge, busybox httpd and wget, traced from the host. The names and short
# ids in pktpath's text and JSON must equal `podman ps`. The client starts
# after pktpath is ready, so that its namespace is named by a rescan, after
# pktpath gave up its privileges (names/netns_names.c).
#
# Podman's setup: podman.sh.
# shellcheck source-path=SCRIPTDIR source=podman.sh
. "$(dirname "$0")/podman.sh"
pp_setup
pp_require_pktpath
pod_setup

web=pp-e2e-web-$$ cli=pp-e2e-cli-$$
pod_web "$web"
ip=$POD_IP

# pktpath on the host: pp_bg runs in a named namespace, so by hand here.
trace() {
	local name=$1
	shift
	env --default-signal=INT,QUIT "$PKTPATH" --backend tracepoint -i 'veth*' "$@" \
		--filter "tcp port 80 and host $ip" \
		</dev/null >"$(pp_out "$name")" 2>"$(pp_err "$name")" &
	PP_PIDS[$name]=$!
	pp_defer _pp_reap "$name"
	pp_wait_line "$name" '^pktpath: ready' "$PP_READY_TIMEOUT"
}

trace text -v
pod_client "$cli"
cli_id=$(pod_id "$cli")
pod_get "$cli" "$ip"
pp_pktpath_settle text 20
pp_stop text
web_id=$(pod_id "$web")
txt=$(pp_out text)
for c in "$web:$web_id" "$cli:$cli_id"; do
	name=${c%%:*} id=${c#*:}
	grep -q "^netns $name = podman container $name ${id:0:12}, inode [0-9]*$" "$txt" ||
		pp_fail "no line naming $name (${id:0:12}): $(pp_brief 4 "$txt")"
	grep -qE "^ +[0-9.]+ +\+[0-9.]+ +$name eth0 " "$txt" ||
		pp_fail "no hop in $name's eth0 named $name: $(pp_brief 6 "$txt")"
done
podman stop -t 0 "$cli" >/dev/null
podman rm "$cli" >/dev/null

# JSON: the container objects equal podman's, for both ends.
trace json --json
pod_client "$cli"
cli_id=$(pod_id "$cli")
pod_get "$cli" "$ip"
pp_pktpath_settle json 20
pp_stop json
js=$(pp_out json)
pp_expect_json_lines "$js" "pktpath --json output"
got=$(pp_jq "$js" '[packets[].hops[] | select(.container) | .container
	| "\(.runtime) \(.name) \(.id)"] | unique | join(",")')
want=$(printf 'podman %s %s\n' "$cli" "$cli_id" "$web" "$web_id" | sort | paste -sd,)
pp_expect_eq "containers in the JSON" "$got" "$want"
n=$(pp_jq "$js" "[packets[].hops[] | select(.container and .netns_name != .container.name)]
	| length")
pp_expect_eq "hops whose netns_name is not their container's" "$n" 0
# The ends of received TCP segments (tcp_probe, kmem_cache_free: no device,
# no socket left) carry the namespace of their skb's hop before.
n=$(pp_jq "$js" '[packets[].hops[] | select(.netns == null)] | length')
pp_expect_eq "hops without a netns" "$n" 0
n=$(pp_jq "$js" '[packets[].hops[] | select(.netns_carried)] | length')
[ "$n" -gt 0 ] || pp_fail "no hop whose netns was carried: the TCP ends read one?"
pp_pass
