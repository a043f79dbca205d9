// SPDX-License-Identifier: GPL-2.0
/*
 * tunnel_frames: IP-in-IP and GRE frames for tests/e2e/test_test_pcap_tunnels.sh,
 * whose kernel may have no ipip or gre module: two pcap files.
 *
 *   tunnel_frames OUTER.pcap INNER.pcap    (prints the number of frames in OUTER)
 *
 * OUTER holds the frames as an underlay carries them, from 192.168.50.1 to
 * 192.168.50.2: each inner packet below inside IP-in-IP, GRE (no option;
 * a key; checksum, key and sequence number), gretap (GRE with Ethernet
 * inside), then frames that are no tunnel pktpath looks into (GRE version
 * 1 as PPTP sends, GRE with routing, MPLS in GRE, a later fragment of
 * IP-in-IP, a GRE header cut short), an inner IP packet cut to 10 bytes,
 * and the inner packets bare. Then over an IPv6 underlay, fd50::1 to
 * fd50::2: each inner packet in ip6tnl (next header 4, or 41 for IPv6),
 * ip6gre with a key and ip6gretap; IPv6 in IPv4 (sit, protocol 41); and
 * an IPv6 frame of another next header (ESP, 50). INNER holds, for each tunnel's frame, its
 * inner frame as tunnel.h defines it (an IP packet behind a made-up
 * Ethernet header: addresses zero, its type) with the outer frame's
 * timestamp: frame N of OUTER has the time 1700000000 + N - 1 s, so that
 * tcpdump on either file names OUTER's frame numbers.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#define MAXF 256

struct frame {
	unsigned char b[MAXF];
	unsigned int n;
};

struct out {
	pcap_dumper_t *outer, *inner;
	unsigned int num;
};

static const unsigned char mac_hdr[12] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1};

static unsigned int put16(unsigned char *p, unsigned int v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
	return 2;
}

/* An IPv4 header, 20 bytes, at P: SRC > DST (last octets of 10.244.x.y), PROTO. */
static unsigned int ip4(unsigned char *p, unsigned int payload, unsigned int proto,
			const unsigned char src[4], const unsigned char dst[4], unsigned int frag)
{
	memset(p, 0, 20);
	p[0] = 0x45;
	put16(p + 2, 20 + payload);
	put16(p + 6, frag);
	p[8] = 64;
	p[9] = (unsigned char)proto;
	memcpy(p + 12, src, 4);
	memcpy(p + 16, dst, 4);
	return 20;
}

static const unsigned char pod1[4] = {10, 244, 1, 2}, pod2[4] = {10, 244, 2, 3};
static const unsigned char node1[4] = {192, 168, 50, 1}, node2[4] = {192, 168, 50, 2};

/* The inner IP packets: ICMP echo, a TCP SYN to port 80, UDP to 53, IPv6 UDP to 53. */
enum { IN_ICMP, IN_TCP, IN_UDP, IN_UDP6, NINNER };

static unsigned int inner_packet(int which, unsigned char *p)
{
	unsigned int n;

	switch (which) {
	case IN_ICMP:
		n = ip4(p, 8, 1, pod1, pod2, 0);
		memset(p + n, 0, 8);
		p[n] = 8;
		put16(p + n + 4, 42);
		put16(p + n + 6, 1);
		return n + 8;
	case IN_TCP:
		n = ip4(p, 20, 6, pod1, pod2, 0);
		memset(p + n, 0, 20);
		put16(p + n, 40000);
		put16(p + n + 2, 80);
		p[n + 12] = 0x50;
		p[n + 13] = 0x02; /* SYN */
		return n + 20;
	case IN_UDP:
		n = ip4(p, 8 + 4, 17, pod2, pod1, 0);
		memset(p + n, 0, 12);
		put16(p + n, 5353);
		put16(p + n + 2, 53);
		put16(p + n + 4, 12);
		return n + 12;
	default:
		memset(p, 0, 40 + 8);
		p[0] = 0x60;
		put16(p + 4, 8);
		p[6] = 17;
		p[7] = 64;
		p[8] = p[24] = 0xfd; /* fd00::1 > fd00::2 */
		p[23] = 1;
		p[39] = 2;
		put16(p + 40, 1000);
		put16(p + 42, 53);
		put16(p + 44, 8);
		return 48;
	}
}

