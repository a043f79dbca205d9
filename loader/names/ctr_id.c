// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup shapes of the runtimes, v1 (a line per hierarchy) and v2 (the
 * "0::" line) alike, with the cgroupfs and the systemd drivers:
 *
 *   podman      /libpod_parent/libpod-ID           /machine.slice/libpod-ID.scope[/container]
 *   docker      /docker/ID                         /system.slice/docker-ID.scope
 *   containerd  /kubepods/.../podUID/ID, /NS/ID    /kubepods.slice/.../cri-containerd-ID.scope
 *               (bare: the runtime is looked up)   /system.slice/nerdctl-ID.scope
 *   CRI-O       /kubepods/.../podUID/crio-ID       /kubepods.slice/.../crio-ID.scope
 *
 * The monitors (conmon: libpod-conmon-ID, crio-conmon-ID) stay in the host's
 * network namespace and are not the container. A path component names a
 * container only as a whole 64-hex id, so that other ids (this sandbox's own
 * 32-hex cgroups, pod UIDs) never pass for one.
 */
#include <stdbool.h>
#include <string.h>
#include "names/ctr_id.h"

struct rt_prefix {
	const char *prefix; /* of the path component, before the id */
	enum pp_rt rt;
};

/* Longest first where one prefix starts another; the monitors are not containers. */
static const struct rt_prefix prefixes[] = {
	{"libpod-conmon-", PP_RT_NONE},
	{"libpod-", PP_RT_PODMAN},
	{"crio-conmon-", PP_RT_NONE},
	{"crio-", PP_RT_CRIO},
	{"cri-containerd-", PP_RT_CONTAINERD},
	{"nerdctl-", PP_RT_CONTAINERD},
	{"docker-", PP_RT_DOCKER},
};

static const char *const rt_names[] = {
	[PP_RT_PODMAN] = "podman",
	[PP_RT_DOCKER] = "docker",
	[PP_RT_CONTAINERD] = "containerd",
	[PP_RT_CRIO] = "cri-o",
};

const char *pp_rt_name(enum pp_rt rt)
{
	return rt > PP_RT_NONE && rt < PP_RT_ANY ? rt_names[rt] : NULL;
}

static bool is_id(const char *s, size_t n)
{
	if (n != PP_CTR_ID_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* One path component S (N bytes) after PARENT (PN bytes): its runtime, or NONE. */
static enum pp_rt component(const char *s, size_t n, const char *parent, size_t pn, char *id)
{
	if (n > 6 && !memcmp(s + n - 6, ".scope", 6))
		n -= 6;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t l = strlen(prefixes[i].prefix);

		if (n < l || memcmp(s, prefixes[i].prefix, l))
			continue;
		if (prefixes[i].rt == PP_RT_NONE || !is_id(s + l, n - l))
			return PP_RT_NONE;
		memcpy(id, s + l, PP_CTR_ID_LEN);
		id[PP_CTR_ID_LEN] = 0;
		return prefixes[i].rt;
	}
	if (!is_id(s, n))
		return PP_RT_NONE;
	memcpy(id, s, PP_CTR_ID_LEN);
	id[PP_CTR_ID_LEN] = 0;
	return pn == 6 && !memcmp(parent, "docker", 6) ? PP_RT_DOCKER : PP_RT_ANY;
}

/* The path P..END of one line, its components from the last (the leaf) up. */
static enum pp_rt path_ctr(const char *p, const char *end, char *id)
{
	const char *c = end;

	while (c > p) {
		const char *e = c, *s = c, *ps, *pe;
		enum pp_rt rt;

		while (s > p && s[-1] != '/')
			s--;
		pe = s > p ? s - 1 : s;
		ps = pe;
		while (ps > p && ps[-1] != '/')
			ps--;
		rt = component(s, (size_t)(e - s), ps, (size_t)(pe - ps), id);
		if (rt != PP_RT_NONE)
			return rt;
		c = s > p ? s - 1 : p;
	}
	return PP_RT_NONE;
}

enum pp_rt pp_cgroup_ctr(const char *text, char *id)
{
	const char *line = text;

	while (line && *line) {
		const char *nl = strchr(line, '\n'), *end = nl ? nl : line + strlen(line);
		const char *path = memchr(line, ':', (size_t)(end - line));
		enum pp_rt rt = PP_RT_NONE;

		/* "HIERARCHY-ID:CONTROLLERS:PATH" */
		if (path)
			path = memchr(path + 1, ':', (size_t)(end - path - 1));
		if (path)
			rt = path_ctr(path + 1, end, id);
		if (rt != PP_RT_NONE)
			return rt;
		line = nl ? nl + 1 : NULL;
	}
	return PP_RT_NONE;
}
