// SPDX-License-Identifier: GPL-2.0
/*
 * Loads the reference programs of hop_floor.bpf.c on each tracepoint named on
 * the command line (each must carry the skb as its first argument), prints
 * "hop_floor: ready" on stderr and waits for SIGINT or SIGTERM. The caller
 * reads the programs' run_time_ns / run_cnt (kernel.bpf_stats_enabled=1)
 * while traffic flows; see bench/netbench.sh.
 *
 * With -e, only pb_empty, on any tracepoints: the traffic cost of the
 * tracepoints and of calling a BPF program at all, which no program body
 * can remove.
 *
 * With -g, the gate twins of bench/host_cost.sh instead: on each HOOK, in
 * bench/hook_empty.c's words, the least a program with pktpath's in-flight
 * gate runs there (pb_gate1..5 on btf:NAME[:N], N the skb's argument as
 * pktpath's pp_tpN takes it, 1 if not given; pb_gate_raw on raw:NAME), all
 * sharing the first object's maps, as pktpath's programs share theirs.
 * Prints "PROG_ID HOOK" per hook on stdout (HOOK without :N).
 *
 * Usage: hop_floor [-e] TRACEPOINT...   e.g. hop_floor netif_receive_skb net_dev_queue
 *        hop_floor -g HOOK...           e.g. hop_floor -g btf:tcp_probe:2 raw:kmem_cache_free
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf_settings.h" /* the skeleton's rodata */
#include "hop_floor.skel.h"

#define MAX_TPS 64

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

/* The gate twins are loaded only with -g: each is bound to its own hook. */
static int gates_off(struct hop_floor *o)
{
	struct bpf_program *gates[] = {o->progs.pb_gate1, o->progs.pb_gate2, o->progs.pb_gate3,
				       o->progs.pb_gate4, o->progs.pb_gate5, o->progs.pb_gate_raw};
	int err = 0;

	for (size_t i = 0; i < sizeof(gates) / sizeof(gates[0]) && !err; i++)
		err = bpf_program__set_autoload(gates[i], false);
	return err;
}

/* Binds every program to tp; with empty_only, only pb_empty is loaded. */
static int set_targets(struct hop_floor *o, const char *tp, bool empty_only)
{
	struct bpf_program *progs[] = {o->progs.pb_empty,  o->progs.pb_gate, o->progs.pb_inline,
				       o->progs.pb_lookup, o->progs.pb_ring, o->progs.pb_reads,
				       o->progs.pb_direct};
	int err = gates_off(o);

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]) && !err; i++) {
		err = bpf_program__set_attach_target(progs[i], 0, tp);
		if (!err && empty_only && progs[i] != o->progs.pb_empty)
			err = bpf_program__set_autoload(progs[i], false);
	}
	return err;
}

/* One object per tracepoint: a tp_btf program is bound to its target at load. */
static struct hop_floor *load_one(const char *tp, bool empty_only)
{
	struct hop_floor *o = hop_floor__open();
	int err = o ? set_targets(o, tp, empty_only) : -ENOMEM;

	/* Nothing is ever recorded or tracked here: keep the maps small. */
	if (!err)
		err = bpf_map__set_max_entries(o->maps.path_map, 4096);
	if (!err)
		err = bpf_map__set_max_entries(o->maps.skb_map, 64);
	if (!err)
		err = hop_floor__load(o);
	if (!err)
		err = hop_floor__attach(o);
	if (err) {
		fprintf(stderr, "hop_floor: %s: %s\n", tp, strerror(err < 0 ? -err : err));
		hop_floor__destroy(o);
		return NULL;
	}
	return o;
}

/*
 * -g: the gate twin for HOOK (btf:NAME[:N] or raw:NAME), the only program
 * left to load; *tp is the tracepoint's name, copied into buf.
 */