static int dump(struct out *o, const struct frame *f, const struct frame *inner)
{
	struct pcap_pkthdr h = {.caplen = f->n, .len = f->n};

	h.ts.tv_sec = 1700000000 + o->num++;
	pcap_dump((unsigned char *)o->outer, &h, f->b);
	if (inner) {
		h.caplen = h.len = inner->n;
		pcap_dump((unsigned char *)o->inner, &h, inner->b);
	}
	return 0;
}

/* The frame F made of Ethernet (TYPE) and the bytes P[0..N). */
static void eth_frame(struct frame *f, unsigned int type, const unsigned char *p, unsigned int n)
{
	memcpy(f->b, mac_hdr, 12);
	put16(f->b + 12, type);
	memcpy(f->b + 14, p, n);
	f->n = 14 + n;
}

/* The inner frame of an IP packet P[0..N): zero addresses, TYPE (tunnel.h). */
static void made_up_frame(struct frame *f, unsigned int type, const unsigned char *p,
			  unsigned int n)
{
	memset(f->b, 0, 12);
	put16(f->b + 12, type);
	memcpy(f->b + 14, p, n);
	f->n = 14 + n;
}

/*
 * Outer Ethernet and IPv4 (PROTO, FRAG) around HDR[0..HN) and BODY[0..BN):
 * the frame in F.
 */
static void outer_frame(struct frame *f, unsigned int proto, unsigned int frag,
			const unsigned char *hdr, unsigned int hn, const unsigned char *body,
			unsigned int bn)
{
	unsigned char ip[MAXF];
	unsigned int n = ip4(ip, hn + bn, proto, node1, node2, frag);

	if (hn)
		memcpy(ip + n, hdr, hn);
	memcpy(ip + n + hn, body, bn);
	eth_frame(f, 0x0800, ip, n + hn + bn);
}

/* A GRE header with FLAGS and TYPE (key 42 where it has one) in G: its length. */
static unsigned int gre_hdr(unsigned char *g, unsigned int flags, unsigned int type)
{
	unsigned int n = 4;

	put16(g, flags);
	put16(g + 2, type);
	if (flags & 0x8000) {
		memset(g + n, 0, 4);
		n += 4;
	}
	if (flags & 0x2000) {
		memset(g + n, 0, 4);
		g[n + 3] = 42;
		n += 4;
	}
	if (flags & 0x1000) {
		memset(g + n, 0, 4);
		g[n + 3] = 7;
		n += 4;
	}
	return n;
}

/* Outer Ethernet and IPv6 (next header NH) around HDR[0..HN) and BODY[0..BN): F. */
static void outer6_frame(struct frame *f, unsigned int nh, const unsigned char *hdr,
			 unsigned int hn, const unsigned char *body, unsigned int bn)
{
	unsigned char ip[MAXF];

	memset(ip, 0, 40);
	ip[0] = 0x60;
	put16(ip + 4, hn + bn);
	ip[6] = (unsigned char)nh;
	ip[7] = 64;
	ip[8] = ip[24] = 0xfd; /* fd50::1 > fd50::2 */
	ip[9] = ip[25] = 0x50;
	ip[23] = 1;
	ip[39] = 2;
	if (hn)
		memcpy(ip + 40, hdr, hn);
	memcpy(ip + 40 + hn, body, bn);
	eth_frame(f, 0x86dd, ip, 40 + hn + bn);
}

