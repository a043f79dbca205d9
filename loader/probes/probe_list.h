/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe list: kp_func.list and --probe, parsed without BPF or BTF.
 * Each entry becomes one probe index (its position in the list).
 * probe_btf.h fills in what the running kernel says about each entry.
 */
#ifndef PP_PROBE_LIST_H
#define PP_PROBE_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "probes/plan.h"

#define PP_PROBE_LIST_FILE  "kp_func.list"     /* --detail full */
#define PP_PROBE_SHORT_FILE "kp_func.min.list" /* --detail short, the default */
#define PP_PROBE_NAME_MAX   127 /* longest entry as written, a kernel symbol's limit */

enum pp_probe_kind {
	PP_PROBE_FUNC,
	PP_PROBE_TP,
};

struct pp_probe {
	char *name;	/* as written: "ip_rcv" or "tp:net:netif_receive_skb" */
	char *target;	/* function name, or the tracepoint's NAME part */
	char *category; /* tracepoints only, else NULL */
	enum pp_probe_kind kind;
	/*
	 * Functions: 1..5, the skb argument's position. Tracepoints: 0-based
	 * index of the skb among the tracepoint's own arguments (ctx[i] in a
	 * tp_btf program). -1 until resolved.
	 */
	int argpos;
	__u32 btf_id;	   /* functions: BTF_KIND_FUNC id; tracepoints: typedef btf_trace_NAME */
	enum pp_skip skip; /* why it is not attached (plan.h); PP_SKIP_NONE if it is */
	int btf_obj_fd;	   /* functions of a module: its BTF object (fentry attach); 0: vmlinux */
	bool stack;	   /* --stack: its hops carry the kernel stack */
	/*
	 * "tracepoint-only" after a tracepoint's name: the function backends
	 * skip it (another probe of the list shows its step there).
	 */
	bool tp_backend_only;
};

/* Zero-initialise ({0}) for an empty list. */
struct pp_probe_list {
	struct pp_probe *v;
	size_t n, cap;
};

/* The one word a line may hold after its name: only the tracepoint backend attaches it. */
#define PP_PROBE_TP_ONLY "tracepoint-only"

/*
 * Parse one line and append it. @where ("file:line" or "--probe") starts
 * error messages. A comment or blank line adds nothing. A tracepoint may be
 * followed by PP_PROBE_TP_ONLY. A duplicate of an earlier entry is dropped,
 * but one without PP_PROBE_TP_ONLY lifts it from the earlier (--probe NAME
 * asks for NAME on every backend). Returns 0, or -EINVAL / -E2BIG / -ENOMEM
 * with @errbuf filled.
 */
int pp_probe_list_add(struct pp_probe_list *l, const char *line, const char *where, char *errbuf,
		      size_t errlen);

/*
 * Append every entry of the file at @path. Stops at the first bad line.
 * Returns 0, or a negative errno with @errbuf naming the path (and line).
 */
int pp_probe_list_load(struct pp_probe_list *l, const char *path, char *errbuf, size_t errlen);

/*
 * Which probe list to read: @explicit_path if given (even if missing, so
 * the caller reports it), else ./FILE, else DATADIR/FILE.
 * NULL if none exists. A DATADIR result lives in a static buffer that the
 * next call overwrites.
 */
const char *pp_probe_list_locate(const char *explicit_path, const char *file, const char *datadir);

/* Number of entries with a skip reason. */
size_t pp_probe_list_nskipped(const struct pp_probe_list *l);

/* Free the entries and empty the list; accepts an empty list. */
void pp_probe_list_free(struct pp_probe_list *l);

#endif /* PP_PROBE_LIST_H */
