// SPDX-License-Identifier: GPL-2.0
/*
 * The fields, per protocol (all in network order as on the wire):
 *   IPv4      protocol, identification, flags and fragment offset, total
 *             length less the header (TTL and checksum change per hop)
 *   IPv6      next header, payload length, flow label
 *   TCP       sequence and acknowledgment numbers, flags
 *   UDP       length, the first PP_KEY_PAYLOAD payload bytes
 *   ICMP echo type, code, sequence, the first PP_KEY_PAYLOAD payload bytes
 *             (not the identifier: NAT rewrites it as a port,
 *             nf_nat_proto.c's icmp_manip_pkt())
 *   other     the IP fields only; a later fragment has no transport header
 * They are written into a buffer in this order and hashed (FNV-1a, 64 bits).
 */
#include <stdbool.h>
#include <string.h>
#include "pkt_key.h"

#define ETH_HLEN 14
#define KEY_BUF	 (16 + 12 + PP_KEY_PAYLOAD)

struct kbuf {
	__u8 b[KEY_BUF];
	__u32 n;
};

static void put(struct kbuf *k, const __u8 *p, __u32 n)
{
	if (n > KEY_BUF - k->n)
		n = KEY_BUF - k->n;
	memcpy(k->b + k->n, p, n);
	k->n += n;
}

static __u64 fnv1a(const __u8 *p, __u32 n)
{
	__u64 h = 0xcbf29ce484222325ULL;

	for (__u32 i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h ? h : 1;
}

/* The L4 fields of protocol PROTO at L4 (AVAIL bytes captured from there). */
static void put_l4(struct kbuf *k, __u8 proto, const __u8 *l4, __u32 avail)
{
	bool echo;

	if (proto == 6 && avail >= 14) {
		put(k, l4 + 4, 8);  /* sequence, acknowledgment */
		put(k, l4 + 13, 1); /* flags */
	} else if (proto == 17 && avail >= 8) {
		put(k, l4 + 4, 2); /* length */
		put(k, l4 + 8, avail - 8 < PP_KEY_PAYLOAD ? avail - 8 : PP_KEY_PAYLOAD);
	} else if ((proto == 1 || proto == 58) && avail >= 8) {
		put(k, l4, 2); /* type, code */
		/* echo request and reply: ICMP 8 and 0, ICMPv6 128 and 129 */
		echo = proto == 1 ? l4[0] == 8 || l4[0] == 0 : l4[0] == 128 || l4[0] == 129;
		if (!echo)
			return;
		put(k, l4 + 6, 2); /* sequence */
		put(k, l4 + 8, avail - 8 < PP_KEY_PAYLOAD ? avail - 8 : PP_KEY_PAYLOAD);
	}
}

static __u64 key_v4(const __u8 *ip, __u32 avail)
{
	struct kbuf k = {.n = 0};
	__u32 hl = (ip[0] & 0xf) * 4u, tot = (__u32)ip[2] << 8 | ip[3];
	__u8 len[2];

	if (avail < 20 || hl < 20 || tot < hl)
		return 0;
	/* Ethernet pads short frames: bytes past the IP length are no packet's. */
	avail = avail < tot ? avail : tot;
	len[0] = (__u8)((tot - hl) >> 8);
	len[1] = (__u8)(tot - hl);
	put(&k, ip + 9, 1); /* protocol */
	put(&k, ip + 4, 4); /* identification, flags and fragment offset */
	put(&k, len, 2);
	/* A later fragment (offset not 0) carries no transport header. */
	if (!((ip[6] & 0x1f) | ip[7]) && avail > hl)
		put_l4(&k, ip[9], ip + hl, avail - hl);
	return fnv1a(k.b, k.n);
}

static __u64 key_v6(const __u8 *ip, __u32 avail)
{
	struct kbuf k = {.n = 0};
	__u8 flow[3];
	__u32 plen;

	if (avail < 40)
		return 0;
	plen = (__u32)ip[4] << 8 | ip[5];
	avail = avail < 40 + plen ? avail : 40 + plen;
	flow[0] = ip[1] & 0x0f;
	flow[1] = ip[2];
	flow[2] = ip[3];
	put(&k, ip + 6, 1); /* next header */
	put(&k, ip + 4, 2); /* payload length */
	put(&k, flow, 3);
	put_l4(&k, ip[6], ip + 40, avail - 40);
	return fnv1a(k.b, k.n);
}

__u64 pp_pkt_key(const __u8 *data, __u32 len)
{
	__u32 off = 12;
	__u16 type;

	if (len < ETH_HLEN)
		return 0;
	type = (__u16)(data[off] << 8 | data[off + 1]);
	/* 802.1Q and 802.1ad tags in the frame: 4 bytes each before the type. */
	while ((type == 0x8100 || type == 0x88a8) && off + 6 <= len) {
		off += 4;
		type = (__u16)(data[off] << 8 | data[off + 1]);
	}
	off += 2;
	if (type == 0x0800 && off < len && (data[off] >> 4) == 4)
		return key_v4(data + off, len - off);
	if (type == 0x86dd && off < len && (data[off] >> 4) == 6)
		return key_v6(data + off, len - off);
	return 0;
}