/* Each inner packet over IPv6: ip6tnl, ip6gre (key 42), ip6gretap; IPv6 in IPv4 (sit). */
static void write_ip6_tunnels(struct out *o)
{
	unsigned char p[MAXF], g[16];
	struct frame f, in, eth;
	unsigned int n, gn;

	for (int w = 0; w < NINNER; w++) {
		unsigned int type = w == IN_UDP6 ? 0x86dd : 0x0800;

		n = inner_packet(w, p);
		made_up_frame(&in, type, p, n);
		outer6_frame(&f, type == 0x0800 ? 4 : 41, NULL, 0, p, n);
		dump(o, &f, &in);
		if (type == 0x86dd) {
			outer_frame(&f, 41, 0, NULL, 0, p, n);
			dump(o, &f, &in);
		}
		gn = gre_hdr(g, 0x2000, type);
		outer6_frame(&f, 47, g, gn, p, n);
		dump(o, &f, &in);
		eth_frame(&eth, type, p, n);
		gn = gre_hdr(g, 0, 0x6558);
		outer6_frame(&f, 47, g, gn, eth.b, eth.n);
		dump(o, &f, &eth);
	}
	n = inner_packet(IN_ICMP, p);
	outer6_frame(&f, 50, NULL, 0, p, n); /* ESP: no tunnel */
	dump(o, &f, NULL);
}

static void write_all(struct out *o)
{
	static const unsigned int gre_flags[] = {0, 0x2000, 0xb000};
	unsigned char p[MAXF], g[16];
	struct frame f, in, eth;
	unsigned int n, gn;

	for (int w = 0; w < NINNER; w++) {
		unsigned int type = w == IN_UDP6 ? 0x86dd : 0x0800;

		n = inner_packet(w, p);
		made_up_frame(&in, type, p, n);
		if (type == 0x0800) {
			outer_frame(&f, 4, 0, NULL, 0, p, n);
			dump(o, &f, &in);
		}
		for (size_t k = 0; k < sizeof(gre_flags) / sizeof(gre_flags[0]); k++) {
			gn = gre_hdr(g, gre_flags[k], type);
			outer_frame(&f, 47, 0, g, gn, p, n);
			dump(o, &f, &in);
		}
		/* gretap: the pod's whole Ethernet frame inside. */
		eth_frame(&eth, type, p, n);
		gn = gre_hdr(g, 0x2000, 0x6558);
		outer_frame(&f, 47, 0, g, gn, eth.b, eth.n);
		dump(o, &f, &eth);
	}
	n = inner_packet(IN_ICMP, p);
	/* No tunnel pktpath looks into. */
	gn = gre_hdr(g, 0x2001, 0x880b); /* PPTP: version 1, PPP */
	outer_frame(&f, 47, 0, g, gn, p, n);
	dump(o, &f, NULL);
	gn = gre_hdr(g, 0x4000, 0x0800); /* routing present */
	outer_frame(&f, 47, 0, g, gn, p, n);
	dump(o, &f, NULL);
	gn = gre_hdr(g, 0, 0x8847); /* MPLS */
	outer_frame(&f, 47, 0, g, gn, p, n);
	dump(o, &f, NULL);
	outer_frame(&f, 4, 10, NULL, 0, p, n); /* a later fragment */
	dump(o, &f, NULL);
	gn = gre_hdr(g, 0x2000, 0x0800);
	outer_frame(&f, 47, 0, g, gn, p, n);
	f.n = 14 + 20 + 3; /* the GRE header cut */
	dump(o, &f, NULL);
	/* A tunnel whose inner packet is 10 bytes: loads past them do not match. */
	outer_frame(&f, 4, 0, NULL, 0, p, 10);
	made_up_frame(&in, 0x0800, p, 10);
	dump(o, &f, &in);
	for (int w = 0; w < NINNER; w++) {
		n = inner_packet(w, p);
		eth_frame(&f, w == IN_UDP6 ? 0x86dd : 0x0800, p, n);
		dump(o, &f, NULL);
	}
}

int main(int argc, char **argv)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, 65535);
	struct out o = {0};

	if (argc != 3) {
		fprintf(stderr, "usage: %s OUTER.pcap INNER.pcap\n", argv[0]);
		return 2;
	}
	o.outer = p ? pcap_dump_open(p, argv[1]) : NULL;
	o.inner = p ? pcap_dump_open(p, argv[2]) : NULL;
	if (!o.outer || !o.inner) {
		fprintf(stderr, "%s\n", p ? pcap_geterr(p) : "pcap_open_dead failed");
		return 1;
	}
	write_all(&o);
	write_ip6_tunnels(&o);
	pcap_dump_close(o.outer);
	pcap_dump_close(o.inner);
	pcap_close(p);
	printf("%u\n", o.num);
	return 0;
}
