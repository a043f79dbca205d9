// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/verdict.h"

/* include/uapi/linux/pkt_cls.h, from TC_ACT_UNSPEC (-1) on. */
static const char *const tc_words[] = {
	"TC_ACT_UNSPEC", "TC_ACT_OK",	  "TC_ACT_RECLASSIFY", "TC_ACT_SHOT",	  "TC_ACT_PIPE",
	"TC_ACT_STOLEN", "TC_ACT_QUEUED", "TC_ACT_REPEAT",     "TC_ACT_REDIRECT", "TC_ACT_TRAP",
};
/* include/uapi/linux/bpf.h, enum xdp_action. */
static const char *const xdp_words[] = {
	"XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT",
};
#define PP_TC_WORDS  (sizeof(tc_words) / sizeof(tc_words[0]))
#define PP_XDP_WORDS (sizeof(xdp_words) / sizeof(xdp_words[0]))
#define PP_XDP_PFX   "XDP_"

const char *pp_verdict_word(__u32 code, bool xdp, char *buf)
{
	if (xdp && code < PP_XDP_WORDS)
		return xdp_words[code];
	if (xdp) {
		snprintf(buf, PP_VERDICT_LEN, PP_XDP_PFX "%u", code);
		return buf;
	}
	if (code + 1 < PP_TC_WORDS) /* TC_ACT_UNSPEC, -1, first */
		return tc_words[code + 1];
	snprintf(buf, PP_VERDICT_LEN, "%d", (int)code);
	return buf;
}

/* A number, signed 32 bits, the whole of S: 0 or -EINVAL. */
static int number(const char *s, __u32 *code)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < -2147483648L || v > 4294967295L)
		return -EINVAL;
	*code = (__u32)v;
	return 0;
}

int pp_verdict_code(const char *word, __u32 *code, bool *xdp)
{
	*xdp = false;
	for (size_t k = 0; k < PP_TC_WORDS; k++) {
		if (!strcmp(word, tc_words[k])) {
			*code = (__u32)k - 1;
			return 0;
		}
	}
	*xdp = true;
	for (size_t k = 0; k < PP_XDP_WORDS; k++) {
		if (!strcmp(word, xdp_words[k])) {
			*code = (__u32)k;
			return 0;
		}
	}
	if (!strncmp(word, PP_XDP_PFX, strlen(PP_XDP_PFX)))
		return number(word + strlen(PP_XDP_PFX), code);
	*xdp = false;
	return number(word, code);
}

bool pp_verdict_drops(__u32 code, bool xdp)
{
	return xdp ? code <= 1 : code == 2;
}

const struct pp_hop *pp_verdict_judge(const struct pp_packet *p, const struct pp_hop *end)
{
	/* A redirect that failed dropped the frame as well. */
	bool failed = (end->flags & PP_HOP_REDIRECT) && end->redirect_err;
	const struct pp_hop *shot = NULL;

	for (const struct pp_hop *h = p->hops; h < end; h++)
		if ((h->flags & PP_HOP_VERDICT) && h->skb == end->skb)
			shot = pp_verdict_drops(h->reason, h->flags & PP_HOP_XDP) ||
					       (failed && pp_verdict_redirect(p, h))
				       ? h
				       : NULL;
	return shot;
}

const struct pp_hop *pp_verdict_redirect(const struct pp_packet *p, const struct pp_hop *v)
{
	if ((v->flags & (PP_HOP_VERDICT | PP_HOP_XDP)) != (PP_HOP_VERDICT | PP_HOP_XDP) ||
	    v->reason != PP_XDP_REDIRECT)
		return NULL;
	for (const struct pp_hop *h = v + 1; h < p->hops + p->nhops; h++)
		if (h->type == PP_REC_END && h->skb == v->skb)
			return h->flags & PP_HOP_REDIRECT ? h : NULL;
	return NULL;
}
