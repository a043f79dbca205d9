// SPDX-License-Identifier: GPL-2.0
/*
 * The release of a kprobe's link unregisters the kprobe and waits for an RCU
 * grace period (unregister_kprobe()), and a perf event's for its tracepoint's
 * callers too: one after another, 172 probes took 11.2 s to detach in a 6.1
 * VM under TCG, a grace period apiece. Threads that wait at once share the
 * grace periods (docs/PERFORMANCE.md).
 */
#include <pthread.h>
#include <stdbool.h>
#include <bpf/libbpf.h>
#include "probes/link_release.h"

struct share {
	struct bpf_link **links;
	size_t n;
};

static void *release_share(void *arg)
{
	struct share *s = arg;

	for (size_t i = 0; i < s->n; i++)
		bpf_link__destroy(s->links[i]);
	return NULL;
}

void pp_links_destroy(struct bpf_link **links, size_t n)
{
	struct share s[PP_RELEASE_THREADS];
	pthread_t t[PP_RELEASE_THREADS];
	bool started[PP_RELEASE_THREADS] = {false};
	size_t per = (n + PP_RELEASE_THREADS - 1) / PP_RELEASE_THREADS, from = 0;

	for (int i = 0; i < PP_RELEASE_THREADS; i++) {
		s[i].links = links + from;
		s[i].n = n - from < per ? n - from : per;
		from += s[i].n;
		/* The last share, and any a thread could not take, run here. */
		if (s[i].n && i < PP_RELEASE_THREADS - 1)
			started[i] = !pthread_create(&t[i], NULL, release_share, &s[i]);
		if (!started[i])
			release_share(&s[i]);
	}
	for (int i = 0; i < PP_RELEASE_THREADS; i++)
		if (started[i])
			pthread_join(t[i], NULL);
}
