// SPDX-License-Identifier: GPL-2.0
/*
 * The VLAN view (cbpf_xlate.h): a filter that tests for tags, run on a frame
 * whose outer tag the kernel holds in metadata (the skb's bytes untagged,
 * ctx->vlan_*), decides as libpcap does on the frame as on the wire. Run in
 * the user-space interpreter, the only way to give a program a tag in
 * metadata without a device (BPF_PROG_TEST_RUN has no vlan fields); the
 * kernel checks that the view loads and, with the tag in the bytes, decides
 * as libpcap. A filter without "vlan" reads the skb's bytes as they are,
 * as tcpdump's live (kernel) filter does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suites.h"
#include "filter/classifier.h"
#include "filter/ebpf_interp.h"
#include "filter/filter.h"
#include "kernel_run.h"

struct tag {
	__u16 proto, tci;
};

/* dst/src MAC, TAGS, then an IPv4 ICMP echo 198.18.0.1 > 198.18.0.2 (28 bytes). */
static size_t make_frame(unsigned char *f, const struct tag *tags, int ntags)
{
	static const unsigned char ip[] = {0x08, 0x00, 0x45, 0, 0,    28,   0, 1, 0,   0,
					   64,	 1,    0,    0, 198,  18,   0, 1, 198, 18,
					   0,	 2,    8,    0, 0xf7, 0xfe, 0, 1, 0,   0};
	size_t n = 12;

	for (int i = 0; i < 12; i++)
		f[i] = (unsigned char)(i == 5 ? 0 : 0x10 + i); /* ether[5] = 0: an index */
	for (int t = 0; t < ntags; t++) {
		f[n++] = tags[t].proto >> 8;
		f[n++] = tags[t].proto & 0xff;
		f[n++] = tags[t].tci >> 8;
		f[n++] = tags[t].tci & 0xff;
	}
	memcpy(f + n, ip, sizeof(ip));
	return n + sizeof(ip);
}

/* The translation's verdict on WIRE with its outer tag moved to metadata. */
static int offloaded_verdict(const struct pp_filter *f, const unsigned char *wire, size_t len)
{
	unsigned char data[128];
	struct pp_vm_pkt pkt = {.data = data,
				.caplen = (uint32_t)len - 4,
				.len = (uint32_t)len - 4,
				.vlan_present = 1,
				.vlan_proto = (uint16_t)(wire[12] << 8 | wire[13]),
				.vlan_tci = (uint16_t)(wire[14] << 8 | wire[15])};
	char err[320];
	int match = -1;

	memcpy(data, wire, 12);
	memcpy(data + 12, wire + 16, len - 16);
	ck_assert_msg(
		pp_ebpf_run(f->insns, f->cnt, PP_VM_TC, &pkt, &match, NULL, err, sizeof(err)) == 0,
		"%s", err);
	return match;
}

static int libpcap_verdict(const struct pp_filter *f, const unsigned char *wire, size_t len)
{
	return pp_pcap_offline_match(f->cbpf, f->cbpf_len, wire, (unsigned int)len,
				     (unsigned int)len) != 0;
}

static const struct tag one[] = {{0x8100, 100}};
static const struct tag other[] = {{0x8100, 0x2000 | 200}}; /* priority 1 */
static const struct tag qinq[] = {{0x88a8, 300}, {0x8100, 100}};

static const char *const vlan_exprs[] = {
	"vlan",
	"vlan 100",
	"vlan 200",
	"vlan and icmp",
	"vlan 100 and icmp and host 198.18.0.2",
	"not vlan",
	"vlan and vlan 100",
	"vlan 300 and vlan 100 and icmp",
	"vlan and greater 50",
	"vlan and len = 46",
	"ether proto 0x8100",
	"vlan and ether[ether[5] + 15 : 2] = 0x6408",
};

START_TEST(test_view_equals_wire)
{
	const struct {
		const struct tag *tags;
		int n;
	} frames[] = {{one, 1}, {other, 1}, {qinq, 2}};

	for (size_t e = 0; e < sizeof(vlan_exprs) / sizeof(vlan_exprs[0]); e++) {
		for (unsigned int flags = 0; flags <= PP_XLATE_NO_DIRECT; flags++) {
			struct pp_filter f;
			char err[256];

			ck_assert_msg(pp_filter_build(&f, vlan_exprs[e], flags, err, sizeof(err)) ==
					      0,
				      "%s", err);
			ck_assert(pp_cbpf_tests_vlan(f.cbpf, f.cbpf_len));
			for (size_t i = 0; i < sizeof(frames) / sizeof(frames[0]); i++) {
				unsigned char wire[128];
				size_t len = make_frame(wire, frames[i].tags, frames[i].n);

				ck_assert_msg(offloaded_verdict(&f, wire, len) ==
						      libpcap_verdict(&f, wire, len),
					      "\"%s\" frame %zu", vlan_exprs[e], i);
			}
			pp_filter_free(&f);
		}
	}
}
END_TEST

