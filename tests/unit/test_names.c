// SPDX-License-Identifier: GPL-2.0
/*
 * Namespace names (loader/names/): each runtime's cgroup shapes (v1 and v2,
 * cgroupfs and systemd drivers) and metadata files, from the files under
 * tests/unit/data/names (README.md there says which were recorded); then the
 * cache over a made-up host: /run/netns, /proc, a miss and its rate limit, a
 * reused inode.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "names/ctr_id.h"
#include "names/ctr_meta.h"
#include "names/netns_names.h"
#include "names/netns_scope.h"
#include "names/ctr_host.h"

#define DATA PP_SOURCE_DIR "/tests/unit/data/names"

#define PODMAN_ID	"356fc8a6f8a0fb4875a18cdeb871dc532538109cd9a6aa684adbc149625aa5f2"
#define DOCKER_ID	"f31f384749f9115acf01fcf82f5a966b59dcc0a4cbd7c9740888c0bf32aa2bbb"
#define DOCKER_K8S_ID	"6fbae2c694f4ed9c4c514487246a80b2f4d4ad070b9c7febadbb8a9d7441a6e0"
#define DOCKER_PAUSE_ID "a6c0b0e3ba0757e6e1329abfec28534dd0314dd7d67d24297f0b954ae3252859"
#define COREDNS_ID	"7095077ecf567b435e217f207228a93c909ca7901ed69475a3fc2cbac11a791e"
#define CD_PAUSE_ID	"e00002e626d7a075c7569369829c36606afa7168ba2ca66a172d2d3d7a50e120"
#define NERDCTL_ID	"b3609a4addd18ad909597aa9711bf1630d31a269631d574c18a4cecade83738f"
#define NGINX_ID	"9689413a5a09c74fc99b598f6c28096cc8a94018930db76b0a230d72259fa57b"
#define CRIO_PAUSE_ID	"61f18e8a1d0b627c2c875851c047c9191526c4d89a8b2dd646be63334764bd19"

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_msg(f, "%s", path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

static const struct {
	const char *file;
	enum pp_rt rt;
	const char *id;
} shapes[] = {
	{"podman-v1-cgroupfs.txt", PP_RT_PODMAN, PODMAN_ID},
	{"podman-v2-systemd.txt", PP_RT_PODMAN, PODMAN_ID},
	{"podman-conmon-v2.txt", PP_RT_NONE, NULL},
	{"docker-v1-cgroupfs.txt", PP_RT_DOCKER, DOCKER_ID},
	{"docker-v2-systemd.txt", PP_RT_DOCKER, DOCKER_ID},
	{"docker-k8s-v1-cgroupfs.txt", PP_RT_ANY, DOCKER_K8S_ID},
	{"containerd-v1-cgroupfs.txt", PP_RT_ANY, COREDNS_ID},
	{"containerd-v2-systemd.txt", PP_RT_CONTAINERD, COREDNS_ID},
	{"nerdctl-v1-cgroupfs.txt", PP_RT_ANY, NERDCTL_ID},
	{"crio-v1-cgroupfs.txt", PP_RT_CRIO, NGINX_ID},
	{"crio-v2-systemd.txt", PP_RT_CRIO, NGINX_ID},
	{"crio-conmon-v2.txt", PP_RT_NONE, NULL},
	{"host-sandbox.txt", PP_RT_NONE, NULL},
};

START_TEST(test_cgroup_shapes)
{
	char path[512], id[PP_CTR_ID_LEN + 1];

	snprintf(path, sizeof(path), "%s/cgroup/%s", DATA, shapes[_i].file);
	memset(id, 0, sizeof(id));
	ck_assert_msg(pp_cgroup_ctr(slurp(path), id) == shapes[_i].rt, "%s", shapes[_i].file);
	if (shapes[_i].id)
		ck_assert_str_eq(id, shapes[_i].id);
}
END_TEST

START_TEST(test_cgroup_odd)
{
	char id[PP_CTR_ID_LEN + 1];

	ck_assert_int_eq(pp_cgroup_ctr("", id), PP_RT_NONE);
	ck_assert_int_eq(pp_cgroup_ctr("garbage", id), PP_RT_NONE);
	ck_assert_int_eq(pp_cgroup_ctr("0::/docker/" PODMAN_ID "0\n", id), PP_RT_NONE);
	ck_assert_int_eq(pp_cgroup_ctr("0::/libpod-XYZ.scope\n", id), PP_RT_NONE);
	/* Upper-case hex is no runtime's id. */
	ck_assert_int_eq(pp_cgroup_ctr("0::/docker/F31F384749F9115ACF01FCF82F5A966B59DCC0A4CBD7C"
				       "9740888C0BF32AA2BBB\n",
				       id),
			 PP_RT_NONE);
	ck_assert_str_eq(pp_rt_name(PP_RT_CRIO), "cri-o");
	ck_assert_ptr_null(pp_rt_name(PP_RT_ANY));
}
END_TEST

