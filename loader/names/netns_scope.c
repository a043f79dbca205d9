// SPDX-License-Identifier: GPL-2.0
/*
 * A scope's namespaces by what the user typed. A name goes through the
 * names cache (netns_names.h: `ip netns` names, containers, pods), a path
 * must be a namespace file (nsfs: the device of /proc/self/ns/net), an
 * inode must be one some file holds: a namespace is entered by a file that
 * holds it, and one that no file or process holds is gone.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "names/netns_scope.h"

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* /run/netns entries: `ip netns add` bind-mounts each namespace there. */
static int path_in_run(const char *root, __u32 inode, char *path, size_t len)
{
	char dir[PP_SCOPE_PATH], p[PP_SCOPE_PATH + 256];
	struct dirent *d;
	struct stat st;
	DIR *dp;
	int ret = -ENOENT;

	snprintf(dir, sizeof(dir), "%s/run/netns", root);
	dp = opendir(dir);
	if (!dp)
		return -ENOENT;
	while (ret && (d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, d->d_name);
		if (!stat(p, &st) && (__u32)st.st_ino == inode) {
			snprintf(path, len, "%s", p);
			ret = 0;
		}
	}
	closedir(dp);
	return ret;
}

/* /proc/PID/ns/net links read "net:[INODE]". */
static int path_in_proc(const char *root, __u32 inode, char *path, size_t len)
{
	char dir[PP_SCOPE_PATH], p[PP_SCOPE_PATH + 272], link[64], want[32];
	struct dirent *d;
	DIR *dp;
	ssize_t n;
	int ret = -ENOENT;

	snprintf(dir, sizeof(dir), "%s/proc", root);
	snprintf(want, sizeof(want), "net:[%u]", inode);
	dp = opendir(dir);
	if (!dp)
		return -ENOENT;
	while (ret && (d = readdir(dp))) {
		if (!all_digits(d->d_name))
			continue;
		snprintf(p, sizeof(p), "%s/%s/ns/net", dir, d->d_name);
		n = readlink(p, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (!strcmp(link, want)) {
			snprintf(path, len, "%s", p);
			ret = 0;
		}
	}
	closedir(dp);
	return ret;
}

int pp_scope_path_of(const char *root, __u32 inode, char *path, size_t len)
{
	if (!path_in_run(root, inode, path, len))
		return 0;
	return path_in_proc(root, inode, path, len);
}

/* PATH is a network namespace's file: on nsfs, as /proc/self/ns/net is. */
static int by_path(const char *root, const char *arg, struct pp_scope_ns *out, char *err,
		   size_t errlen)
{
	char self[PP_SCOPE_PATH];
	struct stat st, ns;

	snprintf(out->path, sizeof(out->path), "%s%s", root, arg);
	snprintf(self, sizeof(self), "%s/proc/self/ns/net", root);
	if (stat(out->path, &st)) {
		snprintf(err, errlen, "--netns %s: %s", arg, strerror(errno));
		return -ENOENT;
	}
	if (stat(self, &ns) || st.st_dev != ns.st_dev) {
		snprintf(err, errlen, "--netns %s: not a network namespace file", arg);
		return -EINVAL;
	}
	out->inode = (__u32)st.st_ino;
	return 0;
}

static int by_inode(const char *root, const char *arg, struct pp_scope_ns *out, char *err,
		    size_t errlen)
{
	unsigned long v = strtoul(arg, NULL, 10);

	if (!v || v > 0xffffffffUL) {
		snprintf(err, errlen, "--netns %s: not a namespace inode", arg);
		return -EINVAL;
	}
	out->inode = (__u32)v;
	if (pp_scope_path_of(root, out->inode, out->path, sizeof(out->path))) {
		snprintf(err, errlen,
			 "--netns %s: no /run/netns entry and no process is in network "
			 "namespace %s",
			 arg, arg);
		return -ENOENT;
	}
	return 0;
}

static int by_name(struct pp_netns_cache *n, const char *root, const char *arg, bool ctr,
		   struct pp_scope_ns *out, char *err, size_t errlen)
{
	const char *opt = ctr ? "--container" : "--netns";
	const struct pp_ns_name *nm;
	__u32 found[2];
	size_t got = n ? pp_netns_cache_find(n, arg, found, 2) : 0;

	if (!got) {
		snprintf(err, errlen, "%s %s: no %s of that name", opt, arg,
			 ctr ? "container (podman, docker, containerd, CRI-O)"
			     : "network namespace (ip netns), container or pod");
		return -ENOENT;
	}
	if (got > 1) {
		snprintf(err, errlen, "%s %s: names %zu network namespaces; give an id or a path",
			 opt, arg, got);
		return -EINVAL;
	}
	nm = pp_netns_cache_get(n, found[0]);
	if (ctr && (!nm || !nm->has_ctr)) {
		snprintf(err, errlen,
			 "--container %s: a network namespace, not a container "
			 "(--netns %s)",
			 arg, arg);
		return -EINVAL;
	}
	out->inode = found[0];
	if (pp_scope_path_of(root, out->inode, out->path, sizeof(out->path))) {
		snprintf(err, errlen, "%s %s: its network namespace went away", opt, arg);
		return -ENOENT;
	}
	return 0;
}

int pp_scope_resolve(struct pp_netns_cache *n, const char *root, const char *arg, bool ctr,
		     struct pp_scope_ns *out, char *err, size_t errlen)
{
	const struct pp_ns_name *nm;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!ctr && strchr(arg, '/'))
		ret = by_path(root, arg, out, err, errlen);
	else if (!ctr && all_digits(arg))
		ret = by_inode(root, arg, out, err, errlen);
	else
		ret = by_name(n, root, arg, ctr, out, err, errlen);
	if (ret)
		return ret;
	nm = n ? pp_netns_cache_get(n, out->inode) : NULL;
	snprintf(out->label, sizeof(out->label), "%s", nm ? nm->name : arg);
	return 0;
}
