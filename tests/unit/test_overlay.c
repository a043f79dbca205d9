// SPDX-License-Identifier: GPL-2.0
/*
 * The inner view (PP_XLATE_INNER): a filter matches a VXLAN or Geneve frame
 * when libpcap matches the frame or, the frame being a tunnel's
 * (pp_tunnel_parse()), its inner frame, with "len" from the inner header
 * on. The translation runs in the interpreter on every prefix of each frame
 * (the tunnel parse's bounds) and in the kernel on the whole frames.
 */
#include <stdio.h>
#include <string.h>
#include "suites.h"
#include "filter/classifier.h"
#include "filter/ebpf_interp.h"
#include "filter/filter.h"
#include "kernel_run.h"
#include "output/hop_change.h"
#include "paths/pkt_decode.h"
#include "filter/tunnel.h"

#define FRAME_MAX 256

/* An inner frame: IPv4 ICMP echo 10.244.1.2 > 10.244.2.3 (42 bytes). */
static const unsigned char inner_icmp[] = {
	0x02, 0,  0, 0, 0, 0x02, 0x02, 0, 0, 0,	 0,   0x01, 0x08, 0x00, 0x45, 0, 0, 28, 0,    7, 0,
	0,    64, 1, 0, 0, 10,	 244,  1, 2, 10, 244, 2,    3,	  8,	0,    0, 0, 0,	0x2a, 0, 1};

/* The same as IPv6: ICMPv6 echo 2001:db8::1 > 2001:db8::2 (62 bytes). */
static const unsigned char inner_icmp6[] = {
	0x02, 0, 0, 0, 0,  0x02, 0x02, 0,    0,	   0,	 0, 0x01, 0x86, 0xdd, 0x60, 0,
	0,    0, 0, 8, 58, 64,	 0x20, 0x01, 0x0d, 0xb8, 0, 0,	  0,	0,    0,    0,
	0,    0, 0, 0, 0,  1,	 0x20, 0x01, 0x0d, 0xb8, 0, 0,	  0,	0,    0,    0,
	0,    0, 0, 0, 0,  2,	 128,  0,    0,	   0,	 0, 0x2a, 0,	1};

struct frame_spec {
	const char *name;
	int ip6;	 /* the outer header IPv6 */
	__u16 port;	 /* UDP destination port */
	int geneve_opts; /* Geneve: 4-byte words of options; -1: VXLAN's header */
	__u16 geneve_proto;
	__u8 geneve_ver;
	__u16 frag;   /* IPv4 flags and fragment offset */
	__u8 ipproto; /* an IP tunnel: IP-in-IP (4) or GRE (47); 0: UDP */
	__u16 gre_flags;
	__u16 gre_type;
	int inner6; /* inner_icmp6 inside, not inner_icmp */
};

