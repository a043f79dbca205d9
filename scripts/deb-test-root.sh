#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The chroot part of scripts/deb-test.sh, run by it in a mount namespace of
# its own (unshare -m): the mounts made here go with the namespace, even if
# the test is killed. Usage: deb-test-root.sh PRISTINE WORK DEB [LOCKFILE]
# The root is an overlay: PRISTINE (debootstrap's root, never written) under
# WORK/upper, which takes every change; so each run starts from
# debootstrap's root, at no cost.
set -euo pipefail

pristine=$1 work=$2 deb_file=$3 lock=${4:-}
root=$work/root
deb=/tmp/$(basename "$deb_file") # where the root sees it

fail() {
	echo "FAIL deb: $*"
	exit 1
}
# in_root CMD...: CMD in the root, with a clean environment.
in_root() {
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}
# lock_take, lock_give: hold the kernel lock, if there is one, while
# pktpath runs; the time waited for it adds up in lock_wait.
lock_wait=0 lock_fd=
lock_take() {
	local t=$SECONDS
	[ -n "$lock" ] || return 0
	exec {lock_fd}>>"$lock"
	flock "$lock_fd"
	lock_wait=$((lock_wait + SECONDS - t))
}
lock_give() {
	[ -z "$lock_fd" ] || exec {lock_fd}>&-
	lock_fd=
}

# Every file of the root: type, mode, owner and path; and for files that
# are not apt's, dpkg's or ldconfig's own state, a checksum of the content.
snapshot() {
	(
		cd "$root"
		find . -xdev \( -path ./proc -o -path ./sys \) -prune -o \
			-printf '%y %m %u:%g %p\n' | grep -vE "$state_re" | sort
		find . -xdev \( -path ./proc -o -path ./sys \) -prune -o \
			-type f -print0 | sort -z | grep -zvE "$state_re" | xargs -0 sha256sum
	)
}
# What apt and dpkg rewrite on any install or removal: their logs, caches,
# package status and its backups, the trigger queue, debconf's backups and
# the loader's cache.
state_re='^(. [0-7]+ [^ ]+ )?\./(var/log/(apt/.*|dpkg\.log|alternatives\.log)|var/cache/(apt|ldconfig)/.*|var/cache/debconf/.*-old|var/lib/dpkg/(status|status-old|available|lock.*|triggers/.*)|var/lib/apt/(extended_states|lists/.*)|etc/ld\.so\.cache)$'

mkdir -p "$work/upper" "$work/ovl" "$root"
mount -t overlay overlay -o "lowerdir=$pristine,upperdir=$work/upper,workdir=$work/ovl" "$root"
mount -t proc proc "$root/proc"
# sysfs gives /sys/kernel/btf/vmlinux, all that --check and --list-probes
# need of it; TC is tried in a namespace pktpath makes itself.
mount -t sysfs sysfs "$root/sys"
cp /etc/resolv.conf "$root/etc/resolv.conf"

t=$SECONDS
in_root apt-get update -qq || fail "apt-get update in the root failed"
before=$(snapshot)
cp "$deb_file" "$root$deb"
# As the README says, apt resolving the Depends from the archive; without
# Recommends, so that the root after the purge can be compared file by file
# with the root before: libpcap0.8's libdbus-1-3 recommends dbus, whose
# purge leaves its system user (messagebus) behind, as Debian's policy wants.
in_root apt-get install -y -qq --no-install-recommends "$deb" >"$work/apt-install.log" 2>&1 ||
	fail "apt-get install $deb failed: $(tail -n 3 "$work/apt-install.log")"
echo "deb: apt-get update and install in $((SECONDS - t)) s: $(grep -c '^Setting up' \
	"$work/apt-install.log") packages set up"

name=$(in_root dpkg-deb -f "$deb" Package)
version=$(in_root dpkg-deb -f "$deb" Version)
for f in /usr/sbin/pktpath /usr/share/pktpath/kp_func.list \
	/usr/share/man/man8/pktpath.8.gz /usr/share/bash-completion/completions/pktpath \
	/usr/share/doc/pktpath/copyright /lib/systemd/system/pktpath.service /etc/default/pktpath \
	/usr/share/pktpath/prometheus/pktpath-rules.yml; do
	in_root dpkg -S "$f" >/dev/null 2>&1 || fail "$f is not in the installed package"
