// SPDX-License-Identifier: GPL-2.0
/*
 * Where and how packets are marked: --netns/--container's namespaces, the
 * filter and its classifier on the interfaces (or --tc-script's scripts),
 * and the filter's IP part for the packets this host sends.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cmd/app.h"
#include "names/netns_names.h"
#include "names/netns_scope.h"
#include "names/ctr_host.h"
#include "kernel/cgroup_scope.h"
#include "kernel/kfeatures.h"
#include "kernel/unit_cgroup.h"
#include "names/scope_socks.h"
#include "probes/attacher.h"
#include "tc/tc_attach.h"
#include "base/log.h"

#define PP_STACK_ENTRIES 4096 /* distinct stacks kept with --stack: 1 MiB */

/* --unit: its cgroup's path from the cgroup v2 root, into BUF; or -errno with a->err said. */
static int unit_cgroup(struct pp_app *a, char *buf, size_t len)
{
	int root = pp_cgroup2_open_root(), ret;

	if (root < 0) {
		snprintf(a->err, sizeof(a->err), "--unit %s: no cgroup v2 hierarchy: %s",
			 a->env.unit, strerror(-root));
		return root;
	}
	ret = pp_unit_cgroup(root, a->env.unit, buf, len, a->err, sizeof(a->err));
	close(root);
	return ret;
}

/* --cgroup, --unit, --pid or its PID: the scope's cgroup; or a usage error. */
static int cgroup_scope(struct pp_app *a, unsigned int pid)
{
	char unit[PATH_MAX];
	const char *path = a->env.cgroup;

	if (a->env.unit) {
		if (unit_cgroup(a, unit, sizeof(unit)))
			return pp_app_usage_error("%s", a->err);
		pp_debug("--unit %s: cgroup %s\n", a->env.unit, unit);
		path = unit;
	}
	if (pp_cgroup_scope_resolve(&a->cgroup, path, pid, a->err, sizeof(a->err)))
		return pp_app_usage_error("%s", a->err);
	if (a->env.pid_only)
		pp_info("scope: the sockets of pid %u alone (marked as its cgroup's)\n",
			a->env.pid);
	else if (a->env.pid)
		pp_info("scope: every socket of pid %u's cgroup (--pid-only: its own alone)\n",
			a->env.pid);
	return 0;
}

/*
 * --container CTR of a container on the host's network (podman run
 * --network host), which no namespace of the cache names: no namespace of
 * its own tells its packets, so the scope is its cgroup, that of its first
 * process, alone (a scope is one cgroup, or namespaces). *PID: that
 * process; left 0 if CTR has a namespace of its own or names nothing (the
 * namespaces' resolution then says so).
 */
static int host_container(struct pp_app *a, const char *ctr, unsigned int *pid)
{
	__u32 ino;
	struct pp_ctr c;
	int p;

	if (pp_netns_cache_find(a->netns, ctr, &ino, 1))
		return 0;
	p = pp_ctr_host_pid("", ctr, &c);
	if (!p)
		return 0;
	if (a->env.nnetns + a->env.ncontainers > 1 || a->env.cgroup || a->env.unit || a->env.pid ||
	    a->env.command)
		return pp_app_usage_error(
			"--container %s is on the host's network: its scope is its cgroup, alone "
			"(not with --netns, another --container, --cgroup, --unit, --pid or "
			"-- COMMAND)",
			ctr);
	pp_debug("--container %s: %s %.12s on the host's network: the cgroup of its pid %d\n", ctr,
		 pp_rt_name(c.rt), c.id, p);
	*pid = (unsigned int)p;
	return 0;
}

/*
 * The scope, before anything is made or attached: --cgroup, --unit, --pid,
 * a container's on the host's network or -- COMMAND's cgroup; --netns and
 * --container's namespaces, whose names come from the cache's first scan,
 * which then serves the output too.
 */
