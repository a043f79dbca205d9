# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# What the host side of the VM layer shares: scripts/vm-test.sh (the
# harness: kernels, image, boots), tests/vm/check.sh (which judges a VM's
# log) and tests/vm/boot_soak.sh.
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
	# shellcheck disable=SC2034 # for the scripts that source this one
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

# ---- the VMs' logs -----------------------------------------------------------------

# vm_log_text FILE: a VM's log as text. The serial console ends lines with
# CR LF, and the firmware writes escape sequences: tabs and newlines stay,
# every other control character goes.
vm_log_text() {
	LC_ALL=C tr -d '\000-\010\013-\037' <"$1"
}
