// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "filter/classifier.h"
#include "bpfobj/maps.h"
#include "base/safe_file.h"
#include "tc/tc_attach.h"
#include "tc/tc_script.h"
#include "base/log.h"

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
	pp_warn("mounted bpffs at " PP_BPFFS "\n");
	return 0;
}

/*
 * The pin directory is made (0700) and held like any file pktpath writes;
 * the pins go through /proc/self/fd/DIRFD, so into that very directory.
 */
static int pin_all(struct pp_tc_script *s, const struct pp_cls *cls, const struct pp_maps *maps,
		   char *err, size_t errlen)
{
	int fds[] = {pp_cls_prog_fd(cls, 0), pp_cls_prog_fd(cls, 1), maps->skb_map};
	char path[64];
	int ret;

	snprintf(s->pin_dir, sizeof(s->pin_dir), PP_BPFFS "/pktpath-%d", (int)getpid());
	ret = pp_safe_dir_open(&s->pins, s->pin_dir, PP_SAFE_DIR_PRIVATE, err, errlen);
	if (ret)
		return ret;
	s->pinned = true;
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", s->pins.fd, pins[i]);
		if (bpf_obj_pin(fds[i], path)) {
			ret = -errno;
			snprintf(err, errlen, "cannot pin %s/%s: %s", s->pin_dir, pins[i],
				 strerror(errno));
			return ret;
		}
	}
	return 0;
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
 * Shell functions both scripts start with. They run as root from a path
 * that is resolved again at each run: refuse the directory or the state
 * file if anyone but root or pktpath's user (uid) owns it, if it is a
 * symlink, or if others can write to it. ($((0$m & 022)): stat's octal mode.)
 */
static void write_checks(FILE *f)
{
	fprintf(f,
		"uid=%u\n"
		"dir=$(dirname \"$0\")\nstate=\"$dir/.attached\"\n"
		"theirs() {\n"
		"\t[ ! -L \"$1\" ] || return 1\n"
		"\to=$(stat -c %%u \"$1\") && m=$(stat -c %%a \"$1\") || return 1\n"
		"\t{ [ \"$o\" = 0 ] || [ \"$o\" = \"$uid\" ]; } && [ $((0$m & 022)) -eq 0 ]\n"
		"}\n"
		"refuse() {\n"
		"\techo \"$(basename \"$0\"): $1 is not pktpath's (a symlink, another owner, or "
		"writable by others): refusing\" >&2\n"
		"\texit 2\n}\n"
		"theirs \"$dir\" || refuse \"$dir\"\n",
		(unsigned int)geteuid());
}

/*
 * The pins are reached through /proc/PID/root: `ip netns exec` remounts
 * /sys, so pktpath's bpffs is out of sight from another `ip netns exec`.
 * The state file is made new (noclobber), after the one there is checked.
 */
static void write_attach(FILE *f, const struct pp_tc_script *s, const struct pp_tc *tc)
{
	fprintf(f,
		"#!/bin/sh\n# Written by pktpath (pid %d): mark packets for it on these "
		"interfaces.\n# Run it in pktpath's network namespace; detach.sh removes "
		"exactly what\n# this adds (the clsact qdisc only if this created it).\n"
		"set -e\numask 077\n",
		(int)getpid());
	write_checks(f);
	fprintf(f,
		"if [ -e \"$state\" ] || [ -L \"$state\" ]; then\n"
		"\t{ [ -f \"$state\" ] && theirs \"$state\"; } || refuse \"$state\"\n"
		"\trm -f \"$state\"\nfi\n"
		"(set -C && : >\"$state\")\n"
		"add() {\n"
		"\tif ! tc qdisc show dev \"$1\" | grep -q '^qdisc clsact '; then\n"
		"\t\ttc qdisc add dev \"$1\" clsact\n\t\techo \"qdisc $1\" >>\"$state\"\n\tfi\n"
		"\tfor dir in ingress egress; do\n"
		"\t\ttc filter add dev \"$1\" \"$dir\" pref 1 handle " PP_TC_HANDLE
		" bpf direct-action \\\n\t\t\tobject-pinned \"/proc/%d/root%s/cls_$dir\"\n"
		"\t\techo \"filter $1 $dir\" >>\"$state\"\n\tdone\n}\n",
		(int)getpid(), s->pin_dir);
	for (size_t i = 0; i < tc->n; i++) {
		fputs("add ", f);
		put_quoted(f, tc->v[i].ifname);
		fputc('\n', f);
	}
}

/*
 * Only the interfaces attach.sh knows, only the two hooks: even a state
 * file that passed the checks names nothing else to delete.
 */
static void write_detach(FILE *f, const struct pp_tc *tc)
{
	fputs("#!/bin/sh\n# Written by pktpath: remove exactly what attach.sh added.\n", f);
	write_checks(f);
	fputs("[ -e \"$state\" ] || [ -L \"$state\" ] || { echo \"detach.sh: nothing "
	      "attached\"; exit 0; }\n"
	      "{ [ -f \"$state\" ] && theirs \"$state\"; } || refuse \"$state\"\n"
	      "ours() {\n\tcase \"$1\" in\n\t",
	      f);
	for (size_t i = 0; i < tc->n; i++) {
		if (i)
			fputc('|', f);
		put_quoted(f, tc->v[i].ifname);
	}
	fputs(") return 0 ;;\n\tesac\n\treturn 1\n}\n"
	      "bad() {\n\techo \"detach.sh: $state: not a line attach.sh writes: $*\" >&2\n"
	      "\trc=1\n}\n"
	      "rc=0\n"
	      "while read -r kind dev hook; do\n"
	      "\t[ \"$kind\" = filter ] || continue\n"
	      "\tcase \"$hook\" in ingress | egress) ;; *) bad \"$kind $dev $hook\"; continue "
	      ";; esac\n"
	      "\tours \"$dev\" || { bad \"$kind $dev $hook\"; continue; }\n"
	      "\ttc filter del dev \"$dev\" \"$hook\" pref 1 handle " PP_TC_HANDLE " bpf || rc=1\n"
	      "done <\"$state\"\n"
	      "while read -r kind dev hook; do\n"
	      "\t[ \"$kind\" = qdisc ] || continue\n"
	      "\tours \"$dev\" || { bad \"$kind $dev\"; continue; }\n"
	      "\ttc qdisc del dev \"$dev\" clsact || rc=1\n"
	      "done <\"$state\"\n"
	      "[ \"$rc\" -ne 0 ] || rm -f \"$state\"\n"
	      "exit \"$rc\"\n",
	      f);
}

/* NAME in the checked directory: a temporary file renamed over it, 0700. */
static int write_script(struct pp_tc_script *s, const char *name, const struct pp_tc *tc,
			bool attach, char *err, size_t errlen)
{
	int fd = pp_safe_dir_create(&s->dirfd, name, 0700, true, err, errlen);
	FILE *f;

	if (fd < 0)
		return fd;
	f = fdopen(dup(fd), "w");
	if (!f) {
		close(fd);
		snprintf(err, errlen, "cannot write %s/%s: %s", s->dir, name, strerror(errno));
		return -ENOMEM;
	}
	if (attach)
		write_attach(f, s, tc);
	else
		write_detach(f, tc);
	if (fclose(f)) {
		close(fd);
		snprintf(err, errlen, "cannot write %s/%s: %s", s->dir, name, strerror(errno));
		return -EIO;
	}
	return pp_safe_dir_commit(&s->dirfd, name, fd, true, err, errlen);
}

int pp_tc_script_prepare(struct pp_tc_script *s, const char *dir, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->dirfd.fd = -1;
	s->pins.fd = -1;
	s->dir = dir;
	return pp_safe_dir_open(&s->dirfd, dir, PP_SAFE_DIR_PRIVATE, err, errlen);
}

int pp_tc_script_write(struct pp_tc_script *s, const struct pp_cls *cls, const struct pp_maps *maps,
		       const struct pp_tc *tc, char *err, size_t errlen)
{
	int ret = ensure_bpffs(err, errlen);

	if (!ret)
		ret = pin_all(s, cls, maps, err, errlen);
	if (!ret)
		ret = write_script(s, "attach.sh", tc, true, err, errlen);
	if (!ret)
		ret = write_script(s, "detach.sh", tc, false, err, errlen);
	return ret;
}

void pp_tc_script_done(struct pp_tc_script *s)
{
	struct stat st;

	if (!s->dir) /* never prepared: nothing of ours is open */
		return;
	if (s->pinned) {
		for (size_t i = 0; i < sizeof(pins) / sizeof(pins[0]); i++)
			unlinkat(s->pins.fd, pins[i], 0);
		rmdir(s->pin_dir);
		s->pinned = false;
	}
	pp_safe_dir_close(&s->pins);
	if (fstatat(s->dirfd.fd, ".attached", &st, AT_SYMLINK_NOFOLLOW) == 0)
		pp_warn("attach.sh's filters are still in place: run %s/detach.sh\n", s->dir);
	pp_safe_dir_close(&s->dirfd);
	s->dir = NULL;
}
