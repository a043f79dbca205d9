// SPDX-License-Identifier: GPL-2.0
/*
 * The slab programs (bpf/probes.bpf.c, pp_tp_kmem_*), while packets are in
 * flight, look at objects of the two sk_buff caches only. Those caches are
 * learned before the probes load, by a small object of their own
 * (bpf/slab_learn.bpf.c) from frees it sees, and given to the probes as
 * constants: the free tracepoints, which fire for every skb of the host,
 * learn nothing (a test there cost 20 ns a free, docs/PERFORMANCE.md). The
 * head cache is learned from any packet's free, the fclone cache only from
 * a TCP skb's, which a host with no TCP may never free.
 *
 * So pktpath makes those frees itself, once, where nothing else sees them:
 * a child process in a network namespace of its own connects to a closed
 * port on that namespace's loopback. The SYN is an fclone pair's copy,
 * freed with a drop reason (no socket) at the kfree_skb tracepoint; the
 * RST, processed in the same call on the same CPU, makes TCP free the
 * pair's other half, and with it the pair's object, at kmem_cache_free.
 * The namespace goes with the child: no packet leaves it, no counter of
 * the host's namespaces moves.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include "slab_learn.skel.h"
#include "probes/slab_learn.h"
#include "base/log.h"

/* Connects tried: the learning needs the RST on the CPU of the SYN's free. */
#define PP_LEARN_TRIES 4

static bool caches_known(const struct slab_learn *s)
{
	return s->bss->pp_skb_cache && s->bss->pp_fclone_cache;
}

/* In the child's new namespace: its loopback up. */
static int loopback_up(void)
{
	struct ifreq ifr = {.ifr_name = "lo"};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = -1;

	if (fd < 0)
		return -1;
	if (!ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP;
		ret = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return ret;
}

/* One connect to 127.0.0.1:1, where nothing listens: refused at once. */
static void connect_refused(void)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(1)};
	struct timeval limit = {.tv_usec = 200000};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* A blocking connect waits this long at most (SO_SNDTIMEO). */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
	connect(fd, (struct sockaddr *)&to, sizeof(to));
	close(fd);
}

/*
 * The child: system calls only (the loader may have threads). It reads the
 * caches through the skeleton's .bss, mapped shared with its parent.
 */
static void child(const struct slab_learn *s)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	/* The SYN's free and the pair's must be on one CPU (pp_learn_slot()). */
	if (cpu >= 0) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		sched_setaffinity(0, sizeof(one), &one);
	}
	if (unshare(CLONE_NEWNET) || loopback_up())
		_exit(1);
	for (int i = 0; i < PP_LEARN_TRIES && !caches_known(s); i++)
		connect_refused();
	_exit(0);
}

/* Fork the child that makes the frees S learns from, and wait for it. */
static void make_frees(const struct slab_learn *s)
{
	int status = 0;
	pid_t pid = fork();

	if (pid < 0) {
		pp_debug("sk_buff caches: cannot fork to learn them: %s\n", strerror(errno));
		return;
	}
	if (!pid)
		child(s);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		pp_debug("sk_buff caches: no network namespace of our own to learn them in\n");
}

bool pp_slab_learn(__u64 *skb_cache, __u64 *fclone_cache)
{
	struct slab_learn *s = slab_learn__open_and_load();

	*skb_cache = *fclone_cache = 0;
	if (!s || slab_learn__attach(s)) {
		pp_debug("sk_buff caches: cannot load what learns them: %s\n", strerror(errno));
		slab_learn__destroy(s);
		return false;
	}
	make_frees(s);
	*skb_cache = s->bss->pp_skb_cache;
	*fclone_cache = s->bss->pp_fclone_cache;
	pp_debug("sk_buff caches: %s\n", caches_known(s) ? "both known"
							 : "not both known: the slab programs look "
							   "at every object");
	slab_learn__destroy(s);
	return *skb_cache && *fclone_cache;
}
