// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "base/safe_file.h"

static uid_t trusted_uid = (uid_t)-1; /* -1: getuid() */

uid_t pp_safe_file_set_trusted_uid(uid_t uid)
{
	uid_t old = trusted_uid;

	trusted_uid = uid;
	return old;
}

/*
 * SUDO_UID is root's own environment: only root can run pktpath, and it
 * trusts whom it chooses.
 */
uid_t pp_safe_file_invoking_uid(const char *sudo_uid)
{
	unsigned long v;
	char *end;

	if (getuid() != 0 || !sudo_uid || !*sudo_uid)
		return getuid();
	errno = 0;
	v = strtoul(sudo_uid, &end, 10);
	if (errno || *end || v >= (uid_t)-1)
		return getuid();
	return (uid_t)v;
}

static uid_t invoking_uid(void)
{
	return trusted_uid != (uid_t)-1 ? trusted_uid : getuid();
}

static bool trusted_owner(uid_t uid)
{
	return uid == 0 || uid == getuid() || uid == invoking_uid();
}

static int fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * A directory pktpath may write into: owned by a trusted user, and writable
 * by no one else, or sticky (then others cannot remove or rename what
 * pktpath makes there, but may have made anything else: *shared).
 */
static int check_dir(int fd, const char *what, bool *shared, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st))
		return fail(err, errlen, -errno, "%s: %s", what, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fail(err, errlen, -ENOTDIR, "%s: not a directory", what);
	if (!trusted_owner(st.st_uid))
		return fail(err, errlen, -EPERM,
			    "%s: owned by uid %u, not by root or you: refusing to write there",
			    what, (unsigned int)st.st_uid);
	*shared = false;
	if (!(st.st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	if (!(st.st_mode & S_ISVTX))
		return fail(err, errlen, -EPERM,
			    "%s: writable by others (mode %04o, not sticky): refusing to write "
			    "there",
			    what, (unsigned int)(st.st_mode & 07777));
	*shared = true;
	return 0;
}

#define PP_SAFE_MAX_LINKS 8 /* symlinks on the way, as the kernel's 40 but fewer */

static int walk_from(int fd, const char *path, const char *base, bool create, int links,
		     bool *shared, char *err, size_t errlen);

/*
 * Through the symlink NAME in directory DFD, whose path is DIRWHAT: its
 * target walked as any path, each directory on it checked, so the link's
 * owner chose where to go, but what is there is checked like the rest.
 */
static int follow(int dfd, const char *name, const char *dirwhat, const char *what, int links,
		  bool *shared, char *err, size_t errlen)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);
	int start;

	if (n < 0)
		return fail(err, errlen, -errno, "%s: %s", what, strerror(errno));
	target[n] = '\0';
	if (links >= PP_SAFE_MAX_LINKS)
		return fail(err, errlen, -ELOOP, "%s: too many symlinks", what);
	start = target[0] == '/' ? open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
				 : fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	if (start < 0)
		return fail(err, errlen, -errno, "%s: %s", what, strerror(errno));
	return walk_from(start, target, target[0] == '/' ? "/" : dirwhat, false, links + 1, shared,
			 err, errlen);
}

/*
 * Step from directory DFD (checked; *SHARED as check_dir said; its path
 * DIRWHAT) to its entry NAME, a directory (path WHAT); CREATE makes it
 * (0700) if missing. A symlink is taken only if a trusted user owns it;
 * in a shared directory, so must any entry. Returns the new fd or -errno.
 */
static int step(int dfd, const char *name, const char *dirwhat, const char *what, bool create,
		int links, bool *shared, char *err, size_t errlen)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	struct stat lst, st;
	int fd;

	if (fstatat(dfd, name, &lst, AT_SYMLINK_NOFOLLOW) && errno == ENOENT && create) {
		if (mkdirat(dfd, name, 0700) && errno != EEXIST)
			return fail(err, errlen, -errno, "cannot create %s: %s", what,
				    strerror(errno));
	}
	if (fstatat(dfd, name, &lst, AT_SYMLINK_NOFOLLOW))
		return fail(err, errlen, -errno, "%s: %s", what, strerror(errno));
	if (strcmp(name, "..") && !trusted_owner(lst.st_uid) && (*shared || S_ISLNK(lst.st_mode)))
		return fail(err, errlen, -EPERM,
			    "%s: a %s owned by uid %u in a directory others can write to: "
			    "refusing to use it",
			    what,
			    S_ISLNK(lst.st_mode)   ? "symlink"
			    : S_ISDIR(lst.st_mode) ? "directory"
						   : "file",
			    (unsigned int)lst.st_uid);
	if (S_ISLNK(lst.st_mode))
		return follow(dfd, name, dirwhat, what, links, shared, err, errlen);
	fd = openat(dfd, name, flags);
	if (fd < 0)
		return fail(err, errlen, -errno, "%s: %s", what, strerror(errno));
	/* Replaced between the look and the open: only by someone who may not. */
	if (fstat(fd, &st) || st.st_dev != lst.st_dev || st.st_ino != lst.st_ino) {
		close(fd);
		return fail(err, errlen, -EAGAIN, "%s: changed while pktpath looked at it", what);
	}
	return fd;
}

