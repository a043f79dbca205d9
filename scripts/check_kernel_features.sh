#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What this kernel offers pktpath: `pktpath --check`, built if need be.
# Exit 0 if pktpath can trace here, 1 if not.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${PKTPATH:-build/loader/pktpath}
if [ ! -x "$BIN" ]; then
	cmake -S . -B build >/dev/null && cmake --build build -j"$(nproc)" --target pktpath >/dev/null
fi
[ "$(id -u)" -eq 0 ] || exec sudo "$BIN" --check
exec "$BIN" --check