static const struct {
	enum pp_rt hint, rt;
	const char *id, *name, *pod, *pod_ns;
	bool sandbox;
} metas[] = {
	{PP_RT_PODMAN, PP_RT_PODMAN, PODMAN_ID, "ppn-web", "", "", false},
	{PP_RT_DOCKER, PP_RT_DOCKER, DOCKER_ID, "web", "", "", false},
	{PP_RT_ANY, PP_RT_DOCKER, DOCKER_K8S_ID, "app", "shop-0", "default", false},
	{PP_RT_ANY, PP_RT_DOCKER, DOCKER_PAUSE_ID, "POD", "shop-0", "default", true},
	{PP_RT_CONTAINERD, PP_RT_CONTAINERD, COREDNS_ID, "coredns", "coredns-5d78c9869d-4xq2p",
	 "kube-system", false},
	{PP_RT_ANY, PP_RT_CONTAINERD, CD_PAUSE_ID, "", "coredns-5d78c9869d-4xq2p", "kube-system",
	 true},
	{PP_RT_ANY, PP_RT_CONTAINERD, NERDCTL_ID, "db", "", "", false},
	{PP_RT_CRIO, PP_RT_CRIO, NGINX_ID, "nginx", "nginx-7c5d8bf9f7-k2x9z", "web", false},
	{PP_RT_ANY, PP_RT_CRIO, CRIO_PAUSE_ID, "", "nginx-7c5d8bf9f7-k2x9z", "web", true},
};

START_TEST(test_runtime_meta)
{
	struct pp_ctr c;

	ck_assert_int_eq(pp_ctr_meta(DATA "/root", metas[_i].hint, metas[_i].id, &c), 0);
	ck_assert_int_eq(c.rt, metas[_i].rt);
	ck_assert_str_eq(c.id, metas[_i].id);
	ck_assert_str_eq(c.name, metas[_i].name);
	ck_assert_str_eq(c.pod, metas[_i].pod);
	ck_assert_str_eq(c.pod_ns, metas[_i].pod_ns);
	ck_assert_int_eq(c.sandbox, metas[_i].sandbox);
}
END_TEST

START_TEST(test_runtime_meta_missing)
{
	struct pp_ctr c;

	/* podman's own container is not CRI-O's, though in the same storage. */
	ck_assert_int_eq(pp_ctr_meta(DATA "/root", PP_RT_CRIO, PODMAN_ID, &c), -ENOENT);
	ck_assert_int_eq(pp_ctr_meta(DATA "/root", PP_RT_DOCKER, NGINX_ID, &c), -ENOENT);
	ck_assert_int_eq(pp_ctr_meta(DATA "/nowhere", PP_RT_ANY, DOCKER_ID, &c), -ENOENT);
}
END_TEST

/* ------------------------------------------------------ a made-up host */

static char host[] = "/tmp/pp-names-XXXXXX";

static void run(const char *cmd)
{
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

/* Process PID in netns INODE, in cgroup CGROUP (a file of data/names/cgroup). */
static void add_proc(int pid, __u32 inode, const char *cgroup)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/proc/%d/ns && ln -sfn 'net:[%u]' %s/proc/%d/ns/net && "
		 "cp %s/cgroup/%s %s/proc/%d/cgroup",
		 host, pid, inode, host, pid, DATA, cgroup, host, pid);
	run(cmd);
}

static __u32 add_netns(const char *name)
{
	char path[512];
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "%s/run/netns/%s", host, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(stat(path, &st), 0);
	return (__u32)st.st_ino;
}

static void host_setup(void)
{
	char cmd[1024];

	ck_assert_ptr_nonnull(mkdtemp(host));
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/run/netns && ln -s %s/root/var %s/var && "
		 "ln -s %s/root/run/containerd %s/run/containerd && "
		 "ln -s %s/root/run/containers %s/run/containers",
		 host, DATA, host, DATA, host, DATA, host);
	run(cmd);
	add_proc(1, 1000, "host-sandbox.txt");
	add_proc(200, 2000, "podman-v1-cgroupfs.txt");
	add_proc(300, 3000, "crio-conmon-v2.txt"); /* conmon in a netns of its own: no name */
	add_proc(400, 4000, "crio-v2-systemd.txt");
	add_proc(401, 4000, "host-sandbox.txt");
}

static void host_teardown(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", host);
	run(cmd);
	strcpy(host, "/tmp/pp-names-XXXXXX");
}

