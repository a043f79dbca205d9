// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the classic-to-eBPF translator (loader/filter/cbpf_xlate.c).
 *
 * Each input is a classic program and a frame (cbpf_input.h). Properties:
 *
 *  - pp_xlate() succeeds, or fails with -EINVAL or -E2BIG and a non-empty
 *    message; never a crash or undefined behaviour (ASan, UBSan).
 *  - A program libpcap can run (cbpf_check.h) is translated, unless pktpath
 *    refuses it by design (a backward jump, a shift by a constant >= 32).
 *  - The opcode whitelist: a program with an opcode outside the fuzzer's own
 *    table of the 49 (cbpf_input.c) is refused with -EINVAL and a message
 *    that names the first such instruction and its opcode; a translated
 *    program has none. And the kernel's classic checker, asked by
 *    SO_ATTACH_FILTER on a socket (no privilege needed, about a microsecond),
 *    accepts nothing that the translator refuses: it is the reference the
 *    whitelist copies.
 *  - A translation passes the verifier's static checks and runs without a
 *    fault in loader/filter/ebpf_interp.c, in each mode: TC with direct loads,
 *    TC with bpf_skb_load_bytes() only, probe mode (PP_XLATE_PROBE, where a
 *    read outside the frame is a fault); for a program libpcap can run, its
 *    verdict on the frame is pcap_offline_filter()'s, and when it matches by
 *    RET A, A is the value libpcap returns. The modes agree. With
 *    FZ_CTL_CUT the frame is a snap length's cut of a longer packet: "len"
 *    is the wire length, the bytes past the frame cannot be read.
 *  - With PKTPATH_FUZZ_KERNEL=1 (root): the kernel loads the classifier with
 *    the translation spliced in (the verifier accepts it), and its verdict on
 *    the frame (BPF_PROG_TEST_RUN; a frame shorter than an Ethernet header is
 *    zero-padded to 60 bytes) is the interpreter's and, for a program libpcap
 *    can run, libpcap's; except on a cut frame that a program reading "len"
 *    must see whole, which the kernel cannot be given. One load per input,
 *    in the load mode the input picks: ~25 ms each.
 *  - The VLAN view (PP_XLATE_VLAN_VIEW) of a program libpcap can run, on the
 *    frame with its bytes 12..15 moved into metadata, decides as libpcap on
 *    the whole frame.
 *  - The inner view (PP_XLATE_INNER) of a program libpcap can run decides as
 *    libpcap on the frame or, for a tunnel's frame (loader/filter/tunnel.h), on its
 *    inner frame: on the frame itself, and on the frame wrapped in a VXLAN
 *    header or a Geneve header with 0 to 3 words of options (the input's
 *    length picks), in both TC load modes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <bpf/libbpf.h>
#include "filter/cbpf_xlate.h"
#include "filter/classifier.h"
#include "filter/pcap_io.h"
#include "cbpf_check.h"
#include "cbpf_input.h"
#include "filter/ebpf_interp.h"
#include "filter/tunnel.h"

#define FZ_ETH_HLEN	   14
#define FZ_MIN_RUNNABLE_IP (FZ_ETH_HLEN + 40) /* shorter IP frames: test runs get -EINVAL */
#define FZ_PAD_LEN	   60		      /* a minimum Ethernet frame */
#define FZ_LOG_MAX	   16384
#define FZ_DUMP_MAX	   64 /* instructions shown around a failure */
#define FZ_ALU_PREFIXES	   64 /* FZ_CTL_ALU prefixes checked on their own */
#define FZ_NMODES	   3

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool kernel_mode;
static char libbpf_log[FZ_LOG_MAX];
static size_t libbpf_log_len;

/* What the inputs exercised, printed at exit: is the differential biting? */
static struct {
	unsigned long inputs, valid, translated, vs_libpcap, kernel_loads, kernel_runs;
	unsigned long kernel_classic; /* programs the kernel's classic checker accepted */
	unsigned long vlan_views;     /* verdicts with the tag in metadata compared */
	unsigned long inner_views;    /* inner view verdicts compared, frames wrapped or not */
} seen;