static const struct frame_spec specs[] = {
	{"vxlan 4789", 0, 4789, -1, 0, 0, 0, 0, 0, 0, 0},
	{"vxlan 8472", 0, 8472, -1, 0, 0, 0, 0, 0, 0, 0},
	{"vxlan over ipv6", 1, 4789, -1, 0, 0, 0, 0, 0, 0, 0},
	{"geneve", 0, 6081, 0, PP_ETH_P_TEB, 0, 0, 0, 0, 0, 0},
	{"geneve with options", 0, 6081, 2, PP_ETH_P_TEB, 0, 0, 0, 0, 0, 0},
	{"geneve over ipv6", 1, 6081, 1, PP_ETH_P_TEB, 0, 0, 0, 0, 0, 0},
	{"geneve carrying ipv4", 0, 6081, 0, 0x0800, 0, 0, 0, 0, 0, 0},
	{"geneve version 1", 0, 6081, 0, PP_ETH_P_TEB, 1, 0, 0, 0, 0, 0},
	{"other udp port", 0, 4790, -1, 0, 0, 0, 0, 0, 0, 0},
	{"later fragment", 0, 4789, -1, 0, 0, 0x0010, 0, 0, 0, 0},
	{"first fragment", 0, 4789, -1, 0, 0, 0x2000, 0, 0, 0, 0},
	/* IP tunnels, from 11 on: tunnels up to 15 */
	{"ipip", 0, 0, 0, 0, 0, 0, PP_IPPROTO_IPIP, 0, 0, 0},
	{"gre ipv4", 0, 0, 0, 0, 0, 0, PP_IPPROTO_GRE, 0, 0x0800, 0},
	{"gre key ipv4", 0, 0, 0, 0, 0, 0, PP_IPPROTO_GRE, PP_GRE_KEY, 0x0800, 0},
	{"gre csum key seq ethernet", 0, 0, 0, 0, 0, 0, PP_IPPROTO_GRE,
	 PP_GRE_CSUM | PP_GRE_KEY | PP_GRE_SEQ, PP_ETH_P_TEB, 0},
	{"gre seq ipv6 type", 0, 0, 0, 0, 0, 0, PP_IPPROTO_GRE, PP_GRE_SEQ, 0x86dd, 0},
	{"gre version 1", 0, 0, 0, 0, 0, 0, PP_IPPROTO_GRE, 1, 0x0800, 0},
	{"gre routing", 0, 0, 0, 0, 0, 0, PP_IPPROTO_GRE, 0x4000, 0x0800, 0},
	{"gre mpls", 0, 0, 0, 0, 0, 0, PP_IPPROTO_GRE, 0, 0x8847, 0},
	{"ipip later fragment", 0, 0, 0, 0, 0, 0x0010, PP_IPPROTO_IPIP, 0, 0, 0},
	/* IP tunnels with IPv6 outside or inside, from 20 on: tunnels up to 24 */
	{"ipip over ipv6", 1, 0, 0, 0, 0, 0, PP_IPPROTO_IPIP, 0, 0, 0},
	{"ip6ip6", 1, 0, 0, 0, 0, 0, PP_IPPROTO_IPV6, 0, 0, 1},
	{"sit", 0, 0, 0, 0, 0, 0, PP_IPPROTO_IPV6, 0, 0, 1},
	{"ip6gre key ipv4", 1, 0, 0, 0, 0, 0, PP_IPPROTO_GRE, PP_GRE_KEY, 0x0800, 0},
	{"ip6gretap", 1, 0, 0, 0, 0, 0, PP_IPPROTO_GRE, 0, PP_ETH_P_TEB, 0},
	{"ipv6 esp", 1, 0, 0, 0, 0, 0, 50, 0, 0, 0},
};
#define FIRST_IP_TUNNEL	 11
#define LAST_IP_TUNNEL	 15
#define FIRST_IP6_TUNNEL 20
#define LAST_IP6_TUNNEL	 24

static size_t put16(unsigned char *p, size_t n, __u16 v)
{
	p[n] = v >> 8;
	p[n + 1] = v & 0xff;
	return n + 2;
}

/* The outer Ethernet and IP headers up to the UDP header: its offset. */
static size_t outer_ip(unsigned char *f, const struct frame_spec *s, size_t ip_payload)
{
	size_t n = 12;

	memset(f, 0, FRAME_MAX);
	for (int i = 0; i < 12; i++)
		f[i] = (unsigned char)(0x20 + i);
	if (s->ip6) {
		n = put16(f, n, 0x86dd);
		f[n] = 0x60;
		put16(f, n + 4, (__u16)ip_payload);
		f[n + 6] = 17;
		f[n + 7] = 64;
		f[n + 23] = 1; /* fd00::1 > fd00::2 */
		f[n + 8] = f[n + 24] = 0xfd;
		f[n + 39] = 2;
		return n + 40;
	}
	n = put16(f, n, 0x0800);
	f[n] = 0x45;
	put16(f, n + 2, (__u16)(20 + ip_payload));
	put16(f, n + 6, s->frag);
	f[n + 8] = 64;
	f[n + 9] = 17;
	memcpy(f + n + 12, (const unsigned char[]){192, 168, 50, 1, 192, 168, 50, 2}, 8);
	return n + 20;
}

/*
 * S's IP tunnel: a GRE header (the checksum and sequence words 0xee, the
 * key 42) or none, then inner_icmp (inner_icmp6 with INNER6), whole with
 * Ethernet inside, else its IP packet; the frame's length.
 */
