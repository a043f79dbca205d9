/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Functions of loaded modules (veth_xmit, br_forward, nf_conntrack_in on a
 * distribution kernel) are in the modules' BTF, split on vmlinux's.
 */
#ifndef PP_MODULE_BTF_H
#define PP_MODULE_BTF_H

#include <stddef.h>

struct btf;
struct pp_probe_list;

struct pp_module {
	char name[64];
	struct btf *btf;
	int fd; /* the kernel's BTF object of the module, for fentry; 0 if not found */
};

struct pp_modules {
	struct pp_module *v;
	size_t n, cap;
};

/* Resolve the function entries vmlinux's BTF lacks against loaded modules. */
int pp_modules_resolve(struct pp_modules *m, struct pp_probe_list *l, struct btf *vmlinux);
/*
 * The same against the modules of M, already loaded (split on VMLINUX): the
 * first module, in M's order, whose own types have the function wins.
 */
void pp_modules_resolve_loaded(struct pp_modules *m, struct pp_probe_list *l,
			       const struct btf *vmlinux);
void pp_modules_free(struct pp_modules *m);

#endif
