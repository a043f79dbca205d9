// SPDX-License-Identifier: GPL-2.0
#include "output/path_id.h"

#define FNV_PRIME 0x100000001b3ULL

__u64 pp_fnv(__u64 h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * FNV_PRIME;
	return (h ^ 0xff) * FNV_PRIME;
}

__u64 pp_path_id_hop(__u64 h, const struct pp_out *o, __u32 probe)
{
	char buf[32];

	return pp_fnv(h ? h : PP_FNV_OFF, pp_out_probe_name(o, probe, buf, sizeof(buf)));
}

__u64 pp_path_id_end(__u64 h, enum pp_fate fate)
{
	return pp_fnv(h ? h : PP_FNV_OFF, pp_fate_key(fate)) & 0xffffffffffffULL;
}

__u64 pp_path_id(const struct pp_out *o, const struct pp_packet *p)
{
	__u64 h = 0;

	for (size_t i = 0; i < p->nhops; i++)
		h = pp_path_id_hop(h, o, p->hops[i].probe);
	return pp_path_id_end(h, p->fate);
}
