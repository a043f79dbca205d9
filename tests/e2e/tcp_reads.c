// SPDX-License-Identifier: GPL-2.0
/*
 * A TCP stream read in small pieces, for the reads test:
 *
 *   tcp_reads send ADDR PORT COUNT SIZE GAP_US  COUNT writes of SIZE bytes
 *       to ADDR:PORT with TCP_NODELAY, GAP_US microseconds apart (a
 *       segment each while the reader keeps up); prints "sent N bytes"
 *   tcp_reads sink PORT BUF                     accepts one connection and
 *       reads it with read(2) into BUF bytes at a time (a segment larger
 *       than BUF takes several reads, a read may span segments) until EOF;
 *       prints "received N bytes in R reads"
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

static int do_send(char **argv)
{
	struct sockaddr_in to = {.sin_family = AF_INET,
				 .sin_port = htons((unsigned short)atoi(argv[3]))};
	unsigned long count = strtoul(argv[4], NULL, 10), size = strtoul(argv[5], NULL, 10);
	useconds_t gap = (useconds_t)strtoul(argv[6], NULL, 10);
	unsigned long sent = 0;
	char buf[65536];
	int fd, one = 1;

	if (inet_pton(AF_INET, argv[2], &to.sin_addr) != 1 || !size || size > sizeof(buf))
		return 2;
	memset(buf, 'r', size);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
	    connect(fd, (struct sockaddr *)&to, sizeof(to))) {
		perror("connect");
		return 1;
	}
	for (unsigned long i = 0; i < count; i++) {
		if (write(fd, buf, size) != (ssize_t)size) {
			perror("write");
			return 1;
		}
		sent += size;
		usleep(gap);
	}
	close(fd);
	printf("sent %lu bytes\n", sent);
	return 0;
}

static int do_sink(char **argv)
{
	struct sockaddr_in at = {.sin_family = AF_INET,
				 .sin_port = htons((unsigned short)atoi(argv[2]))};
	unsigned long size = strtoul(argv[3], NULL, 10), got = 0, reads = 0;
	char buf[65536];
	int ls, fd, one = 1;
	ssize_t n;

	if (!size || size > sizeof(buf))
		return 2;
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (struct sockaddr *)&at, sizeof(at)) || listen(ls, 1)) {
		perror("listen");
		return 1;
	}
	fprintf(stderr, "tcp_reads: listening on %s\n", argv[2]);
	fd = accept(ls, NULL, NULL);
	if (fd < 0) {
		perror("accept");
		return 1;
	}
	while ((n = read(fd, buf, size)) > 0) {
		got += (unsigned long)n;
		reads++;
	}
	printf("received %lu bytes in %lu reads\n", got, reads);
	close(fd);
	close(ls);
	return n < 0;
}

int main(int argc, char **argv)
{
	if (argc == 7 && !strcmp(argv[1], "send"))
		return do_send(argv);
	if (argc == 4 && !strcmp(argv[1], "sink"))
		return do_sink(argv);
	fprintf(stderr, "usage: tcp_reads send ADDR PORT COUNT SIZE GAP_US | sink PORT BUF\n");
	return 2;
}
