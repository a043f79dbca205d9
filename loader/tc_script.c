// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "classifier.h"
#include "classifier.skel.h"
#include "tc_attach.h"
#include "tc_script.h"

#define PP_BPFFS "/sys/fs/bpf"
/* Our filters' handle: detach.sh deletes by it, never another tool's filter. */
#define PP_TC_HANDLE "0x7ead"

static const char *const pins[] = {"cls_ingress", "cls_egress", "skb_map"};

/* pktpath mounts what it needs, and says so. */
static int ensure_bpffs(char *err, size_t errlen)
{
	struct statfs st;

	if (statfs(PP_BPFFS, &st) == 0 && st.f_type == BPF_FS_MAGIC)
		return 0;
	if (mount("bpf", PP_BPFFS, "bpf", 0, "mode=0700")) {
		snprintf(err, errlen,
			 "bpffs is not mounted and mounting it failed: %s (mount -t "
			 "bpf bpf " PP_BPFFS ")",
			 strerror(errno));
		return -errno;
	}
	fprintf(stderr, "pktpath: mounted bpffs at " PP_BPFFS "\n");
	return 0;
}

static int pin_all(struct pp_tc_script *s, const struct pp_cls *cls, char *err, size_t errlen)
{
	int fds[] = {pp_cls_prog_fd(cls, 0), pp_cls_prog_fd(cls, 1),
		     bpf_map__fd(cls->skel->maps.skb_map)};
	char path[PATH_MAX + 32];

	snprintf(s->pin_dir, sizeof(s->pin_dir), PP_BPFFS "/pktpath-%d", (int)getpid());
	if (mkdir(s->pin_dir, 0700) && errno != EEXIST)
		goto fail;
	s->pinned = true;
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", s->pin_dir, pins[i]);
		if (bpf_obj_pin(fds[i], path))
			goto fail;
	}
	return 0;
fail:
	snprintf(err, errlen, "cannot pin under %s: %s", s->pin_dir, strerror(errno));
	return -errno;
}

/* 'name' for sh: every ' becomes '\'' */
static void put_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

/*
 * The pins are reached through /proc/PID/root: `ip netns exec` remounts
 * /sys, so pktpath's bpffs is out of sight from another `ip netns exec`.
 */
static void write_attach(FILE *f, const struct pp_tc_script *s, const struct pp_tc *tc)
{
	fprintf(f,
		"#!/bin/sh\n# Written by pktpath (pid %d): mark packets for it on these "
		"interfaces.\n# Run it in pktpath's network namespace; detach.sh removes "
		"exactly what\n# this adds (the clsact qdisc only if this created it).\n"
		"set -e\nstate=\"$(dirname \"$0\")/.attached\"\n: >\"$state\"\n"
		"add() {\n"
		"\tif ! tc qdisc show dev \"$1\" | grep -q '^qdisc clsact '; then\n"
		"\t\ttc qdisc add dev \"$1\" clsact\n\t\techo \"qdisc $1\" >>\"$state\"\n\tfi\n"
		"\tfor dir in ingress egress; do\n"
		"\t\ttc filter add dev \"$1\" \"$dir\" pref 1 handle " PP_TC_HANDLE
		" bpf direct-action \\\n\t\t\tobject-pinned \"/proc/%d/root%s/cls_$dir\"\n"
		"\t\techo \"filter $1 $dir\" >>\"$state\"\n\tdone\n}\n",
		(int)getpid(), (int)getpid(), s->pin_dir);
	for (size_t i = 0; i < tc->n; i++) {
		fputs("add ", f);
		put_quoted(f, tc->v[i].ifname);
		fputc('\n', f);
	}
}

static void write_detach(FILE *f)
{
	fputs("#!/bin/sh\n# Written by pktpath: remove exactly what attach.sh added.\n"
	      "state=\"$(dirname \"$0\")/.attached\"\n"
	      "[ -f \"$state\" ] || { echo \"detach.sh: nothing attached\"; exit 0; }\n"
	      "rc=0\n"
	      "while read -r kind dev dir; do\n"
	      "\t[ \"$kind\" = filter ] || continue\n"
	      "\ttc filter del dev \"$dev\" \"$dir\" pref 1 handle " PP_TC_HANDLE " bpf || rc=1\n"
	      "done <\"$state\"\n"
	      "while read -r kind dev dir; do\n"
	      "\t[ \"$kind\" = qdisc ] || continue\n"
	      "\ttc qdisc del dev \"$dev\" clsact || rc=1\n"
	      "done <\"$state\"\n"
	      "[ \"$rc\" -ne 0 ] || rm -f \"$state\"\n"
	      "exit \"$rc\"\n",
	      f);
}

static int write_script(const char *dir, const char *name, const struct pp_tc_script *s,
			const struct pp_tc *tc, char *err, size_t errlen)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	if (tc)
		write_attach(f, s, tc);
	else
		write_detach(f);
	if (fchmod(fileno(f), 0755) || fclose(f)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	return 0;
}

int pp_tc_script_write(struct pp_tc_script *s, const char *dir, const struct pp_cls *cls,
		       const struct pp_tc *tc, char *err, size_t errlen)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->dir = dir;
	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
		return -errno;
	}
	ret = ensure_bpffs(err, errlen);
	if (!ret)
		ret = pin_all(s, cls, err, errlen);
	if (!ret)
		ret = write_script(dir, "attach.sh", s, tc, err, errlen);
	if (!ret)
		ret = write_script(dir, "detach.sh", s, NULL, err, errlen);
	return ret;
}

void pp_tc_script_done(struct pp_tc_script *s)
{
	char path[PATH_MAX + 32];

	if (s->pinned) {
		for (size_t i = 0; i < sizeof(pins) / sizeof(pins[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", s->pin_dir, pins[i]);
			unlink(path);
		}
		rmdir(s->pin_dir);
		s->pinned = false;
	}
	if (!s->dir)
		return;
	snprintf(path, sizeof(path), "%s/.attached", s->dir);
	if (access(path, F_OK) == 0)
		fprintf(stderr,
			"pktpath: attach.sh's filters are still in place: run %s/detach.sh\n",
			s->dir);
}
