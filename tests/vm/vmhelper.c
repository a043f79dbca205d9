// SPDX-License-Identifier: GPL-2.0
/*
 * vmhelper: a small static tool for the QEMU test VM, where the initramfs has
 * only busybox. It does what neither busybox nor pktpath should be trusted to
 * do for the tests themselves:
 *
 *   vmhelper backends        try the real attach of each probe kind pktpath
 *                            can use and print "backend NAME ok" or
 *                            "backend NAME no ERRNO-TEXT", one line each.
 *                            The scenarios run pktpath only where the kernel
 *                            can attach, so that a pktpath bug on a capable
 *                            kernel is a FAIL and not a silent skip.
 *   vmhelper udp ADDR PORT [BYTES [COUNT]]
 *                            send one UDP datagram with sendto() (busybox nc
 *                            has no -u), or COUNT datagrams of BYTES each
 *                            (the fragments scenario: larger than the MTU).
 *   vmhelper udp-serve PORT COUNT
 *                            bind PORT, then go to the background: read COUNT
 *                            datagrams and print how many came.
 *   vmhelper udp-sink PORT   bind PORT, then go to the background: read
 *                            datagrams until killed (or for an hour).
 *   vmhelper udp-flood ADDR PORT SECS
 *                            send 18-byte datagrams (64-byte frames with the
 *                            FCS) as fast as sendto() returns, for SECS
 *                            seconds; print "SENT ELAPSED_S".
 *   vmhelper no-tso IFNAME   turn TCP segmentation offload off on IFNAME, so
 *                            that TCP's large skbs are cut up by software GSO
 *                            on their way out (what ethtool -K tso off does).
 *   vmhelper tcp-serve PORT  listen on PORT, then go to the background (the
 *                            caller goes on once the server can accept);
 *                            accept one connection, read it to its end,
 *                            print the byte count and close.
 *   vmhelper tcp-send ADDR PORT BYTES
 *                            connect, send BYTES in 16 KiB writes, shut down
 *                            the sending side and wait for the server to close:
 *                            when it returns, the whole exchange, FINs
 *                            included, has crossed the network.
 *   vmhelper btf TP...       the kernel's BTF facts tests/vm/scenarios.sh
 *                            asks for (kfacts): "enum skb_drop_reason
 *                            yes|no", "enumerator BPF_FUNC_loop yes|no",
 *                            and "tp TP N" for each tracepoint TP, N the
 *                            arguments of its btf_trace_TP prototype (0: no
 *                            such tracepoint). Parsing the BTF here takes a
 *                            fraction of a second under TCG; a bpftool text
 *                            dump of it, minutes on a loaded host.
 *   vmhelper bpf-count       "bpf_progs N" and "bpf_links N": the BPF programs
 *                            and links the kernel holds, counted by their
 *                            ids (BPF_PROG_GET_NEXT_ID, BPF_LINK_GET_NEXT_ID),
 *                            as bpftool prog/link show list them, in one
 *                            static process instead of two dynamic ones.
 *   vmhelper sigdfl PROG...  exec PROG with SIGINT and SIGQUIT at their
 *                            defaults: a non-interactive shell starts its
 *                            background jobs with them ignored, a user's
 *                            terminal does not, and the tests stop pktpath
 *                            with SIGINT like a user.
 *
 * Each probe is a two-instruction program ("return 0") loaded with libbpf's
 * low-level API, so this needs no BPF object file, no clang and no BTF of its
 * own, only the kernel's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/perf_event.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/* Present in every kernel that can run the scenarios, called on every IPv4 RX. */
#define PROBE_FUNC "ip_rcv"
/* The tracepoint the tracepoint backend cannot do without. */
#define PROBE_TP "netif_receive_skb"

/* r0 = 0; exit */
static const struct bpf_insn ret0[] = {
	{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
	{.code = BPF_JMP | BPF_EXIT},
};

static int load(enum bpf_prog_type type, enum bpf_attach_type eat, __u32 btf_id)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = eat, .attach_btf_id = btf_id);
	int fd;

	fd = bpf_prog_load(type, "vmhelper", "GPL", ret0, 2, &opts);
	return fd < 0 ? -errno : fd;
}

/* The PMU type of kprobes: dynamic, read from sysfs like libbpf does. */
static int kprobe_pmu_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	int type = -ENOENT;

	if (!f)
		return -errno;
	if (fscanf(f, "%d", &type) != 1)
		type = -EINVAL;
	fclose(f);
	return type;
}

