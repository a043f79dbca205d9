#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the Debian package: a build of its own, configured for /usr (where
# the binary then looks for kp_func.list) with Debian's hardening flags, and
# cpack's DEB generator. Prints the .deb's path on the last line of stdout.
#
# Environment: DEB_BUILD_DIR (default: BUILD_DIR, itself default build, with
# -deb: build-deb).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${DEB_BUILD_DIR:-${BUILD_DIR:-build}-deb}
# dpkg-buildflags gives what Debian's own packages build with: fortify,
# stack protector, format checks, relro and (hardening=+all) bindnow.
# CMake reads CFLAGS and LDFLAGS from the environment, not CPPFLAGS.
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
CFLAGS="$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
LDFLAGS=$(dpkg-buildflags --get LDFLAGS)
export CFLAGS LDFLAGS

# The flags are read at the first configure only: start over when they changed.
stamp=$dir/.buildflags
if [ -f "$stamp" ] && [ "$(cat "$stamp")" != "$CFLAGS $LDFLAGS" ]; then
	rm -rf "$dir"
fi
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
	-DPKTPATH_TESTS=OFF >/dev/null
echo "$CFLAGS $LDFLAGS" >"$stamp"
log=$(cmake --build "$dir" -j"$(nproc)" 2>&1) || {
	echo "$log" >&2
	exit 1
}
if grep -E 'warning|error' <<<"$log" >&2; then
	echo "build-deb: the build has warnings" >&2
	exit 1
fi
(cd "$dir" && cpack -G DEB >/dev/null)
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$dir/CMakeCache.txt")
deb=$dir/pktpath_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || {
	echo "build-deb: cpack made no $deb" >&2
	exit 1
}
echo "$deb"