START_TEST(test_cache_names)
{
	__u32 blue = add_netns("blue"), found[4];
	struct pp_netns_cache *n = pp_netns_cache_new(host);
	const struct pp_ns_name *e;

	ck_assert_ptr_nonnull(n);
	e = pp_netns_cache_get_at(n, 1000, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->name, "host");
	ck_assert(e->host);
	ck_assert_str_eq(pp_netns_cache_get_at(n, PP_NET_INIT_INO, 0)->name, "host");
	e = pp_netns_cache_get_at(n, 2000, 0);
	ck_assert_str_eq(e->name, "ppn-web");
	ck_assert(e->has_ctr);
	ck_assert_int_eq(e->ctr.rt, PP_RT_PODMAN);
	e = pp_netns_cache_get_at(n, 4000, 0);
	ck_assert_str_eq(e->name, "nginx-7c5d8bf9f7-k2x9z");
	ck_assert_str_eq(e->ctr.pod_ns, "web");
	ck_assert_str_eq(e->ctr.name, "nginx");
	ck_assert_str_eq(pp_netns_cache_get_at(n, blue, 0)->name, "blue");
	ck_assert_ptr_null(pp_netns_cache_get_at(n, 0, 0));
	ck_assert_uint_eq(pp_netns_cache_find(n, "ppn-web", found, 4), 1);
	ck_assert_uint_eq(found[0], 2000);
	ck_assert_uint_eq(pp_netns_cache_find(n, "356fc8a6f8a0", found, 4), 1);
	ck_assert_uint_eq(pp_netns_cache_find(n, "356fc8a6", found, 4), 0); /* too short an id */
	ck_assert_uint_eq(pp_netns_cache_find(n, "blue", found, 4), 1);
	ck_assert_uint_eq(found[0], blue);
	ck_assert_uint_eq(pp_netns_cache_find(n, "nginx", found, 4), 1);
	ck_assert_uint_eq(pp_netns_cache_find(n, "host", found, 4), 2);
	ck_assert_uint_eq(pp_netns_cache_find(n, "nope", found, 4), 0);
	ck_assert_uint_eq(pp_netns_cache_scans(n), 1);
	pp_netns_cache_free(n);
	/* A name with a space and a control byte cannot split the column. */
	blue = add_netns("a b\033c");
	n = pp_netns_cache_new(host);
	ck_assert_str_eq(pp_netns_cache_get_at(n, blue, 0)->name, "a?b?c");
	pp_netns_cache_free(n);
}
END_TEST

/* --netns and --container arguments: each to its inode and a file that enters it. */
START_TEST(test_scope_resolve)
{
	__u32 blue = add_netns("blue");
	struct pp_netns_cache *n = pp_netns_cache_new(host);
	struct pp_scope_ns s;
	char err[256], want[600];

	ck_assert_int_eq(pp_scope_resolve(n, host, "ppn-web", true, &s, err, sizeof(err)), 0);
	ck_assert_uint_eq(s.inode, 2000);
	snprintf(want, sizeof(want), "%s/proc/200/ns/net", host);
	ck_assert_str_eq(s.path, want);
	ck_assert_str_eq(s.label, "ppn-web");
	ck_assert_int_eq(pp_scope_resolve(n, host, "blue", false, &s, err, sizeof(err)), 0);
	ck_assert_uint_eq(s.inode, blue);
	snprintf(want, sizeof(want), "%s/run/netns/blue", host);
	ck_assert_str_eq(s.path, want);
	ck_assert_int_eq(pp_scope_resolve(n, host, "4000", false, &s, err, sizeof(err)), 0);
	ck_assert_uint_eq(s.inode, 4000);
	ck_assert_str_eq(s.label, "nginx-7c5d8bf9f7-k2x9z");
	ck_assert_int_eq(pp_scope_resolve(n, host, "nope", false, &s, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "--netns nope: no network namespace"));
	ck_assert_int_eq(pp_scope_resolve(n, host, "blue", true, &s, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "not a container"));
	ck_assert_int_eq(pp_scope_resolve(n, host, "99999", false, &s, err, sizeof(err)), -ENOENT);
	ck_assert_int_eq(pp_scope_resolve(n, host, "/run/netns/blue", false, &s, err, sizeof(err)),
			 -EINVAL); /* a plain file, no namespace */
	pp_netns_cache_free(n);
}
END_TEST

