// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "cmd/command.h"
#include "base/log.h"

/* NAME is a program a shell would run: a path to one, or found in PATH. */
static bool runnable(const char *name)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(name, '/'))
		return !access(name, X_OK);
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		if ((size_t)snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, name) < sizeof(buf) &&
		    !access(buf, X_OK))
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

/* -u USER: a name or a uid, into C. */
static int find_user(struct pp_command *c, const char *user, char *err, size_t errlen)
{
	char *end;
	unsigned long uid = strtoul(user, &end, 10);
	struct passwd *pw = getpwnam(user);

	if (!pw && *user && !*end)
		pw = getpwuid((uid_t)uid);
	if (!pw) {
		snprintf(err, errlen, "-u %s: no such user", user);
		return -ENOENT;
	}
	c->uid = pw->pw_uid;
	c->gid = pw->pw_gid;
	snprintf(c->user, sizeof(c->user), "%s", pw->pw_name);
	return 0;
}

int pp_command_prepare(struct pp_command *c, char *const *argv, const char *user,
		       struct pp_cgroup_scope *s, char *err, size_t errlen)
{
	int ret;

	*c = (struct pp_command){.argv = argv, .root_fd = -1, .cg_fd = -1, .go_fd = -1};
	if (user && find_user(c, user, err, errlen))
		return -ENOENT;
	if (!runnable(argv[0])) {
		snprintf(err, errlen, "-- %s: no such command to run", argv[0]);
		return -ENOENT;
	}
	c->root_fd = pp_cgroup2_open_root();
	if (c->root_fd < 0) {
		snprintf(err, errlen, "-- %s: no cgroup v2 hierarchy for it: %s", argv[0],
			 strerror(-c->root_fd));
		return c->root_fd;
	}
	snprintf(c->name, sizeof(c->name), "pktpath-%d", (int)getpid());
	if (mkdirat(c->root_fd, c->name, 0755) && errno != EEXIST) {
		ret = -errno;
		snprintf(err, errlen, "-- %s: cannot make cgroup %s: %s", argv[0], c->name,
			 strerror(errno));
		return ret;
	}
	c->cg_fd = openat(c->root_fd, c->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ret = c->cg_fd < 0 ? -errno : pp_cgroup_scope_of_dir(s, c->cg_fd);
	if (ret)
		snprintf(err, errlen, "-- %s: cgroup %s: %s", argv[0], c->name, strerror(-ret));
	return ret;
}

/* Every fd past stderr closed: none of pktpath's (links, maps) outlives it in the command. */
static void close_from_3(void)
{
	struct rlimit r;

	if (!syscall(SYS_close_range, 3U, ~0U, 0U))
		return;
	if (getrlimit(RLIMIT_NOFILE, &r))
		r.rlim_cur = 1024;
	for (rlim_t fd = 3; fd < r.rlim_cur && fd < (1U << 20); fd++)
		close((int)fd);
}

/* The child: into the cgroup, wait for the go (EOF: pktpath is gone, so is the run), exec. */
static void child(struct pp_command *c, int go)
{
	int procs = openat(c->cg_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	char byte;

	if (procs < 0 || write(procs, "0", 1) != 1) {
		fprintf(stderr, "pktpath: -- %s: cannot enter cgroup %s: %s\n", c->argv[0], c->name,
			strerror(errno));
		_exit(126);
	}
	if (read(go, &byte, 1) != 1)
		_exit(126);
	if (c->user[0] && (initgroups(c->user, c->gid) || setgid(c->gid) || setuid(c->uid))) {
		fprintf(stderr, "pktpath: -u %s: %s\n", c->user, strerror(errno));
		_exit(126);
	}
	close_from_3();
	execvp(c->argv[0], c->argv);
	fprintf(stderr, "pktpath: -- %s: %s\n", c->argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

int pp_command_fork(struct pp_command *c)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	c->pid = fork();
	if (c->pid < 0) {
		c->pid = 0;
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (!c->pid) {
		close(p[1]);
		child(c, p[0]);
	}
	close(p[0]);
	c->go_fd = p[1];
	return 0;
}

void pp_command_go(struct pp_command *c)
{
	if (c->go_fd >= 0 && write(c->go_fd, "g", 1) != 1)
		kill(c->pid, SIGKILL);
	if (c->go_fd >= 0)
		close(c->go_fd);
	c->go_fd = -1;
}

bool pp_command_ended(struct pp_command *c)
{
	if (c->pid && !c->ended && waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->ended = true;
	return c->ended;
}

int pp_command_exit_status(struct pp_command *c)
{
	struct timespec tick = {0, 20 * 1000 * 1000};

	for (int i = 0; i < 50 && !pp_command_ended(c); i++)
		nanosleep(&tick, NULL);
	if (!c->ended)
		return -1;
	return WIFSIGNALED(c->status) ? 128 + WTERMSIG(c->status) : WEXITSTATUS(c->status);
}

void pp_command_free(struct pp_command *c)
{
	if (!c->argv)
		return;
	if (c->go_fd >= 0)
		close(c->go_fd); /* a command never let go: EOF ends it */
	if (c->pid && !c->ended)
		pp_command_exit_status(c);
	if (c->cg_fd >= 0)
		close(c->cg_fd);
	if (c->root_fd >= 0 && c->name[0] && unlinkat(c->root_fd, c->name, AT_REMOVEDIR) &&
	    errno != ENOENT)
		pp_warn("cgroup %s left: %s (processes of the command still in it)\n", c->name,
			strerror(errno));
	if (c->root_fd >= 0)
		close(c->root_fd);
	c->root_fd = c->cg_fd = -1;
}