int pp_app_marking_scope(struct pp_app *a)
{
	int n = a->env.nnetns + a->env.ncontainers;
	unsigned int pid = a->env.pid;

	if (n)
		a->netns = pp_netns_cache_new("/");
	for (int i = 0; i < a->env.ncontainers; i++)
		if (host_container(a, a->env.containers[i], &pid))
			return PP_EXIT_USAGE;
	if (pid != a->env.pid)
		n = 0;
	if ((a->env.cgroup || a->env.unit || pid) && cgroup_scope(a, pid))
		return PP_EXIT_USAGE;
	if (a->env.command && pp_command_prepare(&a->command, a->env.command, a->env.user,
						 &a->cgroup, a->err, sizeof(a->err)))
		return pp_app_usage_error("%s", a->err);
	if (a->cgroup.id)
		pp_debug("cgroup scope: id %llu, level %u\n", (unsigned long long)a->cgroup.id,
			 a->cgroup.level);
	if (!n)
		return 0;
	if (n > PP_SCOPE_MAX)
		return pp_app_usage_error(
			"--netns and --container: at most %d namespaces in a scope", PP_SCOPE_MAX);
	if (a->env.tc_script)
		return pp_app_usage_error(
			"--tc-script and --netns/--container: the scripts attach in "
			"pktpath's own namespace only");
	for (int i = 0; i < n; i++) {
		bool ctr = i >= a->env.nnetns;
		const char *arg = ctr ? a->env.containers[i - a->env.nnetns] : a->env.netns[i];

		if (pp_scope_resolve(a->netns, "", arg, ctr, &a->scope_ns[a->nscope], a->err,
				     sizeof(a->err)))
			return pp_app_usage_error("%s", a->err);
		a->nscope++;
	}
	return 0;
}

/* -i's interfaces, in the scope's namespaces or pktpath's own (followed as they come). */
static int resolve_interfaces(struct pp_app *a)
{
	int ret;

	/* Listening first: an interface that comes after the list is still seen. */
	a->following = !a->env.tc_script && !a->env.no_follow && !a->nscope;
	if (a->following && pp_follow_open(&a->follow, &a->tc, a->err, sizeof(a->err))) {
		pp_warn("%s\n", a->err);
		return PP_EXIT_FAIL;
	}
	if (a->nscope)
		ret = pp_scope_tc_open(&a->scope, a->scope_ns, a->nscope, a->env.ifaces,
				       a->env.nifaces, a->err, sizeof(a->err));
	else
		ret = pp_tc_resolve(&a->tc, a->env.ifaces, a->env.nifaces, a->err, sizeof(a->err));
	return ret ? pp_app_usage_error("%s", a->err) : 0;
}

/* The filter and the interfaces: loaded and resolved, nothing attached. */
int pp_app_marking_prepare(struct pp_app *a)
{
	struct pp_maps_opts sizes = {.max_packets = a->env.max_packets,
				     .ring_size = a->env.ring_size,
				     .stacks = a->env.nstacks ? PP_STACK_ENTRIES : 0,
				     .scope_flows = a->cgroup.id != 0,
				     .orphan_ns = (__u64)(a->env.packet_timeout * 1e9)};
	struct pp_cls_opts o = {.expr = a->env.filter,
				.maps = &a->maps,
				.xlate_flags = a->env.no_inner ? 0 : PP_XLATE_INNER,
				.no_fetch = !a->facts.fetch,
				.cgroup_id = a->cgroup.id,
				.cgroup_level = a->cgroup.level,
				.keep_makers = a->cgroup.id && pp_kfeatures_has_sock_maker(),
				.frame_anchor = a->env.verdicts};
	double t0 = pp_app_now_ms();
	int ret;

	ret = resolve_interfaces(a);
	if (ret)
		return ret;
	ret = pp_maps_create(&a->maps, &sizes);
	if (ret) {
		pp_warn("cannot create the maps: %s\n", strerror(-ret));
		return PP_EXIT_FAIL;
	}
	ret = pp_cls_load(&a->cls, &o, a->err, sizeof(a->err));
	if (ret) {
		pp_warn("%s\n", a->err);
		return ret == -EINVAL || ret == -E2BIG ? PP_EXIT_USAGE : PP_EXIT_FAIL;
	}
	if (a->cls.outer_only)
		pp_warn("the filter fits the verifier's limits only without the "
			"inner view: it matches the outer headers only (as --no-inner)\n");
	pp_debug("filter: %zu classic instructions (%zu libpcap compile%s), %zu "
		 "eBPF; compiled and loaded in %.1f ms\n",
		 a->cls.filter.cbpf_len, a->cls.filter.chunks, a->cls.filter.chunks == 1 ? "" : "s",
		 a->cls.filter.cnt, pp_app_now_ms() - t0);
	return 0;
}

