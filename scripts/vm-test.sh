#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run pktpath's scenarios in Debian's distro kernels under QEMU: the only way
# to prove the kprobe, kprobe.multi and fentry backends, which the build
# machines' own kernel cannot attach (see shared/ENVIRONMENT.md).
#
# Usage: scripts/vm-test.sh [KERNEL_PKG...]
#   KERNEL_PKG  linux-image-* package names; by default what the meta packages
#               of MATRIX below (generic, rt and cloud flavours of 6.1 and
#               6.12) depend on today.
# Environment:
#   BUILD_DIR        build directory (default: build); caches in $BUILD_DIR/vm
#   PKTPATH_BIN      a pktpath to test as is (its libraries go in too); unset:
#                    built here, as $BUILD_DIR/vm-build/loader/pktpath
#   PKTPATH_STANDIN  1: test tests/vm/standin-pktpath.sh instead (harness
#                    development, before the real binary builds)
#   VM_BACKENDS      backends to run in every kernel (default: per kernel, see
#                    MATRIX; a kernel named on the command line gets all four)
#   VM_SCENARIOS     scenarios to run (default: all, see tests/vm/scenarios.sh)
#   VM_PP_ARGS       extra arguments for every traced pktpath run ("-v -v")
#   VM_TIMEOUT       seconds one VM may take (default: 2700)
#   VM_BOOT_TIMEOUT  seconds a VM may take to reach its first scenario
#                    (default: 300); past that it counts as a failed boot
#   VM_BOOT_RETRIES  boots again of a VM that died before its first scenario
#                    (default: 2); see boot()
#   VM_SMP, VM_CPU, VM_TCG_THREAD  QEMU's -smp, -cpu and -accel tcg,thread=
#                    (default: 2, max, single: see tests/vm/README.md)
#   VM_ABSENT_MODULES  modules to leave out as if the kernel lacked them (to
#                    test the SKIP path)
#   VM_JOBS          VMs run side by side (default: all of them)
#   VM_RUN           what /init runs instead of the scenarios (bench/vm_attach.sh
#                    sets /tests/attach_bench.sh, bench/vm_rate.sh
#                    /tests/rate_bench.sh); VM_BENCH_* go along to it
#   VM_EXTRA_TOOLS   more host binaries for the image, with their libraries
#   PKTPATH_SKIP_VM  1: run nothing, exit 77 (a skip, for the test command)
# Prints "PASS|FAIL|SKIP KERNEL BACKEND SCENARIO" lines (and a "RETRY KERNEL
# vm boot" line for each boot that died before its first scenario), then
# "N passed, N failed, N skipped, N boots retried"; exits 1 if anything failed.
set -euo pipefail

