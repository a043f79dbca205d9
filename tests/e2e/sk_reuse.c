// SPDX-License-Identifier: GPL-2.0
/*
 * A TCP socket at a freed socket's address, on purpose, for the reads test
 * (test_reads_reuse.sh):
 *
 *   sk_reuse sink PORT TRIES    accepts connections on PORT; one whose
 *       socket sits at the address of the one before (the kernel's sk, as
 *       /proc/net/tcp shows it hashed) is read until EOF; every other one
 *       is closed after 200 ms with its data unread (a reset, no
 *       TIME_WAIT). Prints "unread C: N bytes" per closed one and "reused
 *       C: read N bytes" for the read one; exits 1 after TRIES without a
 *       reuse.
 *   sk_reuse send ADDR PORT SPORT TRIES SEGS
 *       connects from SPORT again and again (the same four-tuple: the
 *       peer's initial sequence number moves on by the time between,
 *       some 64 ns a step, so the new stream's sequence numbers lie just
 *       past the old one's), writes SEGS segments of 100 + C bytes on
 *       connection C (1, 2, ...), 5 ms apart, shuts down its side, and waits
 *       for the peer: a reset, the next connection; an orderly close, done.
 *
 * Run both on one CPU: the freed socket goes back to that CPU's slab, and
 * the next connection's socket, made in that CPU's softirq, takes it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>

/* The hashed sk of the socket with local port LPORT, remote port RPORT. */
static int sk_of(unsigned int lport, unsigned int rport, char *sk, size_t n)
{
	char line[512], fmt[64];
	unsigned int lp, rp;
	FILE *f = fopen("/proc/net/tcp", "r");
	int found = 0;

	if (!f)
		return 0;
	snprintf(fmt, sizeof(fmt),
		 "%%*d: %%*x:%%x %%*x:%%x %%*s %%*s %%*s %%*s %%*s %%*s %%*s "
		 "%%*s %%%zus",
		 n - 1);
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, fmt, &lp, &rp, sk) == 3 && lp == lport && rp == rport;
	fclose(f);
	return found;
}

static int drain(int fd, unsigned long *got)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		*got += (unsigned long)n;
	return n < 0;
}

static int do_sink(char **argv)
{
	struct sockaddr_in at = {.sin_family = AF_INET,
				 .sin_port = htons((unsigned short)atoi(argv[2]))};
	struct sockaddr_in peer;
	socklen_t plen;
	unsigned long tries = strtoul(argv[3], NULL, 10), got;
	char was[64] = "", now[64];
	int ls, fd, one = 1, queued;

	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (struct sockaddr *)&at, sizeof(at)) || listen(ls, 1)) {
		perror("listen");
		return 1;
	}
	fprintf(stderr, "sk_reuse: listening on %s\n", argv[2]);
	for (unsigned long c = 1; c <= tries; c++) {
		plen = sizeof(peer);
		fd = accept(ls, (struct sockaddr *)&peer, &plen);
		if (fd < 0 || !sk_of(ntohs(at.sin_port), ntohs(peer.sin_port), now, sizeof(now))) {
			perror("accept");
			return 1;
		}
		if (!strcmp(now, was)) {
			got = 0;
			if (drain(fd, &got))
				perror("read");
			printf("reused %lu: read %lu bytes\n", c, got);
			close(fd);
			return 0;
		}
		usleep(200000);
		if (ioctl(fd, SIOCINQ, &queued))
			queued = -1;
		printf("unread %lu: %d bytes\n", c, queued);
		fflush(stdout);
		close(fd);
		memcpy(was, now, sizeof(was));
	}
	printf("no reuse in %lu connections\n", tries);
	return 1;
}

/* One connection from SPORT: 0 if the peer read it (orderly close), 1 if reset, -1 error. */
static int send_one(const struct sockaddr_in *to, unsigned short sport, unsigned long c,
		    unsigned long segs)
{
	struct sockaddr_in from = {.sin_family = AF_INET, .sin_port = htons(sport)};
	char buf[512];
	size_t size = 100 + c;
	int fd, one = 1, rc;
	unsigned long got = 0;

	if (size > sizeof(buf))
		return -1;
	memset(buf, 'a' + (int)(c % 26), size);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&from, sizeof(from)) ||
	    connect(fd, (const struct sockaddr *)to, sizeof(*to))) {
		perror("connect");
		return -1;
	}
	for (unsigned long i = 0; i < segs; i++) {
		if (write(fd, buf, size) != (ssize_t)size) {
			perror("write");
			close(fd);
			return -1;
		}
		usleep(5000);
	}
	shutdown(fd, SHUT_WR);
	rc = drain(fd, &got) ? (errno == ECONNRESET ? 1 : -1) : 0;
	close(fd);
	printf("connection %lu: %lu segments of %zu bytes, %s\n", c, segs, size,
	       rc ? "reset" : "read");
	fflush(stdout);
	return rc;
}

static int do_send(char **argv)
{
	struct sockaddr_in to = {.sin_family = AF_INET,
				 .sin_port = htons((unsigned short)atoi(argv[3]))};
	unsigned short sport = (unsigned short)atoi(argv[4]);
	unsigned long tries = strtoul(argv[5], NULL, 10), segs = strtoul(argv[6], NULL, 10);
	int rc = 1;

	if (inet_pton(AF_INET, argv[2], &to.sin_addr) != 1 || !segs)
		return 2;
	for (unsigned long c = 1; c <= tries && rc == 1; c++)
		rc = send_one(&to, sport, c, segs);
	return rc != 0;
}

int main(int argc, char **argv)
{
	if (argc == 7 && !strcmp(argv[1], "send"))
		return do_send(argv);
	if (argc == 4 && !strcmp(argv[1], "sink"))
		return do_sink(argv);
	fprintf(stderr, "usage: sk_reuse send ADDR PORT SPORT TRIES SEGS | sink PORT TRIES\n");
	return 2;
}
