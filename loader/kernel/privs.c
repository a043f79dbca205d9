// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <bpf/bpf.h>
#include "base/compat.h"
#include "kernel/privs.h"

#define PP_CAP_MAX 63 /* the sets are 64 bits wide (two __u32 words) */

__u64 pp_privs_keep(bool clsact)
{
	return clsact ? 1ULL << CAP_NET_ADMIN : 0;
}

static bool has_effective(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1U << (cap % 32));
}

/* The child of pp_privs_keep_bpf(): 0 if FD's info can be read without CAP_BPF and CAP_SYS_ADMIN.
 */
static int try_without_bpf_caps(int fd)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2] = {0};
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	if (syscall(SYS_capget, &h, d))
		return 2;
	d[CAP_BPF / 32].effective &= ~(1U << (CAP_BPF % 32));
	d[CAP_SYS_ADMIN / 32].effective &= ~(1U << (CAP_SYS_ADMIN % 32));
	if (syscall(SYS_capset, &h, d))
		return 2;
	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 1 : 0;
}

__u64 pp_privs_keep_bpf(int fd)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2] = {0};
	pid_t pid;
	int status;

	if (syscall(SYS_capget, &h, d))
		return 0;
	pid = fork();
	if (pid == 0)
		_exit(try_without_bpf_caps(fd));
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0)
		return 0;
	return has_effective(d, CAP_BPF) ? 1ULL << CAP_BPF : 1ULL << CAP_SYS_ADMIN;
}

static int fail(char *err, size_t errlen, const char *what)
{
	int e = errno;

	snprintf(err, errlen, "cannot drop privileges: %s: %s", what, strerror(e));
	return -e;
}

/* The bounding set is what an execve could give back to a root process. */
static int drop_bounding(__u64 keep, char *err, size_t errlen)
{
	for (int cap = 0; cap <= PP_CAP_MAX; cap++) {
		/* EINVAL: past the last capability this kernel knows. */
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0)
			break;
		if (keep & (1ULL << cap))
			continue;
		/*
		 * EPERM: run without CAP_SETPCAP (pktpath needs only CAP_BPF,
		 * CAP_PERFMON, CAP_NET_ADMIN). Then the bounding set stays;
		 * no_new_privs and the seccomp filter's execve ban remain.
		 */
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0))
			return errno == EPERM ? 0 : fail(err, errlen, "PR_CAPBSET_DROP");
	}
	return 0;
}

int pp_privs_drop(__u64 keep, char *err, size_t errlen)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2] = {0};
	int ret;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return fail(err, errlen, "PR_SET_NO_NEW_PRIVS");
	/* Needs CAP_SETPCAP: before capset takes it away. */
	ret = drop_bounding(keep, err, errlen);
	if (ret)
		return ret;
	/* EINVAL on kernels before 4.3, which have no ambient set to clear. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		return fail(err, errlen, "PR_CAP_AMBIENT_CLEAR_ALL");
	for (int i = 0; i < 2; i++) {
		d[i].effective = (__u32)(keep >> (32 * i));
		d[i].permitted = d[i].effective;
	}
	if (syscall(SYS_capset, &h, d))
		return fail(err, errlen, "capset");
	return 0;
}

const char *pp_privs_names(__u64 keep, char *buf, size_t len)
{
	static const char *const names[] = {
		[CAP_NET_ADMIN] = "cap_net_admin",
		[CAP_SYS_ADMIN] = "cap_sys_admin",
		[CAP_BPF] = "cap_bpf",
	};
	size_t off = 0;

	buf[0] = '\0';
	for (int cap = 0; cap <= PP_CAP_MAX && off < len; cap++) {
		const char *n = cap < (int)(ARRAY_SIZE(names)) ? names[cap] : NULL;

		if (!(keep & (1ULL << cap)))
			continue;
		if (n)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", n);
		else
			off += (size_t)snprintf(buf + off, len - off, "%scap_%d", off ? "," : "",
						cap);
	}
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

#if defined(__x86_64__)
#define PP_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PP_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef PP_AUDIT_ARCH
#define ARG_LO(n)   offsetof(struct seccomp_data, args[n])
#define DENY	    (SECCOMP_RET_ERRNO | EPERM)
#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)

/* A syscall nobody in the rest of the run makes: EPERM. */
#define DENY_NR(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, DENY)

/* An open whose flags (argument N) would write: EPERM; reading is fine. */
#define DENY_WRITE_OPEN(nr, n)                                                                     \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 3),                                           \
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(n)),                                     \
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, WRITE_FLAGS, 0, 1),                           \
		BPF_STMT(BPF_RET | BPF_K, DENY), BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR)

#define NR   offsetof(struct seccomp_data, nr)
#define ARCH offsetof(struct seccomp_data, arch)

/*
 * A deny list, not an allow list: a syscall that libc or libbpf makes at
 * detach and that a list forgot would leave filters attached. Denied:
 * running anything, opening a file to write (root owns its files even
 * without capabilities), io_uring (it opens files past this filter),
 * other processes' memory, mounts and kernel modules. On little-endian
 * machines args[n]'s low 32 bits (the flags) come first.
 */
int pp_privs_seccomp(char *err, size_t errlen)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARCH),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PP_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, DENY),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR),
#ifdef __x86_64__
		/* x32 syscall numbers: another table, same arch value. */
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, DENY),
		DENY_WRITE_OPEN(__NR_open, 1),
		DENY_NR(__NR_creat),
#endif
		DENY_WRITE_OPEN(__NR_openat, 2),
		DENY_NR(__NR_openat2),
		DENY_NR(__NR_open_by_handle_at),
		DENY_NR(__NR_execve),
		DENY_NR(__NR_execveat),
		DENY_NR(__NR_io_uring_setup),
		DENY_NR(__NR_ptrace),
		DENY_NR(__NR_process_vm_writev),
		DENY_NR(__NR_mount),
		DENY_NR(__NR_init_module),
		DENY_NR(__NR_finit_module),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = ARRAY_SIZE(f), .filter = f};

	/* no_new_privs (pp_privs_drop) lets a process without CAP_SYS_ADMIN do this. */
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0))
		return fail(err, errlen, "seccomp");
	return 0;
}
#else
int pp_privs_seccomp(char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return 0; /* no filter written for this architecture */
}
#endif