static void print_seen(void)
{
	fprintf(stderr,
		"fuzz_xlate: %lu inputs, %lu valid for libpcap, %lu translated, %lu verdicts "
		"compared with libpcap's, %lu kernel loads, %lu kernel runs, %lu accepted by the "
		"kernel's classic checker, %lu with a VLAN tag in metadata, %lu with the inner "
		"view\n",
		seen.inputs, seen.valid, seen.translated, seen.vs_libpcap, seen.kernel_loads,
		seen.kernel_runs, seen.kernel_classic, seen.vlan_views, seen.inner_views);
}

/* libbpf's messages (the verifier log among them) are kept for a failure. */
static int log_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[1024];
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	size_t len = n < 0 ? 0 : (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;

	(void)level;
	if (libbpf_log_len + len >= sizeof(libbpf_log))
		libbpf_log_len = 0; /* the end of a log says most */
	memcpy(libbpf_log + libbpf_log_len, line, len);
	libbpf_log_len += len;
	libbpf_log[libbpf_log_len] = '\0';
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *k = getenv("PKTPATH_FUZZ_KERNEL");

	(void)argc;
	(void)argv;
	kernel_mode = k && *k && strcmp(k, "0") != 0;
	if (kernel_mode && geteuid() != 0) {
		fprintf(stderr, "fuzz_xlate: PKTPATH_FUZZ_KERNEL=1 needs root; kernel runs off\n");
		kernel_mode = false;
	}
	libbpf_set_print(log_libbpf);
	atexit(print_seen);
	fprintf(stderr, "fuzz_xlate: kernel runs %s\n",
		kernel_mode ? "on" : "off (PKTPATH_FUZZ_KERNEL=1 as root turns them on)");
	return 0;
}

static void dump_cbpf(const struct fz_case *c)
{
	fprintf(stderr, "classic program, %zu instructions:\n", c->len);
	for (size_t pc = 0; pc < c->len && pc < FZ_DUMP_MAX; pc++)
		fprintf(stderr, "  %4zu: { 0x%04x, %3u, %3u, 0x%08x }\n", pc, c->prog[pc].code,
			c->prog[pc].jt, c->prog[pc].jf, c->prog[pc].k);
	fprintf(stderr, "frame, %zu bytes:", c->frame_len);
	for (size_t i = 0; i < c->frame_len && i < 64; i++)
		fprintf(stderr, "%s%02x", i % 16 ? " " : "\n  ", c->frame[i]);
	fprintf(stderr, "\n");
}

static void dump_ebpf(const struct bpf_insn *v, size_t cnt)
{
	fprintf(stderr, "translation, %zu instructions:\n", cnt);
	for (size_t i = 0; i < cnt && i < 4 * FZ_DUMP_MAX; i++)
		fprintf(stderr, "  %4zu: code 0x%02x dst r%u src r%u off %d imm %d\n", i, v[i].code,
			v[i].dst_reg, v[i].src_reg, v[i].off, v[i].imm);
}

__attribute__((format(printf, 4, 5), noreturn)) static void
fail(const struct fz_case *c, const struct bpf_insn *v, size_t cnt, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz_xlate: PROPERTY FAILED: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	dump_cbpf(c);
	if (v)
		dump_ebpf(v, cnt);
	abort();
}

static bool libpcap_is_reference(const struct fz_class *cl)
{
	return cl->valid && !cl->refused_by_design && !cl->reads_unset_mem;
}

/* pcap_offline_filter()'s return: the value of the RET that ended the program. */
static uint32_t libpcap_ret(const struct fz_case *c)
{
	return (uint32_t)pp_pcap_offline_match(
		c->prog, c->len, c->frame, (unsigned int)c->frame_len, (unsigned int)c->wire_len);
}

static int libpcap_verdict(const struct fz_case *c)
{
	return libpcap_ret(c) != 0;
}

/* The interpreter's verdict, for a translation already checked on another frame. */
static int interp_verdict(const struct fz_case *c, unsigned int flags)
{
	struct pp_vm_pkt pkt = {
		.data = c->frame, .caplen = (uint32_t)c->frame_len, .len = (uint32_t)c->wire_len};
	uint64_t regs[MAX_BPF_REG];
	struct bpf_insn *v = NULL;
	size_t cnt = 0;
	char err[256];
	int match = -1;

	if (pp_xlate(c->prog, c->len, flags, &v, &cnt, err, sizeof(err)))
		fail(c, NULL, 0, "flags %u: a second translation failed: %s", flags, err);
	if (pp_ebpf_run(v, cnt, PP_VM_TC, &pkt, &match, regs, err, sizeof(err)))
		fail(c, v, cnt, "flags %u: the translation faults on the padded frame: %s", flags,
		     err);
	free(v);
	return match;
}

