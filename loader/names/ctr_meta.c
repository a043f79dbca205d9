// SPDX-License-Identifier: GPL-2.0
/*
 * Where each runtime keeps what it knows of a container (one row per runtime):
 *
 *   docker      /var/lib/docker/containers/ID/config.v2.json: "Name" ("/web"),
 *               Config.Labels (the CRI labels when the kubelet made it)
 *   podman      /var/lib/containers/storage/overlay-containers/containers.json:
 *               [{"id": ID, "names": ["web"]}, ...] (containers/storage's list)
 *   CRI-O       {/run,/var/lib}/containers/storage/overlay-containers/ID/userdata/
 *               config.json: the OCI spec, its annotations io.kubernetes.pod.*,
 *               io.kubernetes.cri-o.{ContainerType,ContainerName,Labels}
 *   containerd  /run/containerd/io.containerd.runtime.v2.task/NS/ID/config.json:
 *               the OCI spec of a running task, annotations io.kubernetes.cri.*
 *               (CRI) or nerdctl/name
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "names/ctr_meta.h"

#define PP_PATH_MAX 512

/* O's string member at KEY, NULL if absent or not a string. */
static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static json_object *jobj(json_object *o, const char *key)
{
	json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static void put(char *dst, const char *s)
{
	if (s && !dst[0])
		snprintf(dst, PP_CTR_NAME_MAX, "%s", s);
}

/* The JSON at the path FMT makes of ROOT, A and B; NULL if none (or too long a path). */
__attribute__((format(printf, 2, 0))) static json_object *
read_json(const char *root, const char *fmt, const char *a, const char *b)
{
	char path[PP_PATH_MAX];
	int len = snprintf(path, sizeof(path), fmt, root, a, b);

	return len > 0 && (size_t)len < sizeof(path) ? json_object_from_file(path) : NULL;
}

/* The CRI labels (io.kubernetes.pod.*) of map L, where a runtime keeps them. */
static void cri_labels(json_object *l, struct pp_ctr *c)
{
	put(c->pod, jstr(l, "io.kubernetes.pod.name"));
	put(c->pod_ns, jstr(l, "io.kubernetes.pod.namespace"));
	put(c->name, jstr(l, "io.kubernetes.container.name"));
}

static int docker_meta(const char *root, const char *id, struct pp_ctr *c)
{
	json_object *j = read_json(root, "%s/var/lib/docker/containers/%s/config.v2.json", id, "");
	json_object *labels = jobj(jobj(j, "Config"), "Labels");
	const char *name = jstr(j, "Name"), *type = jstr(labels, "io.kubernetes.docker.type");

	if (!j)
		return -ENOENT;
	cri_labels(labels, c);
	/* The kubelet's sandbox is "POD" by its CRI label; its docker name is made up. */
	c->sandbox = type && !strcmp(type, "podsandbox");
	if (!c->sandbox)
		put(c->name, name && name[0] == '/' ? name + 1 : name);
	json_object_put(j);
	return 0;
}

static int podman_meta(const char *root, const char *id, struct pp_ctr *c)
{
	json_object *j = read_json(root, "%s/var/lib/containers/storage/%s%s",
				   "overlay-containers/containers.json", "");
	int ret = -ENOENT;

	for (size_t i = 0;
	     json_object_is_type(j, json_type_array) && i < json_object_array_length(j); i++) {
		json_object *e = json_object_array_get_idx(j, i), *names = jobj(e, "names");
		const char *eid = jstr(e, "id");

		if (!eid || strcmp(eid, id))
			continue;
		if (json_object_is_type(names, json_type_array) && json_object_array_length(names))
			put(c->name, json_object_get_string(json_object_array_get_idx(names, 0)));
		ret = 0;
		break;
	}
	json_object_put(j);
	return ret;
}

static int crio_meta(const char *root, const char *id, struct pp_ctr *c)
{
	static const char *const dirs[] = {"/run/containers/storage",
					   "/var/lib/containers/storage"};
	json_object *j = NULL, *ann, *labels;
	const char *type, *manager;

	for (size_t i = 0; !j && i < sizeof(dirs) / sizeof(dirs[0]); i++)
		j = read_json(root, "%s%s/overlay-containers/%s/userdata/config.json", dirs[i], id);
	if (!j)
		return -ENOENT;
	ann = jobj(j, "annotations");
	manager = jstr(ann, "io.container.manager");
	/* podman keeps the same files in the same storage: not CRI-O's. */
	if (manager && !strcmp(manager, "libpod")) {
		json_object_put(j);
		return -ENOENT;
	}
	cri_labels(ann, c);
	/* The CRI labels, as a JSON string: io.kubernetes.cri-o.Labels. */
	labels = json_tokener_parse(jstr(ann, "io.kubernetes.cri-o.Labels") ?: "{}");
	cri_labels(labels, c);
	json_object_put(labels);
	type = jstr(ann, "io.kubernetes.cri-o.ContainerType");
	c->sandbox = type && !strcmp(type, "sandbox");
	if (!c->sandbox)
		put(c->name, jstr(ann, "io.kubernetes.cri-o.ContainerName"));
	json_object_put(j);
	return 0;
}

/* A running task's spec, in whichever containerd namespace (k8s.io, default, moby) it is. */
static json_object *containerd_spec(const char *root, const char *id)
{
	char dir[PP_PATH_MAX];
	json_object *j = NULL;
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/run/containerd/io.containerd.runtime.v2.task", root);
	d = opendir(dir);
	while (d && !j && (e = readdir(d)))
		if (e->d_name[0] != '.')
			j = read_json(dir, "%s/%s/%s/config.json", e->d_name, id);
	if (d)
		closedir(d);
	return j;
}

static int containerd_meta(const char *root, const char *id, struct pp_ctr *c)
{
	json_object *j = containerd_spec(root, id), *ann = jobj(j, "annotations");
	const char *type = jstr(ann, "io.kubernetes.cri.container-type");

	if (!j)
		return -ENOENT;
	put(c->pod, jstr(ann, "io.kubernetes.cri.sandbox-name"));
	put(c->pod_ns, jstr(ann, "io.kubernetes.cri.sandbox-namespace"));
	put(c->name, jstr(ann, "io.kubernetes.cri.container-name"));
	put(c->name, jstr(ann, "nerdctl/name"));
	cri_labels(ann, c);
	c->sandbox = type && !strcmp(type, "sandbox");
	json_object_put(j);
	return 0;
}

struct rt_meta {
	enum pp_rt rt;
	int (*read)(const char *root, const char *id, struct pp_ctr *c);
};

/* The order PP_RT_ANY tries them in. */
static const struct rt_meta metas[] = {
	{PP_RT_DOCKER, docker_meta},
	{PP_RT_CONTAINERD, containerd_meta},
	{PP_RT_CRIO, crio_meta},
	{PP_RT_PODMAN, podman_meta},
};

int pp_ctr_meta(const char *root, enum pp_rt rt, const char *id, struct pp_ctr *c)
{
	if (!root || !strcmp(root, "/"))
		root = "";
	for (size_t i = 0; i < sizeof(metas) / sizeof(metas[0]); i++) {
		if (rt != PP_RT_ANY && rt != metas[i].rt)
			continue;
		memset(c, 0, sizeof(*c));
		if (metas[i].read(root, id, c))
			continue;
		c->rt = metas[i].rt;
		snprintf(c->id, sizeof(c->id), "%s", id);
		return 0;
	}
	return -ENOENT;
}

/* The OCI spec's network namespace path (linux.namespaces), NULL if none. */
static const char *spec_netns(json_object *spec)
{
	json_object *ns = jobj(jobj(spec, "linux"), "namespaces");

	for (size_t i = 0;
	     json_object_is_type(ns, json_type_array) && i < json_object_array_length(ns); i++) {
		json_object *e = json_object_array_get_idx(ns, i);
		const char *type = jstr(e, "type");

		if (type && !strcmp(type, "network"))
			return jstr(e, "path");
	}
	return NULL;
}

typedef void each_cb(enum pp_rt rt, const char *id, const char *path, void *arg);

/* DIR/ID/TAIL for each ID of DIR: the network namespace file it names. */
static void each_in(const char *dir, const char *tail, enum pp_rt rt, each_cb *cb, void *arg)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		json_object *j;
		const char *path;

		if (strlen(e->d_name) != PP_CTR_ID_LEN)
			continue;
		j = read_json(dir, "%s/%s/%s", e->d_name, tail);
		path = rt == PP_RT_DOCKER ? jstr(jobj(j, "NetworkSettings"), "SandboxKey")
					  : spec_netns(j);
		/* An app container's /proc/PID/ns/net is its sandbox's: named from there. */
		if (path && strncmp(path, "/proc/", 6))
			cb(rt, e->d_name, path, arg);
		json_object_put(j);
	}
	if (d)
		closedir(d);
}