/*
 * Walk PATH from directory FD (taken over, and closed), whose path is
 * BASE, checking every directory; the last one is made if CREATE. Returns
 * the last directory's fd, or -errno.
 */
static int walk_from(int fd, const char *path, const char *base, bool create, int links,
		     bool *shared, char *err, size_t errlen)
{
	char buf[PATH_MAX], what[PATH_MAX], dirwhat[PATH_MAX];
	char *save = NULL, *comp, *next;
	int nfd, ret;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		close(fd);
		return fail(err, errlen, -ENAMETOOLONG, "%s: path too long", path);
	}
	snprintf(what, sizeof(what), "%s", base);
	ret = check_dir(fd, what, shared, err, errlen);
	for (comp = strtok_r(buf, "/", &save); !ret && comp; comp = next) {
		next = strtok_r(NULL, "/", &save);
		if (!strcmp(comp, "."))
			continue;
		memcpy(dirwhat, what, sizeof(what));
		if (snprintf(what, sizeof(what), "%s%s%s", dirwhat,
			     dirwhat[strlen(dirwhat) - 1] == '/' ? "" : "/",
			     comp) >= (int)sizeof(what)) {
			ret = fail(err, errlen, -ENAMETOOLONG, "%s: path too long", path);
			break;
		}
		nfd = step(fd, comp, dirwhat, what, create && !next, links, shared, err, errlen);
		if (nfd < 0) {
			ret = nfd;
			break;
		}
		close(fd);
		fd = nfd;
		ret = check_dir(fd, what, shared, err, errlen);
	}
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* Walk PATH from / or the working directory. */
static int walk(struct pp_safe_dir *d, const char *path, bool create, char *err, size_t errlen)
{
	int fd = open(path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return fail(err, errlen, -errno, "%s: %s", path, strerror(errno));
	fd = walk_from(fd, path, path[0] == '/' ? "/" : ".", create, 0, &d->shared, err, errlen);
	if (fd < 0)
		return fd;
	d->fd = fd;
	return 0;
}

int pp_safe_dir_open(struct pp_safe_dir *d, const char *path, enum pp_safe_dir_mode mode, char *err,
		     size_t errlen)
{
	int ret;

	d->fd = -1;
	d->shared = false;
	snprintf(d->path, sizeof(d->path), "%s", path);
	if (!*path)
		return fail(err, errlen, -EINVAL, "empty directory name");
	ret = walk(d, path, mode != PP_SAFE_DIR_EXISTING, err, errlen);
	if (!ret && mode == PP_SAFE_DIR_PRIVATE && d->shared) {
		pp_safe_dir_close(d);
		return fail(err, errlen, -EPERM,
			    "%s: others can write to it (sticky): give a directory of your own",
			    path);
	}
	return ret;
}

static int tmp_name(char *buf, size_t len, const char *name)
{
	if (snprintf(buf, len, ".%s.pktpath-%d", name, (int)getpid()) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

static bool plain_name(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

int pp_safe_dir_create(struct pp_safe_dir *d, const char *name, mode_t mode, bool replace,
		       char *err, size_t errlen)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	char tmp[NAME_MAX + 1];
	int fd;

	if (!plain_name(name) || tmp_name(tmp, sizeof(tmp), name))
		return fail(err, errlen, -EINVAL, "%s/%s: not a plain file name", d->path, name);
	if (replace && d->shared)
		replace = false; /* someone else's file there must not be touched */
	if (replace) {
		/* Ours from an earlier run that died: the directory is only ours. */
		unlinkat(d->fd, tmp, 0);
		fd = openat(d->fd, tmp, flags, mode);
	} else {
		fd = openat(d->fd, name, flags, mode);
	}
	if (fd < 0)
		return fail(err, errlen, -errno, "cannot create %s/%s: %s%s", d->path, name,
			    strerror(errno),
			    errno == EEXIST ? " (in a directory others can write to, pktpath "
					      "writes new files only)"
					    : "");
	/* The umask must not decide: scripts need their x bit, others nothing. */
	if (fchmod(fd, mode)) {
		int e = errno;

		close(fd);
		unlinkat(d->fd, replace ? tmp : name, 0);
		return fail(err, errlen, -e, "%s/%s: %s", d->path, name, strerror(e));
	}
	return fd;
}

int pp_safe_dir_commit(struct pp_safe_dir *d, const char *name, int fd, bool replace, char *err,
		       size_t errlen)
{
	char tmp[NAME_MAX + 1];
	int ret = 0;

	if (replace && d->shared)
		replace = false;
	if (close(fd))
		ret = -errno;
	if (!ret && replace && !tmp_name(tmp, sizeof(tmp), name) &&
	    renameat(d->fd, tmp, d->fd, name))
		ret = -errno;
	if (ret) {
		if (replace && !tmp_name(tmp, sizeof(tmp), name))
			unlinkat(d->fd, tmp, 0);
		return fail(err, errlen, ret, "cannot write %s/%s: %s", d->path, name,
			    strerror(-ret));
	}
	return 0;
}

void pp_safe_dir_close(struct pp_safe_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

struct pp_safe_file {
	struct pp_safe_dir dir;
	FILE *f;
	bool replace;	/* written under a temporary name until renamed */
	bool published; /* under its own name: nothing left to rename */
	char name[NAME_MAX + 1];
};

/*
 * F's file in directory DIR (PATH as given), the directory checked: under
 * a temporary name unless others may write there (then it must be new).
 */
static int open_in_dir(struct pp_safe_file *f, const char *dir, const char *path, mode_t mode,
		       char *err, size_t errlen)
{
	struct stat st;
	int fd;

	if (pp_safe_dir_open(&f->dir, dir, PP_SAFE_DIR_EXISTING, err, errlen))
		return -1;
	/* A file cannot be renamed over a directory: say so now, not at the rename. */
	if (!fstatat(f->dir.fd, f->name, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode))
		return fail(err, errlen, -EISDIR, "%s: a directory", path);
	f->replace = !f->dir.shared;
	f->published = !f->replace;
	fd = pp_safe_dir_create(&f->dir, f->name, mode, f->replace, err, errlen);
	if (fd < 0)
		return fd;
	f->f = fdopen(fd, "w");
	if (!f->f) {
		fail(err, errlen, 0, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return 0;
}

struct pp_safe_file *pp_safe_file_create(const char *path, mode_t mode, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	struct pp_safe_file *f;

	if (slash && (size_t)(slash - path) >= sizeof(dir)) {
		fail(err, errlen, 0, "%s: path too long", path);
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		fail(err, errlen, 0, "out of memory");
		return NULL;
	}
	f->dir.fd = -1; /* not open: the failure below must not close fd 0 */
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	if (snprintf(f->name, sizeof(f->name), "%s", slash ? slash + 1 : path) >=
	    (int)sizeof(f->name)) {
		fail(err, errlen, 0, "%s: file name too long", path);
		goto fail;
	}
	if (!open_in_dir(f, dir, path, mode, err, errlen))
		return f;
fail:
	pp_safe_dir_close(&f->dir);
	free(f);
	return NULL;
}

FILE *pp_safe_file_file(struct pp_safe_file *f)
{
	return f->f;
}

/* What pp_safe_file_create() made: the temporary file, or the new file itself. */
static void sf_unlink(struct pp_safe_file *f)
{
	char tmp[NAME_MAX + 1];

	if (!f->replace || f->published)
		unlinkat(f->dir.fd, f->name, 0);
	else if (!tmp_name(tmp, sizeof(tmp), f->name))
		unlinkat(f->dir.fd, tmp, 0);
}

int pp_safe_file_publish(struct pp_safe_file *f, char *err, size_t errlen)
{
	char tmp[NAME_MAX + 1];

	if (f->published)
		return 0;
	if (tmp_name(tmp, sizeof(tmp), f->name) || renameat(f->dir.fd, tmp, f->dir.fd, f->name))
		return fail(err, errlen, -errno, "cannot write %s/%s: %s", f->dir.path, f->name,
			    strerror(errno));
	f->published = true;
	return 0;
}

void pp_safe_file_discard(struct pp_safe_file *f)
{
	if (!f)
		return;
	fclose(f->f);
	sf_unlink(f);
	pp_safe_dir_close(&f->dir);
	free(f);
}

int pp_safe_file_close(struct pp_safe_file *f, char *err, size_t errlen)
{
	int ret;

	if (!f)
		return 0;
	/* fflush, then hand the fd to commit: it closes and renames. */
	ret = fflush(f->f) || ferror(f->f) ? -EIO : 0;
	if (ret) {
		fail(err, errlen, ret, "cannot write %s/%s", f->dir.path, f->name);
		fclose(f->f);
		sf_unlink(f);
	} else {
		ret = pp_safe_dir_commit(&f->dir, f->name, dup(fileno(f->f)),
					 f->replace && !f->published, err, errlen);
		fclose(f->f);
	}
	pp_safe_dir_close(&f->dir);
	free(f);
	return ret;
}
