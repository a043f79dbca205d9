/* SPDX-License-Identifier: GPL-2.0 */
/* --stack: the kernel stacks in stack_map, named with kallsyms. */
#ifndef PP_STACKS_H
#define PP_STACKS_H

#include <stddef.h>
#include <linux/types.h>
#include "kernel/ksyms.h"
#include "pktpath.h"

#define PP_FRAME_NAME 96 /* "function+0x1f2a" */
/* An offset past any kernel function's length: the address is not its. */
#define PP_FRAME_FAR 0x10000

struct pp_stacks {
	int fd;					   /* stack_map */
	const struct pp_ksyms *ksyms;		   /* NULL: frames are addresses */
	char names[PP_STACK_DEPTH][PP_FRAME_NAME]; /* the last stack named */
};

/*
 * struct pp_out's stack callback (ARG: a struct pp_stacks): the frames of
 * stack ID, innermost first, named in ARG's buffers until the next call.
 */
size_t pp_stacks_frames(__u32 id, const char **frames, size_t max, void *arg);

#endif /* PP_STACKS_H */
