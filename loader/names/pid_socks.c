// SPDX-License-Identifier: GPL-2.0
/* One process's sockets: see pid_socks.h. */
#include "names/pid_socks.h"

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
	char proc_dir[PATH_MAX]; /* /proc/PID */
	size_t n;
	struct slot slots[PP_PID_SOCKS_SLOTS];
};

struct pp_pid_socks *pp_pid_socks_new(const char *root, __u32 pid)
{
	struct pp_pid_socks *s = calloc(1, sizeof(*s));

	if (s)
		snprintf(s->proc_dir, sizeof(s->proc_dir), "%s/proc/%u", root, pid);
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

static bool held(void *arg, int fd, __u32 ino)
{
	(void)fd;
	decide(arg, ino, true);
	return true;
}

/* Every socket the process holds now: held. */
static void scan(struct pp_pid_socks *s)
{
	int pidfd = open(s->proc_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (pidfd < 0)
		return;
	pp_sock_fds(pidfd, held, s);
	close(pidfd);
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
