/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the probes' layer takes from the command line: the backend a probe
 * attaches with. cli.h (the commands' layer) includes it, so that nothing
 * below the commands includes cli.h (scripts/check-layers.py).
 */
#ifndef PP_SETTINGS_H
#define PP_SETTINGS_H

enum pp_backend {
	PP_BACKEND_AUTO,
	PP_BACKEND_KPROBE_MULTI,
	PP_BACKEND_KPROBE,
	PP_BACKEND_FENTRY,
	PP_BACKEND_TRACEPOINT,
};

#endif
