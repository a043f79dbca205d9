// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "cmd/hook_cache.h"
#include "base/fmt.h"

#define PP_HOOK_MAX_PROGS 8
#define PP_HOOK_TTL_MS	  1000

static __u64 now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (__u64)t.tv_sec * 1000 + (__u64)t.tv_nsec / 1000000;
}

/* "NAME (id N, VIA), ...", and "and K more" past those listed. */
static int words(const struct pp_hook_prog *v, int n, char *buf, size_t len)
{
	struct pp_sbuf f = {.buf = buf, .len = len};

	for (int i = 0; i < n && i < PP_HOOK_MAX_PROGS; i++) {
		if (i)
			pp_sb_lit(&f, ", ");
		pp_sb_str(&f, v[i].name[0] ? v[i].name : "(no name)");
		pp_sb_lit(&f, " (id ");
		pp_sb_u64(&f, v[i].id);
		pp_sb_lit(&f, ", ");
		pp_sb_str(&f, v[i].via);
		pp_sb_lit(&f, ")");
	}
	if (n > PP_HOOK_MAX_PROGS) {
		pp_sb_lit(&f, " and ");
		pp_sb_u64(&f, (__u64)(n - PP_HOOK_MAX_PROGS));
		pp_sb_lit(&f, " more");
	}
	return f.pos < len ? (int)f.pos : (int)len - 1;
}

/* Ask the kernel: the text into E, or its len -1 if the namespace or hook cannot be read. */
static void look(struct pp_hook_cache *c, struct pp_hook_seen *e)
{
	struct pp_hook_prog v[PP_HOOK_MAX_PROGS];
	int n = pp_hook_reader_ask(&c->reader, e->netns, (int)e->ifindex, e->hook, v,
				   PP_HOOK_MAX_PROGS);

	if (e->hook == PP_HOOK_IFNAME)
		e->len = n > 0 ? snprintf(e->text, sizeof(e->text), "%s", v[0].name) : -1;
	else
		e->len = n >= 0 ? words(v, n, e->text, sizeof(e->text)) : -1;
}

int pp_hook_cache_get(__u32 netns, __u32 ifindex, int hook, char *buf, size_t len, void *arg)
{
	struct pp_hook_cache *c = arg;
	__u64 now = now_ms();
	struct pp_hook_seen *e = NULL;

	for (int i = 0; i < PP_HOOK_CACHE && !e; i++) {
		struct pp_hook_seen *s = &c->e[i];

		if (s->at_ms && s->netns == netns && s->ifindex == ifindex && s->hook == hook &&
		    now - s->at_ms < PP_HOOK_TTL_MS)
			e = s;
	}
	if (!e) {
		e = &c->e[c->next++ % PP_HOOK_CACHE];
		*e = (struct pp_hook_seen){.netns = netns, .ifindex = ifindex, .hook = hook};
		look(c, e);
		e->at_ms = now;
	}
	if (e->len >= 0 && len)
		snprintf(buf, len, "%s", e->text);
	return e->len;
}
