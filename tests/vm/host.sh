# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# What the host side of the VM layer shares: scripts/vm-test.sh (the
# harness: kernels, image, boots), tests/vm/check.sh (which judges a VM's
# log), the benchmarks that run a job of their own in the harness's VMs
# (bench/vm_attach.sh, bench/vm_rate.sh) and tests/vm/boot_soak.sh.
# Sourced; sets VM_ROOT and VM_HARNESS, defines functions only otherwise.
# The scripts that run inside the VM (busybox ash) share tests/vm/vmlib.sh
# instead.

VM_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck disable=SC2034 # for the scripts that source this one
VM_HARNESS=$VM_ROOT/scripts/vm-test.sh

# log MESSAGE: to stderr, after LOG_TAG (the sourcing script's name).
log() { echo "${LOG_TAG:-vm}: $*" >&2; }

# vm_dirs DEFAULT: BUILD_DIR (DEFAULT when unset), absolute (relative to the
# checkout's top), and VMDIR, the harness's directory in it: the image, the
# logs of each VM (logs/JOB.judged is what check.sh judged), the results.
vm_dirs() {
	BUILD_DIR=${BUILD_DIR:-$1}
	case $BUILD_DIR in /*) ;; *) BUILD_DIR=$VM_ROOT/$BUILD_DIR ;; esac
	VMDIR=$BUILD_DIR/vm
}

# ---- kernels -------------------------------------------------------------------

# apt_in SUITE CMD ARGS...: apt-get or apt-cache (CMD) on the host's sources
# (SUITE "host"), or on a sources list of SUITE alone, with lists and cache
# in $VM_CACHE/apt/SUITE: only for apt-cache depends and apt-get download, never
# to install from another suite on the host.
apt_in() {
	local suite=$1 cmd=$2 dir=$VM_CACHE/apt/$1
	shift 2
	if [ "$suite" = host ]; then
		"$cmd" "$@"
		return
	fi
	"$cmd" -o Dir::Etc::sourcelist="$dir/sources.list" -o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache" "$@"
}

# meta_dep SUITE META: the versioned package META depends on today: the
# archive moves on and a hard-coded name would go stale.
meta_dep() {
	apt_in "$1" apt-cache depends "$2" 2>/dev/null |
		awk '/Depends: linux-image-/ { print $2; exit }'
}

# The benchmarks' kernels when none is named: the generic kernels of the
# host's suite (6.12 and 6.1), two VMs side by side on two cores.
BENCH_METAS="linux-image-6.12-amd64 linux-image-amd64"

# bench_kernels: the packages BENCH_METAS depend on, one a line.
bench_kernels() {
	local meta
	for meta in $BENCH_METAS; do meta_dep host "$meta"; done
}

# ---- the VMs' logs -----------------------------------------------------------------

# vm_log_text FILE: a VM's log as text. The serial console ends lines with
# CR LF, and the firmware writes escape sequences: tabs and newlines stay,
# every other control character goes.
vm_log_text() {
	LC_ALL=C tr -d '\000-\010\013-\037' <"$1"
}

# ---- benchmarks: a job of their own in the harness's VMs ------------------------------

# bench_meta ID CMD [NAME=VALUE...]: the "meta" line that heads a measurement
# in OUT (JSON lines): its id, the date, CMD (the command as the report
# quotes it), the commit and how many files differed from it, the host,
# QEMU, and the NAME=VALUE pairs.
bench_meta() {
	local kv args=()
	for kv in "${@:3}"; do args+=(--arg "${kv%%=*}" "${kv#*=}"); done
	mkdir -p "$(dirname "$OUT")"
	jq -n -c --arg id "$1" --arg date "$(date -u '+%Y-%m-%d %H:%M UTC')" --arg cmd "$2" \
		--arg commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
		--arg dirty "$(git status --porcelain 2>/dev/null | grep -c . || true)" \
		--arg host "$(uname -r), $(nproc) cores" \
		--arg qemu "$(qemu-system-x86_64 --version | head -n 1)" \
		"${args[@]}" \
		'{type: "meta"} + ($ARGS.named | del(.dirty)) + {dirty_files: ($dirty | tonumber)}' \
		>>"$OUT"
}

# bench_harness JOB TAG LABEL ID [KERNEL_PKG...]: one VM per kernel, booted
# by the harness (image, boot retries, watchdog) to run tests/vm/JOB instead
# of the scenarios, then bench_collect TAG LABEL ID. What the job reads
# (VM_BENCH_*), VM_TIMEOUT and VM_EXTRA_TOOLS come from the environment.
bench_harness() {
	local job=$1 tag=$2 label=$3 id=$4
	shift 4
	rm -rf "$VMDIR/logs"
	VM_RUN=/tests/$job "$VM_HARNESS" "$@" || log "vm-test.sh failed: see above"
	bench_collect "$tag" "$label" "$id"
}

# bench_collect TAG LABEL ID: the "@@TAG {...}" lines of every VM (results
# port and console, as the harness keeps them for check.sh), onto OUT, each
# with "id": ID and "kernel": the VM's label (LABEL "label": 6.12.117;
# "release": 6.12.117 (6.12.117+deb12-amd64)); its "@@TAGERR" lines to
# stderr.
bench_collect() {
	local tag=$1 id=$3 log label n=0 want='\1'
	[ "$2" != release ] || want='\1 (\2)'
	mkdir -p "$(dirname "$OUT")"
	for log in "$VMDIR"/logs/*.judged; do
		[ -f "$log" ] || continue
		vm_log_text "$log" >"$log.txt"
		label=$(sed -n "s/.*@@VM label=\([^ ]*\) release=\([^ ]*\) .*/$want/p" "$log.txt" |
			head -n 1)
		[ -n "$label" ] || continue
		sed -n "s/^.*@@$tag {/{/p" "$log.txt" |
			jq -c --arg k "$label" --arg id "$id" '. + {kernel: $k, id: $id}' >>"$OUT"
		n=$((n + 1))
		sed -n "s/^.*@@${tag}ERR /$label: /p" "$log.txt" >&2
	done
	[ "$n" -gt 0 ] || log "no console log with results in $VMDIR/logs"
}