if [ "${PKTPATH_SKIP_VM:-0}" = 1 ]; then
	echo "SKIP vm: PKTPATH_SKIP_VM=1"
	exit 77
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# A PKTPATH_BIN given relative to the caller's directory, before the cd.
[ -z "${PKTPATH_BIN:-}" ] || PKTPATH_BIN=$(realpath -m "$PKTPATH_BIN")
cd "$ROOT"
BUILD_DIR=${BUILD_DIR:-build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
VMDIR=$BUILD_DIR/vm
PKTPATH_STANDIN=${PKTPATH_STANDIN:-0}
PKTPATH_BIN_GIVEN=${PKTPATH_BIN:+1}
PKTPATH_BIN=${PKTPATH_BIN:-$BUILD_DIR/vm-build/loader/pktpath}
VM_TIMEOUT=${VM_TIMEOUT:-2700}
VM_BOOT_TIMEOUT=${VM_BOOT_TIMEOUT:-300}
VM_BOOT_RETRIES=${VM_BOOT_RETRIES:-2}
VM_SMP=${VM_SMP:-2}
VM_CPU=${VM_CPU:-max}
VM_TCG_THREAD=${VM_TCG_THREAD:-single}
# See qemu_once.
SLOW_HOST_ARGS="watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=300"

# The kernel matrix: "META_PACKAGE BACKENDS", resolved to the versioned
# package at run time. The generic kernels run every backend; of the
# flavours, 6.12's cloud kernel runs every backend and auto (6.12 has all
# four backends, and it is the cheapest flavour to run), the others the
# default backend, auto: six kernels with every backend would not fit the
# test command's 45 minutes on two cores, and the rt kernels detach kprobes
# three to four times slower (tests/vm/README.md has the times).
# "|" splits a kernel's backends over VMs of their own: one VM runs its vCPUs
# in one host thread (VM_TCG_THREAD), so the longest VM alone at the end
# would leave the second core idle; split, the VMs are of similar length.
# Longest first.
ALL_BACKENDS="kprobe-multi kprobe fentry tracepoint"
MATRIX=(
	"linux-image-6.12-cloud-amd64 auto kprobe-multi | kprobe fentry tracepoint"
	"linux-image-6.12-amd64 kprobe-multi kprobe | fentry tracepoint"
	"linux-image-amd64 kprobe-multi kprobe | fentry tracepoint"
	"linux-image-rt-amd64 auto"
	"linux-image-6.12-rt-amd64 auto"
	"linux-image-cloud-amd64 auto"
)
declare -A KBACKENDS
# What the scenarios need beyond the kernel image; dependencies are added
# from modules.dep. libcrc32c (for nf_tables) asks the crypto API for
# "crc32c" at init, so crc32c_generic must be there first. The packet-life
# scenarios add DNAT (nf_nat, nft_chain_nat for the chain, nft_nat for the
# statement) and a bridge, loaded before pktpath starts so that its br_*
# probes attach.
MODULES=(veth sch_ingress cls_bpf crc32c_generic nf_tables nf_nat nft_chain_nat nft_nat bridge)
# iproute2 (busybox ip has no netns or veth), nft, and bpftool for the
# cleanup checks: dynamic, so copied with their libraries.
TOOLS=(/usr/sbin/ip /usr/sbin/tc /usr/sbin/nft /usr/sbin/bpftool)

RESULTS=$VMDIR/results.txt

log() { echo "vm-test: $*" >&2; }
die() {
	log "$*"
	exit 1
}
result() { echo "$*" >>"$RESULTS"; }

check_tools() {
	local t missing=()
	for t in qemu-system-x86_64 cpio gzip xz depmod jq gcc dpkg-deb apt-get apt-cache \
		readelf ldd timeout; do
		command -v "$t" >/dev/null || missing+=("$t")
	done
	[ "$PKTPATH_STANDIN" = 1 ] || [ -n "$PKTPATH_BIN_GIVEN" ] || command -v cmake >/dev/null ||
		missing+=(cmake)
	for t in "${TOOLS[@]}"; do [ -x "$t" ] || missing+=("$t"); done
	[ ${#missing[@]} -eq 0 ] || die "missing ${missing[*]}: run scripts/install-deps.sh"
	# The VM has no libc: its busybox must be Debian's busybox-static.
	is_static /bin/busybox || die "/bin/busybox is not static: apt-get install busybox-static"
}

is_static() {
	[ -f "$1" ] && ! readelf -l "$1" 2>/dev/null | grep -q INTERP
}

# ---- kernels ----------------------------------------------------------------

meta_dep() {
	apt-cache depends "$1" 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }'
}

# The versioned packages behind the meta packages, resolved now: the archive
# moves on and a hard-coded name would go stale.
resolve_kernels() {
	local row meta dep n group groups words
	KERNELS=()
	# Lists a day old may name a kernel the archive no longer has.
	if [ -z "$(meta_dep "${MATRIX[0]%% *}")" ] ||
		[ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -mmin -1440)" ]; then
		log "apt lists missing or old: apt-get update"
		apt-get update -qq || log "apt-get update failed"
	fi
	for row in "${MATRIX[@]}"; do
		meta=${row%% *}
		dep=$(meta_dep "$meta")
		if [ -n "$dep" ]; then
			IFS='|' read -ra groups <<<"${row#* }"
			n=0
			for group in "${groups[@]}"; do
				n=$((n + 1))
				read -ra words <<<"$group"
				# A job: the package, and "@N" for a kernel's Nth VM.
				if [ ${#groups[@]} -eq 1 ]; then
					KERNELS+=("$dep")
					KBACKENDS[$dep]=${words[*]}
				else
					KERNELS+=("$dep@$n")
					KBACKENDS[$dep@$n]=${words[*]}
				fi
			done
		else
			result "FAIL $meta - resolve : apt-cache depends gives no linux-image package"
		fi
	done
}

# fetch_kernel PKG: download (once) and extract (once per .deb) into
# $VMDIR/kernels/PKG; sets KDIR, KVER (the module directory) and LABEL.
fetch_kernel() {
	local pkg=$1 debs deb
	mkdir -p "$VMDIR/debs"
	debs=("$VMDIR/debs/${pkg}_"*.deb)
	if [ ! -f "${debs[0]}" ]; then
		log "downloading $pkg"
		if ! (cd "$VMDIR/debs" && apt-get download "$pkg") >"$VMDIR/debs/$pkg.log" 2>&1; then
			result "FAIL $pkg - download : $(grep -m1 '^E:' "$VMDIR/debs/$pkg.log" || true)"
			return 1
		fi
		debs=("$VMDIR/debs/${pkg}_"*.deb)
	fi
	deb=${debs[0]}
	KDIR=$VMDIR/kernels/$pkg
	if [ "$(cat "$KDIR/.stamp" 2>/dev/null)" != "${deb##*/}" ]; then
		log "extracting ${deb##*/}"
		rm -rf "$KDIR"
		mkdir -p "$KDIR"
		dpkg-deb -x "$deb" "$KDIR/root"
		KVER=$(ls "$KDIR/root/lib/modules")
		# The package has no modules.dep: depmod writes it at install time.
		depmod -b "$KDIR/root" "$KVER"
		echo "${deb##*/}" >"$KDIR/.stamp"
	fi
	KVER=$(ls "$KDIR/root/lib/modules")
	LABEL=$(dpkg-deb -f "$deb" Version)
	LABEL=${LABEL%%-*}
	# The flavours share the version: the label names them.
	case $pkg in
	*-rt-amd64) LABEL+=-rt ;;
	*-cloud-amd64) LABEL+=-cloud ;;
	esac
}

# module_order: MODULES and their dependencies, dependencies first, as
# "name path" lines (path relative to the module directory); "builtin NAME"
# for one built into the kernel (modules.builtin), "absent NAME" for one this
# kernel has in neither form (or that VM_ABSENT_MODULES names).
module_order() {
	local mdir=$KDIR/root/lib/modules/$KVER
	awk -v want="${MODULES[*]}" -v absent=" ${VM_ABSENT_MODULES:-} " '
		function base(p) { sub(/.*\//, "", p); sub(/\.ko(\.[a-z]+)?$/, "", p); return p }
		function visit(m,   i, n, d) {
			if (m in seen) return
			seen[m] = 1
			if (index(absent, " " m " ")) { print "absent " m; return }
			if (m in builtin) { print "builtin " m; return }
			if (!(m in path)) { print "absent " m; return }
			n = split(deps[m], d, " ")
			for (i = 1; i <= n; i++) visit(base(d[i]))
			print m " " path[m]
		}
		FILENAME ~ /modules\.builtin$/ { builtin[base($1)] = 1; next }
		{ f = $1; sub(/:$/, "", f); m = base(f); path[m] = f; $1 = ""; deps[m] = $0 }
		END { n = split(want, w, " "); for (i = 1; i <= n; i++) visit(w[i]) }
	' "$mdir/modules.builtin" "$mdir/modules.dep"
}

# Busybox insmod reads plain .ko only: 6.12 ships .ko.xz.
stage_modules() {
	local dest=$1 name path src tmp
	mkdir -p "$KDIR/mods" "$dest/lib/modules"
	: >"$dest/lib/modules/load.list"
	: >"$dest/lib/modules/absent.list"
	while read -r name path; do
		case $name in
		builtin) continue ;;
		absent)
			# The scenarios that need it are SKIPs with this reason.
			echo "$path" >>"$dest/lib/modules/absent.list"
			continue
			;;
		esac
		src=$KDIR/root/lib/modules/$KVER/$path
		if [ ! -f "$KDIR/mods/$name.ko" ]; then
			# Into place in one rename: a kernel's VMs stage side by side
			# and must never copy a half-written module.
			# (bash expands a redirection after the fork: $BASHPID there
			# would be the child's, so the name is fixed first.)
			tmp=$KDIR/mods/$name.ko.$BASHPID
			case $path in
			*.ko.xz) xz -dc "$src" >"$tmp" ;;
			*.ko.zst) zstd -qdc "$src" >"$tmp" ;;
			*) cp "$src" "$tmp" ;;
			esac
			mv "$tmp" "$KDIR/mods/$name.ko"
		fi
		# One open: another VM may rename its copy over the name meanwhile
		# (cp then skips the file: "replaced while being copied").
		cat "$KDIR/mods/$name.ko" >"$dest/lib/modules/$name.ko"
		echo "$name" >>"$dest/lib/modules/load.list"
	done < <(module_order)
}