/* Whether the program reads the packet's length (BPF_LEN). */
static bool reads_len(const struct fz_case *c)
{
	for (size_t pc = 0; pc < c->len; pc++) {
		uint16_t code = c->prog[pc].code;

		if ((BPF_CLASS(code) == BPF_LD || BPF_CLASS(code) == BPF_LDX) &&
		    BPF_MODE(code) == BPF_LEN)
			return true;
	}
	return false;
}

/*
 * Loads the classifier with the program spliced in and runs it on the frame;
 * the kernel takes no frame shorter than an Ethernet header, so a shorter one
 * is run zero-padded to FZ_PAD_LEN, with the interpreter's and libpcap's
 * verdicts taken again on the padded copy.
 */
static void kernel_check(const struct fz_case *in, const struct fz_class *cl, unsigned int flags,
			 int interp)
{
	static struct fz_case padded;
	static uint8_t pad[FZ_PAD_LEN];
	const struct fz_case *c = in;
	const struct pp_maps_opts small = {.max_packets = 16, .ring_size = 4096};
	struct pp_cls_opts o = {.cbpf = c->prog, .cbpf_len = c->len, .xlate_flags = flags};
	struct pp_maps maps;
	struct pp_cls cls;
	char err[512];
	int ret, got = -1;

	/* A test run sees the captured length as len: --test-pcap runs such a
	 * frame in user space (frame_verdict.c), as check_xlate() did. */
	if (in->wire_len > in->frame_len && reads_len(in))
		return;
	if (in->frame_len < FZ_ETH_HLEN) {
		padded.ctl = in->ctl;
		padded.len = in->len;
		memcpy(padded.prog, in->prog, in->len * sizeof(in->prog[0]));
		memset(pad, 0, sizeof(pad));
		memcpy(pad, in->frame, in->frame_len);
		padded.frame = pad;
		padded.frame_len = sizeof(pad);
		padded.wire_len = in->wire_len > sizeof(pad) ? in->wire_len : sizeof(pad);
		c = &padded;
		interp = interp_verdict(c, flags);
	}
	libbpf_log_len = 0;
	libbpf_log[0] = '\0';
	ret = pp_maps_create(&maps, &small);
	if (ret)
		fail(c, NULL, 0, "cannot create the maps: %s", strerror(-ret));
	o.maps = &maps;
	ret = pp_cls_load(&cls, &o, err, sizeof(err));
	if (ret)
		fail(c, NULL, 0, "flags %u: the kernel refused the translation (%d): %s\n%s", flags,
		     ret, err, libbpf_log);
	seen.kernel_loads++;
	ret = pp_cls_run(&cls, c->frame, (__u32)c->frame_len, &got);
	seen.kernel_runs += !ret;
	if (ret && !(ret == -EINVAL && c->frame_len < FZ_MIN_RUNNABLE_IP))
		fail(c, NULL, 0, "flags %u: BPF_PROG_TEST_RUN: %s", flags, strerror(-ret));
	if (!ret && got != interp)
		fail(c, NULL, 0, "flags %u: kernel verdict %d, interpreter %d", flags, got, interp);
	if (!ret && libpcap_is_reference(cl) && got != libpcap_verdict(c))
		fail(c, NULL, 0, "flags %u: kernel verdict %d, libpcap %d", flags, got,
		     libpcap_verdict(c));
	pp_cls_destroy(&cls);
	pp_maps_destroy(&maps);
}

/* The first instruction whose opcode is not one of the 49, or C->len. */
static size_t first_bad_op(const struct fz_case *c)
{
	size_t pc = 0;

	while (pc < c->len && fz_op_valid(c->prog[pc].code))
		pc++;
	return pc;
}

