// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "pktpath.h"
#include "bpfobj/maps.h"
#include "maps.skel.h"

static int size_maps(struct maps *s, const struct pp_maps_opts *o)
{
	int err = 0;

	if (o->max_packets)
		err = bpf_map__set_max_entries(s->maps.skb_map, o->max_packets);
	if (!err && o->max_packets)
		err = bpf_map__set_max_entries(s->maps.head_map, o->max_packets);
	if (!err && o->ring_size)
		err = bpf_map__set_max_entries(s->maps.path_map, o->ring_size);
	if (!err && !o->scope_flows)
		err = bpf_map__set_max_entries(s->maps.scope_flow_map, 1);
	if (!err && o->stacks)
		err = bpf_map__set_max_entries(s->maps.stack_map, o->stacks);
	return err;
}

static void keep_fds(struct pp_maps *m)
{
	m->skb_map = bpf_map__fd(m->skel->maps.skb_map);
	m->head_map = bpf_map__fd(m->skel->maps.head_map);
	m->path_map = bpf_map__fd(m->skel->maps.path_map);
	m->state_map = bpf_map__fd(m->skel->maps.state_map);
	m->lost_map = bpf_map__fd(m->skel->maps.lost_map);
	m->end_lost_map = bpf_map__fd(m->skel->maps.end_lost_map);
	m->stack_map = bpf_map__fd(m->skel->maps.stack_map);
	m->sock_maker_map = bpf_map__fd(m->skel->maps.sock_maker_map);
}

/* The state the probes read before the loader's trace loop runs. */
static int set_state(struct pp_maps *m, const struct pp_maps_opts *o)
{
	struct pp_state st = {.orphan_ns = o->orphan_ns};
	__u32 zero = 0;
	int err;

	if (!bpf_map_update_elem(m->state_map, &zero, &st, BPF_ANY))
		return 0;
	err = -errno;
	pp_maps_destroy(m);
	return err;
}

int pp_maps_create(struct pp_maps *m, const struct pp_maps_opts *o)
{
	int err;

	memset(m, 0, sizeof(*m));
	m->skel = maps__open();
	if (!m->skel)
		return -errno;
	err = size_maps(m->skel, o);
	if (!err)
		err = maps__load(m->skel);
	if (err) {
		pp_maps_destroy(m);
		return err;
	}
	keep_fds(m);
	return set_state(m, o);
}

int pp_maps_share(const struct pp_maps *m, struct bpf_object *obj)
{
	struct bpf_map *map, *mine;
	int err = 0;

	bpf_object__for_each_map(map, obj)
	{
		if (bpf_map__is_internal(map))
			continue;
		mine = bpf_object__find_map_by_name(m->skel->obj, bpf_map__name(map));
		err = mine ? bpf_map__reuse_fd(map, bpf_map__fd(mine)) : -ENOENT;
		if (err)
			return err;
	}
	return 0;
}

void pp_maps_destroy(struct pp_maps *m)
{
	maps__destroy(m->skel);
	memset(m, 0, sizeof(*m));
}