/* A single kprobe through perf_event_open, pktpath's fallback path. */
static int try_kprobe(void)
{
	struct perf_event_attr attr = {.size = sizeof(attr)};
	int prog, pfd = -1, err;

	prog = load(BPF_PROG_TYPE_KPROBE, 0, 0);
	if (prog < 0)
		return prog;
	err = kprobe_pmu_type();
	if (err < 0)
		goto cleanup;
	attr.type = err;
	attr.config1 = (__u64)(unsigned long)PROBE_FUNC;
	pfd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0 || ioctl(pfd, PERF_EVENT_IOC_SET_BPF, prog) < 0) {
		err = -errno;
		goto cleanup;
	}
	err = 0;
cleanup:
	if (pfd >= 0)
		close(pfd);
	close(prog);
	return err;
}

/* kprobe.multi needs CONFIG_FPROBE: without it link_create gives EOPNOTSUPP. */
static int try_kprobe_multi(void)
{
	const char *syms[] = {PROBE_FUNC};
	LIBBPF_OPTS(bpf_link_create_opts, lopts, .kprobe_multi.syms = syms, .kprobe_multi.cnt = 1);
	int prog, link, err = 0;

	prog = load(BPF_PROG_TYPE_KPROBE, BPF_TRACE_KPROBE_MULTI, 0);
	if (prog < 0)
		return prog;
	link = bpf_link_create(prog, 0, BPF_TRACE_KPROBE_MULTI, &lopts);
	if (link < 0)
		err = -errno;
	else
		close(link);
	close(prog);
	return err;
}

/* fentry and tp_btf: a BTF-typed program attached by its BTF id. */
static int try_btf_attach(const char *name, int kind, enum bpf_attach_type eat)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int id, prog, link, err = 0;

	if (!btf)
		return -errno;
	id = btf__find_by_name_kind(btf, name, kind);
	btf__free(btf);
	if (id < 0)
		return id;
	prog = load(BPF_PROG_TYPE_TRACING, eat, id);
	if (prog < 0)
		return prog;
	link = bpf_raw_tracepoint_open(NULL, prog);
	if (link < 0)
		err = -errno;
	else
		close(link);
	close(prog);
	return err;
}

static int try_fentry(void)
{
	return try_btf_attach(PROBE_FUNC, BTF_KIND_FUNC, BPF_TRACE_FENTRY);
}

static int try_tracepoint(void)
{
	return try_btf_attach("btf_trace_" PROBE_TP, BTF_KIND_TYPEDEF, BPF_TRACE_RAW_TP);
}

static int cmd_backends(void)
{
	static const struct {
		const char *name;
		int (*try)(void);
	} b[] = {
		{"kprobe-multi", try_kprobe_multi},
		{"kprobe", try_kprobe},
		{"fentry", try_fentry},
		{"tracepoint", try_tracepoint},
	};
	size_t i;

	for (i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		int err = b[i].try();

		if (err)
			printf("backend %s no %s\n", b[i].name, strerror(-err));
		else
			printf("backend %s ok\n", b[i].name);
	}
	return 0;
}

/* The largest datagram udp sends: an IPv4 datagram's payload. */
#define UDP_MAX 65507

static int cmd_udp(const char *addr, const char *port, const char *bytes, const char *count)
{
	static char buf[UDP_MAX] = "pktpath\n";
	struct sockaddr_in sin = {.sin_family = AF_INET};
	long len = bytes ? atol(bytes) : 8, n = count ? atol(count) : 1;
	int fd, err = 0;

	sin.sin_port = htons(atoi(port));
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1 || len < 1 || len > UDP_MAX || n < 1) {
		fprintf(stderr, "vmhelper: bad address %s, size %s or count %s\n", addr,
			bytes ? bytes : "8", count ? count : "1");
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	while (fd >= 0 && n-- > 0 && !err)
		err = sendto(fd, buf, len, 0, (struct sockaddr *)&sin, sizeof(sin)) < 0;
	if (fd < 0 || err) {
		perror("vmhelper: udp");
		err = 1;
	}
	if (fd >= 0)
		close(fd);
	return err;
}

/* A server that outlives no test: it gives up after this many seconds. */
#define TCP_SERVE_TIMEOUT 300
#define TCP_CHUNK	  16384

static int parse_sin(struct sockaddr_in *sin, const char *addr, const char *port)
{
	sin->sin_family = AF_INET;
	sin->sin_port = htons(atoi(port));
	if (!addr) {
		sin->sin_addr.s_addr = htonl(INADDR_ANY);
		return 0;
	}
	if (inet_pton(AF_INET, addr, &sin->sin_addr) != 1) {
		fprintf(stderr, "vmhelper: bad address %s\n", addr);
		return -1;
	}
	return 0;
}

/* Read fd to its end; returns the byte count, or -1. */
static long long drain(int fd)
{
	static char buf[TCP_CHUNK];
	long long total = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		total += n;
	}
	return total;
}