static void check_whitelist(const struct fz_case *c, unsigned int flags, int ret, const char *err)
{
	size_t bad = first_bad_op(c);
	char want[64];

	if (bad == c->len || c->len == 0 || c->len > PP_XLATE_MAX_INSNS) {
		if (!ret)
			return;
		if (strstr(err, "not a classic BPF instruction"))
			fail(c, NULL, 0, "flags %u: whitelist refusal without a bad opcode: %s",
			     flags, err);
		return;
	}
	snprintf(want, sizeof(want), "instruction %zu: opcode 0x%04x ", bad, c->prog[bad].code);
	if (ret != -EINVAL || !strstr(err, want))
		fail(c, NULL, 0, "flags %u: opcode 0x%04x at %zu: pp_xlate() %d \"%s\"", flags,
		     c->prog[bad].code, bad, ret, ret ? err : "");
}

static void check_refusal(const struct fz_case *c, const struct fz_class *cl, unsigned int flags,
			  int ret, const char *err, size_t errlen)
{
	if (ret != -EINVAL && ret != -E2BIG)
		fail(c, NULL, 0, "flags %u: pp_xlate() returned %d", flags, ret);
	if (!memchr(err, '\0', errlen) || !err[0])
		fail(c, NULL, 0, "flags %u: pp_xlate() failed (%d) without a message", flags, ret);
	if (cl->valid && !cl->refused_by_design && ret != -E2BIG)
		fail(c, NULL, 0, "flags %u: a program libpcap runs was refused: %s", flags, err);
	check_whitelist(c, flags, ret, err);
}

/* Translates in one load mode: pp_xlate()'s result, *match the verdict. */
static int check_xlate(const struct fz_case *c, const struct fz_class *cl, unsigned int flags,
		       int *match)
{
	enum pp_vm_mode vm = flags & PP_XLATE_PROBE ? PP_VM_PROBE : PP_VM_TC;
	struct pp_vm_pkt pkt = {
		.data = c->frame, .caplen = (uint32_t)c->frame_len, .len = (uint32_t)c->wire_len};
	uint64_t regs[MAX_BPF_REG];
	struct bpf_insn *v = NULL;
	size_t cnt = 0;
	char err[256], why[256];
	int ret;

	*match = -1;
	memset(err, 'Z', sizeof(err)); /* no NUL: a message must be written */
	ret = pp_xlate(c->prog, c->len, flags, &v, &cnt, err, sizeof(err));
	if (ret) {
		check_refusal(c, cl, flags, ret, err, sizeof(err));
		return ret;
	}
	if (!v || !cnt)
		fail(c, v, cnt, "flags %u: success without instructions", flags);
	if (cl->refused_by_design)
		fail(c, v, cnt, "flags %u: translated a program it must refuse", flags);
	check_whitelist(c, flags, 0, "");
	if (pp_ebpf_check(v, cnt, vm, why, sizeof(why)))
		fail(c, v, cnt, "flags %u: the verifier would refuse the translation: %s", flags,
		     why);
	if (pp_ebpf_run(v, cnt, vm, &pkt, match, regs, why, sizeof(why)))
		fail(c, v, cnt, "flags %u: the translation faults on the frame: %s", flags, why);
	if (libpcap_is_reference(cl) && *match != libpcap_verdict(c))
		fail(c, v, cnt, "flags %u: translation's verdict %d, libpcap's %d", flags, *match,
		     libpcap_verdict(c));
	/* A match by RET A: A itself is known, a sharper test of the ALU. */
	if (libpcap_is_reference(cl) && cl->ret_a_only && *match &&
	    (uint32_t)regs[PP_R_A] != libpcap_ret(c))
		fail(c, v, cnt, "flags %u: A is 0x%08x at RET A, libpcap returns 0x%08x", flags,
		     (uint32_t)regs[PP_R_A], libpcap_ret(c));
	seen.translated++;
	seen.vs_libpcap += libpcap_is_reference(cl);
	free(v);
	return 0;
}

/*
 * The VLAN view (PP_XLATE_VLAN_VIEW): the frame's bytes 12..15 taken out into
 * metadata, as the kernel untags a received frame, the translation decides
 * on what is left as libpcap on the whole frame: the view is the frame.
 */