static struct bpf_program *gate_prog(struct hop_floor *o, const char *hook, char *buf, size_t len,
				     const char **tp)
{
	struct bpf_program *at[] = {o->progs.pb_gate1, o->progs.pb_gate2, o->progs.pb_gate3,
				    o->progs.pb_gate4, o->progs.pb_gate5};
	struct bpf_program *prog, *p;
	bool btf = !strncmp(hook, "btf:", 4);
	const char *colon;
	long n = 1;

	if (!btf && strncmp(hook, "raw:", 4))
		return NULL;
	snprintf(buf, len, "%s", hook + 4);
	colon = btf ? strchr(buf, ':') : NULL;
	if (colon) {
		n = strtol(colon + 1, NULL, 10);
		buf[colon - buf] = 0;
	}
	if (n < 1 || n > (long)(sizeof(at) / sizeof(at[0])))
		return NULL;
	prog = btf ? at[n - 1] : o->progs.pb_gate_raw;
	bpf_object__for_each_program(p, o->obj) {
		if (bpf_program__set_autoload(p, p == prog))
			return NULL;
	}
	*tp = buf;
	return prog;
}

/* -g: maps of o taken from first (NULL: o's own, kept small: nothing is in flight). */
static int gate_maps(struct hop_floor *o, const struct hop_floor *first)
{
	struct bpf_map *m;
	int err = 0;

	if (!first) {
		err = bpf_map__set_max_entries(o->maps.path_map, 4096);
		return err ? err : bpf_map__set_max_entries(o->maps.skb_map, 64);
	}
	bpf_object__for_each_map(m, o->obj)
	{
		const struct bpf_map *f;

		if (bpf_map__is_internal(m))
			continue;
		f = bpf_object__find_map_by_name(first->obj, bpf_map__name(m));
		err = f ? bpf_map__reuse_fd(m, bpf_map__fd(f)) : -ENOENT;
		if (err)
			break;
	}
	return err;
}

static __u32 prog_id(const struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) ? 0 : info.id;
}

/* -g: the gate twin on HOOK, on FIRST's maps; prints "PROG_ID HOOK". */
static struct hop_floor *load_gate(const char *hook, const struct hop_floor *first)
{
	struct hop_floor *o = hop_floor__open();
	struct bpf_program *prog;
	const char *tp = NULL;
	char buf[128];
	int err = o ? 0 : -ENOMEM;

	prog = o ? gate_prog(o, hook, buf, sizeof(buf), &tp) : NULL;
	if (!err && !prog)
		err = -EINVAL;
	if (!err && prog != o->progs.pb_gate_raw)
		err = bpf_program__set_attach_target(prog, 0, tp);
	if (!err)
		err = gate_maps(o, first);
	if (!err)
		err = hop_floor__load(o);
	if (!err && prog == o->progs.pb_gate_raw) {
		o->links.pb_gate_raw = bpf_program__attach_raw_tracepoint(prog, tp);
		err = o->links.pb_gate_raw ? 0 : -errno;
	} else if (!err) {
		err = hop_floor__attach(o);
	}
	if (err) {
		fprintf(stderr, "hop_floor: %s: %s\n", hook, strerror(err < 0 ? -err : err));
		hop_floor__destroy(o);
		return NULL;
	}
	printf("%u %s%s\n", prog_id(prog), prog == o->progs.pb_gate_raw ? "raw:" : "btf:", tp);
	return o;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_signal};
	struct hop_floor *objs[MAX_TPS] = {};
	bool empty_only = argc > 1 && !strcmp(argv[1], "-e");
	bool gates = argc > 1 && !strcmp(argv[1], "-g");
	int first = empty_only || gates ? 2 : 1, n = argc - first, ret = 0;

	if (n < 1 || n > MAX_TPS) {
		fprintf(stderr, "usage: hop_floor [-e] TRACEPOINT... | -g HOOK... (1 to %d)\n",
			MAX_TPS);
		return 2;
	}
	libbpf_set_print(libbpf_quiet);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (int i = 0; i < n && !ret; i++) {
		objs[i] = gates ? load_gate(argv[first + i], objs[0])
				: load_one(argv[first + i], empty_only);
		ret = objs[i] ? 0 : 1;
	}
	fflush(stdout);
	if (!ret) {
		fprintf(stderr, "hop_floor: ready: %d tracepoints\n", n);
		while (!stop)
			pause();
	}
	for (int i = 0; i < n; i++)
		hop_floor__destroy(objs[i]);
	return ret;
}