# prefetch PKG: fetch_kernel, its failure reported later by run_kernel.
prefetch() {
	local RESULTS=/dev/null
	fetch_kernel "$1" || true
}

# ---- binaries -----------------------------------------------------------------

build_vmhelper() {
	VMHELPER=$VMDIR/vmhelper
	if [ ! -x "$VMHELPER" ] || [ tests/vm/vmhelper.c -nt "$VMHELPER" ]; then
		log "building vmhelper (static)"
		# Static glibc warns about NSS functions libbpf never calls here.
		gcc -static -O2 -Wall -Wextra -o "$VMHELPER" tests/vm/vmhelper.c \
			-lbpf -lelf -lz 2>&1 | { grep -v 'statically linked applications' || true; }
		[ -x "$VMHELPER" ] || die "vmhelper did not build"
	fi
}

# PKTPATH_BIN: the binary the VMs run, with its libraries copied in like
# ip's and nft's: it cannot be static (Debian ships no libmnl.a).
build_pktpath() {
	if [ "$PKTPATH_STANDIN" = 1 ]; then
		PKTPATH_BIN=$ROOT/tests/vm/standin-pktpath.sh
		log "testing the tracefs stand-in, not pktpath"
		return 0
	fi
	if [ -z "$PKTPATH_BIN_GIVEN" ] && ! cmake_pktpath; then
		result "FAIL - - build : pktpath did not build, see $VMDIR/build-vm.log"
		return 1
	fi
	[ -x "$PKTPATH_BIN" ] || {
		result "FAIL - - build : no $PKTPATH_BIN"
		return 1
	}
}

