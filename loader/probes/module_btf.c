// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "base/grow.h"
#include "probes/module_btf.h"
#include "probes/probe_btf.h"
#include "probes/probe_list.h"

static bool unresolved(const struct pp_probe *p)
{
	return p->kind == PP_PROBE_FUNC && p->skip == PP_SKIP_FUNC_NO_BTF;
}

static int load_modules(struct pp_modules *m, struct btf *vmlinux)
{
	DIR *d = opendir("/sys/kernel/btf");
	struct dirent *e;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		struct pp_module *v;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "vmlinux"))
			continue;
		if (PP_GROW(m->v, m->cap, m->n + 1, 32))
			break;
		v = &m->v[m->n];
		memset(v, 0, sizeof(*v));
		snprintf(v->name, sizeof(v->name), "%.63s", e->d_name);
		v->btf = btf__load_module_btf(v->name, vmlinux);
		m->n += v->btf != NULL;
	}
	closedir(d);
	return 0;
}

/* fentry on a module function names the module's BTF object by fd. */
static int module_btf_fd(const char *name)
{
	char got[64];
	__u32 id = 0;

	while (bpf_btf_get_next_id(id, &id) == 0) {
		struct bpf_btf_info info = {.name = (__u64)(unsigned long)got,
					    .name_len = sizeof(got)};
		__u32 len = sizeof(info);
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.kernel_btf &&
		    !strcmp(got, name))
			return fd;
		close(fd);
	}
	return 0;
}

/*
 * The first function named NAME among the module's own types, those past
 * vmlinux's (split BTF), or -ENOENT. libbpf 1.1's btf__find_by_name_kind()
 * walks vmlinux's types first, for each module: some 150,000 compares per
 * name and module, seconds in all in an emulated VM, to find nothing there
 * (the names asked for are those vmlinux's BTF lacks).
 */
static int own_func(const struct btf *mod, __u32 start, const char *name)
{
	__u32 cnt = btf__type_cnt(mod);

	for (__u32 id = start; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(mod, id);

		if (t && btf_is_func(t) && !strcmp(btf__name_by_offset(mod, t->name_off), name))
			return (int)id;
	}
	return -ENOENT;
}

static void resolve_in(struct pp_probe *p, struct pp_module *mod, __u32 start)
{
	int id = own_func(mod->btf, start, p->target);

	if (id <= 0)
		return;
	p->skip = PP_SKIP_NONE;
	pp_probe_resolve_func(p, mod->btf, id);
	if (!mod->fd)
		mod->fd = module_btf_fd(mod->name);
	p->btf_obj_fd = mod->fd;
}

int pp_modules_resolve(struct pp_modules *m, struct pp_probe_list *l, struct btf *vmlinux)
{
	bool any = false;
	int err;

	for (size_t i = 0; i < l->n && !any; i++)
		any = unresolved(&l->v[i]);
	if (!any)
		return 0;
	err = load_modules(m, vmlinux);
	if (!err)
		pp_modules_resolve_loaded(m, l, vmlinux);
	return err;
}

void pp_modules_resolve_loaded(struct pp_modules *m, struct pp_probe_list *l,
			       const struct btf *vmlinux)
{
	for (size_t i = 0; i < l->n; i++)
		for (size_t j = 0; j < m->n && unresolved(&l->v[i]); j++)
			resolve_in(&l->v[i], &m->v[j], btf__type_cnt(vmlinux));
}

void pp_modules_free(struct pp_modules *m)
{
	for (size_t i = 0; i < m->n; i++) {
		btf__free(m->v[i].btf);
		if (m->v[i].fd > 0)
			close(m->v[i].fd);
	}
	free(m->v);
	memset(m, 0, sizeof(*m));
}
