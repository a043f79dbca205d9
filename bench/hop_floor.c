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
 * Usage: hop_floor [-e] TRACEPOINT...   e.g. hop_floor netif_receive_skb net_dev_queue
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
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

/* Binds every program to tp; with empty_only, only pb_empty is loaded. */
static int set_targets(struct hop_floor *o, const char *tp, bool empty_only)
{
	struct bpf_program *progs[] = {o->progs.pb_empty,  o->progs.pb_gate, o->progs.pb_inline,
				       o->progs.pb_lookup, o->progs.pb_ring, o->progs.pb_reads,
				       o->progs.pb_direct};
	int err = 0;

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

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_signal};
	struct hop_floor *objs[MAX_TPS] = {};
	bool empty_only = argc > 1 && !strcmp(argv[1], "-e");
	int first = empty_only ? 2 : 1, n = argc - first, ret = 0;

	if (n < 1 || n > MAX_TPS) {
		fprintf(stderr, "usage: hop_floor [-e] TRACEPOINT... (1 to %d)\n", MAX_TPS);
		return 2;
	}
	libbpf_set_print(libbpf_quiet);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (int i = 0; i < n && !ret; i++) {
		objs[i] = load_one(argv[first + i], empty_only);
		ret = objs[i] ? 0 : 1;
	}
	if (!ret) {
		fprintf(stderr, "hop_floor: ready: %d tracepoints\n", n);
		while (!stop)
			pause();
	}
	for (int i = 0; i < n; i++)
		hop_floor__destroy(objs[i]);
	return ret;
}
