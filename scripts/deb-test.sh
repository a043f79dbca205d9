#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The Debian package, installed as a user would: build the .deb
# (scripts/build-deb.sh), install it with apt into a fresh Debian 12 root
# made by debootstrap from Debian's archive, run pktpath --version, --check
# and --list-probes from the installed files (chroot), run lintian on it,
# then purge it and check that the root is as it was before the install.
#
# stdout: "PASS deb: ..." or "FAIL deb: why" or "SKIP deb: why" last.
# Environment: BUILD_DIR (default build; the debootstrap root is cached in
# BUILD_DIR/deb-test/bookworm, about 200 MB, made once in about 30 s; the
# package is built in BUILD_DIR-deb), PKTPATH_DEB (test this .deb instead of
# building one), DEB_MIRROR (default:
# the Debian archive of this machine's apt sources), PP_LOCK (a lock file to
# hold while pktpath attaches: --check tries TC in a throwaway namespace).
set -euo pipefail
cd "$(dirname "$0")/.."
here=$PWD

fail() {
	echo "FAIL deb: $*"
	exit 1
}
# 77: counted as skipped by ctest and scripts/test.sh.
skip() {
	echo "SKIP deb: $*"
	exit 77
}

[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot, mounts)"
[ -e /sys/kernel/btf/vmlinux ] || skip "no /sys/kernel/btf/vmlinux: --check and --list-probes need BTF"
for tool in debootstrap lintian unshare chroot; do
	command -v "$tool" >/dev/null || skip "no $tool (scripts/install-deps.sh)"
done

build=${BUILD_DIR:-build}
[[ $build == /* ]] || build=$here/$build
cache=$build/deb-test
pristine=$cache/bookworm
work=$cache/run # the overlay over the pristine root, logs

# The mirror: the Debian archive this machine's apt already uses.
mirror=${DEB_MIRROR:-}
if [ -z "$mirror" ]; then
	mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -oE 'https?://[^ ]*/debian/?( |$)' | head -n 1 | tr -d ' ') || true
	mirror=${mirror:-http://deb.debian.org/debian}
fi

t0=$SECONDS
deb=${PKTPATH_DEB:-}
mkdir -p "$cache"
if [ -z "$deb" ]; then
	scripts/build-deb.sh >"$cache/build-deb.log" 2>&1 ||
		fail "scripts/build-deb.sh failed: $(tail -n 5 "$cache/build-deb.log")"
	deb=$(tail -n 1 "$cache/build-deb.log")
fi
[[ $deb == /* ]] || deb=$here/$deb
[ -f "$deb" ] || fail "no package $deb"
echo "deb: $(basename "$deb") built in $((SECONDS - t0)) s"

# lintian: every tag it reports must be fixed or overridden with a reason
# (packaging/lintian-overrides). It warns when run as root: run it as nobody.
t=$SECONDS
lint_dir=$(mktemp -d)
trap 'rm -rf "$lint_dir"' EXIT
cp "$deb" "$lint_dir/"
chmod -R a+rX "$lint_dir"
lint=$(runuser -u nobody -- env HOME="$lint_dir" lintian -I -E --pedantic --show-overrides \
	"$lint_dir/$(basename "$deb")" 2>&1) || true
while IFS= read -r line; do echo "  lintian: $line"; done <<<"$lint"
if echo "$lint" | grep -qE '^[EWIPX]: '; then
	fail "lintian reports tags that are neither fixed nor overridden"
fi
echo "deb: lintian clean ($(echo "$lint" | grep -c '^O: ') overridden) in $((SECONDS - t)) s"

# A Debian 12 root, made once; each run starts from it (deb-test-root.sh).
t=$SECONDS
if [ ! -f "$pristine.complete" ]; then
	rm -rf --one-file-system "$pristine"
	debootstrap --variant=minbase bookworm "$pristine" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
		fail "debootstrap from $mirror failed ($cache/debootstrap.log)"
	touch "$pristine.complete"
	echo "deb: debootstrap of bookworm from $mirror in $((SECONDS - t)) s"
fi
# Nothing may be mounted under the last run's root before it is removed.
if findmnt -rn -o TARGET | grep -q "^$work\(/\|$\)"; then
	fail "something is still mounted under $work"
fi
rm -rf --one-file-system "$work"
mkdir -p "$work"

# The chroot part runs in a mount namespace of its own: its mounts (the
# overlay root, /proc, /sys) go with it, even if the test is killed.
t=$SECONDS
status=0
unshare --mount --propagation private -- scripts/deb-test-root.sh "$pristine" "$work" \
	"$deb" "${PP_LOCK:-}" || status=$?
echo "deb: install, run, purge in $((SECONDS - t)) s"
[ "$status" -eq 0 ] || exit "$status"
rm -rf --one-file-system "$work"
echo "PASS deb: $(basename "$deb") installs, runs and purges cleanly ($((SECONDS - t0)) s)"
