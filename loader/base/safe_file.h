/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files pktpath writes, safely although it runs as root: a directory is
 * checked once, held by its fd, and every file is made under that fd, so a
 * path swapped afterwards changes nothing. A directory is trusted when its
 * owner is root or the invoking user (under sudo: who ran it) and no one
 * else can write to it; a sticky directory (/tmp) that others can write to
 * takes new files only. A symlink is followed only if root or the invoking
 * user owns it, and only on the way to the directory: never as the file
 * written.
 * No BPF here: tests/unit links it.
 */
#ifndef PP_SAFE_FILE_H
#define PP_SAFE_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct pp_safe_dir {
	int fd;		     /* the checked directory, -1 when closed */
	bool shared;	     /* sticky and writable by others: new files only */
	char path[PATH_MAX]; /* as given, for messages */
};

enum pp_safe_dir_mode {
	PP_SAFE_DIR_EXISTING, /* the directory must exist */
	PP_SAFE_DIR_CREATE,   /* create it (0700) if missing; an existing one is checked */
	PP_SAFE_DIR_PRIVATE,  /* the same, but it may not be shared (sticky): scripts live there */
};

/*
 * Who may own what pktpath trusts, besides root and the real uid (the
 * default, (uid_t)-1). Returns the previous value.
 */
uid_t pp_safe_file_set_trusted_uid(uid_t uid);

/*
 * The invoking user, for pp_safe_file_set_trusted_uid(): the real uid, or when it
 * is root, the user who ran sudo, from SUDO_UID's value SUDO_UID (NULL:
 * unset; not a uid: ignored). main() reads the environment, not this file.
 */
uid_t pp_safe_file_invoking_uid(const char *sudo_uid);

/*
 * Open PATH as a directory to write into, after checking every directory
 * on the way (each must be trusted, or shared and its next entry owned by a
 * trusted user). 0, or -errno with ERR saying why in one line.
 */
int pp_safe_dir_open(struct pp_safe_dir *d, const char *path, enum pp_safe_dir_mode mode, char *err,
		     size_t errlen);

/*
 * Create NAME in D with MODE: a new file (O_CREAT|O_EXCL|O_NOFOLLOW), or,
 * if REPLACE and D is not shared, a temporary name renamed over NAME (what
 * was there, a symlink included, is replaced, never followed). The file is
 * written to TMPNAME (REPLACE) until pp_safe_dir_commit(); returns the fd, or
 * -errno with ERR filled.
 */
int pp_safe_dir_create(struct pp_safe_dir *d, const char *name, mode_t mode, bool replace,
		       char *err, size_t errlen);

/*
 * After writing FD (from pp_safe_dir_create with REPLACE): sync the mode,
 * close, and rename the temporary file over NAME. Without REPLACE: close.
 * 0 or -errno with ERR filled; on failure the temporary file is removed.
 */
int pp_safe_dir_commit(struct pp_safe_dir *d, const char *name, int fd, bool replace, char *err,
		       size_t errlen);

void pp_safe_dir_close(struct pp_safe_dir *d);

/*
 * The one call for an output file (--pcapng, --perfetto): PATH's directory
 * checked as above, PATH created new with MODE (an existing PATH is
 * replaced only in a trusted, unshared directory). Returns a FILE open for
 * writing, or NULL with ERR filled. The rename happens at pp_safe_file_close().
 */
struct pp_safe_file;
struct pp_safe_file *pp_safe_file_create(const char *path, mode_t mode, char *err, size_t errlen);
FILE *pp_safe_file_file(struct pp_safe_file *f);
/*
 * Put the file in place now (rename the temporary file over PATH), for a
 * caller that will lose the right to (privs.h: a directory of the sudo
 * user's is writable by root only with CAP_DAC_OVERRIDE). It is then
 * written in place, as tcpdump -w does. 0, or -errno with ERR filled.
 */
int pp_safe_file_publish(struct pp_safe_file *f, char *err, size_t errlen);
/* Flush, close, and put the file in place. 0, or -errno with ERR filled. */
int pp_safe_file_close(struct pp_safe_file *f, char *err, size_t errlen);
/* Close and remove what pp_safe_file_create() made (a run that never began); NULL is fine. */
void pp_safe_file_discard(struct pp_safe_file *f);

#endif
