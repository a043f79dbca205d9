// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include "output/exports.h"
#include "base/safe_file.h"

/* The formats, by enum pp_export_kind. */
static const struct pp_export_ops *const formats[PP_EXPORTS] = {
#define PP_EXPORT_FORMAT(name, NAME) [PP_EXPORT_##NAME] = &pp_export_##name##_ops,
#include "output/exports.inc"
#undef PP_EXPORT_FORMAT
};

const struct pp_export_ops *pp_export_ops_of(enum pp_export_kind kind)
{
	return formats[kind];
}

static int create(struct pp_export *e, const struct pp_export_ops *ops, char *err, size_t errlen)
{
	char why[384];

	e->sf = pp_safe_file_create(e->path, ops->mode, why, sizeof(why));
	if (!e->sf) {
		snprintf(err, errlen, "%s %s: %s", ops->option, e->path, why);
		return -EINVAL;
	}
	return 0;
}

/* Every file is created before any header is written: a bad path leaves nothing behind. */
int pp_exports_open(struct pp_exports *x, const char *const paths[PP_EXPORTS], __u32 snaplen,
		    const char *appl, char *err, size_t errlen)
{
	int ret = 0;

	memset(x, 0, sizeof(*x));
	pp_wallclock_measure(&x->clock);
	for (size_t k = 0; k < PP_EXPORTS; k++)
		x->files[k].path = paths[k];
	for (size_t k = 0; !ret && k < PP_EXPORTS; k++)
		if (x->files[k].path)
			ret = create(&x->files[k], formats[k], err, errlen);
	for (size_t k = 0; !ret && k < PP_EXPORTS; k++) {
		struct pp_export *e = &x->files[k];

		if (!e->sf)
			continue;
		e->w = formats[k]->open(pp_safe_file_file(e->sf), snaplen, x->clock.off, appl);
		ret = e->w ? 0 : -ENOMEM;
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (ret)
		pp_exports_discard(x);
	return ret;
}

bool pp_exports_has(const struct pp_exports *x, enum pp_export_kind kind)
{
	return x->files[kind].w;
}

int pp_exports_publish(struct pp_exports *x, char *err, size_t errlen)
{
	for (size_t k = 0; k < PP_EXPORTS; k++)
		if (x->files[k].sf && pp_safe_file_publish(x->files[k].sf, err, errlen))
			return -EIO;
	return 0;
}

void pp_exports_packet(const struct pp_packet *p, void *ctx)
{
	struct pp_exports *x = ctx;

	for (size_t k = 0; k < PP_EXPORTS; k++)
		if (x->files[k].w)
			formats[k]->packet(x->files[k].w, x->out, p);
}

void pp_exports_set_real_off(struct pp_exports *x, __s64 real_off_ns)
{
	for (size_t k = 0; k < PP_EXPORTS; k++)
		if (x->files[k].w && formats[k]->set_real_off)
			formats[k]->set_real_off(x->files[k].w, real_off_ns);
}

static int close_one(struct pp_export *e, const struct pp_export_ops *ops, FILE *report, char *err,
		     size_t errlen)
{
	__u64 n;
	int ret;

	if (ops->end)
		ops->end(e->w);
	n = ops->count(e->w);
	ret = pp_safe_file_close(e->sf, err, errlen);
	e->sf = NULL;
	if (!ret && report)
		fprintf(report, "pktpath: %llu packet%s written to %s\n", (unsigned long long)n,
			n == 1 ? "" : "s", e->path);
	return ret;
}

/* The first failure's message stays in ERR; later files are still closed. */
int pp_exports_close(struct pp_exports *x, FILE *report, char *err, size_t errlen)
{
	int ret = 0, r;

	for (size_t k = 0; k < PP_EXPORTS; k++) {
		if (!x->files[k].sf)
			continue;
		r = close_one(&x->files[k], formats[k], report, ret ? NULL : err, ret ? 0 : errlen);
		ret = ret ? ret : r;
	}
	pp_exports_discard(x);
	return ret;
}

void pp_exports_discard(struct pp_exports *x)
{
	for (size_t k = 0; k < PP_EXPORTS; k++) {
		pp_safe_file_discard(x->files[k].sf);
		if (x->files[k].w)
			formats[k]->free(x->files[k].w);
		x->files[k].sf = NULL;
		x->files[k].w = NULL;
	}
}
