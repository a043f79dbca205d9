#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# pktpath --check: each backend it calls present must attach when asked
# for, and each it calls absent must be refused with exit 2; without
# capabilities it says so and exits 1; it leaves nothing behind. The
# answers are checked against what pktpath then does, so the test holds on
# any kernel.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pp_begin
ppr_before
pp_pktpath_run check "$PP_NS_A" 60 --check
pp_expect_eq "--check: exit status" "$PP_RC" 0
report=$(pp_out check)
pp_expect_state "$PP_BEFORE" "after --check"

# answer FEATURE: yes or no, as the report says.
answer() {
	awk -v f="$1" 'index($0, f) == 1 { sub("^" f " *", ""); print $1; exit }' "$report"
}

funcs=$PP_TMP/funcs.list
printf 'ip_rcv\n' >"$funcs"
for row in "kprobe:kprobe" "kprobe.multi:kprobe-multi" "fentry:fentry"; do
	feature=${row%%:*} backend=${row#*:}
	said=$(answer "$feature")
	[ "$said" = yes ] || [ "$said" = no ] ||
		pp_fail "--check has no yes/no row for $feature: $(cat "$report")"
	pp_pktpath_run "b-$backend" "$PP_NS_A" 60 --list-probes --backend "$backend" \
		--funcs "$funcs"
	if [ "$said" = yes ]; then
		pp_expect_eq "--backend $backend (--check: yes): exit" "$PP_RC" 0
	else
		pp_expect_eq "--backend $backend (--check: no): exit" "$PP_RC" 2
		pp_expect_grep "--backend $backend refused" "$(pp_err "b-$backend")" "$backend"
	fi
done
[ "$(answer tp_btf)" = yes ] || pp_fail "tp_btf reported absent on a kernel that traces"
grep -q "can trace here" "$report" || pp_fail "no verdict line: $(tail -2 "$report")"

# No capabilities: pktpath says it cannot trace, exit 1.
if command -v setpriv >/dev/null; then
	rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all "$PKTPATH" --check >"$PP_TMP/nocap.out" 2>&1 || rc=$?
	pp_expect_eq "--check without capabilities: exit" "$rc" 1
	grep -Eq '^capabilities +no' "$PP_TMP/nocap.out" ||
		pp_fail "--check without capabilities: $(head -3 "$PP_TMP/nocap.out")"
fi
pp_pass
