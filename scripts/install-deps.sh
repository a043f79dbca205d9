#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install everything pktpath's build, tests, demo and benchmarks need.
# Idempotent: packages already present are skipped without touching apt.
set -euo pipefail

PKGS=(
	build-essential cmake pkg-config clang llvm clang-format
	libbpf-dev bpftool libelf-dev zlib1g-dev libpcap-dev libmnl-dev libjson-c-dev
	libmicrohttpd-dev
	check shellcheck iproute2 iputils-ping iputils-arping nftables iperf3 bpftrace
	tcpdump tshark libcap2-bin util-linux jq ethtool
	qemu-system-x86 busybox-static cpio xz-utils kmod
	# scripts/gen-vmlinux.sh: a Debian kernel image's payload (readelf: binutils)
	zstd
	debootstrap lintian
	# scripts/test.sh: every layer's builds through one compiler cache
	ccache
	# tests/e2e/podman.sh (test_podman_names, test_container_scope): rootful podman with runc (crun refuses hybrid cgroups)
	podman runc
	# --metrics e2e and the rules' tests: a real Prometheus and promtool; the
	# systemd unit's check; the DaemonSet manifest's YAML check
	prometheus systemd python3-yaml
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#PKGS[@]} packages present"
	exit 0
fi

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