done
# The node agent's service is off until someone enables it.
[ -z "$(find "$root/etc/systemd/system" -name pktpath.service 2>/dev/null)" ] ||
	fail "the install enabled pktpath.service"
grep -qx /etc/default/pktpath "$root/var/lib/dpkg/info/$(in_root dpkg-deb -f "$deb" Package).conffiles" ||
	fail "/etc/default/pktpath is not a conffile"
[ "$(in_root sh -c 'command -v pktpath')" = /usr/sbin/pktpath ] ||
	fail "pktpath is not /usr/sbin/pktpath on root's PATH"
in_root gzip -t /usr/share/man/man8/pktpath.8.gz || fail "the man page is not gzip"
in_root bash -c '. /usr/share/bash-completion/completions/pktpath && complete -p pktpath' \
	>/dev/null || fail "the bash completion defines no completion for pktpath"

out=$(in_root pktpath --version) || fail "pktpath --version failed"
[ "$out" = "pktpath $version" ] || fail "pktpath --version says '$out', the package $version"
echo "deb: $out"

# --check and --list-probes run from /, where there is no ./kp_func.list.
t=$SECONDS
lock_take
check=0 list=0 full=0
in_root sh -c 'cd / && pktpath --check' >"$work/check.out" 2>&1 || check=$?
in_root sh -c 'cd / && pktpath --list-probes' >"$work/list.out" 2>"$work/list.err" ||
	list=$?
in_root sh -c 'cd / && pktpath --list-probes --detail full' >"$work/full.out" \
	2>"$work/full.err" || full=$?
lock_give

# --check: this machine can trace (tracepoints and TC), so exit 0.
[ "$check" -eq 0 ] || fail "pktpath --check exited $check in the root: $(tail -n 3 "$work/check.out")"
grep -q '^pktpath can trace here' "$work/check.out" ||
	fail "pktpath --check: $(tail -n 1 "$work/check.out")"
echo "deb: pktpath --check: $(grep -c ' yes ' "$work/check.out") yes," \
	"$(grep -c ' no ' "$work/check.out") no; $(tail -n 1 "$work/check.out")"

# --list-probes: every entry of the installed lists must be there, the
# short one by default, the full one with --detail full.
# listed_all OUT RC LIST: OUT (exit status RC) names every entry of LIST.
listed_all() {
	local listed want missing
	[ "$2" -eq 0 ] || fail "pktpath --list-probes ($3) exited $2 in the root"
	listed=$(awk '{ print $1 }' "$1" | sort -u)
	want=$(sed 's/#.*//' "$root/usr/share/pktpath/$3" | awk 'NF { print $1 }' | sort -u)
	missing=$(comm -13 <(echo "$listed") <(echo "$want") | tr '\n' ' ')
	[ -z "$missing" ] || fail "--list-probes lacks entries of the installed $3: $missing"
	grep -q "^# list: /usr/share/pktpath/$3 " "$1" ||
		fail "--list-probes does not name /usr/share/pktpath/$3: $(head -n 1 "$1")"
	echo "deb: pktpath --list-probes: $(echo "$want" | wc -l) entries of" \
		"/usr/share/pktpath/$3, $(grep -v '^#' "$1" | grep -vc skipped) to attach"
}
listed_all "$work/list.out" "$list" kp_func.min.list
listed_all "$work/full.out" "$full" kp_func.list
echo "deb: --check and --list-probes in $((SECONDS - t - lock_wait)) s" \
	"(and $lock_wait s waiting for the lock)"

t=$SECONDS
in_root apt-get purge -y -qq --autoremove "$name" >"$work/apt-purge.log" 2>&1 ||
	fail "apt-get purge $name failed: $(tail -n 3 "$work/apt-purge.log")"
echo "deb: apt-get purge --autoremove in $((SECONDS - t)) s"
in_root dpkg-query -W "$name" >/dev/null 2>&1 && fail "dpkg still knows $name after the purge"
rm "$root$deb"
after=$(snapshot)
left=$(diff <(echo "$before") <(echo "$after")) || true
if [ -n "$left" ]; then
	echo "$left" | head -n 20 | sed 's/^/  /'
	fail "the root differs from before the install ($(echo "$left" | grep -c '^[<>]') lines)"
fi
echo "deb: after the purge the root's $(echo "$after" | grep -c '^. ') files are as before"
