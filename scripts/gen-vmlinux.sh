#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Makes bpf/vmlinux/x86_64/vmlinux.h.xz, the kernel's types that the BPF
# programs compile against, from the BTF of a named Debian kernel package,
# so that what builds does not depend on the build host's kernel:
#
#   scripts/gen-vmlinux.sh [KERNEL_PKG]
#       (default: linux-image-6.12.117+deb12-amd64, a kernel of the VM layer)
#
# Downloads the package with apt-get download (as scripts/vm-test.sh does;
# since 7.x Debian puts vmlinuz in linux-binary-ABI, downloaded too), takes
# the compressed vmlinux out of its bzImage (zstd, xz or gzip: the first
# payload that decompresses to an ELF file with a .BTF section), and dumps
# that BTF with bpftool, xz-compressed (the header is 2.6 MB, the file 0.4
# MB; the build unpacks it). The same package and bpftool give the same file,
# byte for byte; the file's first lines name both.
#
# Why one kernel serves every kernel: each field the programs read is a CO-RE
# relocation that libbpf resolves against the running kernel's own BTF at
# load time (bpf_core_field_exists() and friends for what some kernels lack).
# The header must only declare every type and field the programs name; a
# newer kernel declares more, hence a recent one.
set -euo pipefail
cd "$(dirname "$0")/.."

PKG=${1:-linux-image-6.12.117+deb12-amd64}
OUT=bpf/vmlinux/x86_64/vmlinux.h.xz

die() {
	echo "gen-vmlinux: $*" >&2
	exit 1
}

for t in apt-get apt-cache dpkg-deb bpftool readelf grep; do
	command -v "$t" >/dev/null || die "no $t (scripts/install-deps.sh)"
done

work=$(mktemp -d /tmp/pktpath-vmlinux.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The package, and those of its dependencies that carry its ABI name and
# may hold vmlinuz (linux-binary-ABI since 7.x).
abi=${PKG#linux-image-}
debs=("$PKG")
while read -r dep; do
	debs+=("$dep")
done < <(apt-cache depends "$PKG" 2>/dev/null |
	awk -v abi="$abi" '$1 == "Depends:" && $2 ~ /^linux-binary-/ &&
		substr($2, length($2) - length(abi) + 1) == abi { print $2 }')
(cd "$work" && apt-get download "${debs[@]}") >"$work/download.log" 2>&1 ||
	die "apt-get download ${debs[*]} failed: $(grep -m1 '^E:' "$work/download.log" || true)"
version=$(dpkg-deb -f "$work/${PKG}"_*.deb Version)
for deb in "$work"/*.deb; do
	dpkg-deb -x "$deb" "$work/root"
done
vmlinuz=$(find "$work/root" -name 'vmlinuz*' -type f | head -n 1)
[ -n "$vmlinuz" ] || die "no vmlinuz in ${debs[*]}"

# decompress TOOL OFFSET: the payload of vmlinuz from byte OFFSET (0-based)
# on, into $work/vmlinux; true if that is an ELF file with BTF (grep reads
# all of readelf's output: with -q, pipefail would see readelf's SIGPIPE). The
# decompressor stops at the end of its frame and complains of the bytes
# after it: its status is not the test, the ELF file is.
decompress() {
	tail -c +$(($2 + 1)) "$vmlinuz" | "$1" -dc >"$work/vmlinux" 2>/dev/null || true
	readelf -S "$work/vmlinux" 2>/dev/null | grep ' \.BTF ' >/dev/null
}

# Each format's magic bytes, as grep -P matches them; grep prints each
# match's offset, then the matched bytes, which cut drops.
found=
for fmt in 'zstd \x28\xb5\x2f\xfd' 'xz \xfd\x37\x7a\x58\x5a\x00' 'gzip \x1f\x8b\x08'; do
	tool=${fmt%% *}
	command -v "$tool" >/dev/null || continue
	while read -r off; do
		if decompress "$tool" "$off"; then
			found=$tool
			break 2
		fi
	done < <(LC_ALL=C grep -obUaP "${fmt#* }" "$vmlinuz" | cut -d: -f1)
done
[ -n "$found" ] || die "no vmlinux with BTF found in $vmlinuz"

{
	printf '/* SPDX-License-Identifier: GPL-2.0 */\n'
	printf '/* The kernel types of Debian %s %s (x86_64),\n' "$PKG" "$version"
	printf ' * dumped from its BTF by %s. Made by scripts/gen-vmlinux.sh %s. */\n' \
		"$(bpftool version | head -n 1)" "$PKG"
	bpftool btf dump file "$work/vmlinux" format c
} >"$work/vmlinux.h"
mkdir -p "$(dirname "$OUT")"
xz -9 -T1 -c "$work/vmlinux.h" >"$OUT"
echo "gen-vmlinux: $OUT from $PKG $version ($(wc -c <"$OUT") bytes)"