static void check_vlan_view(const struct fz_case *c, const struct fz_class *cl, int verdict)
{
	static uint8_t rest[FZ_FRAME_MAX];
	struct pp_vm_pkt pkt = {.data = rest,
				.caplen = (uint32_t)c->frame_len - 4,
				.len = (uint32_t)c->wire_len - 4,
				.vlan_present = 1};
	struct bpf_insn *v = NULL;
	size_t cnt = 0;
	char err[256];
	int match = -1;

	/* The kernel untags frames that hold at least an Ethernet header after the tag. */
	if (c->frame_len < FZ_ETH_HLEN + 4 || !libpcap_is_reference(cl))
		return;
	pkt.vlan_proto = (uint16_t)(c->frame[12] << 8 | c->frame[13]);
	pkt.vlan_tci = (uint16_t)(c->frame[14] << 8 | c->frame[15]);
	memcpy(rest, c->frame, 12);
	memcpy(rest + 12, c->frame + 16, c->frame_len - 16);
	if (pp_xlate(c->prog, c->len, PP_XLATE_VLAN_VIEW, &v, &cnt, err, sizeof(err)))
		return; /* longer code than without the view: -E2BIG */
	if (pp_ebpf_check(v, cnt, PP_VM_TC, err, sizeof(err)))
		fail(c, v, cnt, "VLAN view: the verifier would refuse it: %s", err);
	if (pp_ebpf_run(v, cnt, PP_VM_TC, &pkt, &match, NULL, err, sizeof(err)))
		fail(c, v, cnt, "VLAN view: the translation faults: %s", err);
	if (match != verdict)
		fail(c, v, cnt, "VLAN view: verdict %d with the tag in metadata, libpcap's %d",
		     match, verdict);
	seen.vlan_views++;
	free(v);
}

/* libpcap on DATA, else on its inner frame if it is a tunnel's: the inner view's reference. */
static int inner_reference(const struct fz_case *c, const uint8_t *data, uint32_t caplen,
			   uint32_t len)
{
	static uint8_t buf[FZ_FRAME_MAX + 64];
	const uint8_t *in;
	struct pp_tunnel t;
	uint32_t n;

	if (pp_pcap_offline_match(c->prog, c->len, data, caplen, len))
		return 1;
	if (!pp_tunnel_parse(data, caplen, &t))
		return 0;
	n = pp_tunnel_inner(data, caplen, &t, buf, &in);
	return pp_pcap_offline_match(c->prog, c->len, in, n, n + (len - caplen)) != 0;
}

/* C's frame behind an outer Ethernet, IPv4, UDP and VXLAN or Geneve header: its length. */
static uint32_t wrap_frame(const struct fz_case *c, uint8_t *w)
{
	static const uint8_t outer[42] = {
		2, 0,  0,  0, 0, 2,   2,   0,  0, 0,   0,   1,	0x08, 0x00, 0x45, 0, 0, 0, 0, 1, 0,
		0, 64, 17, 0, 0, 192, 168, 50, 1, 192, 168, 50, 2,    0x9c, 0x40, 0, 0, 0, 0, 0, 0};
	uint32_t opts = c->frame_len % 5, n = sizeof(outer); /* 4: VXLAN, else Geneve's words */

	memcpy(w, outer, sizeof(outer));
	w[37] = opts == 4 ? 0xb5 : 0xc1; /* 4789 (0x12b5) or 6081 (0x17c1) */
	w[36] = opts == 4 ? 0x12 : 0x17;
	memset(w + n, 0, 8);
	if (opts == 4) {
		w[n] = 0x08;
	} else {
		w[n] = (uint8_t)opts;
		w[n + 2] = 0x65;
		w[n + 3] = 0x58;
		memset(w + n + 8, 0xee, 4 * opts);
	}
	w[n + 6] = 42;
	n += 8 + (opts == 4 ? 0 : 4 * opts);
	memcpy(w + n, c->frame, c->frame_len);
	return n;
}