void pp_ctr_each_netns(const char *root, each_cb *cb, void *arg)
{
	char dir[PP_PATH_MAX];
	struct dirent *e;
	DIR *d;

	if (!root || !strcmp(root, "/"))
		root = "";
	snprintf(dir, sizeof(dir), "%s/var/lib/docker/containers", root);
	each_in(dir, "config.v2.json", PP_RT_DOCKER, cb, arg);
	/* podman's and CRI-O's: pp_ctr_meta() tells them apart. */
	snprintf(dir, sizeof(dir), "%s/var/lib/containers/storage/overlay-containers", root);
	each_in(dir, "userdata/config.json", PP_RT_ANY, cb, arg);
	snprintf(dir, sizeof(dir), "%s/run/containers/storage/overlay-containers", root);
	each_in(dir, "userdata/config.json", PP_RT_ANY, cb, arg);
	snprintf(dir, sizeof(dir), "%s/run/containerd/io.containerd.runtime.v2.task", root);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		char ns[PP_PATH_MAX];
		int len = snprintf(ns, sizeof(ns), "%s/%s", dir, e->d_name);

		if (e->d_name[0] != '.' && len > 0 && (size_t)len < sizeof(ns))
			each_in(ns, "config.json", PP_RT_CONTAINERD, cb, arg);
	}
	if (d)
		closedir(d);
}

bool pp_ctr_matches(const struct pp_ctr *c, const char *name)
{
	size_t len = strlen(name);

	if (!strcmp(name, c->name) || !strcmp(name, c->pod))
		return name[0] != 0;
	return len >= PP_CTR_SHORT_ID && !strncmp(name, c->id, len);
}

int pp_pid_ctr(const char *root, int pid, struct pp_ctr *c)
{
	char path[PP_PATH_MAX], text[4096], id[PP_CTR_ID_LEN + 1];
	enum pp_rt rt;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/%d/cgroup", root, pid);
	f = fopen(path, "r");
	if (!f)
		return -ENOENT;
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = 0;
	rt = pp_cgroup_ctr(text, id);
	return rt == PP_RT_NONE ? -ENOENT : pp_ctr_meta(root, rt, id, c);
}