static size_t make_ip_tunnel(unsigned char *f, const struct frame_spec *s)
{
	bool eth = s->gre_type == PP_ETH_P_TEB;
	const unsigned char *in = s->inner6 ? inner_icmp6 : inner_icmp;
	size_t in_len = s->inner6 ? sizeof(inner_icmp6) : sizeof(inner_icmp);
	size_t hdr = 0, n, body = in_len - (eth ? 0 : 14);

	if (s->ipproto == PP_IPPROTO_GRE)
		hdr = 4 +
		      4 * (size_t)(!!(s->gre_flags & PP_GRE_CSUM) + !!(s->gre_flags & PP_GRE_KEY) +
				   !!(s->gre_flags & PP_GRE_SEQ));
	n = outer_ip(f, s, hdr + body);
	f[14 + (s->ip6 ? 6 : 9)] = s->ipproto;
	if (hdr) {
		put16(f, n, s->gre_flags);
		put16(f, n + 2, s->gre_type);
		memset(f + n + 4, 0xee, hdr - 4);
		if (s->gre_flags & PP_GRE_KEY) {
			size_t k = n + 4 + (s->gre_flags & PP_GRE_CSUM ? 4 : 0);

			memset(f + k, 0, 4);
			f[k + 3] = 42;
		}
	}
	memcpy(f + n + hdr, in + (eth ? 0 : 14), body);
	return n + hdr + body;
}

/* The whole frame of S with inner_icmp inside; its length. */
static size_t make_frame(unsigned char *f, const struct frame_spec *s)
{
	if (s->ipproto)
		return make_ip_tunnel(f, s);

	size_t thdr = s->geneve_opts < 0 ? 8 : 8 + 4 * (size_t)s->geneve_opts;
	size_t udp_len = 8 + thdr + sizeof(inner_icmp);
	size_t n = outer_ip(f, s, udp_len), t;

	put16(f, n, 40000);
	put16(f, n + 2, s->port);
	put16(f, n + 4, (__u16)udp_len);
	t = n + 8;
	if (s->geneve_opts < 0) {
		f[t] = 0x08; /* VXLAN: the I flag, VNI 42 */
	} else {
		f[t] = (unsigned char)(s->geneve_ver << 6 | s->geneve_opts);
		put16(f, t + 2, s->geneve_proto);
		for (size_t i = 8; i < thdr; i++)
			f[t + i] = 0xee;
	}
	f[t + 6] = 42;
	memcpy(f + t + thdr, inner_icmp, sizeof(inner_icmp));
	return t + thdr + sizeof(inner_icmp);
}

/* libpcap on the frame, else on its inner frame: what the inner view must say. */
static int reference(const struct pp_filter *f, const unsigned char *d, size_t len)
{
	unsigned char buf[FRAME_MAX];
	const unsigned char *in;
	struct pp_tunnel t;
	__u32 n;

	if (pp_pcap_offline_match(f->cbpf, f->cbpf_len, d, (unsigned)len, (unsigned)len))
		return 1;
	if (!pp_tunnel_parse(d, (__u32)len, &t))
		return 0;
	n = pp_tunnel_inner(d, (__u32)len, &t, buf, &in);
	return pp_pcap_offline_match(f->cbpf, f->cbpf_len, in, n, n) != 0;
}

static int interp(const struct pp_filter *f, const unsigned char *d, size_t len)
{
	struct pp_vm_pkt pkt = {.data = d, .caplen = (uint32_t)len, .len = (uint32_t)len};
	char err[320];
	int match = -1;

	ck_assert_msg(
		pp_ebpf_run(f->insns, f->cnt, PP_VM_TC, &pkt, &match, NULL, err, sizeof(err)) == 0,
		"%s", err);
	return match;
}

static const char *const exprs[] = {
	"host 10.244.2.3",
	"icmp and src 10.244.1.2",
	"icmp[icmptype] = icmp-echo",
	"udp port 4789",
	"host 192.168.50.2",
	"tcp",
	"not icmp",
	"len = 42",
	"len > 100",
	"ether[0] = 0x02",
	"ip[0] & 0xf = 5 and ip[ip[0] & 0xf] = 0",
	"vlan and icmp",
	"ether[12:2] = 0x0800",
	"ether[10:4] = 0x800",
	"ether[13:4] != 0",
	"ether[5:2] = 0",
	"ether proto 0x86dd",
	"ether[ip[0] & 0xf] = 0",
	"ether[(ip[0] & 0xf) + 7:4] = 0x08004500",
	"ip proto 47 or ip proto 4",
	"icmp6 and host 2001:db8::2",
	"ip6 proto 41 or ip6 proto 4 or ip6 proto 47",
	"",
};