static int serve_one(int lfd)
{
	long long total;
	int fd;

	alarm(TCP_SERVE_TIMEOUT);
	fd = accept(lfd, NULL, NULL);
	close(lfd);
	if (fd < 0) {
		perror("vmhelper: accept");
		return 1;
	}
	total = drain(fd);
	/* Printed before the close, so it is there when the sender sees EOF. */
	printf("%lld\n", total);
	fflush(stdout);
	close(fd);
	return total < 0;
}

/*
 * The caller goes on once the socket is bound; SERVE(FD) runs in a child,
 * whose result is its exit status. stdout is flushed before the fork, and
 * by the child before its _exit(), which would leave stdio's buffer unwritten.
 */
static int in_background(int (*serve)(int fd), int fd)
{
	pid_t pid;
	int ret;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("vmhelper: fork");
		return 1;
	}
	if (pid)
		return 0;
	ret = serve(fd);
	fflush(stdout);
	_exit(ret);
}

static int cmd_tcp_serve(const char *port)
{
	struct sockaddr_in sin = {0};
	int fd, one = 1;

	parse_sin(&sin, NULL, port);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(fd, 1) < 0) {
		perror("vmhelper: tcp-serve");
		return 1;
	}
	return in_background(serve_one, fd);
}

static int send_all(int fd, long long bytes)
{
	static char buf[TCP_CHUNK];
	ssize_t n;

	memset(buf, 'p', sizeof(buf));
	while (bytes > 0) {
		n = write(fd, buf, bytes < TCP_CHUNK ? (size_t)bytes : sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		bytes -= n;
	}
	return 0;
}

static int cmd_tcp_send(const char *addr, const char *port, const char *bytes)
{
	struct sockaddr_in sin = {0};
	long long n = atoll(bytes), back;
	int fd, err = 1;

	if (parse_sin(&sin, addr, port) < 0 || n <= 0)
		return 2;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    send_all(fd, n) < 0 || shutdown(fd, SHUT_WR) < 0) {
		perror("vmhelper: tcp-send");
		goto cleanup;
	}
	/* The server sends nothing: EOF means it read everything and closed. */
	back = drain(fd);
	if (back != 0) {
		fprintf(stderr, "vmhelper: tcp-send: %lld bytes back, expected EOF\n", back);
		goto cleanup;
	}
	printf("%lld\n", n);
	err = 0;
cleanup:
	if (fd >= 0)
		close(fd);
	return err;
}

static int udp_count; /* udp-serve's COUNT */

static int serve_datagrams(int fd)
{
	char buf[64];
	int got = 0;

	alarm(TCP_SERVE_TIMEOUT);
	while (got < udp_count && recv(fd, buf, sizeof(buf), 0) >= 0)
		got++;
	printf("%d\n", got);
	return 0;
}

static int cmd_udp_serve(const char *port, const char *count)
{
	struct sockaddr_in sin = {0};
	int fd;

	udp_count = atoi(count);
	parse_sin(&sin, NULL, port);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		perror("vmhelper: udp-serve");
		return 1;
	}
	return in_background(serve_datagrams, fd);
}

/* udp-sink's child: a reader that never stops by itself (the VM powers off). */
#define UDP_SINK_TIMEOUT 3600

static int sink_datagrams(int fd)
{
	char buf[64];

	alarm(UDP_SINK_TIMEOUT);
	while (recv(fd, buf, sizeof(buf), 0) >= 0 || errno == EINTR)
		;
	return 1;
}

static int cmd_udp_sink(const char *port)
{
	struct sockaddr_in sin = {0};
	int fd;

	parse_sin(&sin, NULL, port);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		perror("vmhelper: udp-sink");
		return 1;
	}
	return in_background(sink_datagrams, fd);
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The packet-rate load: one connected socket, one datagram per send(). On
 * veth the whole path of each datagram (the peer's receive, forwarding, the
 * next veth, the receiver's socket) runs in the softirq that follows the
 * send, on this CPU: the rate is what the path costs. The clock is read
 * every 256 sends.
 */
static int cmd_udp_flood(const char *addr, const char *port, const char *secs)
{
	static const char payload[18] = "pktpath-vm-rate";
	struct sockaddr_in sin = {0};
	double t0, t = 0, limit = atof(secs);
	long long sent = 0, errs = 0;
	int fd;

	if (parse_sin(&sin, addr, port) < 0 || limit <= 0)
		return 2;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		perror("vmhelper: udp-flood");
		return 1;
	}
	t0 = mono_s();
	for (;;) {
		if (send(fd, payload, sizeof(payload), 0) == sizeof(payload))
			sent++;
		else
			errs++;
		if (((sent + errs) & 255) == 0 && (t = mono_s() - t0) >= limit)
			break;
	}
	close(fd);
	printf("%lld %.3f\n", sent, t);
	if (errs)
		fprintf(stderr, "vmhelper: udp-flood: %lld sends failed\n", errs);
	return 0;
}