/* Every byte range the view can read, constant and indexed, against libpcap. */
START_TEST(test_view_every_offset)
{
	unsigned char wire[128];
	size_t len = make_frame(wire, qinq, 2);

	for (unsigned int off = 0; off < 24; off++) {
		for (unsigned int size = 1; size <= 4; size *= 2) {
			char expr[160], err[256];
			__u32 v = 0;
			struct pp_filter f;

			for (unsigned int b = 0; b < size; b++)
				v = v << 8 | wire[off + b];
			/* ether[5] is 0: the second form is an indexed load of the same bytes */
			snprintf(expr, sizeof(expr),
				 "vlan and ether[%u:%u] = %u and ether[ether[5] + %u:%u] = %u", off,
				 size, v, off, size, v);
			ck_assert_msg(pp_filter_build(&f, expr, 0, err, sizeof(err)) == 0, "%s",
				      err);
			ck_assert_int_eq(libpcap_verdict(&f, wire, len), 1);
			ck_assert_msg(offloaded_verdict(&f, wire, len) == 1, "%s", expr);
			pp_filter_free(&f);
		}
	}
}
END_TEST

/* A load past the end of the frame as on the wire: no match, either way. */
START_TEST(test_view_short_frame)
{
	unsigned char wire[128];
	size_t len = make_frame(wire, one, 1) - 28; /* the tag, then only the ethertype */
	const char *const exprs[] = {"vlan and ether[16:4] = 0", "vlan and ether[17:1] = 0",
				     "vlan and ether[15:2] > 0",
				     "vlan and ether[14:4] = 0x00640800", "vlan and len = 18"};

	for (size_t e = 0; e < sizeof(exprs) / sizeof(exprs[0]); e++) {
		struct pp_filter f;
		char err[256];

		ck_assert_msg(pp_filter_build(&f, exprs[e], 0, err, sizeof(err)) == 0, "%s", err);
		ck_assert_msg(offloaded_verdict(&f, wire, len) == libpcap_verdict(&f, wire, len),
			      "%s", exprs[e]);
		pp_filter_free(&f);
	}
}
END_TEST

/* No "vlan": the skb's bytes as they are, tag in metadata or not (tcpdump live). */
START_TEST(test_no_view_without_vlan)
{
	unsigned char wire[128], plain[128];
	size_t len = make_frame(wire, one, 1), plen = make_frame(plain, NULL, 0);
	struct pp_filter f;
	char err[256];

	ck_assert_int_eq(pp_filter_build(&f, "icmp", 0, err, sizeof(err)), 0);
	ck_assert(!pp_cbpf_tests_vlan(f.cbpf, f.cbpf_len));
	ck_assert_int_eq(offloaded_verdict(&f, wire, len), 1);
	ck_assert_int_eq(libpcap_verdict(&f, plain, plen), 1);
	ck_assert_int_eq(libpcap_verdict(&f, wire, len), 0); /* the tag in the bytes */
	pp_filter_free(&f);
}
END_TEST

/* The kernel's verifier takes the view, and with the tag in the bytes it decides as libpcap. */
START_TEST(test_view_in_kernel)
{
	unsigned char wire[128];
	size_t len = make_frame(wire, qinq, 2);

	if (!pp_need_root("vlan view"))
		return;
	for (size_t e = 0; e < sizeof(vlan_exprs) / sizeof(vlan_exprs[0]); e++) {
		for (unsigned int flags = 0; flags <= PP_XLATE_NO_DIRECT; flags++) {
			struct pp_cls_opts o = {.expr = vlan_exprs[e], .xlate_flags = flags};
			struct pp_cls cls;
			char err[256];
			int match = -1;

			ck_assert_msg(pp_cls_load(&cls, &o, err, sizeof(err)) == 0, "%s", err);
			ck_assert_int_eq(pp_cls_run(&cls, wire, (__u32)len, &match), 0);
			ck_assert_msg(match == libpcap_verdict(&cls.filter, wire, len), "%s",
				      vlan_exprs[e]);
			pp_cls_destroy(&cls);
		}
	}
}
END_TEST

Suite *vlan_suite(void)
{
	Suite *s = suite_create("vlan");
	TCase *tc = tcase_create("view");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_view_equals_wire);
	tcase_add_test(tc, test_view_every_offset);
	tcase_add_test(tc, test_view_short_frame);
	tcase_add_test(tc, test_no_view_without_vlan);
	tcase_add_test(tc, test_view_in_kernel);
	suite_add_tcase(s, tc);
	return s;
}
