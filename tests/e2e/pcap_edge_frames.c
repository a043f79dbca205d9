// SPDX-License-Identifier: GPL-2.0
/*
 * pcap_edge_frames FILE: write a capture (pcap, Ethernet) of the frames that
 * BPF_PROG_TEST_RUN refuses or that a capture cut short, between whole ones,
 * for test_test_pcap_edges.sh to compare --test-pcap with tcpdump on:
 * runts (0..13 bytes), an IPv4 ethertype with less than an IPv4 header, an
 * IPv6 ethertype with less than an IPv6 header, short VLAN frames, frames
 * with caplen < len (a snap length), a frame longer than a page. Frame N has
 * the timestamp BASE + N - 1 seconds, so tcpdump's output names the frame.
 * No frame is empty: tcpdump prints no timestamp for one ("[Invalid header:
 * caplen==0]").
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_ether.h>
#include <pcap/pcap.h>

#define TS_BASE 1700000000
#define BIG_LEN 5000 /* past a page: the kernel's test run refuses it */

struct out {
	pcap_dumper_t *d;
	unsigned int n;
};

/* A frame built here: up to BIG_LEN bytes. */
struct frame {
	unsigned char b[BIG_LEN];
	unsigned int len;
};

static const unsigned char mac_a[6] = {0x02, 0, 0, 0, 0, 0x01};
static const unsigned char mac_b[6] = {0x02, 0, 0, 0, 0, 0x02};
static const unsigned char mac_bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
static const unsigned char mac_mcast4[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb};
static const unsigned char mac_mcast6[6] = {0x33, 0x33, 0, 0, 0, 0x01};

static void put(struct frame *f, const void *p, unsigned int n)
{
	if (f->len + n > sizeof(f->b))
		abort(); /* a frame this file does not build */
	if (p)
		memcpy(f->b + f->len, p, n);
	else
		memset(f->b + f->len, 0, n);
	f->len += n;
}

static void put16(struct frame *f, unsigned int v)
{
	unsigned short be = htons((unsigned short)v);

	put(f, &be, 2);
}

static void eth(struct frame *f, const unsigned char *dst, unsigned int vlan, unsigned int type)
{
	f->len = 0;
	put(f, dst, 6);
	put(f, mac_a, 6);
	if (vlan) {
		put16(f, 0x8100);
		put16(f, vlan);
	}
	put16(f, type);
}

/* IPv4 with IHL words of header, PROTO, then PAY bytes of transport. */
static void ip4(struct frame *f, unsigned int ihl, unsigned int proto, const char *src,
		const char *dst, unsigned int pay)
{
	unsigned char h[60] = {0};
	struct in_addr a;

	h[0] = (unsigned char)(0x40 | ihl);
	h[2] = (unsigned char)((ihl * 4 + pay) >> 8);
	h[3] = (unsigned char)(ihl * 4 + pay);
	h[8] = 64;
	h[9] = (unsigned char)proto;
	inet_pton(AF_INET, src, &a);
	memcpy(h + 12, &a, 4);
	inet_pton(AF_INET, dst, &a);
	memcpy(h + 16, &a, 4);
	put(f, h, ihl * 4);
}

static void ip6(struct frame *f, unsigned int next, const char *src, const char *dst,
		unsigned int pay)
{
	unsigned char h[40] = {0x60};
	struct in6_addr a;

	h[4] = (unsigned char)(pay >> 8);
	h[5] = (unsigned char)pay;
	h[6] = (unsigned char)next;
	h[7] = 64;
	inet_pton(AF_INET6, src, &a);
	memcpy(h + 8, &a, 16);
	inet_pton(AF_INET6, dst, &a);
	memcpy(h + 24, &a, 16);
	put(f, h, 40);
}

/* TCP to port 80 with FLAGS, or UDP to port 53, or an ICMP echo request. */
static void l4(struct frame *f, unsigned int proto, unsigned int flags, unsigned int pay)
{
	unsigned char h[20] = {0};

	if (proto == 6) {
		h[0] = 0x9c, h[1] = 0x40, h[3] = 80, h[12] = 0x50, h[13] = (unsigned char)flags;
		put(f, h, 20);
	} else if (proto == 17) {
		h[0] = 0x9c, h[1] = 0x41, h[3] = 53, h[5] = (unsigned char)(8 + pay);
		put(f, h, 8);
	} else {
		h[0] = proto == 58 ? 128 : 8; /* echo request */
		put(f, h, 8);
	}
	put(f, NULL, pay);
}

/* Write F's first CAPLEN bytes as captured from a packet of F->len. */
static void dump(struct out *o, const struct frame *f, unsigned int caplen)
{
	struct pcap_pkthdr h = {.ts = {TS_BASE + o->n, 0}, .caplen = caplen, .len = f->len};

	if (caplen > f->len)
		h.caplen = f->len;
	pcap_dump((unsigned char *)o->d, &h, f->b);
	o->n++;
}

