// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "output/export_pcapng.h"
#include "base/fmt.h"
#include "base/grow.h"
#include "output/path_line.h"
#include "output/pcapng.h"
#include "output/exports.h"

#define PP_COMMENT_MAX 4096 /* a path of some 150 hops; longer ones end in "..." */
#define PP_BLOCK_MAX   (64 + PP_HDR_BYTES + PP_COMMENT_MAX + 32)
#define PP_ETH_HLEN    14

/* A marking device: where a packet was marked, told apart by namespace too. */
struct pcap_if {
	char name[PP_IFNAMSIZ];
	__u32 ifindex;
	__u32 netns;
};

struct pp_pcapng_out {
	FILE *f;
	__u32 snaplen;
	__s64 real_off;
	struct pcap_if *ifs;
	size_t nifs, cap;
	__u64 packets;
	__u8 block[PP_BLOCK_MAX];
};

static void put_block(struct pp_pcapng_out *x, size_t n)
{
	if (n <= sizeof(x->block))
		fwrite(x->block, 1, n, x->f);
}

struct pp_pcapng_out *pp_pcapng_out_new(FILE *f, __u32 snaplen, __s64 real_off_ns, const char *appl)
{
	struct pp_pcapng_out *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->f = f;
	x->snaplen = snaplen && snaplen < PP_HDR_BYTES ? snaplen : PP_HDR_BYTES;
	x->real_off = real_off_ns;
	put_block(x, pp_pcapng_shb(x->block, sizeof(x->block), appl));
	return x;
}

/* The IDB's name: the device's, else "if<index>", else "unknown". */
static void if_names(const struct pp_out *o, const struct pcap_if *i, char *name, size_t nlen,
		     char *descr, size_t dlen)
{
	struct pp_sbuf n = {.buf = name, .len = nlen}, d = {.buf = descr, .len = dlen};
	char nsbuf[PP_FMT_U64 + 1];
	const char *ns = pp_out_netns(o, i->netns, nsbuf, sizeof(nsbuf));

	if (i->name[0]) {
		pp_line_clean(&n, i->name, sizeof(i->name));
	} else if (i->ifindex) {
		pp_sb_lit(&n, "if");
		pp_sb_u64(&n, i->ifindex);
	} else {
		pp_sb_lit(&n, "unknown");
	}
	pp_sb_lit(&d, "marked by pktpath; netns ");
	pp_sb_str(&d, ns);
	/* A name, then the inode it stands for. */
	if (ns != nsbuf && i->netns) {
		pp_sb_lit(&d, " (");
		pp_sb_u64(&d, i->netns);
		pp_sb_lit(&d, ")");
	}
	pp_sb_lit(&d, ", ifindex ");
	pp_sb_u64(&d, i->ifindex);
}

/* The interface id of hop H's device, writing its IDB the first time. */
static long if_id(struct pp_pcapng_out *x, const struct pp_out *o, const struct pp_hop *h)
{
	struct pcap_if key = {.ifindex = h->ifindex, .netns = h->netns};
	char name[PP_IFNAMSIZ + 24], descr[256];

	/* Only the name: what follows its NUL is whatever the kernel's buffer held. */
	memcpy(key.name, h->ifname, strnlen(h->ifname, sizeof(h->ifname)));
	for (size_t i = 0; i < x->nifs; i++)
		if (!memcmp(&x->ifs[i], &key, sizeof(key)))
			return (long)i;
	if (PP_GROW(x->ifs, x->cap, x->nifs + 1, 8))
		return -1;
	x->ifs[x->nifs] = key;
	if_names(o, &key, name, sizeof(name), descr, sizeof(descr));
	put_block(x, pp_pcapng_idb(x->block, sizeof(x->block), PP_PCAPNG_LINKTYPE_ETH, x->snaplen,
				   name, descr));
	return (long)x->nifs++;
}

