// SPDX-License-Identifier: GPL-2.0
/*
 * Attaches an empty program (bench/hook_empty.bpf.c) to each hook named on
 * the command line, prints "PROG_ID HOOK" per hook on stdout, then
 * "hook_empty: ready" on stderr, and waits for SIGINT or SIGTERM. The caller
 * reads run_time_ns / run_cnt of those ids (kernel.bpf_stats_enabled=1)
 * beside pktpath's programs on the same hooks: see bench/host_cost.sh.
 *
 * Usage: hook_empty HOOK...   where HOOK is raw:NAME (a raw tracepoint),
 *        perf:CATEGORY:NAME (a tracepoint through a perf event) or btf:NAME
 *        (a tp_btf program)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "hook_empty.skel.h"

#define MAX_HOOKS 64

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
	} kinds[] = {
		{"raw:", o->progs.he_raw}, {"perf:", o->progs.he_perf}, {"btf:", o->progs.he_btf}};
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

static struct bpf_link *attach(struct bpf_program *prog, const char *hook, const char *name)
{
	char cat[64];
	const char *colon;

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

static struct hook_empty *load_one(const char *hook)
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
	if (!err) {
		link = attach(prog, hook, name);
		err = link ? 0 : -errno;
	}
	if (err) {
		fprintf(stderr, "hook_empty: %s: %s\n", hook, strerror(-err));
		hook_empty__destroy(o);
		return NULL;
	}
	o->links.he_raw = link; /* destroyed with the object */
	printf("%u %s\n", prog_id(prog), hook);
	return o;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_signal};
	struct hook_empty *objs[MAX_HOOKS] = {};
	int n = argc - 1, ret = 0;

	if (n < 1 || n > MAX_HOOKS) {
		fprintf(stderr,
			"usage: hook_empty HOOK... (1 to %d; raw:NAME, perf:CAT:NAME, btf:NAME)\n",
			MAX_HOOKS);
		return 2;
	}
	libbpf_set_print(libbpf_quiet);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (int i = 0; i < n && !ret; i++) {
		objs[i] = load_one(argv[1 + i]);
		ret = objs[i] ? 0 : 1;
	}
	fflush(stdout);
	if (!ret) {
		fprintf(stderr, "hook_empty: ready: %d hooks\n", n);
		while (!stop)
			pause();
	}
	for (int i = 0; i < n; i++)
		hook_empty__destroy(objs[i]);
	return ret;
}
