// SPDX-License-Identifier: GPL-2.0
/*
 * raw_send: IPv4 frames written whole onto an interface through a packet
 * socket (AF_PACKET, SOCK_RAW: packet_sendmsg() -> packet_snd() ->
 * dev_queue_xmit()), as arping, dhclient, LLDP agents and scapy send, for
 * tests/e2e/test_packet_socket_send.sh. No capture is opened.
 *
 *   raw_send udp  IFACE DST_MAC SRC_IP DST_IP PORT N   (UDP, one byte of data)
 *   raw_send icmp IFACE DST_MAC SRC_IP DST_IP ID N     (ICMP echo requests)
 *
 * The source MAC is IFACE's own; frame I (0..N-1) has IP id 0x5000 + I and
 * UDP source port 40000 + I (or ICMP sequence I + 1). 10 ms apart.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static unsigned short csum(const unsigned char *p, size_t n)
{
	unsigned long sum = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (unsigned long)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += (unsigned long)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (unsigned short)~sum;
}

static void put16(unsigned char *p, unsigned short v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

/* The IPv4 header at IP: protocol PROTO, LEN bytes in all, id ID. */
static void ip_header(unsigned char *ip, int proto, size_t len, unsigned short id,
		      struct in_addr src, struct in_addr dst)
{
	ip[0] = 0x45;
	put16(ip + 2, (unsigned short)len);
	put16(ip + 4, id);
	ip[8] = 64;
	ip[9] = (unsigned char)proto;
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	put16(ip + 10, csum(ip, 20));
}

/* Frame I into F (Ethernet header already there); its length. UDP: no checksum (0). */
static size_t build(unsigned char *f, int udp, struct in_addr src, struct in_addr dst,
		    unsigned short arg, int i)
{
	unsigned char *ip = f + 14, *l4 = ip + 20;
	const size_t l4len = 9; /* 8 bytes of header, 1 of data */

	memset(ip, 0, 20 + l4len);
	if (udp) {
		put16(l4, (unsigned short)(40000 + i));
		put16(l4 + 2, arg);
		put16(l4 + 4, (unsigned short)l4len);
		l4[8] = 'x';
	} else {
		l4[0] = 8; /* echo request */
		put16(l4 + 4, arg);
		put16(l4 + 6, (unsigned short)(i + 1));
		l4[8] = 'x';
		put16(l4 + 2, csum(l4, l4len));
	}
	ip_header(ip, udp ? IPPROTO_UDP : IPPROTO_ICMP, 20 + l4len, (unsigned short)(0x5000 + i),
		  src, dst);
	return 14 + 20 + l4len;
}

static int parse_mac(const char *s, unsigned char *mac)
{
	return sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1], &mac[2], &mac[3],
		      &mac[4], &mac[5]) == 6
		       ? 0
		       : -1;
}

static int send_all(int fd, const char *iface, unsigned char *f, int udp, struct in_addr src,
		    struct in_addr dst, unsigned short arg, int n)
{
	struct sockaddr_ll to = {.sll_family = AF_PACKET, .sll_halen = 6};
	const struct timespec gap = {0, 10 * 1000 * 1000};

	to.sll_ifindex = (int)if_nametoindex(iface);
	if (!to.sll_ifindex) {
		fprintf(stderr, "raw_send: no interface %s\n", iface);
		return 1;
	}
	memcpy(to.sll_addr, f, 6);
	for (int i = 0; i < n; i++) {
		size_t len = build(f, udp, src, dst, arg, i);

		if (sendto(fd, f, len, 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)len) {
			fprintf(stderr, "raw_send: sendto: %s\n", strerror(errno));
			return 1;
		}
		nanosleep(&gap, NULL);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned char f[64] = {0};
	struct in_addr src, dst;
	struct ifreq ifr = {0};
	int fd, n, udp, rc;

	if (argc != 8 || (strcmp(argv[1], "udp") && strcmp(argv[1], "icmp"))) {
		fprintf(stderr, "usage: raw_send udp|icmp IFACE DST_MAC SRC_IP DST_IP PORT|ID N\n");
		return 2;
	}
	udp = !strcmp(argv[1], "udp");
	n = atoi(argv[7]);
	if (parse_mac(argv[3], f) || inet_pton(AF_INET, argv[4], &src) != 1 ||
	    inet_pton(AF_INET, argv[5], &dst) != 1 || n <= 0 || strlen(argv[2]) >= IFNAMSIZ) {
		fprintf(stderr, "raw_send: bad MAC, address or count\n");
		return 2;
	}
	/* Protocol 0: the socket sends and is bound to no protocol, so it receives nothing. */
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		fprintf(stderr, "raw_send: socket: %s\n", strerror(errno));
		return 1;
	}
	strcpy(ifr.ifr_name, argv[2]);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		fprintf(stderr, "raw_send: %s: %s\n", argv[2], strerror(errno));
		close(fd);
		return 1;
	}
	memcpy(f + 6, ifr.ifr_hwaddr.sa_data, 6);
	put16(f + 12, ETH_P_IP);
	rc = send_all(fd, argv[2], f, udp, src, dst, (unsigned short)atoi(argv[6]), n);
	close(fd);
	return rc;
}
