// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "filter/filter.h"
#include "filter/filter_split.h"

int pp_filter_build(struct pp_filter *f, const char *expr, unsigned int flags, char *err,
		    size_t errlen)
{
	int ret;

	memset(f, 0, sizeof(*f));
	ret = pp_compile_split(expr, false, &f->cbpf, &f->cbpf_len, &f->chunks, err, errlen);
	/*
	 * libpcap compiles "vlan" for a capture file (pcap_compile_nopcap()):
	 * it expects the tag in the frame's bytes. A live capture on Linux
	 * gets code that also reads the kernel's tag offload (SKF_AD_VLAN_*,
	 * BPF_SPECIAL_VLAN_HANDLING), which no public libpcap call asks for;
	 * the VLAN view gives the same answers (cbpf_xlate.h).
	 */
	if (!ret && pp_cbpf_tests_vlan(f->cbpf, f->cbpf_len))
		flags |= PP_XLATE_VLAN_VIEW;
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
	int ret;

	memset(f, 0, sizeof(*f));
	ret = pp_xlate(prog, len, flags, &f->insns, &f->cnt, err, errlen);
	if (ret)
		return ret;
	/* Kept like a compiled one's: pp_filter_reads_len() looks at it. */
	f->cbpf = malloc(len * sizeof(*prog));
	if (!f->cbpf) {
		snprintf(err, errlen, "out of memory");
		pp_filter_free(f);
		return -ENOMEM;
	}
	memcpy(f->cbpf, prog, len * sizeof(*prog));
	f->cbpf_len = len;
	return 0;
}

bool pp_filter_reads_len(const struct pp_filter *f)
{
	for (size_t i = 0; i < f->cbpf_len; i++) {
		__u16 code = f->cbpf[i].code;

		if ((BPF_CLASS(code) == BPF_LD || BPF_CLASS(code) == BPF_LDX) &&
		    BPF_MODE(code) == BPF_LEN)
			return true;
	}
	return false;
}

void pp_filter_free(struct pp_filter *f)
{
	free(f->cbpf);
	free(f->insns);
	memset(f, 0, sizeof(*f));
}
