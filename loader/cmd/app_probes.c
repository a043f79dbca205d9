// SPDX-License-Identifier: GPL-2.0
/*
 * The probe list of a run (--funcs or --detail's file, --probe lines,
 * --probe-regex's BTF matches, the end points), what this kernel lets it
 * reach, and the backend that attaches it: all decided before any attach.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cmd/app.h"
#include "probes/attach.h"
#include "probes/end_points.h"
#include "probes/plan.h"
#include "probes/probe_btf.h"
#include "kernel/ftrace_funcs.h"
#include "base/log.h"

/* Skip what a probe by name cannot reach, so that --list-probes agrees with the attach. */
static void check_attachable(struct pp_app *a)
{
	struct pp_names ftrace;

	pp_kfacts_symbols(&a->facts, &ftrace, &a->ksyms);
	pp_plan_reach_all(&a->list, &a->facts);
	a->facts.ftrace = NULL;
	pp_names_free(&ftrace);
}

struct add_ctx {
	struct pp_probe_list *l;
	char *err;
	size_t errlen;
};

static int add_btf_func(const char *name, int argpos, void *arg)
{
	struct add_ctx *c = arg;

	(void)argpos;
	return pp_probe_list_add(c->l, name, "--probe-regex", c->err, c->errlen);
}

/* --probe-regex and --all-skb-funcs: functions taking an skb, from BTF. */
static int add_skb_funcs(struct pp_app *a)
{
	struct add_ctx c = {&a->list, a->err, sizeof(a->err)};
	const char *re = a->env.all_skb_funcs ? NULL : a->env.probe_regex;
	int n;

	if (!a->env.all_skb_funcs && !a->env.probe_regex)
		return 0;
	n = pp_btf_skb_funcs(a->btf, re, add_btf_func, &c);
	if (n == -EINVAL && !a->err[0])
		return pp_app_usage_error("--probe-regex: bad regular expression \"%s\"", re);
	if (n < 0)
		return pp_app_usage_error("%s", a->err);
	if (n == 0)
		return pp_app_usage_error("--probe-regex \"%s\": no kernel function taking an skb "
					  "matches",
					  re);
	return 0;
}

/* --stack NAME: its probe point's hops carry the kernel stack. */
static int mark_stacks(struct pp_app *a)
{
	for (int i = 0; i < a->env.nstacks; i++) {
		size_t j;

		for (j = 0; j < a->list.n && strcmp(a->list.v[j].name, a->env.stacks[i]); j++)
			;
		if (j == a->list.n)
			return pp_app_usage_error(
				"--stack %s: not a probe point of the list (add it "
				"with --probe %s)",
				a->env.stacks[i], a->env.stacks[i]);
		a->list.v[j].stack = true;
	}
	return 0;
}

bool pp_app_probes_full(const struct pp_app *a)
{
	return a->env.detail && !strcmp(a->env.detail, "full");
}

/* The list --detail names: the short one unless "full". */
static const char *detail_file(const struct pp_app *a)
{
	return pp_app_probes_full(a) ? PP_PROBE_LIST_FILE : PP_PROBE_SHORT_FILE;
}

/* Probe list: --funcs or --detail's, --probe lines, BTF matches, the end points. */
int pp_app_probes_load(struct pp_app *a)
{
	const char *file = detail_file(a);
	const char *path = pp_probe_list_locate(a->env.funcs, file, PKTPATH_DATADIR);
	bool extra = a->env.nprobes || a->env.probe_regex || a->env.all_skb_funcs;
	int ret = 0;

	if (!path && !extra)
		return pp_app_usage_error("no probe list: no ./%s nor %s/%s (--funcs FILE)", file,
					  PKTPATH_DATADIR, file);
	a->list_path = path;
	if (path)
		ret = pp_probe_list_load(&a->list, path, a->err, sizeof(a->err));
	for (int i = 0; !ret && i < a->env.nprobes; i++)
		ret = pp_probe_list_add(&a->list, a->env.probes[i], "--probe", a->err,
					sizeof(a->err));
	if (ret)
		return pp_app_usage_error("%s", a->err);
	ret = add_skb_funcs(a);
	if (ret)
		return ret;
	if (pp_end_points_add(&a->list, a->err, sizeof(a->err)))
		return pp_app_usage_error("%s", a->err);
	pp_probe_list_resolve(&a->list, a->btf);
	pp_modules_resolve(&a->modules, &a->list, a->btf);
	check_attachable(a);
	return mark_stacks(a);
}

#define PP_WARN_NAMES 40 /* names in the skipped warning; -v lists all */

/* One warning, wrapped under 100 columns; -v gives each line's reason. */
static void warn_skipped(const struct pp_probe_list *l)
{
	size_t n = 0, shown = 0, col;

	for (size_t i = 0; i < l->n; i++)
		n += pp_skip_is_news(&l->v[i]);
	if (!n)
		return;
	col = (size_t)pp_warn("skipped %zu of %zu probe points this kernel "
			      "cannot probe:",
			      n, l->n);
	for (size_t i = 0; i < l->n && (pp_log_debug_on() || shown < PP_WARN_NAMES); i++) {
		if (!pp_skip_is_news(&l->v[i]))
			continue;
		shown++;
		if (pp_log_debug_on()) {
			fprintf(stderr, "\n  %s: %s", l->v[i].name, pp_skip_name(l->v[i].skip));
			continue;
		}
		if (col + strlen(l->v[i].name) + 1 > 99)
			col = (size_t)fprintf(stderr, "\n ");
		col += (size_t)fprintf(stderr, " %s", l->v[i].name);
	}
	if (shown < n)
		fprintf(stderr, "\n  and %zu more (-v lists them)", n - shown);
	fputs("\n", stderr);
}

int pp_app_probes_plan(struct pp_app *a)
{
	const struct pp_probe *f = pp_plan_first_func(&a->list);
	const char *why;

	pp_kfacts_backend(&a->facts, a->env.backend, f);
	if (pp_plan_backend(a->env.backend, f != NULL, &a->facts, &a->backend, &why))
		return pp_app_usage_error("--backend %s: %s", pp_backend_name(a->env.backend), why);
	pp_plan_backend_skips(&a->list, a->backend, a->btf);
	if (a->env.action == PP_ACT_TRACE && !pp_probes_planned(&a->list))
		return pp_app_usage_error(
			"nothing to trace: none of the %zu probe points of %s can be "
			"probed here (--list-probes tells why)",
			a->list.n - 2, a->list_path ? a->list_path : "the command line");
	if (a->env.action == PP_ACT_TRACE)
		warn_skipped(&a->list);
	if (why)
		pp_warn("%s\n", why);
	return 0;
}