static int cmd_no_tso(const char *ifname)
{
	struct ethtool_value ev = {.cmd = ETHTOOL_STSO, .data = 0};
	struct ifreq ifr = {0};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (char *)&ev;
	if (fd < 0 || ioctl(fd, SIOCETHTOOL, &ifr) < 0) {
		perror("vmhelper: no-tso");
		return 1;
	}
	close(fd);
	return 0;
}

/* has_enumerator: does any enum of BTF have an enumerator NAME? */
static int has_enumerator(const struct btf *btf, const char *name)
{
	__u32 id, n = btf__type_cnt(btf);

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e = btf_enum(t);
		__u16 i;

		if (!btf_is_enum(t))
			continue;
		for (i = 0; i < btf_vlen(t); i++)
			if (!strcmp(btf__name_by_offset(btf, e[i].name_off), name))
				return 1;
	}
	return 0;
}

/* tp_nargs: the arguments of tracepoint TP's prototype: typedef btf_trace_TP,
 * a pointer to a FUNC_PROTO. 0 if the kernel has no such tracepoint. */
static int tp_nargs(const struct btf *btf, const char *tp)
{
	const struct btf_type *t;
	char name[128];
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return 0;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!t || !btf_is_ptr(t))
		return 0;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) ? btf_vlen(t) : 0;
}

static int cmd_btf(char **tps)
{
	struct btf *btf = btf__load_vmlinux_btf();

	if (!btf) {
		fprintf(stderr, "vmhelper: no vmlinux BTF: %s\n", strerror(errno));
		return 1;
	}
	printf("enum skb_drop_reason %s\n",
	       btf__find_by_name_kind(btf, "skb_drop_reason", BTF_KIND_ENUM) > 0 ? "yes" : "no");
	printf("enumerator BPF_FUNC_loop %s\n",
	       has_enumerator(btf, "BPF_FUNC_loop") ? "yes" : "no");
	for (; *tps; tps++)
		printf("tp %s %d\n", *tps, tp_nargs(btf, *tps));
	btf__free(btf);
	return 0;
}

/* count_ids NEXT: how many ids NEXT (bpf_prog_get_next_id, ...) walks. */
static long count_ids(int (*next)(__u32, __u32 *))
{
	__u32 id = 0;
	long n = 0;

	while (!next(id, &id))
		n++;
	return errno == ENOENT ? n : -1;
}

static int cmd_bpf_count(void)
{
	long progs = count_ids(bpf_prog_get_next_id);
	long links = count_ids(bpf_link_get_next_id);

	if (progs < 0 || links < 0) {
		fprintf(stderr, "vmhelper: bpf-count: %s\n", strerror(errno));
		return 1;
	}
	printf("bpf_progs %ld\nbpf_links %ld\n", progs, links);
	return 0;
}

static int cmd_sigdfl(char **argv)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	execvp(argv[0], argv);
	fprintf(stderr, "vmhelper: %s: %s\n", argv[0], strerror(errno));
	return 127;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "backends"))
		return cmd_backends();
	if (argc >= 4 && argc <= 6 && !strcmp(argv[1], "udp"))
		return cmd_udp(argv[2], argv[3], argc > 4 ? argv[4] : NULL,
			       argc > 5 ? argv[5] : NULL);
	if (argc == 4 && !strcmp(argv[1], "udp-serve"))
		return cmd_udp_serve(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "udp-sink"))
		return cmd_udp_sink(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "udp-flood"))
		return cmd_udp_flood(argv[2], argv[3], argv[4]);
	if (argc == 3 && !strcmp(argv[1], "no-tso"))
		return cmd_no_tso(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "tcp-serve"))
		return cmd_tcp_serve(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "tcp-send"))
		return cmd_tcp_send(argv[2], argv[3], argv[4]);
	if (argc >= 2 && !strcmp(argv[1], "btf"))
		return cmd_btf(argv + 2);
	if (argc == 2 && !strcmp(argv[1], "bpf-count"))
		return cmd_bpf_count();
	if (argc > 2 && !strcmp(argv[1], "sigdfl"))
		return cmd_sigdfl(argv + 2);
	fprintf(stderr, "usage: vmhelper backends | udp ADDR PORT [BYTES [COUNT]] | udp-serve PORT "
			"COUNT |\n"
			"       udp-sink PORT | udp-flood ADDR PORT SECS |\n"
			"       no-tso IFNAME | tcp-serve PORT | tcp-send ADDR PORT BYTES |\n"
			"       btf [TP]... | bpf-count | sigdfl PROG [ARG]...\n");
	return 2;
}
