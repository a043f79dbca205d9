// SPDX-License-Identifier: GPL-2.0
/*
 * Where each hook's programs are listed: tcx by BPF_PROG_QUERY, in their
 * run order; clsact by the filter dump (tc_dump.h), which runs after tcx;
 * XDP by the link's attributes (bpf_xdp_query()), one program per mode.
 * Another namespace's interfaces are reached from a thread of its own that
 * enters it (setns(2) moves the calling thread only), in the reader.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <linux/capability.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "tc/hook_progs.h"
#include "tc/tc_dump.h"
#include "names/netns_scope.h"
#include "kernel/privs.h"

#ifndef BPF_TCX_INGRESS
#define BPF_TCX_INGRESS 46
#define BPF_TCX_EGRESS	47
#endif

#define PP_CLS_PREFIX "pp_cls_"
#define PP_TCX_MAX    64

struct query {
	const char *nspath;
	int ifindex;
	enum pp_hook hook;
	struct pp_hook_prog *out;
	int max, n, err;
};

/* Program ID, unless it is pktpath's classifier. */
static void add(struct query *q, __u32 id, const char *via)
{
	struct pp_hook_prog *p = q->n < q->max ? &q->out[q->n] : NULL;
	struct bpf_prog_info info = {0};
	__u32 len = sizeof(info);
	const char *name = NULL;
	int fd;

	fd = bpf_prog_get_fd_by_id(id);
	if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
		name = (const char *)info.name;
	if (fd >= 0)
		close(fd);
	if (name && !strncmp(name, PP_CLS_PREFIX, strlen(PP_CLS_PREFIX)))
		return;
	q->n++;
	if (!p)
		return;
	p->id = id;
	snprintf(p->name, sizeof(p->name), "%s", name ? name : "");
	snprintf(p->via, sizeof(p->via), "%s", via);
}

static void tcx(struct query *q)
{
	__u32 ids[PP_TCX_MAX];
	LIBBPF_OPTS(bpf_prog_query_opts, o, .prog_ids = ids, .prog_cnt = PP_TCX_MAX);
	int type = q->hook == PP_HOOK_TC_EGRESS ? BPF_TCX_EGRESS : BPF_TCX_INGRESS;

	/* A kernel before tcx (6.6) refuses the type: no tcx programs there. */
	if (bpf_prog_query_opts(q->ifindex, type, &o))
		return;
	for (__u32 i = 0; i < o.prog_cnt && i < PP_TCX_MAX; i++)
		add(q, ids[i], "tcx");
}

static void clsact_one(const struct pp_tc_filter *f, void *arg)
{
	struct query *q = arg;

	if (f->id)
		add(q, f->id, "clsact");
}

static void xdp(struct query *q)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, o);

	if (bpf_xdp_query(q->ifindex, 0, &o)) {
		q->err = -errno;
		return;
	}
	if (o.skb_prog_id)
		add(q, o.skb_prog_id, "xdp generic");
	if (o.drv_prog_id)
		add(q, o.drv_prog_id, "xdp native");
	if (o.hw_prog_id)
		add(q, o.hw_prog_id, "xdp offload");
}

static void run(struct query *q)
{
	if (q->hook == PP_HOOK_IFNAME) {
		char name[IF_NAMESIZE];

		q->n = if_indextoname((unsigned int)q->ifindex, name) != NULL;
		if (q->n && q->max)
			snprintf(q->out[0].name, sizeof(q->out[0].name), "%s", name);
		return;
	}
	if (q->hook == PP_HOOK_XDP) {
		xdp(q);
		return;
	}
	tcx(q);
	/* No clsact qdisc (-EINVAL, -ENOENT): no filter. */
	pp_tc_bpf_filters(q->ifindex, q->hook == PP_HOOK_TC_EGRESS, clsact_one, q);
}

static void *in_netns(void *arg)
{
	struct query *q = arg;
	int fd = open(q->nspath, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || setns(fd, CLONE_NEWNET))
		q->err = -errno;
	else
		run(q);
	if (fd >= 0)
		close(fd);
	return NULL;
}

int pp_hook_progs(const char *nspath, int ifindex, enum pp_hook hook, struct pp_hook_prog *out,
		  int max)
{
	struct query q = {
		.nspath = nspath, .ifindex = ifindex, .hook = hook, .out = out, .max = max};
	pthread_t t;
	int err;

	if (!nspath) {
		run(&q);
	} else {
		err = pthread_create(&t, NULL, in_netns, &q);
		if (err)
			return -err;
		pthread_join(t, NULL);
	}
	return q.err ? q.err : q.n;
}

#define PP_READER_MAX 8

struct ask {
	__u32 netns; /* the namespace's inode */
	int ifindex, hook;
};

struct answer {
	int n;
	struct pp_hook_prog v[PP_READER_MAX];
};

/* Q answered: the namespace found by its inode (the reader's own needs no setns). */
static void answer(const struct ask *q, __u32 own, struct answer *a)
{
	char path[PP_SCOPE_PATH];

	memset(a, 0, sizeof(*a));
	if (q->netns != own && pp_scope_path_of("", q->netns, path, sizeof(path))) {
		a->n = -ENOENT;
		return;
	}
	a->n = pp_hook_progs(q->netns == own ? NULL : path, q->ifindex, (enum pp_hook)q->hook, a->v,
			     PP_READER_MAX);
}

/*
 * The reader's life: the capabilities its answers need and no other, the
 * parent's seccomp filter, then a question and an answer until the socket
 * closes. Ctrl-C is the parent's to handle.
 */
static void serve(int fd)
{
	__u64 keep = 1ULL << CAP_SYS_ADMIN | 1ULL << CAP_NET_ADMIN;
	struct stat st;
	struct answer a;
	struct ask q;
	char err[256];

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	if (stat("/proc/self/ns/net", &st) || pp_privs_drop(keep, err, sizeof(err)) ||
	    pp_privs_seccomp(err, sizeof(err)))
		_exit(1);
	while (read(fd, &q, sizeof(q)) == (ssize_t)sizeof(q)) {
		answer(&q, (__u32)st.st_ino, &a);
		if (write(fd, &a, sizeof(a)) != (ssize_t)sizeof(a))
			break;
	}
	_exit(0);
}

int pp_hook_reader_start(struct pp_hook_reader *r)
{
	int sv[2];
	pid_t pid;

	r->fd = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -errno;
	}
	if (!pid) {
		/* Gone with pktpath, whatever ends it; nothing of pktpath's held open. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (dup2(sv[1], 3) < 0)
			_exit(1);
		close_range(4, ~0U, 0);
		serve(3);
	}
	close(sv[1]);
	r->fd = sv[0];
	r->pid = pid;
	return 0;
}

int pp_hook_reader_ask(struct pp_hook_reader *r, __u32 netns, int ifindex, enum pp_hook hook,
		       struct pp_hook_prog *out, int max)
{
	struct ask q = {.netns = netns, .ifindex = ifindex, .hook = hook};
	struct answer a;

	if (r->fd < 0)
		return -ENOTCONN;
	if (write(r->fd, &q, sizeof(q)) != (ssize_t)sizeof(q) ||
	    read(r->fd, &a, sizeof(a)) != (ssize_t)sizeof(a))
		return -EIO;
	for (int i = 0; i < a.n && i < max && i < PP_READER_MAX; i++)
		out[i] = a.v[i];
	return a.n;
}

void pp_hook_reader_stop(struct pp_hook_reader *r)
{
	if (r->fd < 0)
		return;
	close(r->fd);
	r->fd = -1;
	while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
		;
}
