// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "probes/drop_count.h"
#include "probes/skipped.h"
#include "bpf_settings.h" /* the skeleton's rodata */
#include "drops.skel.h"

int pp_drop_count_start(struct pp_drop_count *d, bool reasons, char *err, size_t errlen)
{
	struct bpf_program *keep, *other;
	const char *step = "open";
	int ret = 0;

	memset(d, 0, sizeof(*d));
	d->ncpus = libbpf_num_possible_cpus();
	d->percpu = d->ncpus > 0 ? calloc((size_t)d->ncpus, sizeof(*d->percpu)) : NULL;
	d->skel = d->percpu ? drops__open() : NULL;
	if (!d->skel)
		ret = -ENOMEM;
	if (!ret) {
		keep = reasons ? d->skel->progs.pp_drop_count
			       : d->skel->progs.pp_drop_count_noreason;
		other = reasons ? d->skel->progs.pp_drop_count_noreason
				: d->skel->progs.pp_drop_count;
		bpf_program__set_autoload(other, false);
		step = "load";
		ret = drops__load(d->skel);
	}
	if (!ret) {
		step = "attach";
		d->link = bpf_program__attach(keep);
		ret = d->link ? 0 : -errno;
	}
	if (ret)
		snprintf(err, errlen, "--agent: cannot %s the drop counter at skb:kfree_skb: %s",
			 step, strerror(-ret));
	return ret;
}

int pp_drop_count_read(const struct pp_drop_count *d, pp_drop_fn fn, void *arg)
{
	int fd = bpf_map__fd(d->skel->maps.drop_counts);
	struct pp_drop_key k, next;
	const void *prev = NULL;
	__u64 total;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, d->percpu))
			continue; /* entries are never deleted: not reached */
		total = 0;
		for (int c = 0; c < d->ncpus; c++)
			total += d->percpu[c];
		fn(arg, &k, total);
	}
	return errno == ENOENT ? 0 : -errno;
}

__u64 pp_drop_count_unkeyed(const struct pp_drop_count *d)
{
	__u32 zero = 0;
	__u64 total = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(d->skel->maps.drop_unkeyed), &zero, d->percpu))
		return 0;
	for (int c = 0; c < d->ncpus; c++)
		total += d->percpu[c];
	return total;
}

int pp_drop_count_fd(const struct pp_drop_count *d)
{
	return bpf_map__fd(d->skel->maps.drop_counts);
}

__u64 pp_drop_count_skipped(const struct pp_drop_count *d)
{
	return d->skel ? pp_object_skipped(d->skel->obj) : 0;
}

void pp_drop_count_stop(struct pp_drop_count *d)
{
	bpf_link__destroy(d->link);
	drops__destroy(d->skel);
	free(d->percpu);
	memset(d, 0, sizeof(*d));
}
