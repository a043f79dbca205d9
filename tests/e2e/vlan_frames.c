// SPDX-License-Identifier: GPL-2.0
/*
 * vlan_frames: 802.1Q/802.1ad-tagged frames for tests/e2e/test_vlan.sh,
 * on hosts whose kernel has no 8021q module: written onto an interface
 * through a packet socket (the tags in the bytes, as a trunk carries them),
 * or into a pcap file.
 *
 *   vlan_frames send IFACE DST_MAC    (from a namespace holding IFACE)
 *   vlan_frames pcap FILE DST_MAC
 *
 * The frames, all ICMP echo replies 198.18.0.1 > 198.18.0.254 (a reply
 * asks for no answer), in this order:
 *   5 tagged VLAN 100 (TPID 0x8100)
 *   3 tagged VLAN 200, priority 1
 *   2 QinQ: outer VLAN 300 (TPID 0x88a8), inner VLAN 100
 *   2 untagged
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct tag {
	unsigned short tpid, tci;
};

struct kind {
	int count;
	int ntags;
	struct tag tags[2];
};

static const struct kind kinds[] = {
	{5, 1, {{0x8100, 100}}},
	{3, 1, {{0x8100, 0x2000 | 200}}},
	{2, 2, {{0x88a8, 300}, {0x8100, 100}}},
	{2, 0, {{0, 0}}},
};

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

/* One frame of kind K, sequence SEQ, into F; its length. */
static size_t build(unsigned char *f, const unsigned char *dst, const struct kind *k, int seq)
{
	static const unsigned char src[6] = {0x02, 0x00, 0x5e, 0x10, 0x00, 0x01};
	unsigned char *ip, *icmp;
	size_t n = 12;

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	for (int t = 0; t < k->ntags; t++) {
		put16(f + n, k->tags[t].tpid);
		put16(f + n + 2, k->tags[t].tci);
		n += 4;
	}
	put16(f + n, ETH_P_IP);
	n += 2;
	ip = f + n;
	memset(ip, 0, 20 + 16);
	ip[0] = 0x45;
	put16(ip + 2, 20 + 16);
	put16(ip + 4, (unsigned short)(0x4000 + seq));
	ip[8] = 64;
	ip[9] = IPPROTO_ICMP;
	memcpy(ip + 12, (unsigned char[]){198, 18, 0, 1, 198, 18, 0, 254}, 8);
	put16(ip + 10, csum(ip, 20));
	icmp = ip + 20;
	icmp[0] = 0; /* echo reply */
	put16(icmp + 4, 0x7171);
	put16(icmp + 6, (unsigned short)seq);
	memcpy(icmp + 8, "pktpath.", 8);
	put16(icmp + 2, csum(icmp, 16));
	return n + 20 + 16;
}

static int parse_mac(const char *s, unsigned char *mac)
{
	unsigned int b[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (unsigned char)b[i];
	return 0;
}

static int send_all(const char *ifname, const unsigned char *dst)
{
	struct sockaddr_ll to = {.sll_family = AF_PACKET, .sll_halen = 6};
	unsigned char f[128];
	int fd, seq = 1;

	to.sll_ifindex = (int)if_nametoindex(ifname);
	if (!to.sll_ifindex) {
		fprintf(stderr, "vlan_frames: no interface %s\n", ifname);
		return 1;
	}
	memcpy(to.sll_addr, dst, 6);
	fd = socket(AF_PACKET, SOCK_RAW, 0); /* protocol 0: sends, receives nothing */
	if (fd < 0) {
		perror("vlan_frames: socket");
		return 1;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		for (int c = 0; c < kinds[i].count; c++, seq++) {
			size_t n = build(f, dst, &kinds[i], seq);

			if (sendto(fd, f, n, 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)n) {
				perror("vlan_frames: sendto");
				close(fd);
				return 1;
			}
			usleep(20000);
		}
	}
	close(fd);
	return 0;
}

static int write_pcap(const char *path, const unsigned char *dst)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d = p ? pcap_dump_open(p, path) : NULL;
	unsigned char f[128];
	int seq = 1;

	if (!d) {
		fprintf(stderr, "vlan_frames: %s: %s\n", path, p ? pcap_geterr(p) : "no memory");
		if (p)
			pcap_close(p);
		return 1;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		for (int c = 0; c < kinds[i].count; c++, seq++) {
			struct pcap_pkthdr h = {.ts = {.tv_sec = seq}};

			h.caplen = h.len = (bpf_u_int32)build(f, dst, &kinds[i], seq);
			pcap_dump((unsigned char *)d, &h, f);
		}
	}
	pcap_dump_close(d);
	pcap_close(p);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned char dst[6];

	if (argc != 4 || parse_mac(argv[3], dst)) {
		fprintf(stderr, "usage: vlan_frames send IFACE DST_MAC | pcap FILE DST_MAC\n");
		return 2;
	}
	if (!strcmp(argv[1], "send"))
		return send_all(argv[2], dst);
	if (!strcmp(argv[1], "pcap"))
		return write_pcap(argv[2], dst);
	fprintf(stderr, "vlan_frames: unknown mode %s\n", argv[1]);
	return 2;
}