/* The inner view on DATA in TC mode FLAGS: the reference's verdict, or a failure. */
static void check_inner_on(const struct fz_case *c, unsigned int flags, const uint8_t *data,
			   uint32_t caplen, uint32_t len, const char *what)
{
	struct pp_vm_pkt pkt = {.data = data, .caplen = caplen, .len = len};
	struct bpf_insn *v = NULL;
	size_t cnt = 0;
	char err[256];
	int match = -1, want = inner_reference(c, data, caplen, len);

	if (pp_xlate(c->prog, c->len, flags | PP_XLATE_INNER, &v, &cnt, err, sizeof(err)))
		return; /* about twice the code: -E2BIG */
	if (pp_ebpf_check(v, cnt, PP_VM_TC, err, sizeof(err)))
		fail(c, v, cnt, "inner view (flags %u): the verifier would refuse it: %s", flags,
		     err);
	if (pp_ebpf_run(v, cnt, PP_VM_TC, &pkt, &match, NULL, err, sizeof(err)))
		fail(c, v, cnt, "inner view (flags %u): the translation faults on %s: %s", flags,
		     what, err);
	if (match != want)
		fail(c, v, cnt, "inner view (flags %u) on %s: verdict %d, libpcap's %d", flags,
		     what, match, want);
	seen.inner_views++;
	free(v);
}

/*
 * C's frame inside an outer Ethernet and IPv4 header, by its type: an
 * IPv4 packet's as IP-in-IP or in GRE, an IPv6 one's in GRE, any other
 * frame whole in GRE (gretap); GRE with a checksum, key and sequence
 * number or not, by the frame's length. Its offset in W: the frame's from
 * byte 14 on for an IP packet, else from its first byte.
 */
static uint32_t wrap_ip_frame(const struct fz_case *c, uint8_t *w, uint32_t *skip)
{
	static const uint8_t outer[34] = {2,	0,    0,    0,	 0,  2, 2,   0,	  0,  0, 0,  1,
					  0x08, 0x00, 0x45, 0,	 0,  0, 0,   1,	  0,  0, 64, 47,
					  0,	0,    192,  168, 50, 1, 192, 168, 50, 2};
	uint32_t n = sizeof(outer);
	uint32_t type = c->frame_len >= 14 ? (uint32_t)c->frame[12] << 8 | c->frame[13] : 0;
	uint32_t m = (uint32_t)c->frame_len % 8;
	uint32_t flags =
		(m & 1 ? PP_GRE_CSUM : 0) | (m & 2 ? PP_GRE_KEY : 0) | (m & 4 ? PP_GRE_SEQ : 0);

	memcpy(w, outer, sizeof(outer));
	*skip = 0;
	if (type == 0x0800 || type == 0x86dd)
		*skip = 14;
	if (type == 0x0800 && c->frame_len % 2) {
		w[23] = 4; /* IP-in-IP */
	} else {
		w[n] = (uint8_t)(flags >> 8);
		w[n + 1] = 0;
		w[n + 2] = (uint8_t)((*skip ? type : 0x6558) >> 8);
		w[n + 3] = (uint8_t)(*skip ? type : 0x6558);
		n += 4;
		for (int bit = 15; bit >= 12; bit--)
			if (flags >> bit & 1) {
				memset(w + n, bit == 13 ? 0x2a : 0xee, 4);
				n += 4;
			}
	}
	memcpy(w + n, c->frame + *skip, c->frame_len - *skip);
	return n;
}

static void check_inner_view(const struct fz_case *c, const struct fz_class *cl)
{
	static uint8_t w[FZ_FRAME_MAX + 64];
	uint32_t off, skip;

	if (!libpcap_is_reference(cl))
		return;
	off = wrap_frame(c, w);
	for (unsigned int flags = 0; flags <= PP_XLATE_NO_DIRECT; flags++) {
		check_inner_on(c, flags, c->frame, (uint32_t)c->frame_len, (uint32_t)c->wire_len,
			       "the frame");
		check_inner_on(c, flags, w, off + (uint32_t)c->frame_len,
			       off + (uint32_t)c->wire_len, "the frame in a tunnel");
	}
	off = wrap_ip_frame(c, w, &skip);
	for (unsigned int flags = 0; flags <= PP_XLATE_NO_DIRECT; flags++)
		check_inner_on(c, flags, w, off + (uint32_t)c->frame_len - skip,
			       off + (uint32_t)c->wire_len - skip, "the frame in an IP tunnel");
}

