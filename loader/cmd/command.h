/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pktpath -- COMMAND: the command runs in a cgroup v2 of its own, made for
 * it, and the run's scope is that cgroup (kernel/cgroup_scope.h). It is
 * forked before pktpath drops its privileges and installs its seccomp
 * filter, waits until the probes are attached, then execs.
 */
#ifndef PP_COMMAND_H
#define PP_COMMAND_H

#include <stdbool.h>
#include <sys/types.h>
#include "kernel/cgroup_scope.h"

struct pp_command {
	char *const *argv; /* NULL: no command */
	uid_t uid;	   /* -u: the user it runs as, with GID and that user's groups */
	gid_t gid;
	char user[64]; /* "": pktpath's */
	int root_fd;   /* the cgroup v2 root, -1: none */
	int cg_fd;     /* the command's cgroup, -1: none */
	char name[64]; /* its directory under the root */
	pid_t pid;     /* 0: not started */
	int go_fd;     /* the pipe's end that lets it exec, -1: closed */
	int status;    /* its wait status, once ended */
	bool ended;
};

/*
 * ARGV[0] can be run (a path, or a name found in PATH), USER (NULL:
 * pktpath's) exists, and its cgroup is made under the root, into S: 0, or
 * -errno with the reason in ERR (bad input: exit 2, nothing attached).
 */
int pp_command_prepare(struct pp_command *c, char *const *argv, const char *user,
		       struct pp_cgroup_scope *s, char *err, size_t errlen);

/* Fork the command into its cgroup, held until pp_command_go(): 0 or -errno. */
int pp_command_fork(struct pp_command *c);

/* Let it exec. */
void pp_command_go(struct pp_command *c);

/* Whether it has ended (reaped, its status kept); never blocks. */
bool pp_command_ended(struct pp_command *c);

/*
 * The exit status pktpath gives for it: its own, 128 + N if signal N ended
 * it; waits up to a second for one still running (-1 if it still runs).
 */
int pp_command_exit_status(struct pp_command *c);

/* Its cgroup removed (if empty by now) and the fds closed. */
void pp_command_free(struct pp_command *c);

#endif /* PP_COMMAND_H */
