// SPDX-License-Identifier: GPL-2.0
/*
 * The shared maps (maps.bpf.h) in an object of their own, with no program:
 * the loader creates them from it once, sized from the command line, and
 * hands them by name to the classifier and the probe objects
 * (loader/bpfobj/maps.c).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "maps.bpf.h"
