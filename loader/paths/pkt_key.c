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
 *
 * A tunnel's frame (filter/tunnel.h) is keyed by its inner packet: the pod's
 * packet, which one host marks bare before encapsulating it and the next
 * marks on the underlay, inside the outer headers (whose UDP source port and
 * IPv4 ID the sending kernel picks per packet). Where the mark's bytes end
 * before the inner packet's key fields do (VXLAN over IPv6 leaves 16 bytes
 * of a UDP payload), there is no key: a shorter hash would match no bare
 * packet's.
 */
#include <stdbool.h>
#include <string.h>
#include "paths/pkt_key.h"
#include "filter/tunnel.h"

#define ETH_HLEN 14
#define KEY_BUF	 (16 + 12 + PP_KEY_PAYLOAD)
/* More than a mark holds (PP_HDR_BYTES and a tag): room for its inner frame. */
#define FRAME_MAX 256

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

/* The first PP_KEY_PAYLOAD payload bytes, of AVAIL captured (all the packet's, PLEN). */
static bool put_payload(struct kbuf *k, const __u8 *p, __u32 avail, __u32 plen)
{
	put(k, p, avail < PP_KEY_PAYLOAD ? avail : PP_KEY_PAYLOAD);
	return avail >= (plen < PP_KEY_PAYLOAD ? plen : PP_KEY_PAYLOAD);
}

/*
 * The L4 fields of protocol PROTO at L4 (AVAIL bytes captured from there,
 * LEN the packet's from there): whether all were captured.
 */
static bool put_l4(struct kbuf *k, __u8 proto, const __u8 *l4, __u32 avail, __u32 len)
{
	bool echo;

	if (proto == 6 && avail >= 14) {
		put(k, l4 + 4, 8);  /* sequence, acknowledgment */
		put(k, l4 + 13, 1); /* flags */
	} else if (proto == 17 && avail >= 8) {
		put(k, l4 + 4, 2); /* length */
		return put_payload(k, l4 + 8, avail - 8, len - 8);
	} else if ((proto == 1 || proto == 58) && avail >= 8) {
		put(k, l4, 2); /* type, code */
		/* echo request and reply: ICMP 8 and 0, ICMPv6 128 and 129 */
		echo = proto == 1 ? l4[0] == 8 || l4[0] == 0 : l4[0] == 128 || l4[0] == 129;
		if (!echo)
			return true;
		put(k, l4 + 6, 2); /* sequence */
		return put_payload(k, l4 + 8, avail - 8, len - 8);
	} else if (proto == 6 || proto == 17 || proto == 1 || proto == 58) {
		return avail >= len; /* a packet shorter than the header: all of it */
	}
	return true;
}

/* WHOLE: whether the key fields were all captured. */
static __u64 key_v4(const __u8 *ip, __u32 avail, bool *whole)
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
	if (!((ip[6] & 0x1f) | ip[7]))
		*whole = avail > hl ? put_l4(&k, ip[9], ip + hl, avail - hl, tot - hl)
				    : avail == tot;
	return fnv1a(k.b, k.n);
}

static __u64 key_v6(const __u8 *ip, __u32 avail, bool *whole)
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
	*whole = put_l4(&k, ip[6], ip + 40, avail - 40, plen);
	return fnv1a(k.b, k.n);
}

/* The key of one frame, from its IP header on. */
static __u64 key_frame(const __u8 *data, __u32 len, bool *whole)
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
		return key_v4(data + off, len - off, whole);
	if (type == 0x86dd && off < len && (data[off] >> 4) == 6)
		return key_v6(data + off, len - off, whole);
	return 0;
}

__u64 pp_pkt_key(const __u8 *data, __u32 len)
{
	__u8 buf[FRAME_MAX];
	const __u8 *frame;
	struct pp_tunnel t;
	bool whole = true;
	__u64 key;

	if (len > sizeof(buf))
		len = sizeof(buf);
	if (!pp_tunnel_parse(data, len, &t))
		return key_frame(data, len, &whole);
	/* An IP packet inside needs room for its made-up Ethernet header. */
	if (t.inner_off + (t.inner_type ? PP_INNER_ETH_HLEN : 0) > len)
		return 0;
	len = pp_tunnel_inner(data, len, &t, buf, &frame);
	key = key_frame(frame, len, &whole);
	return whole ? key : 0;
}
