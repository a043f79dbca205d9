// SPDX-License-Identifier: GPL-2.0
/*
 * Attaches an empty program (bench/hook_empty.bpf.c) to each hook named on
 * the command line, prints "PROG_ID HOOK" per hook on stdout, then
 * "hook_empty: ready" on stderr, and waits for SIGINT or SIGTERM. The caller
 * reads run_time_ns / run_cnt of those ids (kernel.bpf_stats_enabled=1)
 * beside pktpath's programs on the same hooks: see bench/host_cost.sh; or
 * its presence costs traffic: bench/netbench.sh's floor-all.
 *
 * Usage: hook_empty HOOK...   where HOOK is raw:NAME (a raw tracepoint),
 *        perf:CATEGORY:NAME (a tracepoint through a perf event), btf:NAME
 *        (a tp_btf program), tc:IFACE:ingress|egress (a classifier on
 *        IFACE of this network namespace: tcx, or clsact where the kernel
 *        has no tcx, as pktpath chooses for one interface) or
 *        cgroup:ingress:DIR (cgroup_skb ingress on cgroup v2 directory DIR)
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "hook_empty.skel.h"

#define MAX_HOOKS 64

#ifndef BPF_TCX_INGRESS /* Debian 12's uapi headers predate Linux 6.6 */
#define BPF_TCX_INGRESS 46
#define BPF_TCX_EGRESS	47
#endif

/* One hook: its object, and for a clsact filter what detaching it takes. */
struct hook {
	struct hook_empty *o;
	struct bpf_tc_hook tc;
	struct bpf_tc_opts tc_opts;
	int tcx_fd; /* the tcx link, or -1 */
	bool clsact, clsact_created;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* The program of HOOK's kind, the only one loaded: each object is one hook. */
static struct bpf_program *kind_prog(struct hook_empty *o, const char *hook, const char **name)
{
	struct {
		const char *prefix;
		struct bpf_program *prog;
	} kinds[] = {{"raw:", o->progs.he_raw},
		     {"perf:", o->progs.he_perf},
		     {"btf:", o->progs.he_btf},
		     {"tc:", o->progs.he_tc},
		     {"cgroup:ingress:", o->progs.he_cg}};
	struct bpf_program *found = NULL;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i].prefix);
		int match = !strncmp(hook, kinds[i].prefix, n);

		bpf_program__set_autoload(kinds[i].prog, match);
		if (match) {
			found = kinds[i].prog;
			*name = hook + n;
		}
	}
	return found;
}

/*
 * NAME is IFACE:ingress or IFACE:egress. tcx first; before Linux 6.6 the
 * attach type is unknown (EINVAL) and a clsact filter goes in its place,
 * made on a clsact qdisc created here if there was none.
 */
static int attach_tc(struct bpf_program *prog, const char *name, struct hook *h)
{
	char ifname[IF_NAMESIZE];
	const char *colon = strrchr(name, ':');
	int egress = colon && !strcmp(colon + 1, "egress"), ret;
	unsigned int ifindex;

	if (!colon || (!egress && strcmp(colon + 1, "ingress")) ||
	    (size_t)(colon - name) >= sizeof(ifname))
		return -EINVAL;
	snprintf(ifname, sizeof(ifname), "%.*s", (int)(colon - name), name);
	ifindex = if_nametoindex(ifname);
	if (!ifindex)
		return -errno;
	/* libbpf 1.1 (Debian 12) has no bpf_program__attach_tcx(). */
	h->tcx_fd = bpf_link_create(bpf_program__fd(prog), (int)ifindex,
				    egress ? BPF_TCX_EGRESS : BPF_TCX_INGRESS, NULL);
	if (h->tcx_fd >= 0 || errno != EINVAL)
		return h->tcx_fd >= 0 ? 0 : -errno;
	h->tc = (struct bpf_tc_hook){.sz = sizeof(h->tc),
				     .ifindex = (int)ifindex,
				     .attach_point = egress ? BPF_TC_EGRESS : BPF_TC_INGRESS};
	h->tc_opts =
		(struct bpf_tc_opts){.sz = sizeof(h->tc_opts), .prog_fd = bpf_program__fd(prog)};
	ret = bpf_tc_hook_create(&h->tc);
	h->clsact_created = ret == 0;
	if (!ret || ret == -EEXIST)
		ret = bpf_tc_attach(&h->tc, &h->tc_opts);
	h->clsact = ret == 0;
	return ret;
}