# cmake_pktpath: configure and build pktpath in $BUILD_DIR/vm-build.
cmake_pktpath() {
	log "building pktpath in $BUILD_DIR/vm-build"
	{
		cmake -S . -B "$BUILD_DIR/vm-build" &&
			cmake --build "$BUILD_DIR/vm-build" --target pktpath
	} >"$VMDIR/build-vm.log" 2>&1
}

# ---- initramfs ---------------------------------------------------------------

# copy_dynamic ROOT BIN [DEST]: BIN (as DEST, default its own path) and
# every library ldd names, dynamic loader included, at their paths in ROOT.
copy_dynamic() {
	local root=$1 bin=$2 lib
	install -D -m 755 "$(readlink -f "$bin")" "$root${3:-$bin}"
	for lib in $(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		[ -f "$root$lib" ] || install -D -m 755 "$(readlink -f "$lib")" "$root$lib"
	done
}

# make_initramfs PKG: $VMDIR/initrd/PKG.cpio.gz, rebuilt every run (about a
# second) so that changed scripts and binaries are always in.
make_initramfs() {
	local root=$VMDIR/initrd/$1.root t applet v
	INITRD=$VMDIR/initrd/$1.cpio.gz
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc/pktpath,proc,sys,dev,run,tmp,root,tests}
	mkdir -p "$root"/usr/share/pktpath
	mkdir -p "$root/var"
	ln -s ../run "$root/var/run"
	install -m 755 /bin/busybox "$root/bin/busybox"
	for applet in $(/bin/busybox --list); do
		[ "$applet" = busybox ] || ln -s busybox "$root/bin/$applet"
	done
	# shellcheck disable=SC2086 # a list of paths
	for t in "${TOOLS[@]}" ${VM_EXTRA_TOOLS:-}; do copy_dynamic "$root" "$t"; done
	if is_static "$PKTPATH_BIN" || [ "$PKTPATH_STANDIN" = 1 ]; then
		install -m 755 "$PKTPATH_BIN" "$root/usr/bin/pktpath"
	else
		copy_dynamic "$root" "$PKTPATH_BIN" /usr/bin/pktpath
	fi
	install -m 755 "$VMHELPER" "$root/usr/bin/vmhelper"
	for t in kp_func.list kp_func.min.list; do
		[ ! -f "$t" ] || install -m 644 "$t" "$root/usr/share/pktpath/"
	done
	install -m 755 tests/vm/init.sh "$root/init"
	install -m 755 tests/vm/scenarios.sh tests/vm/attach_bench.sh tests/vm/rate_bench.sh \
		tests/vm/vmlib.sh \
		"$root/tests/"
	stage_modules "$root"
	{
		echo "export VM_LABEL=$LABEL"
		echo "export VM_BACKENDS='${VM_BACKENDS:-${KBACKENDS[$1]:-$ALL_BACKENDS}}'"
		# check is about the kernel: its first VM runs it.
		case $1 in *@[2-9]) echo "export VM_NO_CHECK=1" ;; esac
		[ -z "${VM_SCENARIOS:-}" ] || echo "export VM_SCENARIOS='$VM_SCENARIOS'"
		[ -z "${VM_PP_ARGS:-}" ] || echo "export VM_PP_ARGS='$VM_PP_ARGS'"
		[ -z "${VM_RUN:-}" ] || echo "VM_RUN='$VM_RUN'"
		for v in ${!VM_BENCH_@}; do echo "export $v='${!v}'"; done
	} >"$root/etc/pktpath/vm.conf"
	(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$INITRD"
}