/* The frame as it is, then as an skb that short, then as a snap length cut it. */
static void dump_cuts(struct out *o, struct frame *f, const unsigned int *cuts, size_t n)
{
	unsigned int whole = f->len;

	dump(o, f, whole);
	for (size_t i = 0; i < n; i++) {
		f->len = cuts[i] < whole ? cuts[i] : whole;
		dump(o, f, cuts[i]);
		f->len = whole;
		dump(o, f, cuts[i]);
	}
}

static void ip4_frames(struct out *o)
{
	static const unsigned int cuts[] = {1, 6, 12, 13, 14, 15, 16, 23, 24, 26, 33, 34, 36};
	struct frame f;

	eth(&f, mac_b, 0, 0x0800);
	ip4(&f, 5, 6, "198.18.0.1", "198.18.1.2", 20 + 100);
	l4(&f, 6, 0x02, 100);
	dump_cuts(o, &f, cuts, sizeof(cuts) / sizeof(cuts[0]));
	eth(&f, mac_mcast4, 0, 0x0800);
	ip4(&f, 5, 17, "198.18.0.1", "224.0.0.251", 8 + 30);
	l4(&f, 17, 0, 30);
	dump_cuts(o, &f, cuts, sizeof(cuts) / sizeof(cuts[0]));
	eth(&f, mac_bcast, 0, 0x0800);
	ip4(&f, 6, 1, "198.18.0.9", "255.255.255.255", 8 + 1000);
	l4(&f, 1, 0, 1000);
	dump_cuts(o, &f, cuts, sizeof(cuts) / sizeof(cuts[0]));
}

static void ip6_frames(struct out *o)
{
	static const unsigned int cuts[] = {5, 13, 14, 15, 20, 21, 38, 53, 54, 55, 60};
	struct frame f;

	eth(&f, mac_b, 0, 0x86dd);
	ip6(&f, 6, "fd00::1", "fd00:1::2", 20 + 40);
	l4(&f, 6, 0x12, 40);
	dump_cuts(o, &f, cuts, sizeof(cuts) / sizeof(cuts[0]));
	eth(&f, mac_mcast6, 0, 0x86dd);
	ip6(&f, 58, "fe80::1", "ff02::1", 8 + 16);
	l4(&f, 58, 0, 16);
	dump_cuts(o, &f, cuts, sizeof(cuts) / sizeof(cuts[0]));
}

static void other_frames(struct out *o)
{
	static const unsigned int vcuts[] = {6, 14, 16, 18, 20, 37, 38, 40};
	static const unsigned int acuts[] = {6, 13, 20};
	unsigned char arp[28] = {0, 1, 8, 0, 6, 4, 0, 1};
	struct frame f;

	eth(&f, mac_b, 100, 0x0800);
	ip4(&f, 5, 6, "198.18.0.1", "198.18.1.2", 20);
	l4(&f, 6, 0x10, 0);
	dump_cuts(o, &f, vcuts, sizeof(vcuts) / sizeof(vcuts[0]));
	eth(&f, mac_bcast, 200, 0x86dd);
	ip6(&f, 17, "fd00::1", "fd00:1::2", 8);
	l4(&f, 17, 0, 0);
	dump_cuts(o, &f, vcuts, sizeof(vcuts) / sizeof(vcuts[0]));
	eth(&f, mac_bcast, 0, 0x0806);
	put(&f, arp, sizeof(arp));
	put(&f, NULL, 18); /* padded to 60 as the wire pads it */
	dump_cuts(o, &f, acuts, sizeof(acuts) / sizeof(acuts[0]));
	/* Longer than a page (a GRO or jumbo frame's capture), whole and cut. */
	eth(&f, mac_b, 0, 0x0800);
	ip4(&f, 5, 17, "198.18.0.1", "198.18.1.2", BIG_LEN - ETH_HLEN - 20);
	l4(&f, 17, 0, BIG_LEN - ETH_HLEN - 20 - 8);
	dump(o, &f, f.len);
	dump(o, &f, 96);
}

int main(int argc, char **argv)
{
	struct out o = {0};
	pcap_t *p;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	p = pcap_open_dead(DLT_EN10MB, 65535);
	o.d = p ? pcap_dump_open(p, argv[1]) : NULL;
	if (!o.d) {
		fprintf(stderr, "%s: %s\n", argv[1], p ? pcap_geterr(p) : "pcap_open_dead failed");
		return 1;
	}
	ip4_frames(&o);
	ip6_frames(&o);
	other_frames(&o);
	pcap_dump_close(o.d);
	pcap_close(p);
	printf("%u\n", o.n);
	return 0;
}
