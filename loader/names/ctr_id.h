/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which container a process belongs to, from its cgroup path alone
 * (/proc/PID/cgroup): each runtime names the cgroup it makes after the
 * container's 64-hex id, in a shape of its own. BPF-free.
 */
#ifndef PP_CTR_ID_H
#define PP_CTR_ID_H

#define PP_CTR_ID_LEN 64

/* A container runtime; ANY: an id whose cgroup does not say which runtime made it. */
enum pp_rt {
	PP_RT_NONE,
	PP_RT_PODMAN,
	PP_RT_DOCKER,
	PP_RT_CONTAINERD,
	PP_RT_CRIO,
	PP_RT_ANY,
};

/* "podman", "docker", "containerd", "cri-o"; NULL for NONE and ANY. */
const char *pp_rt_name(enum pp_rt rt);

/*
 * The container of the process whose /proc/PID/cgroup reads TEXT: its id
 * into ID (PP_CTR_ID_LEN hex digits and a NUL) and the runtime its cgroup's
 * shape names; PP_RT_NONE if no line names a container.
 */
enum pp_rt pp_cgroup_ctr(const char *text, char *id);

#endif /* PP_CTR_ID_H */