static struct bpf_link *attach(struct bpf_program *prog, const char *hook, const char *name,
			       struct hook *h)
{
	char cat[64];
	const char *colon;

	if (!strncmp(hook, "tc:", 3)) {
		int ret = attach_tc(prog, name, h);

		errno = -ret;
		return NULL; /* no bpf_link: see tcx_fd, clsact */
	}
	if (!strncmp(hook, "cgroup:", 7)) {
		int fd = open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		struct bpf_link *link = fd < 0 ? NULL : bpf_program__attach_cgroup(prog, fd);

		if (fd >= 0)
			close(fd);
		return link;
	}
	if (!strncmp(hook, "raw:", 4))
		return bpf_program__attach_raw_tracepoint(prog, name);
	if (!strncmp(hook, "btf:", 4))
		return bpf_program__attach(prog);
	colon = strchr(name, ':');
	if (!colon || (size_t)(colon - name) >= sizeof(cat)) {
		errno = EINVAL;
		return NULL;
	}
	snprintf(cat, sizeof(cat), "%.*s", (int)(colon - name), name);
	return bpf_program__attach_tracepoint(prog, cat, colon + 1);
}

static __u32 prog_id(const struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) ? 0 : info.id;
}

static void unload(struct hook *h)
{
	if (h->tcx_fd >= 0)
		close(h->tcx_fd);
	if (h->clsact) {
		/* The kernel fills in handle and priority; detach wants no prog_fd. */
		h->tc_opts.prog_fd = 0;
		h->tc_opts.prog_id = 0;
		h->tc_opts.flags = 0;
		bpf_tc_detach(&h->tc, &h->tc_opts);
	}
	if (h->clsact_created) {
		h->tc.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&h->tc);
	}
	hook_empty__destroy(h->o);
	*h = (struct hook){.tcx_fd = -1};
}

static int load_one(const char *hook, struct hook *h)
{
	struct hook_empty *o = hook_empty__open();
	const char *name = NULL;
	struct bpf_program *prog = o ? kind_prog(o, hook, &name) : NULL;
	struct bpf_link *link = NULL;
	int err = prog ? 0 : -EINVAL;

	if (!err && !strncmp(hook, "btf:", 4))
		err = bpf_program__set_attach_target(prog, 0, name);
	if (!err)
		err = hook_empty__load(o);
	h->o = o;
	if (!err) {
		link = attach(prog, hook, name, h);
		err = link || h->tcx_fd >= 0 || h->clsact ? 0 : -errno;
	}
	if (err) {
		fprintf(stderr, "hook_empty: %s: %s\n", hook, strerror(-err));
		unload(h);
		return -1;
	}
	o->links.he_raw = link; /* destroyed with the object */
	printf("%u %s\n", prog_id(prog), hook);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_signal};
	static struct hook hooks[MAX_HOOKS];
	int n = argc - 1, ret = 0;

	if (n < 1 || n > MAX_HOOKS) {
		fprintf(stderr,
			"usage: hook_empty HOOK... (1 to %d; raw:NAME, perf:CAT:NAME, btf:NAME,"
			" tc:IFACE:ingress|egress, cgroup:ingress:DIR)\n",
			MAX_HOOKS);
		return 2;
	}
	libbpf_set_print(libbpf_quiet);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (int i = 0; i < MAX_HOOKS; i++)
		hooks[i].tcx_fd = -1;
	for (int i = 0; i < n && !ret; i++) {
		ret = load_one(argv[1 + i], &hooks[i]) ? 1 : 0;
	}
	fflush(stdout);
	if (!ret) {
		fprintf(stderr, "hook_empty: ready: %d hooks\n", n);
		while (!stop)
			pause();
	}
	for (int i = 0; i < n; i++)
		unload(&hooks[i]);
	return ret;
}
