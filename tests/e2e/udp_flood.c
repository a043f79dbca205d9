// SPDX-License-Identifier: GPL-2.0
/*
 * A paced UDP flood and its sink, for the --summary tests:
 *
 *   udp_flood send ADDR COUNT PPS PORT...  COUNT datagrams of 64 bytes to
 *       ADDR, round robin over the PORTs, PPS a second (paced per
 *       millisecond); prints "sent N to PORT" per port
 *   udp_flood sink PORT                     reads datagrams on PORT until
 *       SIGINT or SIGTERM; prints "received N"
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#define MAX_PORTS 16

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void tick(struct timespec *t, long ns)
{
	t->tv_nsec += ns;
	while (t->tv_nsec >= 1000000000L) {
		t->tv_nsec -= 1000000000L;
		t->tv_sec++;
	}
}

static int do_send(int argc, char **argv)
{
	struct sockaddr_in to = {.sin_family = AF_INET};
	unsigned long count, pps, sent[MAX_PORTS] = {0}, n = 0;
	int nports = argc - 5, fd;
	char buf[64] = "pktpath summary";
	struct timespec next;
	int on = 1;

	if (nports < 1 || nports > MAX_PORTS || inet_pton(AF_INET, argv[2], &to.sin_addr) != 1)
		return 2;
	count = strtoul(argv[3], NULL, 10);
	pps = strtoul(argv[4], NULL, 10);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	/* ADDR may be a broadcast address (test_broadcast.sh). */
	if (fd < 0 || !pps || setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &on, sizeof(on))) {
		perror("socket");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (n < count) {
		/* One millisecond's share, then sleep to the next millisecond. */
		for (unsigned long k = 0; k < (pps + 999) / 1000 && n < count; k++, n++) {
			int i = (int)(n % (unsigned long)nports);

			to.sin_port = htons((unsigned short)atoi(argv[5 + i]));
			if (sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&to, sizeof(to)) <
			    0) {
				perror("sendto");
				return 1;
			}
			sent[i]++;
		}
		tick(&next, 1000000L * (long)((pps + 999) / 1000) * 1000 / (long)pps);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	for (int i = 0; i < nports; i++)
		printf("sent %lu to %s\n", sent[i], argv[5 + i]);
	close(fd);
	return 0;
}

static int do_sink(const char *port)
{
	struct sockaddr_in at = {.sin_family = AF_INET,
				 .sin_port = htons((unsigned short)atoi(port))};
	struct sigaction sa = {.sa_handler = on_signal};
	unsigned long n = 0;
	static char buf[65536]; /* a whole datagram, reassembled from fragments too */
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (fd < 0 || bind(fd, (struct sockaddr *)&at, sizeof(at))) {
		perror("bind");
		return 1;
	}
	fprintf(stderr, "udp_flood: listening on %s\n", port);
	while (!stop) {
		if (recv(fd, buf, sizeof(buf), 0) >= 0)
			n++;
		else if (errno != EINTR)
			break;
	}
	printf("received %lu\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 2;

	if (argc >= 6 && !strcmp(argv[1], "send"))
		ret = do_send(argc, argv);
	else if (argc == 3 && !strcmp(argv[1], "sink"))
		ret = do_sink(argv[2]);
	if (ret == 2)
		fprintf(stderr, "usage: udp_flood send ADDR COUNT PPS PORT... | sink PORT\n");
	return ret;
}
