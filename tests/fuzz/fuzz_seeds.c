// SPDX-License-Identifier: GPL-2.0
/*
 * Writes seed inputs for the fuzzers, at fuzz time (scripts/fuzz.sh), so
 * that no binary corpus lives in the tree:
 *
 *   fuzz_seeds XLATE_DIR PATHS_DIR
 *
 * fuzz_xlate's seeds are real filters compiled by libpcap, each with a few
 * frames; fuzz_paths's are record streams of the shapes the kernel sends:
 * clones and copies, drops, merges, shared data, lost marks, late records,
 * timeouts, odd bytes in names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cbpf_input.h"
#include "paths_input.h"
#include "filter/pcap_io.h"

#define FZ_SEED_MAX 16384

struct out {
	uint8_t b[FZ_SEED_MAX];
	size_t n;
};

static const char *const exprs[] = {
	"",
	"icmp",
	"icmp and src 198.18.0.1",
	"tcp port 80",
	"udp and dst port 53",
	"arp",
	"ip6",
	"ip6 and tcp dst port 443",
	"vlan and tcp",
	"vlan 100 and ip",
	"ether host 00:11:22:33:44:55",
	"ether broadcast",
	"net 10.0.0.0/8",
	"host 198.18.1.2 or host fd00::2",
	"len > 100",
	"greater 200",
	"less 60",
	"ip[6:2] & 0x1fff != 0",
	"ip[2:2] > 100",
	"tcp[tcpflags] & tcp-syn != 0",
	"tcp[13] & 2 != 0 and ip[8] < 64",
	"icmp[icmptype] == icmp-echo",
	"ip proto 47",
	"ether proto 0x88cc",
	"tcp[((tcp[12:1] & 0xf0) >> 2):4] = 0x47455420",
	"udp[8:2] / 3 == 5",
	"ip[2:2] % 7 == 0",
	"ip[2:2] - 20 > ip[0] * 4",
	"(ip[2:2] ^ 0xffff) > 0",
	"tcp[0:2] << 1 > 1000 and tcp[2:2] >> 2 < 100",
	"-(ip[1]) != 0 and ip[1] | 1 == 1",
	"ip[len - 1] == 0",
	"ip6 protochain 6",
	"portrange 1000-2000",
	"tcp and (port 22 or port 443) and not net 10.0.0.0/8",
	"mpls and ip",
	"pppoes and ip",
	"ip multicast or ip6 multicast",
	"ip and ip[0] & 0xf > 5",
	"icmp6 and ip6[40] == 128",
};

static size_t eth(uint8_t *f, uint16_t type)
{
	static const uint8_t macs[12] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
					 0x02, 0x00, 0x00, 0x00, 0x00, 0x01};

	memcpy(f, macs, sizeof(macs));
	f[12] = (uint8_t)(type >> 8);
	f[13] = (uint8_t)type;
	return 14;
}

/* An IPv4 header at F: 20 bytes, total length TOT, protocol PROTO. */
static size_t ip4(uint8_t *f, uint8_t proto, uint16_t tot, uint16_t frag)
{
	static const uint8_t addrs[8] = {198, 18, 0, 1, 198, 18, 1, 2};

	memset(f, 0, 20);
	f[0] = 0x45;
	f[2] = (uint8_t)(tot >> 8);
	f[3] = (uint8_t)tot;
	f[4] = 0x12;
	f[5] = 0x34;
	f[6] = (uint8_t)(frag >> 8);
	f[7] = (uint8_t)frag;
	f[8] = 64;
	f[9] = proto;
	memcpy(f + 12, addrs, sizeof(addrs));
	return 20;
}

/* An IPv6 header at F: next header NH, payload length PLEN, fd00::1 > fd00::2. */
static size_t ip6(uint8_t *f, uint8_t nh, uint16_t plen)
{
	memset(f, 0, 40);
	f[0] = 0x60;
	f[4] = (uint8_t)(plen >> 8);
	f[5] = (uint8_t)plen;
	f[6] = nh;
	f[7] = 64;
	f[8] = 0xfd;
	f[23] = 1;
	f[24] = 0xfd;
	f[39] = 2;
	return 40;
}

static size_t ports(uint8_t *f, uint16_t sport, uint16_t dport)
{
	f[0] = (uint8_t)(sport >> 8);
	f[1] = (uint8_t)sport;
	f[2] = (uint8_t)(dport >> 8);
	f[3] = (uint8_t)dport;
	return 4;
}