/*
 * The packet's length on the wire: the mark's skb->len, from the Ethernet
 * header at TC; a mark in a probe (ip_output) has the IP packet's, and its
 * bytes a made-up Ethernet header first (bpf/probes.bpf.c).
 */
static __u32 wire_len(const struct pp_mark *m, __u32 caplen)
{
	__u32 len = m->hop.len;

	if (!pp_out_tc_dir(m->hop.probe))
		len += PP_ETH_HLEN;
	if (m->vlan) /* the tag the kernel held in metadata, back in the frame */
		len += 4;
	return len < caplen ? caplen : len;
}

static __u32 direction(const struct pp_hop *h)
{
	if (h->probe == PP_PROBE_TC_INGRESS)
		return PP_PCAPNG_DIR_INBOUND;
	/* tc:egress, or a probe where this host sends */
	return PP_PCAPNG_DIR_OUTBOUND;
}

void pp_pcapng_out_packet(struct pp_pcapng_out *x, const struct pp_out *o,
			  const struct pp_packet *p)
{
	const struct pp_hop *h = p->mark ? &p->mark->hop : &p->hops[0];
	char comment[PP_COMMENT_MAX];
	struct pp_pcapng_pkt pk = {
		.ts_ns = h->ts + (__u64)x->real_off, .comment = comment, .packetid = p->id};
	struct pp_sbuf f = {.buf = comment, .len = sizeof(comment)};
	long id = if_id(x, o, h);

	if (id < 0)
		return;
	pp_sb_lit(&f, "pktpath #");
	pp_sb_u64(&f, p->id);
	pp_sb_lit(&f, ": ");
	if (!p->mark)
		pp_sb_lit(&f, "(mark lost: packet bytes unknown) ");
	pp_path_line(o, p, comment + f.pos, sizeof(comment) - f.pos);
	pk.ifid = (__u32)id;
	if (p->mark) {
		pk.data = p->mark->data;
		/* x->snaplen is at most PP_HDR_BYTES, the size of data[] */
		pk.caplen = p->mark->cap_len < x->snaplen ? p->mark->cap_len : x->snaplen;
		pk.origlen = wire_len(p->mark, pk.caplen);
		pk.flags = direction(h);
	} else {
		pk.origlen = h->len;
	}
	put_block(x, pp_pcapng_epb(x->block, sizeof(x->block), &pk));
	x->packets++;
}

void pp_pcapng_out_set_real_off(struct pp_pcapng_out *x, __s64 real_off_ns)
{
	x->real_off = real_off_ns;
}

__u64 pp_pcapng_out_count(const struct pp_pcapng_out *x)
{
	return x->packets;
}

void pp_pcapng_out_free(struct pp_pcapng_out *x)
{
	if (!x)
		return;
	free(x->ifs);
	free(x);
}

static void *pcapng_open(FILE *f, __u32 snaplen, __s64 real_off_ns, const char *appl)
{
	return pp_pcapng_out_new(f, snaplen, real_off_ns, appl);
}

static void pcapng_packet(void *w, const struct pp_out *o, const struct pp_packet *p)
{
	pp_pcapng_out_packet(w, o, p);
}

static void pcapng_set_real_off(void *w, __s64 real_off_ns)
{
	pp_pcapng_out_set_real_off(w, real_off_ns);
}

static __u64 pcapng_count(const void *w)
{
	return pp_pcapng_out_count(w);
}

static void pcapng_free(void *w)
{
	pp_pcapng_out_free(w);
}

/* The capture holds packet bytes (up to 128 of each: payload too, for small packets): 0600. */
const struct pp_export_ops pp_export_pcapng_ops = {
	.option = "--pcapng",
	.mode = 0600,
	.bytes = true,
	.open = pcapng_open,
	.packet = pcapng_packet,
	.set_real_off = pcapng_set_real_off,
	.count = pcapng_count,
	.free = pcapng_free,
};