/* The three translations: TC with direct loads, TC without, probe mode. */
static const unsigned int fz_modes[FZ_NMODES] = {0, PP_XLATE_NO_DIRECT, PP_XLATE_PROBE};

/*
 * Every mode agrees with the others (and with libpcap, in check_xlate()):
 * the same result, but that a mode whose code is longer may be -E2BIG; the
 * same verdict.
 */
static void check_modes(const struct fz_case *c, const struct fz_class *cl, int *ret, int *verdict)
{
	for (int i = 0; i < FZ_NMODES; i++)
		ret[i] = check_xlate(c, cl, fz_modes[i], &verdict[i]);
	for (int i = 1; i < FZ_NMODES; i++) {
		if (ret[i] != ret[0] && ret[i] != -E2BIG && ret[0] != -E2BIG)
			fail(c, NULL, 0, "modes 0x%x and 0x%x disagree: %d, %d", fz_modes[0],
			     fz_modes[i], ret[0], ret[i]);
		if (!ret[i] && !ret[0] && verdict[i] != verdict[0])
			fail(c, NULL, 0, "modes 0x%x and 0x%x disagree: verdict %d, %d",
			     fz_modes[0], fz_modes[i], verdict[0], verdict[i]);
	}
}

/*
 * FZ_CTL_ALU programs are straight lines of arithmetic: each prefix that ends
 * in an ALU op is checked too, closed by RET A, so that a later step cannot
 * hide a wrong A (a reload, a multiplication by zero).
 */
static void check_alu_prefixes(const struct fz_case *c)
{
	static struct fz_case p;
	struct fz_class cl;
	int ret[FZ_NMODES], verdict[FZ_NMODES];

	p.ctl = c->ctl;
	p.frame = c->frame;
	p.frame_len = c->frame_len;
	p.wire_len = c->wire_len;
	for (size_t end = 0; end + 2 < c->len && end < FZ_ALU_PREFIXES; end++) {
		if (BPF_CLASS(c->prog[end].code) != BPF_ALU)
			continue;
		memcpy(p.prog, c->prog, (end + 1) * sizeof(p.prog[0]));
		p.prog[end + 1] = (struct sock_filter){.code = BPF_RET | BPF_A};
		p.len = end + 2;
		fz_classify(p.prog, p.len, &cl);
		check_modes(&p, &cl, ret, verdict);
	}
}

/*
 * What the kernel's classic checker accepts, pktpath translates: nothing it
 * takes is refused (the kernel also checks what pktpath leaves to the
 * verifier or to libpcap's rules, so the converse does not hold).
 */
static void check_kernel_classic(const struct fz_case *c, int ret)
{
	static int fd = -1;
	struct sock_fprog prog = {.len = (unsigned short)c->len, .filter = (void *)c->prog};

	if (c->len == 0 || c->len > BPF_MAXINSNS)
		return;
	if (fd < 0)
		fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)))
		return;
	seen.kernel_classic++;
	if (ret)
		fail(c, NULL, 0,
		     "the kernel's classic checker accepts a program pp_xlate() "
		     "refuses (%d)",
		     ret);
	if (first_bad_op(c) != c->len)
		fail(c, NULL, 0, "the kernel accepts opcode 0x%04x, the whitelist does not",
		     c->prog[first_bad_op(c)].code);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_case c; /* 40 KB: not on the stack */
	struct fz_class cl;
	int ret[FZ_NMODES], verdict[FZ_NMODES], k;

	fz_case_decode(data, size, &c);
	fz_classify(c.prog, c.len, &cl);
	seen.inputs++;
	seen.valid += cl.valid;
	check_modes(&c, &cl, ret, verdict);
	check_kernel_classic(&c, ret[0]);
	if (!ret[0]) {
		check_vlan_view(&c, &cl, libpcap_verdict(&c));
		check_inner_view(&c, &cl);
	}
	if ((c.ctl & (FZ_CTL_ALU | FZ_CTL_RAW | FZ_CTL_TILE)) == FZ_CTL_ALU)
		check_alu_prefixes(&c);
	k = c.ctl & FZ_CTL_NO_DIRECT ? 1 : 0;
	if (kernel_mode && !ret[k])
		kernel_check(&c, &cl, k ? PP_XLATE_NO_DIRECT : 0, verdict[k]);
	return 0;
}