static size_t tcp(uint8_t *f, uint16_t sport, uint16_t dport, uint8_t flags)
{
	memset(f, 0, 20);
	ports(f, sport, dport);
	f[12] = 0x50;
	f[13] = flags;
	return 20;
}

/* Frame number I (0 ..) into F; returns its length, 0 past the last. */
static size_t frame(int i, uint8_t *f)
{
	size_t n = 0;

	memset(f, 0, 256);
	switch (i) {
	case 0: /* ICMP echo request, 98 bytes */
		n = eth(f, 0x0800);
		n += ip4(f + n, 1, 84, 0);
		f[n] = 8;
		f[n + 5] = 42;
		f[n + 7] = 1;
		return 98;
	case 1: /* TCP SYN to port 80 */
		n = eth(f, 0x0800);
		n += ip4(f + n, 6, 40, 0x4000);
		n += tcp(f + n, 41000, 80, 0x02);
		return 60;
	case 2: /* UDP to port 53 */
		n = eth(f, 0x0800);
		n += ip4(f + n, 17, 40, 0);
		n += ports(f + n, 5353, 53);
		return 74;
	case 3: /* IPv6 TCP to port 443 */
		n = eth(f, 0x86dd);
		n += ip6(f + n, 6, 20);
		n += tcp(f + n, 41000, 443, 0x12);
		return n;
	case 4: /* ARP request */
		n = eth(f, 0x0806);
		memcpy(f + n, "\x00\x01\x08\x00\x06\x04\x00\x01", 8);
		return 42;
	case 5: /* VLAN 100, TCP with "GET " */
		n = eth(f, 0x8100);
		f[n + 1] = 100;
		f[n + 2] = 0x08;
		n += 4;
		n += ip4(f + n, 6, 44, 0);
		n += tcp(f + n, 41000, 80, 0x18);
		memcpy(f + n, "GET ", 4);
		return n + 4;
	case 6: /* a first IPv4 fragment */
		n = eth(f, 0x0800);
		n += ip4(f + n, 17, 60, 0x2000);
		return 74;
	case 7: /* shorter than an Ethernet header */
		return 10;
	case 8: /* ICMPv6 echo request */
		n = eth(f, 0x86dd);
		n += ip6(f + n, 58, 8);
		f[n] = 128;
		return n + 8;
	case 9: /* IPv6, a fragment header, UDP */
		n = eth(f, 0x86dd);
		n += ip6(f + n, 44, 16);
		memcpy(f + n, "\x11\x00\x00\x01\x00\x00\x12\x34", 8);
		n += 8;
		n += ports(f + n, 5353, 53);
		return n + 4;
	case 10: /* IPv6, an AH header, TCP */
		n = eth(f, 0x86dd);
		n += ip6(f + n, 51, 44);
		f[n] = 6;
		f[n + 1] = 4; /* (4 + 2) * 4 = 24 bytes */
		n += 24;
		n += tcp(f + n, 41000, 22, 0x10);
		return n;
	case 11: /* ARP reply */
		n = eth(f, 0x0806);
		memcpy(f + n, "\x00\x01\x08\x00\x06\x04\x00\x02\x02\x00\x00\x00\x00\x01", 14);
		memcpy(f + n + 14, "\xc6\x12\x00\x01", 4);
		return 42;
	case 12: /* QinQ: 802.1ad, then 802.1Q, then UDP */
		n = eth(f, 0x88a8);
		memcpy(f + n, "\x00\x0a\x81\x00\x00\x64\x08\x00", 8);
		n += 8;
		n += ip4(f + n, 17, 28, 0);
		n += ports(f + n, 123, 123);
		return n + 4;
	}
	return 0;
}