# ---- boot ----------------------------------------------------------------------

# qemu_once CONSOLE: one boot, console to CONSOLE. TCG only: KVM hangs on
# these machines. no_timer_check: a vCPU starved by the host fails the
# kernel's IO-APIC timer check at boot and panics ("IO-APIC + timer doesn't
# work!"), seen with several VMs on two cores. For the same starvation, the
# lockup and RCU stall detectors get their longest limits (soft lockup after
# 120 s instead of 20, RCU stall after 300 s instead of 21): a VM among nine
# on two cores reported a 30 s soft lockup; a real lockup lasts for ever and
# still shows, as a warning or as a scenario that never ends. A VM that has not printed @@START (tests/vm/init.sh, just
# before the first scenario) within VM_BOOT_TIMEOUT is stopped: a kernel hung
# at boot must not hold the run for VM_TIMEOUT. Returns 124 on a timeout.
qemu_once() {
	local console=$1 qpid t0=$SECONDS rc=0
	timeout "$VM_TIMEOUT" qemu-system-x86_64 \
		-accel "tcg,thread=$VM_TCG_THREAD" -cpu "$VM_CPU" -m 1024 -smp "$VM_SMP" \
		-kernel "$KDIR/root/boot/vmlinuz-$KVER" -initrd "$INITRD" \
		-append "console=ttyS0 quiet panic=-1 no_timer_check $SLOW_HOST_ARGS" \
		-nographic -no-reboot \
		</dev/null >"$console" 2>&1 &
	qpid=$!
	while kill -0 "$qpid" 2>/dev/null; do
		if [ $((SECONDS - t0)) -gt "$VM_BOOT_TIMEOUT" ] && ! started "$console"; then
			log "$LABEL: no first scenario after $VM_BOOT_TIMEOUT s: stopping the VM"
			kill "$qpid" 2>/dev/null
			wait "$qpid"
			return 124
		fi
		sleep 1
	done
	wait "$qpid" || rc=$?
	return $rc
}

started() { grep -q '^@@START' "$1" 2>/dev/null; }

# What a console says about a kernel that died: the panic, oops, BUG and
# warning lines, else its last lines.
death_lines() {
	local lines
	lines=$(LC_ALL=C tr -d '\000-\010\013-\037' <"$1" |
		grep -E 'Kernel panic|Oops|BUG:|WARNING:|RIP:|general protection' | head -n 4)
	[ -n "$lines" ] || lines=$(LC_ALL=C tr -d '\000-\010\013-\037' <"$1" | grep -v '^$' | tail -n 3)
	tr '\n' '|' <<<"$lines"
}

