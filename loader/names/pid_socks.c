// SPDX-License-Identifier: GPL-2.0
/* One process's sockets: see pid_socks.h. */
#include "names/pid_socks.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "names/sock_owner.h"

/*
 * Decided inodes, open addressing: past PP_PID_SOCKS_FULL of them the
 * table starts again empty (a long run's closed sockets go).
 */
#define PP_PID_SOCKS_SLOTS 8192
#define PP_PID_SOCKS_FULL  (PP_PID_SOCKS_SLOTS * 3 / 4)

struct slot {
	__u32 ino; /* 0: empty */
	bool held;
};

struct pp_pid_socks {
	char fd_dir[PATH_MAX];
	size_t n;
	struct slot slots[PP_PID_SOCKS_SLOTS];
};

struct pp_pid_socks *pp_pid_socks_new(const char *root, __u32 pid)
{
	struct pp_pid_socks *s = calloc(1, sizeof(*s));

	if (s)
		snprintf(s->fd_dir, sizeof(s->fd_dir), "%s/proc/%u/fd", root, pid);
	return s;
}

void pp_pid_socks_free(struct pp_pid_socks *s)
{
	free(s);
}

static struct slot *slot_of(struct pp_pid_socks *s, __u32 ino)
{
	size_t i = (ino * 2654435761U) % PP_PID_SOCKS_SLOTS;

	while (s->slots[i].ino && s->slots[i].ino != ino)
		i = (i + 1) % PP_PID_SOCKS_SLOTS;
	return &s->slots[i];
}

/* INO decided HELD, unless it was already. */
static void decide(struct pp_pid_socks *s, __u32 ino, bool held)
{
	struct slot *e;

	if (s->n >= PP_PID_SOCKS_FULL) {
		memset(s->slots, 0, sizeof(s->slots));
		s->n = 0;
	}
	e = slot_of(s, ino);
	if (e->ino)
		return;
	*e = (struct slot){.ino = ino, .held = held};
	s->n++;
}

/* Every socket the process holds now: held. */
static void scan(struct pp_pid_socks *s)
{
	int fd = open(s->fd_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	char link[64];

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		ssize_t n = readlinkat(fd, e->d_name, link, sizeof(link) - 1);
		__u32 ino;

		if (n <= 0)
			continue;
		link[n] = '\0';
		if (!pp_sock_link_ino(link, &ino))
			decide(s, ino, true);
	}
	closedir(d);
}

void pp_pid_socks_note(struct pp_pid_socks *s, __u32 ino)
{
	if (ino)
		decide(s, ino, true);
}

bool pp_pid_socks_holds(struct pp_pid_socks *s, __u32 ino)
{
	const struct slot *e;

	if (!ino)
		return false;
	if (!slot_of(s, ino)->ino) {
		scan(s);
		decide(s, ino, false);
	}
	e = slot_of(s, ino);
	return e->ino && e->held;
}
