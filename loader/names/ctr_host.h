/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A container on the host's network (`podman run --network host`): no
 * network namespace of its own names it, so it is found by its processes.
 * BPF-free; ROOT lets the unit tests play a host of their own.
 */
#ifndef PP_CTR_HOST_H
#define PP_CTR_HOST_H

#include <linux/types.h>
#include "names/ctr_meta.h"

/*
 * The lowest pid under ROOT of a process on the host's network (PID 1's
 * namespace, or the first one the kernel made) whose container NAME names
 * (pp_ctr_matches()), with that container into *C; 0 if none.
 */
int pp_ctr_host_pid(const char *root, const char *name, struct pp_ctr *c);

#endif /* PP_CTR_HOST_H */
