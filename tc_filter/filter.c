// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "filter.h"
#include "filter_split.h"

int pp_filter_build(struct pp_filter *f, const char *expr, unsigned int flags, char *err,
		    size_t errlen)
{
	int ret;

	memset(f, 0, sizeof(*f));
	ret = pp_compile_split(expr, false, &f->cbpf, &f->cbpf_len, &f->chunks, err, errlen);
	if (!ret)
		ret = pp_xlate(f->cbpf, f->cbpf_len, flags, &f->insns, &f->cnt, err, errlen);
	if (ret)
		pp_filter_free(f);
	return ret;
}

int pp_filter_build_l3(struct pp_filter *f, const char *expr, char *err, size_t errlen)
{
	int ret;

	memset(f, 0, sizeof(*f));
	ret = pp_compile_split(expr, true, &f->cbpf, &f->cbpf_len, &f->chunks, err, errlen);
	if (!ret)
		ret = pp_xlate(f->cbpf, f->cbpf_len, PP_XLATE_PROBE, &f->insns, &f->cnt, err,
			       errlen);
	if (ret)
		pp_filter_free(f);
	return ret;
}

int pp_filter_from_cbpf(struct pp_filter *f, const struct sock_filter *prog, size_t len,
			unsigned int flags, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->cbpf_len = len; /* the caller's program: not kept */
	return pp_xlate(prog, len, flags, &f->insns, &f->cnt, err, errlen);
}

void pp_filter_free(struct pp_filter *f)
{
	free(f->cbpf);
	free(f->insns);
	memset(f, 0, sizeof(*f));
}
