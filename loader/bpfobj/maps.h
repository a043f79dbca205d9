/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps that the classifier and the probes share (bpf/maps.bpf.h):
 * created once, sized from the command line, handed to each BPF object
 * before its load, and read by the loader through the fds below.
 */
#ifndef PP_MAPS_H
#define PP_MAPS_H

#include <stdbool.h>
#include <linux/types.h>

struct maps;
struct bpf_object;

struct pp_maps_opts {
	__u32 max_packets; /* skb_map and head_map entries, 0 = default */
	__u32 ring_size;   /* path_map bytes, 0 = default */
	__u32 stacks;	   /* stack_map entries (--stack), 0 = 1: none kept */
	bool scope_flows;  /* a cgroup scope: scope_flow_map full size, else 1 entry */
	/*
	 * pp_state.orphan_ns from the start (--packet-timeout): a copy may join
	 * its packet only within it, so before it is set none joins.
	 */
	__u64 orphan_ns;
};

/* Each fd is that of the map of its name. */
struct pp_maps {
	struct maps *skel;
	int skb_map, head_map, path_map, state_map, lost_map, end_lost_map, stack_map;
	int sock_maker_map;
};

/* Create the maps: 0 or -errno, and then M holds nothing. */
int pp_maps_create(struct pp_maps *m, const struct pp_maps_opts *o);

/*
 * OBJ, opened and not loaded, uses M's maps in place of each it declares
 * (its own .rodata and the like aside): all must be M's, or -ENOENT.
 */
int pp_maps_share(const struct pp_maps *m, struct bpf_object *obj);

void pp_maps_destroy(struct pp_maps *m);

#endif