START_TEST(test_tunnel_parse)
{
	unsigned char f[FRAME_MAX];
	struct pp_tunnel t;
	size_t len = make_frame(f, &specs[4]); /* geneve with 8 bytes of options */

	ck_assert(pp_tunnel_parse(f, (__u32)len, &t));
	ck_assert_int_eq(t.kind, PP_TUNNEL_GENEVE);
	ck_assert_uint_eq(t.vni, 42);
	ck_assert_uint_eq(t.inner_off, 14 + 20 + 8 + 16);
	ck_assert_str_eq(pp_tunnel_name(t.kind), "geneve");
	len = make_frame(f, &specs[2]);
	ck_assert(pp_tunnel_parse(f, (__u32)len, &t));
	ck_assert_int_eq(t.kind, PP_TUNNEL_VXLAN);
	ck_assert_uint_eq(t.inner_off, 14 + 40 + 8 + 8);
	for (size_t i = 6; i < sizeof(specs) / sizeof(specs[0]); i++) {
		/* a first fragment has its headers */
		bool tunnel = i == 10 || (i >= FIRST_IP_TUNNEL && i <= LAST_IP_TUNNEL) ||
			      (i >= FIRST_IP6_TUNNEL && i <= LAST_IP6_TUNNEL);

		len = make_frame(f, &specs[i]);
		ck_assert_msg(pp_tunnel_parse(f, (__u32)len, &t) == tunnel, "%s", specs[i].name);
	}
}
END_TEST

/* IP-in-IP and GRE: the kind, the key, the inner frame and its made-up header. */
START_TEST(test_ip_tunnel_parse)
{
	unsigned char f[FRAME_MAX], buf[FRAME_MAX];
	const unsigned char *in;
	struct pp_tunnel t;
	size_t len = make_frame(f, &specs[FIRST_IP_TUNNEL]);
	__u32 n;

	ck_assert(pp_tunnel_parse(f, (__u32)len, &t));
	ck_assert_str_eq(pp_tunnel_name(t.kind), "ipip");
	ck_assert_uint_eq(t.inner_type, 0x0800);
	ck_assert_uint_eq(t.inner_off, 14 + 20 - 14);
	ck_assert_str_eq(pp_tunnel_id_name(t.kind, t.has_key), "");
	n = pp_tunnel_inner(f, (__u32)len, &t, buf, &in);
	ck_assert_uint_eq(n, sizeof(inner_icmp));
	ck_assert_mem_eq(in, (const unsigned char[12]){0}, 12);
	ck_assert_mem_eq(in + 12, inner_icmp + 12, sizeof(inner_icmp) - 12);
	len = make_frame(f, &specs[FIRST_IP_TUNNEL + 2]); /* gre key ipv4 */
	ck_assert(pp_tunnel_parse(f, (__u32)len, &t));
	ck_assert_str_eq(pp_tunnel_name(t.kind), "gre");
	ck_assert(t.has_key);
	ck_assert_uint_eq(t.vni, 42);
	ck_assert_str_eq(pp_tunnel_id_name(t.kind, t.has_key), "key");
	ck_assert_uint_eq(t.inner_off, 14 + 20 + 8 - 14);
	len = make_frame(f, &specs[FIRST_IP_TUNNEL + 3]); /* gre csum key seq ethernet */
	ck_assert(pp_tunnel_parse(f, (__u32)len, &t));
	ck_assert_uint_eq(t.inner_type, 0);
	ck_assert_uint_eq(t.vni, 42);
	ck_assert_uint_eq(t.inner_off, 14 + 20 + 16);
	n = pp_tunnel_inner(f, (__u32)len, &t, buf, &in);
	ck_assert_ptr_eq(in, f + t.inner_off);
	ck_assert_mem_eq(in, inner_icmp, sizeof(inner_icmp));
	/* The inner IP packet may be empty, not cut in the GRE header. */
	len = make_frame(f, &specs[FIRST_IP_TUNNEL + 1]);
	ck_assert(pp_tunnel_parse(f, 14 + 20 + 4, &t));
	ck_assert(!pp_tunnel_parse(f, 14 + 20 + 3, &t));
}
END_TEST

