#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox ash: local works
# /init of the pktpath test VM (busybox sh, PID 1). It mounts what pktpath
# needs, loads the modules listed by scripts/vm-test.sh, runs the scenarios
# and powers off. Everything it reports goes to a virtio port (below) as
# lines starting with "@@", which tests/vm/check.sh reads on the host.
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
# Only emergencies on the serial console (a panic, an oops): the tail of
# dmesg is printed at the end.
echo 1 >/proc/sys/kernel/printk

# vm.conf is written by scripts/vm-test.sh: the kernel's label and any
# VM_BACKENDS / VM_SCENARIOS restriction.
# shellcheck source=/dev/null
. /etc/pktpath/vm.conf

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
# The virtio ports (virtio_console) come with the modules.
load_modules >/tmp/modules.txt 2>&1

# vport_of NAME: the device of the virtio port QEMU named NAME
# (scripts/vm-test.sh), once the driver has probed it.
vport_of() {
	local p
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		for p in /sys/class/virtio-ports/*; do
			[ "$(cat "$p/name" 2>/dev/null)" != "$1" ] || {
				echo "/dev/${p##*/}"
				return 0
			}
		done
		sleep 1
	done
	return 1
}

# The results channel: a virtio port, not the serial console. The 8250
# serial driver sends a process's writes on its TX interrupt; a 6.1 rt guest
# on a starved host once gave up that line ("Disabling IRQ #4") and every
# later write blocked, the VM silent until the 45-minute timeout. A
# virtio-serial port is another device, on MSI-X vectors of its own, not the
# legacy IRQ 4; should it stall too, the host's watchdog sees the heartbeat
# stop (below). The kernel's own messages (a panic) still go to the serial
# console, which printk writes by polling.
if RES=$(vport_of pktpath.results); then
	echo "@@CHANNEL virtio $RES"
	exec >"$RES" 2>&1
else
	echo "@@CHANNEL serial: no virtio port pktpath.results"
fi
BEAT=$(vport_of pktpath.beat) || BEAT=/dev/null

echo "@@VM label=$VM_LABEL release=$(uname -r) cpus=$(nproc)"
cat /tmp/modules.txt

# A line every 10 s on a port of its own (a line of its own on the results
# port could split a JSON line), with the scenario running: the host stops a
# VM whose ports stay silent for VM_SILENCE_TIMEOUT (scripts/vm-test.sh).
heartbeat() {
	while :; do
		echo "@@BEAT $(cut -d' ' -f1 /proc/uptime) $(cat /tmp/scenario 2>/dev/null)"
		sleep 10
	done >"$BEAT" 2>&1
}
heartbeat &
BEAT_PID=$!

# pktpath.silence=1 on the kernel command line (VM_FORCE_SILENCE): the VM
# stops writing on both ports after @@START, as a hung channel would, so
# that the host's watchdog can be tested.
silence() {
	grep -q 'pktpath.silence=1' /proc/cmdline || return 0
	kill "$BEAT_PID"
	while :; do sleep 3600; done
}

start=$(cut -d' ' -f1 /proc/uptime)
# The boot is over, nothing of the tests has run yet: scripts/vm-test.sh
# boots a VM that died before this line again; after it, only a VM that
# went silent (once, reported).
echo "@@START"
silence
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
