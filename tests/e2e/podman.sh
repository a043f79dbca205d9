# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Rootful podman for the container tests (test_podman_names.sh,
# test_container_scope.sh): busybox containers on podman's bridge.
#
# pod_setup (idempotent, as docs/ENVIRONMENT says these machines need):
# runc as the runtime (crun refuses their hybrid cgroups), default_ulimits
# = [] in /etc/containers/containers.conf (the sandbox refuses to raise
# RLIMIT_NOFILE), the image POD_IMG imported from a busybox-static root (no
# registry). A missing tool, or a podman that cannot run a container here,
# is a SKIP that says why.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

POD_IMG=localhost/pktpath-bb:1

pod_setup() {
	local conf=/etc/containers/containers.conf root
	command -v podman >/dev/null || pp_skip "podman not installed (scripts/install-deps.sh)"
	command -v runc >/dev/null || pp_skip "runc not installed (scripts/install-deps.sh)"
	[ -x /bin/busybox ] || pp_skip "busybox-static not installed (scripts/install-deps.sh)"
	if ! grep -qs '^default_ulimits = \[\]' "$conf"; then
		mkdir -p /etc/containers
		if grep -qs '^\[containers\]' "$conf"; then
			sed -i '/^\[containers\]/a default_ulimits = []' "$conf"
		else
			printf '[containers]\ndefault_ulimits = []\n' >>"$conf"
		fi
	fi
	podman image exists "$POD_IMG" && return 0
	root=$PP_TMP/bbroot
	mkdir -p "$root/bin" "$root/www" "$root/tmp"
	cp /bin/busybox "$root/bin/"
	for a in sh httpd wget sleep; do ln -s busybox "$root/bin/$a"; done
	echo pktpath >"$root/www/index.html"
	tar -C "$root" -cf "$PP_TMP/root.tar" .
	podman import "$PP_TMP/root.tar" "$POD_IMG" >"$PP_TMP/import.log" 2>&1 ||
		pp_skip "podman import failed: $(_pp_last_line "$PP_TMP/import.log")"
}

# pod_web NAME: container NAME serving /www on port 80 (busybox httpd),
# removed at exit; POD_IP = its address on podman's bridge.
pod_web() {
	pp_defer podman rm -f -t 0 "$1"
	podman --runtime runc run -d --name "$1" "$POD_IMG" httpd -f -p 80 -h /www \
		>"$PP_TMP/web.log" 2>&1 ||
		pp_skip "podman cannot run a container here: $(_pp_last_line "$PP_TMP/web.log")"
	POD_IP=$(podman inspect -f '{{.NetworkSettings.IPAddress}}' "$1")
	[ -n "$POD_IP" ] || pp_fail "no address for $1"
}

# pod_client NAME: container NAME idle for 30 s, to run wget in (pod_get).
pod_client() {
	pp_defer podman rm -f -t 0 "$1"
	podman --runtime runc create --name "$1" "$POD_IMG" sleep 30 >/dev/null
	podman start "$1" >/dev/null
}

# pod_get CLIENT IP: one HTTP GET of / from container CLIENT.
pod_get() {
	podman exec "$1" wget -q -O - "http://$2/" >"$PP_TMP/wget.out" 2>&1 ||
		pp_fail "wget failed: $(_pp_last_line "$PP_TMP/wget.out")"
}

# pod_id NAME: its full id, as `podman ps` prints it.
pod_id() { podman ps -a --no-trunc --filter "name=^$1\$" --format '{{.ID}}'; }

# pod_netns NAME: its network namespace's inode.
pod_netns() {
	local pid
	pid=$(podman inspect -f '{{.State.Pid}}' "$1")
	stat -L -c %i "/proc/$pid/ns/net"
}