/* Every frame, cut at every length, both load modes: the reference's verdict. */
START_TEST(test_inner_view_equals_reference)
{
	for (size_t e = 0; e < sizeof(exprs) / sizeof(exprs[0]); e++) {
		for (unsigned int mode = 0; mode <= PP_XLATE_NO_DIRECT; mode++) {
			struct pp_filter f;
			char err[256];

			ck_assert_msg(pp_filter_build(&f, exprs[e], mode | PP_XLATE_INNER, err,
						      sizeof(err)) == 0,
				      "%s", err);
			for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
				unsigned char fr[FRAME_MAX];
				size_t len = make_frame(fr, &specs[i]);

				for (size_t cut = 0; cut <= len; cut++)
					ck_assert_msg(interp(&f, fr, cut) == reference(&f, fr, cut),
						      "\"%s\" on %s cut at %zu", exprs[e],
						      specs[i].name, cut);
			}
			pp_filter_free(&f);
		}
	}
}
END_TEST

/* The pods' filter: the inner view matches the encapsulated packet, without it nothing does. */
START_TEST(test_inner_view_matters)
{
	unsigned char fr[FRAME_MAX];
	size_t len = make_frame(fr, &specs[0]);
	struct pp_filter on, off;
	char err[256];

	ck_assert_int_eq(pp_filter_build(&on, "host 10.244.2.3", PP_XLATE_INNER, err, sizeof(err)),
			 0);
	ck_assert_int_eq(pp_filter_build(&off, "host 10.244.2.3", 0, err, sizeof(err)), 0);
	ck_assert_int_eq(interp(&on, fr, len), 1);
	ck_assert_int_eq(interp(&off, fr, len), 0);
	ck_assert_int_eq(interp(&on, inner_icmp, sizeof(inner_icmp)), 1); /* bare */
	pp_filter_free(&on);
	pp_filter_free(&off);
}
END_TEST

/* The verifier takes the view; the kernel decides as the reference, both load modes. */
START_TEST(test_inner_view_in_kernel)
{
	if (!pp_need_root("inner view"))
		return;
	for (size_t e = 0; e < sizeof(exprs) / sizeof(exprs[0]); e++) {
		for (unsigned int mode = 0; mode <= PP_XLATE_NO_DIRECT; mode++) {
			struct pp_cls_opts o = {.expr = exprs[e],
						.xlate_flags = mode | PP_XLATE_INNER};
			struct pp_cls cls;
			char err[256];

			ck_assert_msg(pp_cls_load(&cls, &o, err, sizeof(err)) == 0, "%s", err);
			for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
				unsigned char fr[FRAME_MAX];
				size_t len = make_frame(fr, &specs[i]);
				int match = -1;

				ck_assert_int_eq(pp_cls_run(&cls, fr, (__u32)len, &match), 0);
				ck_assert_msg(match == reference(&cls.filter, fr, len),
					      "\"%s\" on %s", exprs[e], specs[i].name);
			}
			pp_cls_destroy(&cls);
		}
	}
}
END_TEST

/* The header line: the outer headers, the tunnel and its VNI, the inner headers. */
START_TEST(test_header_line)
{
	unsigned char fr[FRAME_MAX];
	char line[256];
	size_t len = make_frame(fr, &specs[1]), n;

	n = pp_pkt_format_frame(fr, (__u32)len, line, sizeof(line));
	ck_assert_str_eq(line, "udp 192.168.50.1.40000 > 192.168.50.2.8472 vxlan 42: icmp "
			       "10.244.1.2 > 10.244.2.3 echo request id 42 seq 1");
	ck_assert_uint_eq(n, strlen(line));
	ck_assert_uint_eq(pp_pkt_format_frame(fr, (__u32)len, line, 20), n); /* cut: as snprintf */
	ck_assert_uint_eq(strlen(line), 19);
	len = make_frame(fr, &specs[5]);
	pp_pkt_format_frame(fr, (__u32)len, line, sizeof(line));
	ck_assert_str_eq(line, "udp [fd00::1].40000 > [fd00::2].6081 geneve 42: icmp 10.244.1.2 > "
			       "10.244.2.3 echo request id 42 seq 1");
	/* Cut inside the inner frame: the inner headers say where. */
	pp_pkt_format_frame(fr, (__u32)len - 4, line, sizeof(line));
	ck_assert_str_eq(line, "udp [fd00::1].40000 > [fd00::2].6081 geneve 42: icmp 10.244.1.2 > "
			       "10.244.2.3 echo request [|icmp]");
	len = make_frame(fr, &specs[8]); /* another port: no tunnel */
	pp_pkt_format_frame(fr, (__u32)len, line, sizeof(line));
	ck_assert_str_eq(line, "udp 192.168.50.1.40000 > 192.168.50.2.4790");
}
END_TEST

