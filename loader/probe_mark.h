/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Marking in probes: the filter for packets that start at the IP header,
 * spliced over the body of pp_filter_l3() in the probe object.
 */
#ifndef PP_PROBE_MARK_H
#define PP_PROBE_MARK_H

#include <stddef.h>

struct bpf_insn;

/* Before the probe object is opened: the translation to splice (NULL: none). */
int pp_probe_mark_prepare(const struct bpf_insn *insns, size_t cnt);
/* After it is loaded: free what the splice kept alive. */
void pp_probe_mark_done(void);

#endif