# boot PKG: the VM of one kernel, console in $VMDIR/logs/PKG.log, judged by
# check.sh. A kernel that dies before the first scenario (TCG's cross-CPU
# code patching has crashed Debian's kernels at boot under load; nothing of
# pktpath has run then) is booted again, at most VM_BOOT_RETRIES times, and
# every retry is a RETRY line in the results. From @@START on, nothing is
# retried: a crash or a kernel warning then is a FAIL (check.sh).
boot() {
	local console=$VMDIR/logs/$1.log attempt=0 rc why
	mkdir -p "$VMDIR/logs"
	rm -f "$VMDIR/logs/$1".boot*.log
	while :; do
		if [ "$attempt" -eq 0 ]; then
			log "booting $LABEL ($1)"
		else
			log "booting $LABEL ($1) again, boot $((attempt + 1))"
		fi
		rc=0
		qemu_once "$console" || rc=$?
		[ $rc -ne 124 ] || log "$LABEL: timed out"
		started "$console" || [ "$attempt" -ge "$VM_BOOT_RETRIES" ] || {
			attempt=$((attempt + 1))
			cp "$console" "$VMDIR/logs/$1.boot$attempt.log"
			if [ $rc -eq 124 ]; then why="no first scenario within $VM_BOOT_TIMEOUT s"; else
				why="died before the first scenario (qemu rc=$rc)"; fi
			result "RETRY $LABEL vm boot : $why, console in logs/$1.boot$attempt.log:" \
				"$(death_lines "$console")"
			continue
		}
		break
	done
	bash tests/vm/check.sh "$LABEL" "$console" >>"$RESULTS" || true
}

# run_kernel JOB: everything for one VM (JOB: PKG or PKG@N, see
# resolve_kernels), its lines in results-JOB.txt and its time in
# time-JOB.txt, so that VMs can run side by side.
run_kernel() {
	local start=$SECONDS booted
	RESULTS=$VMDIR/results-$1.txt
	: >"$RESULTS"
	rm -f "$VMDIR/time-$1.txt"
	fetch_kernel "${1%@*}" || return 0
	make_initramfs "$1"
	booted=$SECONDS
	boot "$1"
	echo "$LABEL (${VM_BACKENDS:-${KBACKENDS[$1]:-$ALL_BACKENDS}}):" \
		"boot and run $((SECONDS - booted)) s," \
		"with download and image $((SECONDS - start)) s" >"$VMDIR/time-$1.txt"
	log "$LABEL done: $(grep -c '^PASS ' "$RESULTS") passed, $(grep -c '^FAIL ' "$RESULTS") failed"
}

# The guests wait much of the time (RCU grace periods while probes detach,
# sleeps between polls), so VM_JOBS kernels side by side (default: all of
# them) take little longer than one.
run_kernels() {
	local k running=0
	for k in "${KERNELS[@]}"; do
		if [ "$running" -ge "${VM_JOBS:-${#KERNELS[@]}}" ]; then
			wait -n || true
			running=$((running - 1))
		fi
		run_kernel "$k" &
		running=$((running + 1))
	done
	wait
}

main() {
	local k total_start=$SECONDS pass fail skip retry
	check_tools
	mkdir -p "$VMDIR"
	: >"$RESULTS"
	if [ $# -gt 0 ]; then KERNELS=("$@"); else resolve_kernels; fi
	build_vmhelper
	if build_pktpath && [ ${#KERNELS[@]} -gt 0 ]; then
		# Download and extract each package once, before its VMs start side
		# by side (a failure is reported by run_kernel).
		for k in "${KERNELS[@]}"; do
			[[ $k != *@[2-9] ]] || continue
			prefetch "${k%@*}"
		done
		run_kernels
		for k in "${KERNELS[@]}"; do
			[ -s "$VMDIR/results-$k.txt" ] ||
				echo "FAIL $k - run : no result (the run stopped early, see above)" \
					>"$VMDIR/results-$k.txt"
			cat "$VMDIR/results-$k.txt" >>"$RESULTS"
			[ ! -f "$VMDIR/time-$k.txt" ] || log "time: $(cat "$VMDIR/time-$k.txt")"
		done
	fi
	log "time: total $((SECONDS - total_start)) s"
	cat "$RESULTS"
	pass=$(grep -c '^PASS ' "$RESULTS" || true)
	fail=$(grep -c '^FAIL ' "$RESULTS" || true)
	skip=$(grep -c '^SKIP ' "$RESULTS" || true)
	retry=$(grep -c '^RETRY ' "$RESULTS" || true)
	echo "$pass passed, $fail failed, $skip skipped, $retry boots retried"
	[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
}

main "$@"