/* IP tunnels with IPv6 outside or inside on the header line, outer and inner. */
START_TEST(test_header_line_ip6_tunnels)
{
	static const char *const want[] = {
		"ipv6 fd00::1 > fd00::2 proto 4 ipip: icmp 10.244.1.2 > 10.244.2.3 echo request id "
		"42 seq 1",
		"ipv6 fd00::1 > fd00::2 proto 41 ipip: icmp6 2001:db8::1 > 2001:db8::2 echo "
		"request id 42 seq 1",
		"ipv4 192.168.50.1 > 192.168.50.2 proto 41 ipip: icmp6 2001:db8::1 > 2001:db8::2 "
		"echo request id 42 seq 1",
		"ipv6 fd00::1 > fd00::2 proto 47 gre key 42: icmp 10.244.1.2 > 10.244.2.3 echo "
		"request id 42 seq 1",
		"ipv6 fd00::1 > fd00::2 proto 47 gre: icmp 10.244.1.2 > 10.244.2.3 echo request id "
		"42 seq 1",
	};
	unsigned char fr[FRAME_MAX];
	char line[256];

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		size_t len = make_frame(fr, &specs[FIRST_IP6_TUNNEL + i]);

		pp_pkt_format_frame(fr, (__u32)len, line, sizeof(line));
		ck_assert_str_eq(line, want[i]);
	}
}
END_TEST

/* IP tunnels on the header line: the kind, GRE's key where it has one. */
START_TEST(test_header_line_ip_tunnels)
{
	static const char *const want[] = {
		"proto 4 ipip: icmp 10.244.1.2 > 10.244.2.3 echo request id 42 seq 1",
		"proto 47 gre: icmp 10.244.1.2 > 10.244.2.3 echo request id 42 seq 1",
		"proto 47 gre key 42: icmp 10.244.1.2 > 10.244.2.3 echo request id 42 seq 1",
		"proto 47 gre key 42: icmp 10.244.1.2 > 10.244.2.3 echo request id 42 seq 1",
	};
	unsigned char fr[FRAME_MAX];
	char line[256], *tail;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		size_t len = make_frame(fr, &specs[FIRST_IP_TUNNEL + i]);

		pp_pkt_format_frame(fr, (__u32)len, line, sizeof(line));
		tail = strstr(line, "192.168.50.2 ");
		ck_assert_msg(tail, "%s", line);
		ck_assert_str_eq(tail + strlen("192.168.50.2 "), want[i]);
	}
}
END_TEST

/* A TC hop of skb 0x100 at time TS on DEV. */
static struct pp_hop tc_hop(__u64 ts, __u32 probe, const char *dev)
{
	struct pp_hop h = {.type = PP_REC_HOP, .probe = probe, .ts = ts, .skb = 0x100};

	snprintf(h.ifname, sizeof(h.ifname), "%s", dev);
	return h;
}

static void keep_bytes(struct pp_hop_bytes *b, const struct pp_hop *h, const unsigned char *d,
		       size_t len)
{
	*b = (struct pp_hop_bytes){.skb = h->skb, .ts = h->ts, .probe = h->probe};
	b->cap_len = (__u32)len;
	memcpy(b->data, d, len);
}

/*
 * Pod 1's packet, marked bare: the vxlan device's egress (same), the
 * underlay's egress in a VXLAN header (encap), the next node's underlay
 * (outer still: now), its vxlan device's ingress (the mark's flow again,
 * no bytes: decap).
 */
