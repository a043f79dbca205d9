#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the pktpath test VM (busybox sh, PID 1). It mounts what pktpath
# needs, loads the modules listed by scripts/vm-test.sh, runs the scenarios
# and powers off. Everything it reports goes to the serial console as lines
# starting with "@@", which tests/vm/check.sh reads on the host.
# No "set -e": one failed step must still lead to a report and a power-off.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
# ip netns keeps its namespace files under /run/netns.
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing
mount -t bpf bpf /sys/fs/bpf
# debugfs only for /sys/kernel/debug/kprobes/list, the cleanup check.
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# Kernel messages would tear our lines apart on the shared serial console:
# keep only emergencies there; the tail of dmesg is printed at the end.
echo 1 >/proc/sys/kernel/printk

# vm.conf is written by scripts/vm-test.sh: the kernel's label and any
# VM_BACKENDS / VM_SCENARIOS restriction.
# shellcheck source=/dev/null
. /etc/pktpath/vm.conf

echo "@@VM label=$VM_LABEL release=$(uname -r) cpus=$(nproc)"

load_modules() {
	while read -r m; do
		if out=$(insmod "/lib/modules/$m.ko" 2>&1); then
			echo "@@MODULE $m ok"
		else
			echo "@@MODULE $m fail $out"
		fi
	done </lib/modules/load.list
	# Neither a module nor built in: the scenarios that need one are SKIPs.
	while read -r m; do
		echo "@@MODULE $m absent"
	done </lib/modules/absent.list
}
load_modules

start=$(cut -d' ' -f1 /proc/uptime)
# The boot is over, nothing of the tests has run yet: scripts/vm-test.sh
# boots a VM that died before this line again, and never one after it.
echo "@@START"
# VM_RUN (vm.conf): another script instead, e.g. tests/vm/attach_bench.sh.
sh "${VM_RUN:-/tests/scenarios.sh}"
echo "@@TIME scenarios_s=$(awk -v s="$start" '{ printf "%.1f", $1 - s }' /proc/uptime)"

# Warnings and splats from the kernel during the run: a pktpath that trips a
# WARN_ON in the kernel must not pass unnoticed.
dmesg | grep -E 'WARNING|BUG|Oops|Call Trace|general protection' | tail -n 40 |
	sed 's/^/@@DMESG /'
echo "@@DONE"
sync
poweroff -f
