#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --tc-script DIR as an attacker would prepare it (issue 16): pktpath runs
# as root and must not write through a symlink, nor into a directory
# someone else can change. Each of these is refused with exit 2 and one
# line on stderr, before anything is loaded or attached, and the file the
# symlink points to is unchanged:
#   - DIR writable by everyone (not sticky), owned by nobody, holding
#     attach.sh -> root's file (the issue's attack);
#   - DIR owned by nobody, mode 0755;
#   - DIR owned by root, mode 0777, no sticky bit.
# A fresh DIR gets mode 0700 and root-owned scripts of mode 0700. The
# scripts refuse, when run, a state file (.attached) that is a symlink, is
# owned by someone else or is writable by others; detach.sh then removes
# nothing. With the state file intact, detach.sh restores the tc state.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin stat
id nobody >/dev/null 2>&1 || pp_skip "no user nobody to play the attacker"

ppr_before
victim=$PP_TMP/victim.txt
echo "root's file" >"$victim"
chmod 0600 "$victim"
victim_was=$(stat -c '%a %U %s' "$victim")
# PP_TMP may be a directory others can enter but not change (run.sh's log
# directory): what pktpath checks on the way is up to the test's cases.
chmod 0755 "$PP_TMP"

# pins: pktpath's pin directories now in bpffs (none may stay after a refusal).
pins() {
	find /sys/fs/bpf -maxdepth 1 -name 'pktpath-*' 2>/dev/null | sort
}
pins_before=$(pins)

# refused NAME DIR WHY: pktpath --tc-script DIR exits 2 with one stderr line
# matching WHY; nothing attached or pinned, the victim unchanged.
refused() {
	local name=$1 dir=$2 why=$3
	pp_pktpath_run "$name" "$PP_NS_A" 30 --tc-script "$dir" -i a-eth0 \
		"icmp and src 198.18.0.1"
	pp_expect_eq "$name: exit status" "$PP_RC" 2
	pp_expect_lines "$name: stderr" "$(pp_err "$name")" 1
	pp_expect_grep "$name: the reason" "$(pp_err "$name")" "^pktpath: --tc-script: .*$why"
	pp_expect_eq "$name: root's file (mode, owner, size)" "$(stat -c '%a %U %s' "$victim")" \
		"$victim_was"
	pp_expect_grep "$name: root's file (content)" "$victim" "^root's file$"
	pp_expect_state "$PP_BEFORE" "$name: after the refusal"
	pp_expect_eq "$name: pins in /sys/fs/bpf" "$(pins)" "$pins_before"
}

# The issue's attack, as nobody would set it up.
attack=$PP_TMP/ppx
mkdir "$attack"
chmod 0777 "$attack"
chown nobody "$attack"
ln -s "$victim" "$attack/attach.sh"
chown -h nobody "$attack/attach.sh"
refused symlink "$attack" "owned by uid $(id -u nobody)"
[ -L "$attack/attach.sh" ] || pp_fail "symlink: attach.sh was replaced"

theirs=$PP_TMP/theirs
mkdir -m 0755 "$theirs"
chown nobody "$theirs"
refused foreign-owner "$theirs" "owned by uid $(id -u nobody)"

open=$PP_TMP/open
mkdir "$open"
chmod 0777 "$open"
ln -s "$victim" "$open/detach.sh"
refused world-writable "$open" "writable by others \(mode 0777, not sticky\)"

# A fresh directory: 0700, root's, scripts 0700.
dir=$PP_TMP/fresh/
pp_pktpath_start fresh "$PP_NS_A" --json --tc-script "$dir" -i a-eth0 "icmp and src 198.18.0.1"
pp_expect_eq "fresh: the directory" "$(stat -c '%a %U' "$dir")" "700 root"
for f in attach.sh detach.sh; do
	pp_expect_eq "fresh: $f" "$(stat -c '%F %a %U' "$dir/$f")" "regular file 700 root"
done

# run_script NAME SCRIPT: run DIR/SCRIPT in namespace A; status in PP_RC.
run_script() {
	PP_RC=0
	pp_in "$PP_NS_A" sh "$dir/$2" >"$(pp_out "$1")" 2>"$(pp_err "$1")" || PP_RC=$?
	pp_log "$2 ($1) exited with $PP_RC: $(_pp_last_line "$(pp_err "$1")")"
}

# The state with pktpath running (its programs loaded, nothing attached).
running=$PP_TMP/state.running.txt
pp_state_snapshot "$running"

# attach.sh will not write through a symlink put where its state goes.
ln -s "$victim" "$dir/.attached"
run_script attach-symlink attach.sh
pp_expect_eq "attach.sh with .attached a symlink: exit status" "$PP_RC" 2
pp_expect_grep "attach.sh with .attached a symlink: stderr" "$(pp_err attach-symlink)" refusing
pp_expect_grep "attach.sh: root's file" "$victim" "^root's file$"
pp_expect_state "$running" "attach.sh refused: nothing added"
rm "$dir/.attached"

run_script attach attach.sh
pp_expect_eq "attach.sh: exit status" "$PP_RC" 0
pp_expect_eq "attach.sh: .attached" "$(stat -c '%F %a %U' "$dir/.attached")" \
	"regular file 600 root"
attached=$PP_TMP/state.attached.txt
pp_state_snapshot "$attached"
cmp -s "$running" "$attached" && pp_fail "attach.sh attached nothing"

# detach.sh refuses a tampered state file, and then removes nothing.
# tampered NAME: run detach.sh, expect exit 2 and the tc state as attached.
tampered() {
	run_script "detach-$1" detach.sh
	pp_expect_eq "detach.sh, .attached $1: exit status" "$PP_RC" 2
	pp_expect_grep "detach.sh, .attached $1: stderr" "$(pp_err "detach-$1")" refusing
	pp_expect_state "$attached" "detach.sh, .attached $1: the filters"
}
good=$PP_TMP/attached.good
cp -p "$dir/.attached" "$good"
# What an attacker would write: remove the clsact qdisc of another interface.
echo "qdisc lo" >>"$dir/.attached"
chown nobody "$dir/.attached"
tampered "owned by nobody"
chown root "$dir/.attached"
chmod 0666 "$dir/.attached"
tampered "mode 0666"
rm "$dir/.attached"
ln -s "$good" "$dir/.attached"
tampered "a symlink"
rm "$dir/.attached"
cp -p "$good" "$dir/.attached"
chmod 0777 "$dir"
tampered "in a directory others can write to"
chmod 0700 "$dir"

run_script detach detach.sh
pp_expect_eq "detach.sh: exit status" "$PP_RC" 0
[ ! -e "$dir/.attached" ] || pp_fail "detach.sh left .attached"
pp_pktpath_stop fresh
pp_expect_eq "fresh: exit status" "$PP_RC" 0
pp_expect_state "$PP_BEFORE" "after detach.sh and pktpath's exit"
pp_expect_eq "pins in /sys/fs/bpf after the exit" "$(pins)" "$pins_before"
pp_pass