static int write_file(const char *dir, const char *kind, int num, const uint8_t *b, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s-%03d", dir, kind, num);
	f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n) {
		fprintf(stderr, "fuzz_seeds: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f) ? -1 : 0;
}

/*
 * FZ_CTL_ALU programs (cbpf_input.h), 8 bytes a step: ALU op (fz_ops[26 +
 * n]: 0-9 the K forms ADD SUB MUL DIV MOD AND OR XOR LSH RSH, 10-19 the X
 * forms, 20 NEG), flags (1: load A first, 2: operand from the boundary
 * values), operand, A's k (4 bytes), A's shape.
 */
static const uint8_t alu_steps[][8] = {
	{18, 1, 31, 1, 0, 0, 0, 0},	       /* A = 1; A <<= X (31) */
	{19, 3, 13, 0xff, 0, 0, 0, 0},	       /* A = 0xff; A >>= X (32) */
	{13, 1, 0, 7, 0, 0, 0, 0},	       /* A = 7; A /= X (0): no match */
	{14, 2, 12, 0x35, 0x12, 0, 0, 0},      /* A %= X (31) */
	{20, 1, 0, 0, 0, 0, 0x80, 0},	       /* A = 0x80000000; A = -A */
	{2, 3, 32, 0xfe, 0xff, 0xff, 0xff, 0}, /* A = 0xfffffffe; A *= 0xffffffff */
	{12, 2, 28, 0, 0, 0, 0, 0},	       /* A *= X (0xfffff000) */
	{1, 0, 200, 0, 0, 0, 0, 0},	       /* A -= 200 */
};

static int alu_seeds(const char *dir, int *num)
{
	uint8_t buf[2 + sizeof(alu_steps) + 60] = {FZ_CTL_ALU, sizeof(alu_steps) / 8 - 1};

	memcpy(buf + 2, alu_steps, sizeof(alu_steps));
	if (write_file(dir, "xlate", (*num)++, buf, sizeof(buf)))
		return -1;
	buf[0] |= FZ_CTL_NO_DIRECT;
	return write_file(dir, "xlate", (*num)++, buf, sizeof(buf));
}

static int xlate_seeds(const char *dir)
{
	static uint8_t buf[FZ_SEED_MAX];
	uint8_t fr[256];
	int num = 0;

	if (alu_seeds(dir, &num))
		return -1;

	for (size_t e = 0; e < sizeof(exprs) / sizeof(exprs[0]); e++) {
		struct sock_filter *prog;
		size_t len, n, flen;
		char err[256];

		if (pp_pcap_compile(exprs[e], &prog, &len, err, sizeof(err))) {
			fprintf(stderr, "fuzz_seeds: \"%s\": %s\n", exprs[e], err);
			return -1;
		}
		for (int i = 0; (flen = frame(i, fr)); i++) {
			n = fz_case_encode(prog, len, fr, flen, i & 1 ? FZ_CTL_NO_DIRECT : 0, buf,
					   sizeof(buf));
			if (n && write_file(dir, "xlate", num++, buf, n)) {
				free(prog);
				return -1;
			}
		}
		free(prog);
	}
	return 0;
}

static void put8(struct out *o, uint8_t v)
{
	if (o->n < sizeof(o->b))
		o->b[o->n++] = v;
}

static void putn(struct out *o, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		put8(o, (uint8_t)(v >> (8 * i)));
}

/* A record's common fields; see paths_input.h. */
static void rec(struct out *o, unsigned int kind, unsigned int flags, uint8_t id, uint8_t skb,
		int8_t ts_step, uint8_t probe)
{
	put8(o, FZ_OP(kind, flags));
	put8(o, id);
	put8(o, skb);
	put8(o, (uint8_t)ts_step);
	put8(o, probe);
	put8(o, 3); /* now: +3 us */
}

/*
 * Id number K of those whose home is the last slot of path.c's first table
 * (1024 slots, Fibonacci hashing: the top 10 bits of id * 0x9e3779b97f4a7c15):
 * their cluster wraps around the end, where deletion is easiest to get wrong.
 */
static uint64_t last_slot_id(uint64_t k)
{
	uint64_t g = 0x9e3779b97f4a7c15ULL, inv = g;

	for (int i = 0; i < 6; i++) /* Newton: inverse of g modulo 2^64 */
		inv *= 2 - g * inv;
	return inv * (1023ULL << 54 | k);
}

static void hop(struct out *o, uint8_t id, uint8_t skb, int8_t ts_step, uint8_t probe)
{
	rec(o, FZ_OP_HOP, 0, id, skb, ts_step, probe);
}

static void end(struct out *o, uint8_t id, uint8_t skb, int8_t ts_step, uint8_t fate)
{
	rec(o, FZ_OP_END, 0, id, skb, ts_step, 5);
	put8(o, fate);
}

static void drop(struct out *o, uint8_t id, uint8_t skb, int8_t ts_step, uint32_t reason,
		 uint64_t location)
{
	rec(o, FZ_OP_END, FZ_F_DROPINFO, id, skb, ts_step, 5);
	put8(o, 5); /* DROPPED */
	putn(o, reason, 4);
	putn(o, location, 8);
	putn(o, 0, 4);
}

/* The END a receive call's end sends for what it read (probe 10: PP_PROBE_READ). */
static void read_end(struct out *o, uint8_t id, uint8_t skb, int8_t ts_step)
{
	rec(o, FZ_OP_END, 0, id, skb, ts_step, 10);
	put8(o, 0); /* CONSUMED */
}

/* An END whose skb's data another skb still holds (PP_HOP_SHARED). */
static void shared_end(struct out *o, uint8_t id, uint8_t skb, int8_t ts_step, uint8_t fate)
{
	rec(o, FZ_OP_END, FZ_F_TRIM, id, skb, ts_step, 5);
	put8(o, fate);
}

/* skb joins packet id as a copy of parent, seen by probe. */
static void copy(struct out *o, uint8_t id, uint8_t skb, int8_t ts_step, uint8_t probe,
		 uint8_t parent)
{
	rec(o, FZ_OP_COPY, 0, id, skb, ts_step, probe);
	put8(o, parent);
}

/* A COPY and an END of skb from one probe: a copy first seen at its free. */
static void copy_at_end(struct out *o, uint8_t how, uint8_t id, uint8_t skb, uint8_t parent,
			uint8_t probe, uint8_t fate)
{
	put8(o, FZ_OP(FZ_OP_CLOCK, 0));
	put8(o, 0x80 | how);
	put8(o, id);
	put8(o, skb);
	put8(o, parent);
	put8(o, probe);
	put8(o, fate);
}

static void mark(struct out *o, uint8_t id, uint8_t skb, int frame_no, bool trim)
{
	uint8_t fr[256];
	size_t n = frame(frame_no, fr);

	rec(o, FZ_OP_MARK, trim ? FZ_F_TRIM : 0, id, skb, 1, 9);
	n = n < PP_HDR_BYTES ? n : PP_HDR_BYTES;
	put8(o, (uint8_t)n);
	for (size_t i = 0; i < n; i++)
		put8(o, fr[i]);
}

static void expire(struct out *o, uint8_t step, uint8_t timeout)
{
	put8(o, FZ_OP(FZ_OP_CLOCK, 0));
	put8(o, step);
	put8(o, timeout);
}

/* A hop from a device with a name and a comm of awkward bytes. */
static void odd_hop(struct out *o, uint8_t id, uint8_t skb)
{
	rec(o, FZ_OP_HOP, FZ_F_DETAIL, id, skb, 2, 2);
	putn(o, 3, 4);
	putn(o, 4026532001u, 4);
	putn(o, 7, 4);
	putn(o, 0, 4);
	putn(o, 1500, 4);
	putn(o, 0, 4); /* flags */
	for (int i = 0; i < 16; i++)
		put8(o, (uint8_t)("v\"e\\th\n\x01\x7f\xc3\xa9-b\t/\xff"[i]));
	for (int i = 0; i < 16; i++)
		put8(o, (uint8_t)("swapper/0\0\0\0\0\0\0"[i]));
}

static void paths_stream(int s, struct out *o)
{
	switch (s) {
	case 0: /* one packet, consumed */
		mark(o, 0, 0, 0, true);
		hop(o, 0, 0, 10, 0);
		hop(o, 0, 0, 10, 1);
		end(o, 0, 0, 10, 0);
		break;
	case 1: /* a clone that is dropped while the original is consumed */
		mark(o, 1, 0, 1, false);
		hop(o, 1, 0, 5, 0);
		hop(o, 1, 1, 5, 1);
		end(o, 1, 0, 5, 0);
		hop(o, 1, 1, 5, 2);
		drop(o, 1, 1, 5, 2, 0xffffffff81a2b3c4ULL);
		break;
	case 2: /* the mark lost; hops across CPUs out of order */
		hop(o, 2, 0, 10, 0);
		hop(o, 2, 0, -5, 3);
		hop(o, 2, 0, 0, 8);
		end(o, 2, 0, 20, 1);
		break;
	case 3: /* late records, then the id again once forgotten */
		mark(o, 3, 0, 3, true);
		end(o, 3, 0, 10, 0);
		hop(o, 3, 0, 10, 0);
		expire(o, 60, 10);
		hop(o, 3, 0, 10, 0);
		break;
	case 4: /* a timeout, and a second mark that is a hop */
		mark(o, 4, 0, 4, true);
		mark(o, 4, 1, 5, true);
		hop(o, 4, 0, 10, 6);
		expire(o, 63, 1);
		break;
	case 5: /* malformed records among good ones */
		mark(o, 5, 0, 6, true);
		put8(o, FZ_OP(FZ_OP_RAW, 0));
		put8(o, 1);  /* a MARK */
		put8(o, 50); /* shorter than its header */
		for (int i = 0; i < 50; i++)
			put8(o, (uint8_t)i);
		rec(o, FZ_OP_HOP, FZ_F_BADSIZE, 5, 0, 1, 0);
		put8(o, 95);
		rec(o, FZ_OP_END, 0, 5, 0, 1, 0);
		put8(o, 11); /* fate NONE: malformed */
		end(o, 5, 0, 1, 0);
		break;
	case 6: /* odd bytes in names, a frame too short for Ethernet */
		mark(o, 6, 0, 7, true);
		odd_hop(o, 6, 0);
		drop(o, 6, 0, 1, 3, 0x1234567);
		break;
	case 7: /* marks of every other kind of frame, then a burst of new ids */
		for (int i = 8; i <= 12; i++) {
			mark(o, (uint8_t)i, 0, i, true);
			end(o, (uint8_t)i, 0, 3, 0);
		}
		put8(o, FZ_OP(FZ_OP_CLOCK, 0));
		put8(o, 0xa0);
		put8(o, 255); /* 512 records */
		put8(o, FZ_OP(FZ_OP_CLOCK, 0));
		put8(o, 0xa0);
		put8(o, 255); /* 512 more: the tables grow */
		expire(o, 63, 0);
		expire(o, 63, 0);
		break;
	case 8: /* ids that path.c hashes to its last slot, closed, then forgotten */
		for (uint64_t k = 0; k < 6; k++) {
			put8(o, FZ_OP(FZ_OP_END, 0));
			put8(o, 0xff); /* a u64 id follows */
			putn(o, last_slot_id(k), 8);
			put8(o, 0); /* skb */
			put8(o, 1); /* ts step */
			put8(o, 0); /* probe */
			put8(o, 3); /* now step */
			put8(o, 0); /* CONSUMED */
		}
		expire(o, 63, 0);
		break;
	case 10: /* ping reads the raw socket's clone of a reply the original was dropped for */
		mark(o, 10, 0, 1, true);
		hop(o, 10, 0, 5, 1);
		copy(o, 10, 1, 5, 2, 0);
		shared_end(o, 10, 0, 5, 5); /* DROPPED, the clone still holds the data */
		hop(o, 10, 1, 5, 7);	    /* skb_copy_datagram_iter: ping reads it */
		end(o, 10, 1, 5, 0);	    /* CONSUMED */
		break;
	case 11: /* a shared END waits for its copy: one comes, one never does */
		mark(o, 11, 0, 1, true);
		shared_end(o, 11, 0, 5, 0);
		copy(o, 11, 2, 5, 4, 0);
		end(o, 11, 2, 5, 8); /* MERGED */
		mark(o, 12, 3, 2, true);
		shared_end(o, 12, 3, 5, 4); /* lingers */
		hop(o, 13, 4, 5, 1);
		copy(o, 13, 5, 5, 2, 4); /* still live at the timeout */
		end(o, 13, 4, 5, 0);
		expire(o, 63, 1);
		break;
	case 12: /* copies first seen at their free, and one with a hop between */
		mark(o, 14, 0, 0, true);
		hop(o, 14, 0, 5, 1);
		copy_at_end(o, 0, 14, 1, 0xf0, 6, 0); /* parent unknown */
		copy_at_end(o, 3, 14, 2, 0, 6, 4);
		copy_at_end(o, 4, 14, 3, 0, 7, 8);
		end(o, 14, 0, 5, 0);
		copy_at_end(o, 2, 15, 6, 0, 3, 4); /* a packet of one skb keeps its COPY */
		break;
	case 13: /* merged skbs, a drop among them, and a COPY after the skb's hops */
		mark(o, 1, 0, 4, true);
		hop(o, 1, 1, 5, 1);
		copy(o, 1, 1, 5, 2, 0);
		end(o, 1, 1, 5, 9);
		drop(o, 1, 0, 5, 2, 0xffffffff81000010ULL);
		mark(o, 2, 2, 5, true);
		end(o, 2, 2, 5, 10);
		break;
	case 14: /* an skb's address reused by a copy of its data: two ENDs of one skb */
		mark(o, 3, 0, 0, true);
		rec(o, FZ_OP_END, FZ_F_TRIM | FZ_F_DROPINFO, 3, 0, 5, 5);
		put8(o, 8);    /* MERGED, shared */
		putn(o, 0, 4); /* reason */
		putn(o, 0, 8); /* location */
		putn(o, 2, 4); /* lost */
		copy(o, 3, 0, 5, 2, 0);
		rec(o, FZ_OP_END, FZ_F_TRIM | FZ_F_DROPINFO, 3, 0, 5, 2);
		put8(o, 0); /* CONSUMED, shared again: waits for another copy */
		putn(o, 0, 4);
		putn(o, 0, 8);
		putn(o, 1, 4);
		copy(o, 3, 1, 5, 3, 0);
		end(o, 3, 1, 5, 0);
		break;
	case 15: /* TCP reads without kprobes: one segment copied, one coalesced */
		mark(o, 4, 0, 0, true);
		hop(o, 4, 0, 5, 3);
		mark(o, 5, 1, 1, true);
		hop(o, 5, 1, 5, 3);
		hop(o, 4, 0, 20, 6);
		read_end(o, 4, 0, 10);
		read_end(o, 5, 1, 1);
		break;
	case 16: /* neigh_probe()'s clone of a datagram waiting for its neighbour */
		mark(o, 6, 0, 0, true);
		hop(o, 6, 0, 5, 1);
		copy_at_end(o, 1, 6, 1, 0, 5, 0); /* consumed, shared: set aside */
		hop(o, 6, 0, 5, 2);
		drop(o, 6, 0, 5, 2, 0xffffffff81a2b3c4ULL); /* the packet's fate */
		mark(o, 7, 2, 1, true);
		copy_at_end(o, 3, 7, 3, 2, 5, 0); /* set aside; its parent's end never seen */
		mark(o, 8, 4, 2, true);
		copy_at_end(o, 9, 8, 5, 4, 6, 0); /* freed by its reader: it decides */
		drop(o, 8, 4, 5, 2, 0);
		copy_at_end(o, 1, 9, 6, 0, 5, 0); /* the only skb: it decides, lingers */
		mark(o, 10, 7, 3, true);
		copy(o, 10, 0, 5, 5, 7);
		hop(o, 10, 0, 5, 2); /* a hop of its own: it decides */
		shared_end(o, 10, 0, 5, 0);
		drop(o, 10, 7, 5, 2, 0);
		mark(o, 11, 7, 4, true);
		copy(o, 11, 1, 5, 3, 7); /* joined at another probe than its free: it decides */
		shared_end(o, 11, 1, 5, 0);
		drop(o, 11, 7, 5, 2, 0);
		mark(o, 12, 0, 5, true);
		copy_at_end(o, 0x11, 12, 1, 0, 5, 0); /* tcpdump's copy at its free: a tap's */
		copy_at_end(o, 1, 12, 2, 0, 5, 0);    /* set aside: the drop decides */
		drop(o, 12, 0, 5, 2, 0);
		expire(o, 63, 1);
		break;
	default: /* many packets interleaved, some left to the final flush */
		for (int i = 0; i < 16; i++)
			mark(o, (uint8_t)i, (uint8_t)(i % 8), i % 8, i & 1);
		for (int i = 0; i < 16; i++)
			hop(o, (uint8_t)(15 - i), (uint8_t)(i % 8), (int8_t)(i - 8), (uint8_t)i);
		for (int i = 0; i < 12; i++)
			end(o, (uint8_t)i, (uint8_t)(i % 8), 3, (uint8_t)i);
	}
}

static int paths_seeds(const char *dir)
{
	static struct out o;

	for (int s = 0; s < 17; s++) {
		o.n = 0;
		paths_stream(s, &o);
		if (write_file(dir, "paths", s, o.b, o.n))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: fuzz_seeds XLATE_DIR PATHS_DIR\n");
		return 2;
	}
	if (xlate_seeds(argv[1]) || paths_seeds(argv[2]))
		return 1;
	return 0;
}