/*
 * A cgroup scope's sockets keep their makers: so that a packet of one that
 * exits before the loader reads /proc (curl) still names its process, and
 * so that the classifier knows the scope's sockets on ingress (a server's
 * inbound SYN). Those made from now on by the kernel (6.1 on), those there
 * already given their holder now.
 */
static void keep_makers(struct pp_app *a)
{
	int fd, ret;

	if (!a->cgroup.id)
		return;
	fd = pp_cgroup_open_id(a->cgroup.id);
	if (fd < 0) {
		pp_warn("cannot open the scope's cgroup: %s: a process gone before /proc is read "
			"is not named, and inbound packets join at their first answer\n",
			strerror(-fd));
		return;
	}
	ret = pp_cls_attach_maker(&a->cls, fd);
	if (ret == 0)
		pp_debug("this kernel keeps no socket's maker for pktpath (cgroup sock "
			 "programs: 6.1): a process gone before /proc is read is not named, "
			 "and a socket made from now on is in the scope on egress only\n");
	else if (ret < 0)
		pp_warn("cannot keep the makers of the scope's sockets: %s\n", strerror(-ret));
	pp_debug("cgroup scope: %d sockets there at start\n",
		 pp_scope_socks_fill(a->maps.sock_maker_map, fd));
	close(fd);
}

/* The classifier on the interfaces, or the scripts that put it there. */
int pp_app_marking_attach(struct pp_app *a)
{
	keep_makers(a);
	if (a->env.tc_script)
		return pp_tc_script_write(&a->script, &a->cls, &a->maps, &a->tc, a->err,
					  sizeof(a->err));
	if (a->nscope)
		return pp_scope_tc_attach(&a->scope, &a->cls, !a->no_tcx, a->err, sizeof(a->err));
	a->tc.tcx = !a->no_tcx;
	return pp_tc_attach(&a->tc, &a->cls, a->err, sizeof(a->err));
}

/*
 * Locally sent packets are marked where IP sends them (ip_output), so
 * their path starts at the socket side, not at TC, with the filter's IP
 * part (pp_attacher_marks()). Not in a cgroup scope: the classifier alone
 * asks the skb's socket for its cgroup.
 */
void pp_app_marking_probes(struct pp_app *a)
{
	if (!pp_attacher_marks(a->attacher) || a->cgroup.id)
		return;
	if (pp_filter_build_l3(&a->l3, a->env.filter, a->err, sizeof(a->err))) {
		pp_warn("packets this host sends are marked at TC only: %s\n", a->err);
		return;
	}
	a->attacher->set.l3 = a->l3.insns;
	a->attacher->set.l3_cnt = a->l3.cnt;
}

/*
 * --verdicts: frames an XDP program drops, sends back or redirects before
 * any skb are matched from their Ethernet header (bpf/frames.bpf.h). Not
 * in a cgroup scope: a frame has no socket.
 */
void pp_app_marking_frames(struct pp_app *a)
{
	if (!a->attacher->set.verdicts || a->cgroup.id)
		return;
	if (pp_filter_build(&a->l2, a->env.filter, PP_XLATE_PROBE, a->err, sizeof(a->err))) {
		pp_warn("frames XDP programs take before any skb are not seen: %s\n", a->err);
		return;
	}
	a->attacher->set.l2 = a->l2.insns;
	a->attacher->set.l2_cnt = a->l2.cnt;
}