START_TEST(test_hop_encap_decap)
{
	static struct pp_mark mark;
	unsigned char fr[FRAME_MAX];
	size_t len = make_frame(fr, &specs[0]);
	struct pp_hop hops[5];
	struct pp_hop_bytes bytes[2];
	struct pp_packet p = {
		.id = 1, .mark = &mark, .hops = hops, .nhops = 5, .bytes = bytes, .nbytes = 2};
	const enum pp_hop_change_kind want[5] = {PP_CHANGE_NONE, PP_CHANGE_NONE, PP_CHANGE_ENCAP,
						 PP_CHANGE_NOW, PP_CHANGE_DECAP};
	struct pp_hop_change c;

	mark.hop = tc_hop(1, PP_PROBE_TC_INGRESS, "veth1");
	mark.hop.type = PP_REC_MARK;
	mark.cap_len = sizeof(inner_icmp);
	memcpy(mark.data, inner_icmp, sizeof(inner_icmp));
	hops[0] = mark.hop;
	hops[1] = tc_hop(2, PP_PROBE_TC_EGRESS, "vxlan42");
	hops[2] = tc_hop(3, PP_PROBE_TC_EGRESS, "u1");
	hops[3] = tc_hop(4, PP_PROBE_TC_INGRESS, "u2");
	hops[4] = tc_hop(5, PP_PROBE_TC_INGRESS, "vxlan42");
	keep_bytes(&bytes[0], &hops[2], fr, len);
	keep_bytes(&bytes[1], &hops[3], fr, len);
	for (int i = 0; i < 5; i++) {
		pp_out_hop_change(&p, &hops[i], &c);
		ck_assert_msg(c.kind == want[i], "hop %d: %d", i, c.kind);
	}
	pp_out_hop_change(&p, &hops[2], &c);
	ck_assert_int_eq(c.tunnel, PP_TUNNEL_VXLAN);
	ck_assert_uint_eq(c.vni, 42);
	ck_assert(c.has_now);
	ck_assert_uint_eq(c.now.dport, 4789);
	pp_out_hop_change(&p, &hops[4], &c);
	ck_assert(!c.has_now);
	ck_assert_uint_eq(c.vni, 42);
}
END_TEST

/* IP-in-IP and GRE with a key: encap and decap name them, GRE's key with it. */
START_TEST(test_hop_encap_decap_ip_tunnels)
{
	static struct pp_mark mark;
	static const size_t spec[2] = {FIRST_IP_TUNNEL, FIRST_IP_TUNNEL + 2};
	static const __u8 kind[2] = {PP_TUNNEL_IPIP, PP_TUNNEL_GRE};
	unsigned char fr[FRAME_MAX];
	size_t len = make_frame(fr, &specs[spec[_i]]);
	struct pp_hop hops[4];
	struct pp_hop_bytes bytes[1];
	struct pp_packet p = {
		.id = 1, .mark = &mark, .hops = hops, .nhops = 4, .bytes = bytes, .nbytes = 1};
	const enum pp_hop_change_kind want[4] = {PP_CHANGE_NONE, PP_CHANGE_NONE, PP_CHANGE_ENCAP,
						 PP_CHANGE_DECAP};
	struct pp_hop_change c;

	mark.hop = tc_hop(1, PP_PROBE_TC_INGRESS, "veth1");
	mark.hop.type = PP_REC_MARK;
	mark.cap_len = sizeof(inner_icmp);
	memcpy(mark.data, inner_icmp, sizeof(inner_icmp));
	hops[0] = mark.hop;
	hops[1] = tc_hop(2, PP_PROBE_TC_EGRESS, "gre1");
	hops[2] = tc_hop(3, PP_PROBE_TC_EGRESS, "u1");
	hops[3] = tc_hop(4, PP_PROBE_TC_INGRESS, "gre1");
	keep_bytes(&bytes[0], &hops[2], fr, len);
	for (int i = 0; i < 4; i++) {
		pp_out_hop_change(&p, &hops[i], &c);
		ck_assert_msg(c.kind == want[i], "%s hop %d: %d", specs[spec[_i]].name, i, c.kind);
	}
	pp_out_hop_change(&p, &hops[2], &c);
	ck_assert_int_eq(c.tunnel, kind[_i]);
	ck_assert_int_eq(c.key, kind[_i] == PP_TUNNEL_GRE);
	ck_assert_uint_eq(c.vni, kind[_i] == PP_TUNNEL_GRE ? 42 : 0);
	ck_assert_uint_eq(c.now.ip_proto, spec[_i] == FIRST_IP_TUNNEL ? 4 : 47);
}
END_TEST

