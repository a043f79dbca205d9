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
#define PP_TC_WORDS (sizeof(tc_words) / sizeof(tc_words[0]))

const char *pp_verdict_word(__u32 code, char *buf)
{
	__u32 k = code + 1; /* TC_ACT_UNSPEC, -1, first */

	if (k < PP_TC_WORDS)
		return tc_words[k];
	snprintf(buf, PP_VERDICT_LEN, "%d", (int)code);
	return buf;
}

int pp_verdict_code(const char *word, __u32 *code)
{
	char *end;
	long v;

	for (size_t k = 0; k < PP_TC_WORDS; k++) {
		if (!strcmp(word, tc_words[k])) {
			*code = (__u32)k - 1;
			return 0;
		}
	}
	errno = 0;
	v = strtol(word, &end, 10);
	if (!*word || *end || errno || v < -2147483648L || v > 2147483647L)
		return -EINVAL;
	*code = (__u32)(int)v;
	return 0;
}
