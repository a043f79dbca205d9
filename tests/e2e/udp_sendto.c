// SPDX-License-Identifier: GPL-2.0
/*
 * udp_sendto ADDR PORT N [SIZE]: N datagrams of SIZE bytes (default 64, at
 * most 65507) to ADDR:PORT, one sendto() each, 10 ms apart: a process sending
 * UDP the way seed 000's publisher did, for the e2e tests (bash's /dev/udp
 * writes with write(), iperf3 too); a SIZE past the MTU makes IP fragments.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

int main(int argc, char **argv)
{
	struct sockaddr_in to = {.sin_family = AF_INET};
	struct timespec gap = {.tv_nsec = 10 * 1000 * 1000};
	static char buf[65507] = "pktpath";
	size_t size = argc == 5 ? strtoul(argv[4], NULL, 10) : 64;
	int fd, n;

	if (argc < 4 || argc > 5 || inet_pton(AF_INET, argv[1], &to.sin_addr) != 1 || !size ||
	    size > sizeof(buf)) {
		fprintf(stderr, "usage: udp_sendto ADDR PORT N [SIZE]\n");
		return 2;
	}
	to.sin_port = htons((unsigned short)atoi(argv[2]));
	n = atoi(argv[3]);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		if (sendto(fd, buf, size, 0, (struct sockaddr *)&to, sizeof(to)) < 0) {
			perror("sendto");
			return 1;
		}
		nanosleep(&gap, NULL);
	}
	close(fd);
	return 0;
}