/* The reply, marked in its VXLAN header: the inner frame at the vxlan device is decap, once. */
START_TEST(test_hop_decap_of_outer_mark)
{
	static struct pp_mark mark;
	unsigned char fr[FRAME_MAX];
	size_t len = make_frame(fr, &specs[3]); /* geneve */
	struct pp_hop hops[3];
	struct pp_hop_bytes bytes[2];
	struct pp_packet p = {
		.id = 1, .mark = &mark, .hops = hops, .nhops = 3, .bytes = bytes, .nbytes = 2};
	struct pp_hop_change c;

	mark.hop = tc_hop(1, PP_PROBE_TC_INGRESS, "u1");
	mark.hop.type = PP_REC_MARK;
	mark.cap_len = (__u32)len;
	memcpy(mark.data, fr, len);
	hops[0] = mark.hop;
	hops[1] = tc_hop(2, PP_PROBE_TC_INGRESS, "gnv0");
	hops[2] = tc_hop(3, PP_PROBE_TC_EGRESS, "veth1");
	keep_bytes(&bytes[0], &hops[1], inner_icmp, sizeof(inner_icmp));
	keep_bytes(&bytes[1], &hops[2], inner_icmp, sizeof(inner_icmp));
	pp_out_hop_change(&p, &hops[1], &c);
	ck_assert_int_eq(c.kind, PP_CHANGE_DECAP);
	ck_assert_int_eq(c.tunnel, PP_TUNNEL_GENEVE);
	ck_assert(c.has_now);
	ck_assert_str_eq(c.now.dst, "10.244.2.3");
	pp_out_hop_change(&p, &hops[2], &c);
	ck_assert_int_eq(c.kind, PP_CHANGE_NOW);
}
END_TEST

/*
 * A service's DNAT before the overlay: the hop after it carries the NATed
 * flow (now), the underlay's the NATed flow in VXLAN (encap), the other
 * node's vxlan device the NATed flow again (decap, with its bytes).
 */
START_TEST(test_hop_encap_after_nat)
{
	static struct pp_mark mark;
	unsigned char fr[FRAME_MAX], natted[sizeof(inner_icmp)];
	size_t len = make_frame(fr, &specs[0]);
	struct pp_hop hops[4];
	struct pp_hop_bytes bytes[3];
	struct pp_packet p = {
		.id = 1, .mark = &mark, .hops = hops, .nhops = 4, .bytes = bytes, .nbytes = 3};
	const enum pp_hop_change_kind want[4] = {PP_CHANGE_NONE, PP_CHANGE_NOW, PP_CHANGE_ENCAP,
						 PP_CHANGE_DECAP};
	struct pp_hop_change c;

	/* Marked to the service 10.96.0.10; fr's inner frame goes to 10.244.2.3. */
	memcpy(natted, inner_icmp, sizeof(inner_icmp));
	memcpy(mark.data, inner_icmp, sizeof(inner_icmp));
	memcpy(mark.data + 30, (const unsigned char[]){10, 96, 0, 10}, 4);
	mark.cap_len = sizeof(inner_icmp);
	mark.hop = tc_hop(1, PP_PROBE_TC_INGRESS, "veth1");
	mark.hop.type = PP_REC_MARK;
	hops[0] = mark.hop;
	hops[1] = tc_hop(2, PP_PROBE_TC_EGRESS, "vxlan42");
	hops[2] = tc_hop(3, PP_PROBE_TC_EGRESS, "u1");
	hops[3] = tc_hop(4, PP_PROBE_TC_INGRESS, "vxlan42");
	keep_bytes(&bytes[0], &hops[1], natted, sizeof(natted));
	keep_bytes(&bytes[1], &hops[2], fr, len);
	keep_bytes(&bytes[2], &hops[3], natted, sizeof(natted));
	for (int i = 0; i < 4; i++) {
		pp_out_hop_change(&p, &hops[i], &c);
		ck_assert_msg(c.kind == want[i], "hop %d: %d", i, c.kind);
	}
}
END_TEST

Suite *overlay_suite(void)
{
	Suite *s = suite_create("overlay");
	TCase *tc = tcase_create("inner view");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_tunnel_parse);
	tcase_add_test(tc, test_ip_tunnel_parse);
	tcase_add_test(tc, test_inner_view_equals_reference);
	tcase_add_test(tc, test_inner_view_matters);
	tcase_add_test(tc, test_inner_view_in_kernel);
	tcase_add_test(tc, test_header_line);
	tcase_add_test(tc, test_header_line_ip_tunnels);
	tcase_add_test(tc, test_header_line_ip6_tunnels);
	tcase_add_test(tc, test_hop_encap_decap);
	tcase_add_loop_test(tc, test_hop_encap_decap_ip_tunnels, 0, 2);
	tcase_add_test(tc, test_hop_decap_of_outer_mark);
	tcase_add_test(tc, test_hop_encap_after_nat);
	suite_add_tcase(s, tc);
	return s;
}
