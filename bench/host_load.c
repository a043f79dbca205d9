// SPDX-License-Identifier: GPL-2.0
/*
 * host_load KIND SECS [ADDR]: runs one workload for SECS seconds and prints
 * "KIND OPS_PER_SECOND OPS OPS_PER_CPU_SECOND" (bench/host_cost.sh pins it
 * to one CPU). The last is per second of the CPU time the workload itself
 * used (its threads and children, user and system, which includes the
 * softirq work done on its behalf in its context): other work on a shared
 * machine moves the wall-clock rate far more than that.
 *
 *   sendto    64-byte UDP datagrams to ADDR:9, one sendto() each
 *   sendmsg   the same with sendmsg() on a connected socket
 *   write     the same with write() on a connected socket
 *   tcp       64-byte send()s on a TCP connection to a thread of this
 *             process on 127.0.0.1 that reads them (same CPU)
 *   tmpfs     create, write 64 bytes, close and unlink a file in /dev/shm
 *   fork      fork() a child that exits at once, and wait for it
 *
 * ADDR (UDP only) should route out a device that frees what it is sent (an
 * ifb device): the datagrams cross the whole send path and trouble nobody.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

static char buf[64] = "pktpath host_load";
static struct sockaddr_in to = {.sin_family = AF_INET};
static int fd = -1;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* CPU seconds used so far by this process and its waited-for children. */
static double cpu_now(void)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
			kids.ru_stime.tv_sec) +
	       (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
			kids.ru_stime.tv_usec) /
		       1e6;
}

static int op_sendto(void)
{
	return sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&to, sizeof(to)) < 0;
}

static int op_sendmsg(void)
{
	struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};

	return sendmsg(fd, &m, 0) < 0;
}

static int op_write(void)
{
	return write(fd, buf, sizeof(buf)) < 0;
}

static int op_tcp(void)
{
	return send(fd, buf, sizeof(buf), 0) < 0;
}

static int op_tmpfs(void)
{
	char path[64];
	int f;

	snprintf(path, sizeof(path), "/dev/shm/host_load.%d", (int)getpid());
	f = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (f < 0 || write(f, buf, sizeof(buf)) < 0)
		return 1;
	close(f);
	return unlink(path) < 0;
}

static int op_fork(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	return pid < 0 || waitpid(pid, NULL, 0) != pid;
}

/* The TCP sink: reads until the connection closes. */
static void *sink(void *arg)
{
	int s = *(int *)arg;
	char rbuf[65536];

	while (read(s, rbuf, sizeof(rbuf)) > 0)
		;
	return NULL;
}

static int setup_tcp(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	static int conn;
	pthread_t t;
	int l = socket(AF_INET, SOCK_STREAM, 0);

	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &len))
		return 1;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		return 1;
	conn = accept(l, NULL, NULL);
	close(l);
	return conn < 0 || pthread_create(&t, NULL, sink, &conn);
}

static int setup_udp(const char *kind, const char *addr)
{
	if (!addr || inet_pton(AF_INET, addr, &to.sin_addr) != 1)
		return 1;
	to.sin_port = htons(9);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return 1;
	return strcmp(kind, "sendto") && connect(fd, (struct sockaddr *)&to, sizeof(to));
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*op)(void);
	} kinds[] = {{"sendto", op_sendto}, {"sendmsg", op_sendmsg}, {"write", op_write},
		     {"tcp", op_tcp},	    {"tmpfs", op_tmpfs},     {"fork", op_fork}};
	int (*op)(void) = NULL;
	double secs, start, t, cpu0;
	long n = 0;
	int err = 0;

	for (size_t i = 0; argc >= 3 && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(argv[1], kinds[i].name))
			op = kinds[i].op;
	secs = argc >= 3 ? atof(argv[2]) : 0;
	if (!op || secs <= 0) {
		fprintf(stderr,
			"usage: host_load sendto|sendmsg|write|tcp|tmpfs|fork SECS [ADDR]\n");
		return 2;
	}
	if (op == op_tcp)
		err = setup_tcp();
	else if (op != op_tmpfs && op != op_fork)
		err = setup_udp(argv[1], argc > 3 ? argv[3] : NULL);
	if (err) {
		perror("host_load: setup");
		return 1;
	}
	cpu0 = cpu_now();
	start = now();
	/* The clock is read every 256 operations: its own cost stays out of the rate. */
	do {
		for (int i = 0; i < 256; i++)
			if (op()) {
				perror("host_load");
				return 1;
			}
		n += 256;
		t = now();
	} while (t - start < secs);
	printf("%s %.0f %ld %.0f\n", argv[1], (double)n / (t - start), n,
	       (double)n / (cpu_now() - cpu0));
	return 0;
}