/* A container on the host's network: found by its processes there, the lowest pid. */
START_TEST(test_host_container)
{
	struct pp_ctr c;

	add_proc(520, 1000, "docker-v1-cgroupfs.txt");
	add_proc(510, PP_NET_INIT_INO, "docker-v2-systemd.txt");
	ck_assert_int_eq(pp_ctr_host_pid(host, "web", &c), 510);
	ck_assert_int_eq(c.rt, PP_RT_DOCKER);
	ck_assert_str_eq(c.name, "web");
	ck_assert_int_eq(pp_ctr_host_pid(host, DOCKER_ID, &c), 510);
	/* ppn-web has a namespace of its own (pid 200's), nginx too (400's). */
	ck_assert_int_eq(pp_ctr_host_pid(host, "ppn-web", &c), 0);
	ck_assert_int_eq(pp_ctr_host_pid(host, "nginx", &c), 0);
	ck_assert_int_eq(pp_ctr_host_pid(host, "nope", &c), 0);
	ck_assert_int_eq(pp_ctr_host_pid(host, "", &c), 0);
}
END_TEST

START_TEST(test_cache_miss_rate)
{
	struct pp_netns_cache *n = pp_netns_cache_new(host);
	__u64 t0 = 1000000, scans;

	/* Unnamed: the conmon's namespace. The first miss may scan, the next not. */
	ck_assert_ptr_null(pp_netns_cache_get_at(n, 3000, t0));
	scans = pp_netns_cache_scans(n);
	for (int i = 0; i < 1000; i++)
		ck_assert_ptr_null(pp_netns_cache_get_at(n, 3000, t0 + (__u64)i % 10));
	ck_assert_uint_eq(pp_netns_cache_scans(n), scans);
	/* A namespace that appears later is named at its first miss after the limit. */
	add_proc(500, 5000, "docker-v2-systemd.txt");
	ck_assert_ptr_null(pp_netns_cache_get_at(n, 5000, t0 + 1));
	ck_assert_str_eq(pp_netns_cache_get_at(n, 5000, t0 + PP_NAMES_RESCAN_MS + 1)->name, "web");
	ck_assert_uint_eq(pp_netns_cache_scans(n), scans + 1);
	/* Named entries cost no scan. */
	for (int i = 0; i < 1000; i++)
		ck_assert_ptr_nonnull(pp_netns_cache_get_at(n, 2000, t0 + PP_NAMES_RESCAN_MS + 2));
	ck_assert_uint_eq(pp_netns_cache_scans(n), scans + 1);
	pp_netns_cache_free(n);
}
END_TEST

START_TEST(test_cache_reused_inode)
{
	struct pp_netns_cache *n = pp_netns_cache_new(host);
	__u64 t = 5000000;
	char cmd[512];

	ck_assert_str_eq(pp_netns_cache_get_at(n, 2000, t)->name, "ppn-web");
	/* The container goes; its inode comes back as another container's namespace. */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/proc/200", host);
	run(cmd);
	add_proc(600, 2000, "docker-v1-cgroupfs.txt");
	/* Within the recheck interval the cached name stands ... */
	ck_assert_str_eq(pp_netns_cache_get_at(n, 2000, t + 1)->name, "ppn-web");
	/* ... after it, the name is checked, found false and replaced. */
	ck_assert_str_eq(pp_netns_cache_get_at(n, 2000, t + PP_NAMES_RECHECK_MS + 1)->name, "web");
	ck_assert_int_eq(pp_netns_cache_get_at(n, 2000, t + PP_NAMES_RECHECK_MS + 2)->ctr.rt,
			 PP_RT_DOCKER);
	pp_netns_cache_free(n);
}
END_TEST

START_TEST(test_cache_many)
{
	struct pp_netns_cache *n = pp_netns_cache_new(host);
	char name[32];
	__u32 ino[300];

	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "ns%d", i);
		ino[i] = add_netns(name);
	}
	/* One scan on the first miss names them all (and the table grows). */
	ck_assert_str_eq(pp_netns_cache_get_at(n, ino[0], 10000000)->name, "ns0");
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "ns%d", i);
		ck_assert_str_eq(pp_netns_cache_get_at(n, ino[i], 10000001)->name, name);
	}
	ck_assert_uint_eq(pp_netns_cache_scans(n), 2);
	pp_netns_cache_free(n);
}
END_TEST

Suite *names_suite(void)
{
	Suite *s = suite_create("names");
	TCase *tc = tcase_create("runtimes"), *cache = tcase_create("cache");

	tcase_add_loop_test(tc, test_cgroup_shapes, 0, sizeof(shapes) / sizeof(shapes[0]));
	tcase_add_test(tc, test_cgroup_odd);
	tcase_add_loop_test(tc, test_runtime_meta, 0, sizeof(metas) / sizeof(metas[0]));
	tcase_add_test(tc, test_runtime_meta_missing);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(cache, host_setup, host_teardown);
	tcase_add_test(cache, test_cache_names);
	tcase_add_test(cache, test_scope_resolve);
	tcase_add_test(cache, test_host_container);
	tcase_add_test(cache, test_cache_miss_rate);
	tcase_add_test(cache, test_cache_reused_inode);
	tcase_add_test(cache, test_cache_many);
	suite_add_tcase(s, cache);
	return s;
}
