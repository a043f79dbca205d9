// SPDX-License-Identifier: GPL-2.0
/*
 * Classic BPF -> eBPF for the TC classifier.
 *
 * Semantics follow libpcap's bpf_filter(), the reference the differential
 * test compares against: A and X start at 0, a load past the end of the
 * packet or a division by X == 0 ends the program with "no match", RET
 * matches when its value is non-zero. Packet bytes are read directly from the
 * linear part of the skb when the bounds check allows, else through
 * bpf_skb_load_bytes(), which also reaches paged (non-linear) data.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "filter/cbpf_ops.h"
#include "filter/cbpf_xlate.h"
#include "base/grow.h"
#include "filter/tunnel.h"

#define PP_MEMWORDS	 16	/* classic scratch memory M[0..15] */
#define PP_LOAD_BUF_OFF	 (-72)	/* 8-byte stack buffer for bpf_skb_load_bytes */
#define PP_LEN_OFF	 (-80)	/* probe mode: the packet length */
#define PP_VLAN_FLAG_OFF (-88)	/* VLAN view: ctx->vlan_present (u64) */
#define PP_VLAN_IMG_OFF	 (-104) /* VLAN view: wire bytes 8..19, the tag at 12 */
#define PP_VLAN_HLEN	 4	/* an 802.1Q tag's bytes on the wire */
#define PP_INNER_OFF	 (-112) /* inner view: the inner frame's offset (u64) */
/*
 * Inner view: an IP packet's made-up Ethernet type (u32; 0: the inner
 * frame is a real one), and in the VLAN image's place, which the second
 * pass does not use, the image of its frame's bytes 8..19 (tunnel.h).
 */
#define PP_INNER_TYPE_OFF (-120)
/*
 * The two slots below are written and read as 32-bit words, not spilled
 * registers: a load from them is a new unknown each time, never tied to
 * the slot, so that a branch on one value does not make the verifier
 * tell states apart by it for the rest of the pass.
 */
/*
 * Inner view: the inner frame's bytes 12..13, its Ethernet type, read once
 * at the entry (above 0xffff: the frame is shorter). Filters load it
 * again and again (every "host" term, for IPv4, ARP and RARP): from here
 * it costs one stack load and no branch into the made-up header (u32).
 */
#define PP_INNER_ETYPE_OFF (-128)
#define PP_INNER_IMG_OFF   PP_VLAN_IMG_OFF
#define PP_INNER_HEAD	   14	  /* PP_INNER_ETH_HLEN: the bytes of the made-up header */
#define PP_DIRECT_MAXOFF   0x7fff /* eBPF load offsets are signed 16 bit */
#define PP_IND_MAXOFF	   0xffff /* the verifier's MAX_PACKET_OFF */
#define PP_TC_ACT_UNSPEC   (-1)	  /* also TCX_NEXT: let the next program decide */
/*
 * An eBPF jump reaches 32767 instructions, a classic JA four billion. Past
 * this many instructions a long program gets an island: one JA per label
 * still ahead, which the jumps emitted since the last island take instead.
 */
#define PP_ISLAND_EVERY 16384

struct xl_fix {
	size_t at; /* index of the jump instruction */
	int label;
};

struct xl {
	struct bpf_insn *v;
	size_t n, cap;
	long *label; /* label -> instruction index, -1 while unbound */
	size_t nlabels, cap_labels;
	struct xl_fix *fix;
	size_t nfix, cap_fix;
	int err;
	char *errbuf;
	size_t errlen;
	bool direct;
	bool probe; /* PP_XLATE_PROBE */
	bool vlan;  /* PP_XLATE_VLAN_VIEW, in the first pass */
	bool inner; /* the second pass of PP_XLATE_INNER: the frame at PP_INNER_OFF */
	int lbase;  /* the label of the pass's classic instruction 0 */
	int l_nomatch, l_match;
	size_t island_at;  /* x->n at the last island */
	size_t island_fix; /* the first fixup the next island redirects */
};

static void xl_fail(struct xl *x, int err, const char *fmt, ...)
{
	va_list ap;

	if (x->err)
		return;
	x->err = err;
	va_start(ap, fmt);
	vsnprintf(x->errbuf, x->errlen, fmt, ap);
	va_end(ap);
}

static bool xl_grow(struct xl *x, void **arr, size_t *cap, size_t need, size_t elem)
{
	if (pp_grow(arr, cap, need, elem, 64, SIZE_MAX)) {
		xl_fail(x, -ENOMEM, "out of memory");
		return false;
	}
	return true;
}

static void emit(struct xl *x, __u8 code, __u8 dst, __u8 src, __s16 off, __s32 imm)
{
	if (x->err || !xl_grow(x, (void **)&x->v, &x->cap, x->n + 1, sizeof(*x->v)))
		return;
	x->v[x->n++] = (struct bpf_insn){
		.code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm};
}

static int new_label(struct xl *x)
{
	if (x->err ||
	    !xl_grow(x, (void **)&x->label, &x->cap_labels, x->nlabels + 1, sizeof(*x->label)))
		return 0;
	x->label[x->nlabels] = -1;
	return (int)x->nlabels++;
}

static void bind(struct xl *x, int label)
{
	if (!x->err)
		x->label[label] = (long)x->n;
}

/* A jump to LABEL, resolved once every label is bound. */
static void emit_jmp(struct xl *x, __u8 code, __u8 dst, __u8 src, __s32 imm, int label)
{
	if (x->err || !xl_grow(x, (void **)&x->fix, &x->cap_fix, x->nfix + 1, sizeof(*x->fix)))
		return;
	x->fix[x->nfix++] = (struct xl_fix){.at = x->n, .label = label};
	emit(x, code, dst, src, 0, imm);
}

static void emit_ja(struct xl *x, int label)
{
	emit_jmp(x, BPF_JMP | BPF_JA, 0, 0, 0, label);
}

static int label_refs(const struct xl *x, int label)
{
	int refs = 0;

	for (size_t i = 0; i < x->nfix; i++)
		refs += x->fix[i].label == label;
	return refs;
}

static void resolve_jumps(struct xl *x)
{
	for (size_t i = 0; i < x->nfix && !x->err; i++) {
		long target = x->label[x->fix[i].label];
		long off = target - (long)x->fix[i].at - 1;

		if (target < 0)
			xl_fail(x, -EINVAL, "internal error: unbound label %d", x->fix[i].label);
		else if (off < -32768 || off > 32767)
			xl_fail(x, -E2BIG,
				"filter too large: a jump spans more than 32767 instructions");
		else
			x->v[x->fix[i].at].off = (__s16)off;
	}
}

/* Whether execution can fall through past instruction I. */
static bool falls_through(const struct bpf_insn *i)
{
	return i->code != (BPF_JMP | BPF_JA) && i->code != (BPF_JMP | BPF_EXIT);
}

/*
 * Every forward jump emitted since the last island whose label is not bound
 * yet goes to a slot here, "ja LABEL", one per label: each jump then spans
 * at most PP_ISLAND_EVERY instructions plus an island, and each slot's own
 * jump is redirected by the next island in turn. Straight-line code jumps
 * over the island; code that cannot fall through needs no such jump (the
 * verifier refuses unreachable instructions).
 */
static void emit_island(struct xl *x)
{
	size_t end = x->nfix;
	bool falls = x->n && falls_through(&x->v[x->n - 1]);
	int over = falls ? new_label(x) : -1;
	int *slot = calloc(x->nlabels, sizeof(*slot)); /* label -> slot label + 1 */

	if (!slot) {
		xl_fail(x, -ENOMEM, "out of memory");
		return;
	}
	if (falls)
		emit_ja(x, over);
	for (size_t i = x->island_fix; i < end && !x->err; i++) {
		int to = x->fix[i].label;

		if (x->label[to] >= 0)
			continue;
		if (!slot[to]) {
			slot[to] = new_label(x) + 1;
			bind(x, slot[to] - 1);
			emit_ja(x, to);
		}
		x->fix[i].label = slot[to] - 1;
	}
	free(slot);
	if (falls)
		bind(x, over);
	x->island_fix = end;
	x->island_at = x->n;
}

static __s16 mem_off(__u32 k)
{
	return (__s16)(-4 * ((int)k + 1));
}

/* Loaded bytes are big-endian on the wire; classic BPF gives host order. */
static void emit_bswap(struct xl *x, __u8 reg, int size)
{
	if (size == BPF_W)
		emit(x, BPF_ALU | BPF_END | BPF_TO_BE, reg, 0, 0, 32);
	else if (size == BPF_H)
		emit(x, BPF_ALU | BPF_END | BPF_TO_BE, reg, 0, 0, 16);
}

static int size_bytes(int size)
{
	return size == BPF_W ? 4 : size == BPF_H ? 2 : 1;
}

/* Call HELPER, which copies the bytes to the stack buffer: DST = them, or no match. */
static void emit_call_load(struct xl *x, __s32 helper, __u8 dst, int size)
{
	emit(x, BPF_JMP | BPF_CALL, 0, 0, 0, helper);
	emit_jmp(x, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 0, x->l_nomatch);
	emit(x, BPF_LDX | BPF_MEM | size, dst, BPF_REG_10, PP_LOAD_BUF_OFF, 0);
	emit_bswap(x, dst, size);
}

/* r2 holds the offset: copy SIZE bytes to the stack, or end with no match. */
static void emit_slow_load(struct xl *x, __u8 dst, int size)
{
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, PP_R_CTX, 0, 0);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, BPF_REG_10, 0, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_3, 0, 0, PP_LOAD_BUF_OFF);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_4, 0, 0, size_bytes(size));
	emit_call_load(x, BPF_FUNC_skb_load_bytes, dst, size);
}

/*
 * Probe mode, r2 holding the 64-bit offset: DST = the bytes at data + r2,
 * read with bpf_probe_read_kernel() if they lie in the linear part.
 */
static void emit_probe_load(struct xl *x, __u8 dst, int size)
{
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, BPF_REG_2, 0, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_3, 0, 0, size_bytes(size));
	emit_jmp(x, BPF_JMP | BPF_JGT | BPF_X, BPF_REG_3, PP_R_HEAD, 0, x->l_nomatch);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, PP_R_DATA, 0, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_X, BPF_REG_3, BPF_REG_2, 0, 0);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_10, 0, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, PP_LOAD_BUF_OFF);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, size_bytes(size));
	emit_call_load(x, BPF_FUNC_probe_read_kernel, dst, size);
}

/* DST = P[k : size], absolute offset, in the skb's data as it is. */
static void emit_load_abs_data(struct xl *x, __u8 dst, int size, __u32 k)
{
	int slow = new_label(x), done = new_label(x);
	int n = size_bytes(size);

	if (x->probe) {
		emit(x, BPF_ALU | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, (__s32)k);
		emit_probe_load(x, dst, size);
		return;
	}
	if (x->direct && k <= PP_DIRECT_MAXOFF - (__u32)n) {
		emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, PP_R_DATA, 0, 0);
		emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, (__s32)(k + n));
		emit(x, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, PP_R_CTX,
		     offsetof(struct __sk_buff, data_end), 0);
		emit_jmp(x, BPF_JMP | BPF_JGT | BPF_X, BPF_REG_1, BPF_REG_2, 0, slow);
		emit(x, BPF_LDX | BPF_MEM | size, dst, PP_R_DATA, (__s16)k, 0);
		emit_bswap(x, dst, size);
		emit_ja(x, done);
	}
	bind(x, slow);
	emit(x, BPF_ALU | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, (__s32)k);
	emit_slow_load(x, dst, size);
	bind(x, done);
}

/* DST = P[r2 : size], r2 a 64-bit offset into the skb's data as it is. */
static void emit_load_r2_data(struct xl *x, __u8 dst, int size)
{
	int slow = new_label(x), done = new_label(x);
	int n = size_bytes(size);

	if (x->direct) {
		/* The verifier accepts data + off only while off + size <= 0xffff. */
		emit_jmp(x, BPF_JMP | BPF_JGT | BPF_K, BPF_REG_2, 0, PP_IND_MAXOFF - n, slow);
		emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, PP_R_DATA, 0, 0);
		emit(x, BPF_ALU64 | BPF_ADD | BPF_X, BPF_REG_1, BPF_REG_2, 0, 0);
		emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, BPF_REG_1, 0, 0);
		emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_3, 0, 0, n);
		emit(x, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_4, PP_R_CTX,
		     offsetof(struct __sk_buff, data_end), 0);
		emit_jmp(x, BPF_JMP | BPF_JGT | BPF_X, BPF_REG_3, BPF_REG_4, 0, slow);
		emit(x, BPF_LDX | BPF_MEM | size, dst, BPF_REG_1, 0, 0);
		emit_bswap(x, dst, size);
		emit_ja(x, done);
	}
	bind(x, slow);
	/* bpf_skb_load_bytes() takes a 32-bit offset. */
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, BPF_REG_2, 0, 0);
	emit(x, BPF_ALU64 | BPF_RSH | BPF_K, BPF_REG_3, 0, 0, 32);
	emit_jmp(x, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_3, 0, 0, x->l_nomatch);
	emit_slow_load(x, dst, size);
	bind(x, done);
}

/* r1 = the VLAN view's flag: non-zero when the outer tag is in metadata. */
static void emit_vlan_flag(struct xl *x)
{
	emit(x, BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_1, BPF_REG_10, PP_VLAN_FLAG_OFF, 0);
}

/*
 * DST = SIZE bytes at r2 (8 <= r2 <= 15) of the frame as on the wire, from
 * the image the prologue made of its bytes 8..19. The twelve bytes are one
 * 96-bit big-endian number: its top 64 bits shifted left by s = (r2 - 8) * 8
 * and the low 32 brought in, then the top SIZE bytes. The stack is read
 * only at fixed, aligned offsets, as the verifier wants.
 */
static void emit_image_bytes(struct xl *x, __u8 dst, int size)
{
	int n = size_bytes(size);

	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_2, 0, 0);
	emit(x, BPF_ALU64 | BPF_SUB | BPF_K, BPF_REG_1, 0, 0, 8);
	emit(x, BPF_ALU64 | BPF_LSH | BPF_K, BPF_REG_1, 0, 0, 3);
	emit(x, BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_3, BPF_REG_10, PP_VLAN_IMG_OFF, 0);
	emit(x, BPF_ALU | BPF_END | BPF_TO_BE, BPF_REG_3, 0, 0, 64);
	emit(x, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_4, BPF_REG_10, PP_VLAN_IMG_OFF + 8, 0);
	emit(x, BPF_ALU | BPF_END | BPF_TO_BE, BPF_REG_4, 0, 0, 32);
	/* (low << 32) >> (64 - s), written so that no shift reaches 64: at
	 * s = 0 it leaves one stray bit, which the last shift drops. */
	emit(x, BPF_ALU64 | BPF_LSH | BPF_K, BPF_REG_4, 0, 0, 31);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_5, 0, 0, 63);
	emit(x, BPF_ALU64 | BPF_SUB | BPF_X, BPF_REG_5, BPF_REG_1, 0, 0);
	emit(x, BPF_ALU64 | BPF_RSH | BPF_X, BPF_REG_4, BPF_REG_5, 0, 0);
	emit(x, BPF_ALU64 | BPF_LSH | BPF_X, BPF_REG_3, BPF_REG_1, 0, 0);
	emit(x, BPF_ALU64 | BPF_OR | BPF_X, BPF_REG_3, BPF_REG_4, 0, 0);
	emit(x, BPF_ALU64 | BPF_RSH | BPF_K, BPF_REG_3, 0, 0, 64 - 8 * n);
	emit(x, BPF_ALU | BPF_MOV | BPF_X, dst, BPF_REG_3, 0, 0);
}

/* r3 = the length of the frame a load sees; no match if r2 + SIZE is past it. */
static void emit_image_bound(struct xl *x, int size)
{
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_4, BPF_REG_2, 0, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_4, 0, 0, size_bytes(size));
	emit_jmp(x, BPF_JMP | BPF_JGT | BPF_X, BPF_REG_4, BPF_REG_3, 0, x->l_nomatch);
}

/* The VLAN view's image load: past the end of the frame on the wire, no match. */
static void emit_vlan_image_load(struct xl *x, __u8 dst, int size)
{
	emit(x, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_3, PP_R_CTX, offsetof(struct __sk_buff, len), 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_3, 0, 0, PP_VLAN_HLEN);
	emit_image_bound(x, size);
	emit_image_bytes(x, dst, size);
}

/*
 * The second pass, an IP packet inside: DST = SIZE bytes at r2 (r2 < 14,
 * relative to the inner frame) of its made-up header and the packet's
 * first bytes, from the image the entry made (PP_INNER_IMG_OFF, bytes
 * 8..19). Below 8 a load ends before the type (at most 4 bytes): zeros.
 * The frame is at least the header long (the entry checked it).
 */
static void emit_inner_head_load(struct xl *x, __u8 dst, int size)
{
	int image = new_label(x), done = new_label(x);

	emit_jmp(x, BPF_JMP | BPF_JGE | BPF_K, BPF_REG_2, 0, 8, image);
	emit(x, BPF_ALU | BPF_MOV | BPF_K, dst, 0, 0, 0);
	emit_ja(x, done);
	bind(x, image);
	emit(x, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_3, PP_R_CTX, offsetof(struct __sk_buff, len), 0);
	emit(x, BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_4, BPF_REG_10, PP_INNER_OFF, 0);
	emit(x, BPF_ALU64 | BPF_SUB | BPF_X, BPF_REG_3, BPF_REG_4, 0, 0);
	emit_image_bound(x, size);
	emit_image_bytes(x, dst, size);
	bind(x, done);
}

/* The second pass: to HEAD if the inner frame is an IP packet's and r2 < 14. */
static void emit_inner_head_test(struct xl *x, int head)
{
	int real = new_label(x);

	emit(x, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_1, BPF_REG_10, PP_INNER_TYPE_OFF, 0);
	emit_jmp(x, BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_1, 0, 0, real);
	emit_jmp(x, BPF_JMP | BPF_JLT | BPF_K, BPF_REG_2, 0, PP_INNER_HEAD, head);
	bind(x, real);
}

/*
 * The second pass: DST = P[k : size] of the inner frame. Its type, loaded
 * by every "host" term, comes from where the entry kept it.
 */
static void emit_inner_load_abs(struct xl *x, __u8 dst, int size, __u32 k)
{
	int head, done;

	if (k == 12 && size == BPF_H) {
		emit(x, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_1, BPF_REG_10, PP_INNER_ETYPE_OFF, 0);
		emit_jmp(x, BPF_JMP | BPF_JGT | BPF_K, BPF_REG_1, 0, 0xffff, x->l_nomatch);
		emit(x, BPF_ALU | BPF_MOV | BPF_X, dst, BPF_REG_1, 0, 0);
		return;
	}
	head = new_label(x);
	done = new_label(x);
	emit(x, BPF_ALU | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, (__s32)k);
	if (k < PP_INNER_HEAD)
		emit_inner_head_test(x, head);
	emit(x, BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_3, BPF_REG_10, PP_INNER_OFF, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_X, BPF_REG_2, BPF_REG_3, 0, 0);
	emit_load_r2_data(x, dst, size);
	if (k < PP_INNER_HEAD) {
		emit_ja(x, done);
		bind(x, head);
		emit_inner_head_load(x, dst, size);
	}
	bind(x, done);
}

/*
 * DST = P[k : size] of the frame as on the wire. A load that ends before
 * the tag reads the same bytes either way; with the tag in metadata, one
 * past it reads 4 bytes earlier in the skb, and one that touches it reads
 * the image.
 */
static void emit_load_abs(struct xl *x, __u8 dst, int size, __u32 k)
{
	int data, done;

	if (x->inner) {
		emit_inner_load_abs(x, dst, size, k);
		return;
	}
	if (!x->vlan || (__u64)k + size_bytes(size) <= 12) {
		emit_load_abs_data(x, dst, size, k);
		return;
	}
	data = new_label(x);
	done = new_label(x);
	emit_vlan_flag(x);
	emit_jmp(x, BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_1, 0, 0, data);
	if (k >= 16) {
		emit_load_abs_data(x, dst, size, k - PP_VLAN_HLEN);
	} else {
		emit(x, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, (__s32)k);
		emit_vlan_image_load(x, dst, size);
	}
	emit_ja(x, done);
	bind(x, data);
	emit_load_abs_data(x, dst, size, k);
	bind(x, done);
}

/* DST = P[r2 : size] of the frame as on the wire (see emit_load_abs()). */
static void emit_load_r2(struct xl *x, __u8 dst, int size)
{
	int data, past, done;

	if (!x->vlan) {
		emit_load_r2_data(x, dst, size);
		return;
	}
	data = new_label(x);
	past = new_label(x);
	done = new_label(x);
	emit_vlan_flag(x);
	emit_jmp(x, BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_1, 0, 0, data);
	emit_jmp(x, BPF_JMP | BPF_JGE | BPF_K, BPF_REG_2, 0, 16, past);
	emit_jmp(x, BPF_JMP | BPF_JLT | BPF_K, BPF_REG_2, 0, 8, data);
	emit_vlan_image_load(x, dst, size);
	emit_ja(x, done);
	bind(x, past);
	emit(x, BPF_ALU64 | BPF_SUB | BPF_K, BPF_REG_2, 0, 0, PP_VLAN_HLEN);
	bind(x, data);
	emit_load_r2_data(x, dst, size);
	bind(x, done);
}

/* bpf_skb_load_bytes(ctx, OFF, fp + TO, N); a failed one leaves zeros. */
static void emit_copy_to_stack(struct xl *x, __u32 off, __s16 to, int n)
{
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, PP_R_CTX, 0, 0);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, (__s32)off);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, BPF_REG_10, 0, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_3, 0, 0, to);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_4, 0, 0, n);
	emit(x, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_skb_load_bytes);
}

/*
 * The VLAN view's flag, and with the tag in metadata the image of wire
 * bytes 8..19: the skb's bytes 8..11, the tag (vlan_proto is kept in
 * network order, vlan_tci in host order), the skb's bytes 12..15 one at a
 * time, so that a frame shorter than 16 bytes still gets those it has.
 */
static void emit_vlan_prologue(struct xl *x)
{
	int untagged = new_label(x);

	emit(x, BPF_ST | BPF_MEM | BPF_DW, BPF_REG_10, 0, PP_VLAN_IMG_OFF, 0);
	emit(x, BPF_ST | BPF_MEM | BPF_DW, BPF_REG_10, 0, PP_VLAN_IMG_OFF + 8, 0);
	emit(x, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_1, PP_R_CTX,
	     offsetof(struct __sk_buff, vlan_present), 0);
	emit(x, BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_1, PP_VLAN_FLAG_OFF, 0);
	emit_jmp(x, BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_1, 0, 0, untagged);
	emit_copy_to_stack(x, 8, PP_VLAN_IMG_OFF, 4);
	emit(x, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_1, PP_R_CTX,
	     offsetof(struct __sk_buff, vlan_proto), 0);
	emit(x, BPF_STX | BPF_MEM | BPF_H, BPF_REG_10, BPF_REG_1, PP_VLAN_IMG_OFF + 4, 0);
	emit(x, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_1, PP_R_CTX,
	     offsetof(struct __sk_buff, vlan_tci), 0);
	emit(x, BPF_ALU | BPF_END | BPF_TO_BE, BPF_REG_1, 0, 0, 16);
	emit(x, BPF_STX | BPF_MEM | BPF_H, BPF_REG_10, BPF_REG_1, PP_VLAN_IMG_OFF + 6, 0);
	for (int i = 0; i < 4; i++)
		emit_copy_to_stack(x, 12 + i, PP_VLAN_IMG_OFF + 8 + i, 1);
	bind(x, untagged);
}

/*
 * DST = P[X + k : size]. bpf_filter() checks X + k without wrapping at 32
 * bits, so the sum is 64-bit here and one past 4 GiB is no match.
 */
static void emit_load_ind(struct xl *x, __u8 dst, int size, __u32 k)
{
	int head, done;

	emit(x, BPF_ALU | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, (__s32)k);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_X, BPF_REG_2, PP_R_X, 0, 0);
	if (x->inner) {
		head = new_label(x);
		done = new_label(x);
		emit_inner_head_test(x, head);
		emit(x, BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_3, BPF_REG_10, PP_INNER_OFF, 0);
		emit(x, BPF_ALU64 | BPF_ADD | BPF_X, BPF_REG_2, BPF_REG_3, 0, 0);
		emit_load_r2(x, dst, size);
		emit_ja(x, done);
		bind(x, head);
		emit_inner_head_load(x, dst, size);
		bind(x, done);
		return;
	}
	if (x->probe) {
		emit_probe_load(x, dst, size);
		return;
	}
	emit_load_r2(x, dst, size);
}

static void emit_ld_len(struct xl *x, __u8 dst)
{
	if (x->probe) {
		emit(x, BPF_LDX | BPF_MEM | BPF_W, dst, BPF_REG_10, PP_LEN_OFF, 0);
		return;
	}
	emit(x, BPF_LDX | BPF_MEM | BPF_W, dst, PP_R_CTX, offsetof(struct __sk_buff, len), 0);
	if (x->inner) {
		/* The entry made sure the offset is at most len. */
		emit(x, BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_1, BPF_REG_10, PP_INNER_OFF, 0);
		emit(x, BPF_ALU | BPF_SUB | BPF_X, dst, BPF_REG_1, 0, 0);
	}
	if (x->vlan) {
		int untagged = new_label(x);

		emit_vlan_flag(x);
		emit_jmp(x, BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_1, 0, 0, untagged);
		emit(x, BPF_ALU | BPF_ADD | BPF_K, dst, 0, 0, PP_VLAN_HLEN);
		bind(x, untagged);
	}
}

static bool check_mem(struct xl *x, size_t pc, __u32 k)
{
	if (k < PP_MEMWORDS)
		return true;
	xl_fail(x, -EINVAL, "instruction %zu: scratch memory index %u out of range", pc, k);
	return false;
}

/* X = 4 * (P[k] & 0xf): the IPv4 header's length, its IHL at K. */
static void emit_load_msh(struct xl *x, __u32 k)
{
	emit_load_abs(x, PP_R_X, BPF_B, k);
	emit(x, BPF_ALU | BPF_AND | BPF_K, PP_R_X, 0, 0, 0xf);
	emit(x, BPF_ALU | BPF_LSH | BPF_K, PP_R_X, 0, 0, 2);
}

/* LD and LDX: A or X from a packet, an immediate, the length or M[]. */
static void xlate_load(struct xl *x, size_t pc, const struct sock_filter *f)
{
	bool ldx = BPF_CLASS(f->code) == BPF_LDX;
	__u8 dst = ldx ? PP_R_X : PP_R_A;
	int size = BPF_SIZE(f->code);

	/* Classic loads are 1, 2 or 4 bytes: BPF_DW has no meaning there. */
	if (size == BPF_DW)
		goto bad;

	switch (BPF_MODE(f->code)) {
	case BPF_ABS:
		if (ldx)
			goto bad;
		emit_load_abs(x, dst, size, f->k);
		return;
	case BPF_IND:
		if (ldx)
			goto bad;
		emit_load_ind(x, dst, size, f->k);
		return;
	case BPF_MSH:
		if (!ldx || size != BPF_B)
			goto bad;
		emit_load_msh(x, f->k);
		return;
	case BPF_IMM:
		emit(x, BPF_ALU | BPF_MOV | BPF_K, dst, 0, 0, (__s32)f->k);
		return;
	case BPF_LEN:
		emit_ld_len(x, dst);
		return;
	case BPF_MEM:
		if (check_mem(x, pc, f->k))
			emit(x, BPF_LDX | BPF_MEM | BPF_W, dst, BPF_REG_10, mem_off(f->k), 0);
		return;
	}
bad:
	xl_fail(x, -EINVAL, "instruction %zu: unsupported load 0x%04x", pc, f->code);
}

static void xlate_alu_x(struct xl *x, __u8 op)
{
	int big = new_label(x), done = new_label(x);

	/* bpf_filter() returns 0 on division by X == 0. */
	if (op == BPF_DIV || op == BPF_MOD)
		emit_jmp(x, BPF_JMP32 | BPF_JEQ | BPF_K, PP_R_X, 0, 0, x->l_nomatch);
	if (op != BPF_LSH && op != BPF_RSH) {
		emit(x, BPF_ALU | op | BPF_X, PP_R_A, PP_R_X, 0, 0);
		return;
	}
	/* libpcap 1.10 shifts everything out when X >= 32; eBPF would mask X. */
	emit_jmp(x, BPF_JMP32 | BPF_JGE | BPF_K, PP_R_X, 0, 32, big);
	emit(x, BPF_ALU | op | BPF_X, PP_R_A, PP_R_X, 0, 0);
	emit_ja(x, done);
	bind(x, big);
	emit(x, BPF_ALU | BPF_MOV | BPF_K, PP_R_A, 0, 0, 0);
	bind(x, done);
}

static void xlate_alu(struct xl *x, size_t pc, const struct sock_filter *f)
{
	__u8 op = BPF_OP(f->code);
	__u32 k = f->k;

	if (op == BPF_NEG) {
		emit(x, BPF_ALU | BPF_NEG, PP_R_A, 0, 0, 0);
		return;
	}
	if (op > BPF_XOR) {
		xl_fail(x, -EINVAL, "instruction %zu: unknown ALU op 0x%04x", pc, f->code);
		return;
	}
	if (BPF_SRC(f->code) == BPF_X) {
		xlate_alu_x(x, op);
		return;
	}
	if ((op == BPF_DIV || op == BPF_MOD) && k == 0) {
		/* libpcap's bpf_validate() refuses this program too. */
		xl_fail(x, -EINVAL, "instruction %zu: division by constant zero", pc);
		return;
	}
	if ((op == BPF_LSH || op == BPF_RSH) && k >= 32) {
		/* libpcap's bpf_validate() refuses it; so does the verifier. */
		xl_fail(x, -EINVAL, "instruction %zu: shift by %u", pc, k);
		return;
	}
	emit(x, BPF_ALU | op | BPF_K, PP_R_A, 0, 0, (__s32)k);
}

static __u8 invert_jmp(__u8 op)
{
	switch (op) {
	case BPF_JEQ:
		return BPF_JNE;
	case BPF_JGT:
		return BPF_JLE;
	case BPF_JGE:
		return BPF_JLT;
	}
	return 0; /* JSET has no inverse */
}

/*
 * The verifier walks the fall-through of a branch first and keeps the other
 * side for later, at most 8192 of them on one path
 * (BPF_COMPLEXITY_LIMIT_JMP_SEQ). In "host A or host B or ..." every term
 * branches to a RET: that side must be the fall-through, walked and done at
 * once, or thousands of terms pile up as many pending branches.
 */
static bool ret_only(const struct sock_filter *f, size_t ahead)
{
	return f[ahead].code == (BPF_RET | BPF_K);
}

/* A jump to LABEL when F's condition is false. JSET has no inverse: A & k == 0. */
static void emit_jmp_false(struct xl *x, const struct sock_filter *f, __s32 k, int label)
{
	__u8 op = BPF_OP(f->code), src = BPF_SRC(f->code);

	if (op != BPF_JSET) {
		emit_jmp(x, BPF_JMP32 | invert_jmp(op) | src, PP_R_A, src == BPF_X ? PP_R_X : 0, k,
			 label);
		return;
	}
	emit(x, BPF_ALU | BPF_MOV | BPF_X, BPF_REG_1, PP_R_A, 0, 0);
	if (src == BPF_X)
		emit(x, BPF_ALU | BPF_AND | BPF_X, BPF_REG_1, PP_R_X, 0, 0);
	else
		emit(x, BPF_ALU | BPF_AND | BPF_K, BPF_REG_1, 0, 0, k);
	emit_jmp(x, BPF_JMP32 | BPF_JEQ | BPF_K, BPF_REG_1, 0, 0, label);
}

/* JA: forward only, inside the program. */
static void xlate_ja(struct xl *x, size_t pc, size_t len, const struct sock_filter *f)
{
	if ((__s32)f->k < 0)
		xl_fail(x, -EINVAL,
			"instruction %zu: backward jump (libpcap loops for \"protochain\"; "
			"eBPF cannot prove that such a loop ends)",
			pc);
	else if ((size_t)f->k >= len - pc - 1)
		xl_fail(x, -EINVAL, "instruction %zu: jump past the end", pc);
	else
		emit_ja(x, x->lbase + (int)(pc + 1 + f->k));
}

/*
 * A conditional jump to T or FL (two different instructions): the side
 * that is only a RET falls through (ret_only()), else the next instruction
 * does, else the false side is a JA of its own.
 */
static void emit_branch(struct xl *x, size_t pc, const struct sock_filter *f, size_t t, size_t fl)
{
	__u8 op = BPF_OP(f->code), src = BPF_SRC(f->code);
	__u8 code, inv = invert_jmp(op);
	int lt = x->lbase + (int)t, lf = x->lbase + (int)fl;
	/* 32-bit compares: classic A, X and k are unsigned 32-bit values. On X,
	 * k is ignored (bpf_filter()), and the verifier wants it zero. */
	__s32 k = src == BPF_X ? 0 : (__s32)f->k;

	if (ret_only(f, t - pc) && !ret_only(f, fl - pc)) {
		emit_jmp_false(x, f, k, lf);
		emit_ja(x, lt);
		return;
	}
	if (ret_only(f, fl - pc) && !ret_only(f, t - pc)) {
		emit_jmp(x, BPF_JMP32 | op | src, PP_R_A, src == BPF_X ? PP_R_X : 0, k, lt);
		emit_ja(x, lf);
		return;
	}
	if (t == pc + 1 && inv) {
		code = BPF_JMP32 | inv | src;
		emit_jmp(x, code, PP_R_A, src == BPF_X ? PP_R_X : 0, k, lf);
		return;
	}
	code = BPF_JMP32 | op | src;
	emit_jmp(x, code, PP_R_A, src == BPF_X ? PP_R_X : 0, k, lt);
	if (fl != pc + 1)
		emit_ja(x, lf);
}

static void xlate_jmp(struct xl *x, size_t pc, size_t len, const struct sock_filter *f)
{
	__u8 op = BPF_OP(f->code);
	size_t t = pc + 1 + f->jt, fl = pc + 1 + f->jf;

	if (op == BPF_JA) {
		xlate_ja(x, pc, len, f);
		return;
	}
	if (op != BPF_JEQ && op != BPF_JGT && op != BPF_JGE && op != BPF_JSET) {
		xl_fail(x, -EINVAL, "instruction %zu: unknown jump 0x%04x", pc, f->code);
		return;
	}
	if (t >= len || fl >= len) {
		xl_fail(x, -EINVAL, "instruction %zu: jump past the end", pc);
		return;
	}
	if (t == fl) {
		emit_ja(x, x->lbase + (int)t);
		return;
	}
	emit_branch(x, pc, f, t, fl);
}

static void xlate_ret(struct xl *x, size_t pc, const struct sock_filter *f)
{
	switch (BPF_RVAL(f->code)) {
	case BPF_K:
		emit_ja(x, f->k ? x->l_match : x->l_nomatch);
		return;
	case BPF_A:
		emit_jmp(x, BPF_JMP32 | BPF_JNE | BPF_K, PP_R_A, 0, 0, x->l_match);
		emit_ja(x, x->l_nomatch);
		return;
	}
	xl_fail(x, -EINVAL, "instruction %zu: unsupported return 0x%04x", pc, f->code);
}

static void xlate_insn(struct xl *x, size_t pc, size_t len, const struct sock_filter *f)
{
	switch (BPF_CLASS(f->code)) {
	case BPF_LD:
	case BPF_LDX:
		xlate_load(x, pc, f);
		break;
	case BPF_ST:
	case BPF_STX:
		if (check_mem(x, pc, f->k))
			emit(x, BPF_STX | BPF_MEM | BPF_W, BPF_REG_10,
			     BPF_CLASS(f->code) == BPF_ST ? PP_R_A : PP_R_X, mem_off(f->k), 0);
		break;
	case BPF_ALU:
		xlate_alu(x, pc, f);
		break;
	case BPF_JMP:
		xlate_jmp(x, pc, len, f);
		break;
	case BPF_RET:
		xlate_ret(x, pc, f);
		break;
	case BPF_MISC:
		if (BPF_MISCOP(f->code) == BPF_TAX)
			emit(x, BPF_ALU | BPF_MOV | BPF_X, PP_R_X, PP_R_A, 0, 0);
		else if (BPF_MISCOP(f->code) == BPF_TXA)
			emit(x, BPF_ALU | BPF_MOV | BPF_X, PP_R_A, PP_R_X, 0, 0);
		else
			xl_fail(x, -EINVAL, "instruction %zu: unsupported 0x%04x", pc, f->code);
		break;
	}
}

/*
 * Classic jumps only go forward, so one pass marks what is reachable. The
 * eBPF verifier refuses unreachable instructions, so those are not emitted.
 */
static bool *reachable(struct xl *x, const struct sock_filter *prog, size_t len)
{
	bool *r = calloc(len, sizeof(*r));

	if (!r) {
		xl_fail(x, -ENOMEM, "out of memory");
		return NULL;
	}
	r[0] = true;
	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &prog[pc];
		__u8 cls = BPF_CLASS(f->code);

		if (!r[pc] || cls == BPF_RET)
			continue;
		if (cls != BPF_JMP) {
			if (pc + 1 >= len)
				xl_fail(x, -EINVAL, "instruction %zu: runs off the end", pc);
			else
				r[pc + 1] = true;
		} else if (BPF_OP(f->code) == BPF_JA) {
			if ((size_t)f->k < len - pc - 1)
				r[pc + 1 + f->k] = true;
		} else {
			if (pc + 1 + f->jt < len)
				r[pc + 1 + f->jt] = true;
			if (pc + 1 + f->jf < len)
				r[pc + 1 + f->jf] = true;
		}
	}
	return r;
}

/* M[] as the program uses it, zeroed: the verifier wants stack written before it is read. */
static void emit_mem_zero(struct xl *x, const struct sock_filter *prog, size_t len)
{
	bool used[PP_MEMWORDS] = {0};

	for (size_t pc = 0; pc < len; pc++) {
		__u8 cls = BPF_CLASS(prog[pc].code);
		bool mem =
			cls == BPF_ST || cls == BPF_STX ||
			((cls == BPF_LD || cls == BPF_LDX) && BPF_MODE(prog[pc].code) == BPF_MEM);

		if (mem && prog[pc].k < PP_MEMWORDS)
			used[prog[pc].k] = true;
	}
	for (__u32 k = 0; k < PP_MEMWORDS; k++)
		if (used[k])
			emit(x, BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, mem_off(k), 0);
}

static void emit_prologue(struct xl *x, const struct sock_filter *prog, size_t len)
{
	if (x->probe) {
		/* f(data, len, headlen) */
		emit(x, BPF_ALU64 | BPF_MOV | BPF_X, PP_R_DATA, BPF_REG_1, 0, 0);
		emit(x, BPF_STX | BPF_MEM | BPF_W, BPF_REG_10, BPF_REG_2, PP_LEN_OFF, 0);
		emit(x, BPF_ALU64 | BPF_MOV | BPF_X, PP_R_HEAD, BPF_REG_3, 0, 0);
	} else {
		emit(x, BPF_ALU64 | BPF_MOV | BPF_X, PP_R_CTX, BPF_REG_1, 0, 0);
	}
	emit(x, BPF_ALU | BPF_MOV | BPF_K, PP_R_A, 0, 0, 0);
	emit(x, BPF_ALU | BPF_MOV | BPF_K, PP_R_X, 0, 0, 0);
	if (x->direct)
		emit(x, BPF_LDX | BPF_MEM | BPF_W, PP_R_DATA, PP_R_CTX,
		     offsetof(struct __sk_buff, data), 0);
	if (x->vlan)
		emit_vlan_prologue(x);
	emit_mem_zero(x, prog, len);
}

/*
 * A = the SIZE bytes at PP_R_X + OFF: no match if they are not there.
 * Through bpf_skb_load_bytes(), as the whole second pass: an offset that
 * only a helper takes stays imprecise for the verifier, so the ways into
 * the second pass (IPv4 or IPv6, VXLAN or Geneve, every header length) are
 * one state to it, walked once; direct loads would make it walk the pass
 * once per offset.
 */
static void emit_load_at_x(struct xl *x, int size, __s32 off)
{
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, PP_R_X, 0, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, off);
	emit_slow_load(x, PP_R_A, size);
}

/*
 * X = the transport header's offset, IPv4 (not a later fragment) or IPv6:
 * UDP falls through; IP-in-IP goes to IPIP (IPv4 inside) or to IP with A =
 * 0x86dd (IPv6 inside), GRE to GRE; anything else is no match.
 */
static void emit_inner_l4(struct xl *x, int ipip, int gre, int ip)
{
	int v4 = new_label(x), udp = new_label(x), proto = new_label(x);

	emit_load_abs_data(x, PP_R_A, BPF_H, 12);
	emit_jmp(x, BPF_JMP32 | BPF_JEQ | BPF_K, PP_R_A, 0, 0x0800, v4);
	emit_jmp(x, BPF_JMP32 | BPF_JNE | BPF_K, PP_R_A, 0, 0x86dd, x->l_nomatch);
	emit_load_abs_data(x, PP_R_A, BPF_B, 14 + 6);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_K, PP_R_X, 0, 0, 14 + 40);
	emit_ja(x, proto);
	bind(x, v4);
	emit_load_abs_data(x, PP_R_A, BPF_H, 14 + 6);
	emit(x, BPF_ALU | BPF_AND | BPF_K, PP_R_A, 0, 0, 0x1fff);
	emit_jmp(x, BPF_JMP32 | BPF_JNE | BPF_K, PP_R_A, 0, 0, x->l_nomatch);
	emit_load_abs_data(x, PP_R_X, BPF_B, 14);
	emit(x, BPF_ALU64 | BPF_AND | BPF_K, PP_R_X, 0, 0, 0xf);
	emit(x, BPF_ALU64 | BPF_LSH | BPF_K, PP_R_X, 0, 0, 2);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, PP_R_X, 0, 0, 14);
	emit_load_abs_data(x, PP_R_A, BPF_B, 14 + 9);
	bind(x, proto);
	emit_jmp(x, BPF_JMP32 | BPF_JEQ | BPF_K, PP_R_A, 0, 17, udp);
	emit_jmp(x, BPF_JMP32 | BPF_JEQ | BPF_K, PP_R_A, 0, PP_IPPROTO_IPIP, ipip);
	emit_jmp(x, BPF_JMP32 | BPF_JEQ | BPF_K, PP_R_A, 0, PP_IPPROTO_GRE, gre);
	emit_jmp(x, BPF_JMP32 | BPF_JNE | BPF_K, PP_R_A, 0, PP_IPPROTO_IPV6, x->l_nomatch);
	emit(x, BPF_ALU | BPF_MOV | BPF_K, PP_R_A, 0, 0, 0x86dd);
	emit_ja(x, ip);
	bind(x, udp);
}

/*
 * X = the GRE header's offset: past the header (tunnel.h), to FRAME with
 * Ethernet inside, to IP with IPv4 or IPv6 (A = its type); else no match.
 * Its length without a branch: 4, and 4 for each of the checksum (flag
 * bit 15), key (13) and sequence number (12).
 */
static void emit_inner_gre(struct xl *x, int frame, int ip)
{
	emit_load_at_x(x, BPF_W, 0);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, PP_R_A, 0, 0);
	emit(x, BPF_ALU64 | BPF_RSH | BPF_K, BPF_REG_1, 0, 0, 16);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_1, 0, 0);
	emit(x, BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_2, 0, 0, PP_GRE_BAD);
	emit_jmp(x, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 0, 0, x->l_nomatch);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_1, 0, 0);
	emit(x, BPF_ALU64 | BPF_RSH | BPF_K, BPF_REG_2, 0, 0, 15);
	for (int bit = 13; bit >= 12; bit--) {
		emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, BPF_REG_1, 0, 0);
		emit(x, BPF_ALU64 | BPF_RSH | BPF_K, BPF_REG_3, 0, 0, bit);
		emit(x, BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_3, 0, 0, 1);
		emit(x, BPF_ALU64 | BPF_ADD | BPF_X, BPF_REG_2, BPF_REG_3, 0, 0);
	}
	emit(x, BPF_ALU64 | BPF_LSH | BPF_K, BPF_REG_2, 0, 0, 2);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, 4);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_X, PP_R_X, BPF_REG_2, 0, 0);
	emit(x, BPF_ALU64 | BPF_AND | BPF_K, PP_R_A, 0, 0, 0xffff);
	emit_jmp(x, BPF_JMP32 | BPF_JEQ | BPF_K, PP_R_A, 0, PP_ETH_P_TEB, frame);
	emit_jmp(x, BPF_JMP32 | BPF_JEQ | BPF_K, PP_R_A, 0, 0x0800, ip);
	emit_jmp(x, BPF_JMP32 | BPF_JNE | BPF_K, PP_R_A, 0, 0x86dd, x->l_nomatch);
	emit_ja(x, ip);
}

/*
 * An Ethernet frame inside at X: its bytes 12..13 to PP_INNER_ETYPE_OFF,
 * or above 0xffff where it has fewer bytes: the helper's return, 0 or a
 * negative error, gives bit 16 without a branch (and bpf_skb_load_bytes()
 * zeroes what it could not copy), so that the verifier knows neither.
 */
static void emit_inner_etype(struct xl *x)
{
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, PP_R_CTX, 0, 0);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, PP_R_X, 0, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, 12);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, BPF_REG_10, 0, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_3, 0, 0, PP_LOAD_BUF_OFF);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_4, 0, 0, 2);
	emit(x, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_skb_load_bytes);
	emit(x, BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_0, 0, 0, 0x10000);
	emit(x, BPF_LDX | BPF_MEM | BPF_H, BPF_REG_1, BPF_REG_10, PP_LOAD_BUF_OFF, 0);
	emit_bswap(x, BPF_REG_1, BPF_H);
	emit(x, BPF_ALU64 | BPF_OR | BPF_X, BPF_REG_1, BPF_REG_0, 0, 0);
	emit(x, BPF_STX | BPF_MEM | BPF_W, BPF_REG_10, BPF_REG_1, PP_INNER_ETYPE_OFF, 0);
}

/*
 * The inner frame is an IP packet's (A, its type): the image of its
 * made-up header's bytes 8..19 for the second pass's loads below 14
 * (emit_inner_head_load()): zeros, the type, then the packet's first six
 * bytes, one at a time, so that a short packet still gives those it has
 * (bpf_skb_load_bytes() leaves zeros where it fails). R1 holds the length.
 * The image is written on every way here with values the verifier does not
 * know, so that its bytes are of one kind on all of them.
 */
static void emit_inner_image(struct xl *x)
{
	int frame = new_label(x), done = new_label(x);

	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_1, 0, 0);
	emit(x, BPF_ALU64 | BPF_SUB | BPF_X, BPF_REG_2, BPF_REG_1, 0, 0);
	emit(x, BPF_STX | BPF_MEM | BPF_W, BPF_REG_10, BPF_REG_2, PP_INNER_IMG_OFF, 0);
	emit(x, BPF_STX | BPF_MEM | BPF_H, BPF_REG_10, BPF_REG_2, PP_INNER_IMG_OFF + 6, 0);
	emit(x, BPF_STX | BPF_MEM | BPF_W, BPF_REG_10, BPF_REG_2, PP_INNER_IMG_OFF + 8, 0);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, PP_R_A, 0, 0);
	emit(x, BPF_ALU | BPF_END | BPF_TO_BE, BPF_REG_3, 0, 0, 16);
	emit(x, BPF_STX | BPF_MEM | BPF_H, BPF_REG_10, BPF_REG_3, PP_INNER_IMG_OFF + 4, 0);
	emit(x, BPF_STX | BPF_MEM | BPF_W, BPF_REG_10, PP_R_A, PP_INNER_ETYPE_OFF, 0);
	emit_jmp(x, BPF_JMP | BPF_JEQ | BPF_K, PP_R_A, 0, 0, frame);
	for (int i = 0; i < 6; i++) {
		emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, PP_R_CTX, 0, 0);
		emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, PP_R_X, 0, 0);
		emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, PP_INNER_HEAD + i);
		emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, BPF_REG_10, 0, 0);
		emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_3, 0, 0, PP_INNER_IMG_OFF + 6 + i);
		emit(x, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_4, 0, 0, 1);
		emit(x, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_skb_load_bytes);
	}
	emit_ja(x, done);
	bind(x, frame);
	emit_inner_etype(x);
	bind(x, done);
}

/*
 * A = the UDP destination port, X the UDP header's offset. Every UDP
 * datagram the filter does not match gets here: where the header is where
 * it nearly always is (IPv4 without options, IPv6), a direct load at a
 * constant offset, which leaves X imprecise to the verifier as the helper
 * does (emit_load_at_x()); the helper saves the other cases ~20 ns.
 */
static void emit_inner_port(struct xl *x)
{
	int v6 = new_label(x), other = new_label(x), done = new_label(x);

	emit_jmp(x, BPF_JMP | BPF_JNE | BPF_K, PP_R_X, 0, 14 + 20, v6);
	emit_load_abs_data(x, PP_R_A, BPF_H, 14 + 20 + 2);
	emit_ja(x, done);
	bind(x, v6);
	emit_jmp(x, BPF_JMP | BPF_JNE | BPF_K, PP_R_X, 0, 14 + 40, other);
	emit_load_abs_data(x, PP_R_A, BPF_H, 14 + 40 + 2);
	emit_ja(x, done);
	bind(x, other);
	emit_load_at_x(x, BPF_H, 2);
	bind(x, done);
}

/* X = the UDP header's offset: X = the Geneve options' length + X, or no match. */
static void emit_inner_geneve(struct xl *x)
{
	emit_load_at_x(x, BPF_B, 8);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, PP_R_A, 0, 0);
	emit(x, BPF_ALU64 | BPF_RSH | BPF_K, BPF_REG_1, 0, 0, 6);
	emit_jmp(x, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_1, 0, 0, x->l_nomatch);
	emit(x, BPF_ALU64 | BPF_AND | BPF_K, PP_R_A, 0, 0, 0x3f);
	emit(x, BPF_ALU64 | BPF_LSH | BPF_K, PP_R_A, 0, 0, 2);
	emit(x, BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, PP_R_A, PP_INNER_OFF, 0);
	emit_load_at_x(x, BPF_H, 10);
	emit_jmp(x, BPF_JMP32 | BPF_JNE | BPF_K, PP_R_A, 0, PP_ETH_P_TEB, x->l_nomatch);
	emit(x, BPF_LDX | BPF_MEM | BPF_DW, PP_R_A, BPF_REG_10, PP_INNER_OFF, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_X, PP_R_X, PP_R_A, 0, 0);
}

/*
 * The tunnel at the outer transport header (tunnel.h, the same rules): to
 * FRAME with X at the Ethernet frame inside (VXLAN, Geneve, GRE's TEB), to
 * IP, or falling through, with X at the IP packet inside and A its type;
 * anything else is no match.
 */
static void emit_inner_tunnels(struct xl *x, int frame, int ip)
{
	int vxlan = new_label(x), geneve = new_label(x);
	int ipip = new_label(x), gre = new_label(x);

	emit_inner_l4(x, ipip, gre, ip);
	emit_inner_port(x);
	emit_jmp(x, BPF_JMP32 | BPF_JEQ | BPF_K, PP_R_A, 0, PP_GENEVE_PORT, geneve);
	emit_jmp(x, BPF_JMP32 | BPF_JEQ | BPF_K, PP_R_A, 0, PP_VXLAN_PORT, vxlan);
	emit_jmp(x, BPF_JMP32 | BPF_JNE | BPF_K, PP_R_A, 0, PP_VXLAN_LINUX_PORT, x->l_nomatch);
	bind(x, vxlan);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, PP_R_X, 0, 0, 8 + PP_VXLAN_HLEN);
	emit_ja(x, frame);
	bind(x, geneve);
	emit_inner_geneve(x);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, PP_R_X, 0, 0, 8 + PP_GENEVE_HLEN);
	emit_ja(x, frame);
	bind(x, gre);
	emit_inner_gre(x, frame, ip);
	bind(x, ipip);
	emit(x, BPF_ALU | BPF_MOV | BPF_K, PP_R_A, 0, 0, 0x0800);
}

/*
 * The inner frame at X, A its made-up type (0: a real frame): kept for the
 * second pass (PP_INNER_OFF, PP_INNER_TYPE_OFF, the image), or no match if
 * it starts past the packet's end.
 */
static void emit_inner_frame(struct xl *x)
{
	emit(x, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_1, PP_R_CTX, offsetof(struct __sk_buff, len), 0);
	/*
	 * X + len - len: the same offset, but one the verifier no longer knows
	 * from the way here (34 or 54 where emit_inner_port() compared it), so
	 * that every way into the second pass is one state, walked once; the
	 * same for the type (A: 0, IPv4 or IPv6).
	 */
	emit(x, BPF_ALU64 | BPF_ADD | BPF_X, PP_R_X, BPF_REG_1, 0, 0);
	emit(x, BPF_ALU64 | BPF_SUB | BPF_X, PP_R_X, BPF_REG_1, 0, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_X, PP_R_A, BPF_REG_1, 0, 0);
	emit(x, BPF_ALU64 | BPF_SUB | BPF_X, PP_R_A, BPF_REG_1, 0, 0);
	/* The inner frame starts inside the packet: its "len" is not negative. */
	emit_jmp(x, BPF_JMP | BPF_JGT | BPF_X, PP_R_X, BPF_REG_1, 0, x->l_nomatch);
	emit(x, BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, PP_R_X, PP_INNER_OFF, 0);
	emit(x, BPF_STX | BPF_MEM | BPF_W, BPF_REG_10, PP_R_A, PP_INNER_TYPE_OFF, 0);
	emit_inner_image(x);
}

/*
 * The inner view's entry, where the first pass did not match: a frame that
 * is a tunnel's (tunnel.h, the same rules) gets the second pass on its
 * inner frame, with A, X and M[] fresh; any other ends with no match. The
 * outer headers are in the linear part on every path the classifier sees
 * (the tunnel drivers push them there, the receive side pulls them before
 * TC), so the loads are mostly direct.
 */
static void emit_inner_entry(struct xl *x, const struct sock_filter *prog, size_t len)
{
	int found = new_label(x), ip = new_label(x), common = new_label(x);

	/*
	 * The first pass reaches here from every load that failed, each with
	 * what it proved of the packet's bounds in PP_R_DATA: a fresh pointer
	 * makes those states one for the verifier, which then walks the rest
	 * once, not once per way in.
	 */
	if (x->direct)
		emit(x, BPF_LDX | BPF_MEM | BPF_W, PP_R_DATA, PP_R_CTX,
		     offsetof(struct __sk_buff, data), 0);
	emit_inner_tunnels(x, found, ip);
	/* An IP packet at X: the inner frame starts 14 bytes before it, its made-up header. */
	bind(x, ip);
	emit(x, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_1, PP_R_CTX, offsetof(struct __sk_buff, len), 0);
	emit_jmp(x, BPF_JMP | BPF_JGT | BPF_X, PP_R_X, BPF_REG_1, 0, x->l_nomatch);
	emit(x, BPF_ALU64 | BPF_SUB | BPF_K, PP_R_X, 0, 0, PP_INNER_HEAD);
	emit_ja(x, common);
	bind(x, found);
	emit(x, BPF_ALU | BPF_MOV | BPF_K, PP_R_A, 0, 0, 0);
	bind(x, common);
	emit_inner_frame(x);
	emit(x, BPF_ALU | BPF_MOV | BPF_K, PP_R_A, 0, 0, 0);
	emit(x, BPF_ALU | BPF_MOV | BPF_K, PP_R_X, 0, 0, 0);
	emit_mem_zero(x, prog, len);
}

/* One pass over the classic program, its labels from x->lbase on. */
static void emit_pass(struct xl *x, const struct sock_filter *prog, size_t len, const bool *live)
{
	for (size_t pc = 0; live && pc < len && !x->err; pc++) {
		if (!live[pc])
			continue;
		if (x->n - x->island_at >= PP_ISLAND_EVERY)
			emit_island(x);
		bind(x, x->lbase + (int)pc);
		xlate_insn(x, pc, len, &prog[pc]);
	}
}

/*
 * PP_XLATE_INNER: where the first pass ends with no match, the inner view's
 * entry and the second pass. A program that never fails needs neither (the
 * verifier refuses unreachable code).
 */
static void emit_inner_pass(struct xl *x, const struct sock_filter *prog, size_t len,
			    const bool *live, int nomatch)
{
	int entry = x->l_nomatch;

	x->l_nomatch = nomatch;
	if (x->err || !label_refs(x, entry))
		return;
	bind(x, entry);
	emit_inner_entry(x, prog, len);
	x->lbase = (int)len;
	x->inner = true;
	x->vlan = false;
	x->direct = false; /* see emit_load_at_x() */
	emit_pass(x, prog, len, live);
}

/* Probe mode: a subprogram's two returns, each only if some path reaches it. */
static void emit_probe_epilogue(struct xl *x)
{
	int ret[2] = {x->l_nomatch, x->l_match};

	for (int verdict = 0; verdict < 2; verdict++) {
		if (!label_refs(x, ret[verdict]))
			continue;
		bind(x, ret[verdict]);
		emit(x, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, verdict);
		emit(x, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	}
}

/* no-match returns; match falls through into the classifier with r1 = ctx. */
static void emit_epilogue(struct xl *x)
{
	if (x->probe) {
		emit_probe_epilogue(x);
		return;
	}
	bool match_used = label_refs(x, x->l_match) > 0;

	if (label_refs(x, x->l_nomatch) > 0) {
		bind(x, x->l_nomatch);
		emit(x, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, PP_TC_ACT_UNSPEC);
		/* A filter that never matches still keeps the C code reachable,
		 * as the verifier demands; this branch is never taken. */
		if (!match_used)
			emit_jmp(x, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, PP_TC_ACT_UNSPEC,
				 x->l_match);
		emit(x, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	}
	bind(x, x->l_match);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, PP_R_CTX, 0, 0);
}

static void xl_free(struct xl *x)
{
	free(x->v);
	free(x->label);
	free(x->fix);
}

/* Every instruction, reachable or not, as the kernel's classic checker does. */
static int check_opcodes(const struct sock_filter *prog, size_t len, char *err, size_t errlen)
{
	for (size_t pc = 0; pc < len; pc++) {
		if (pp_cbpf_op_allowed(prog[pc].code))
			continue;
		snprintf(err, errlen,
			 "instruction %zu: opcode 0x%04x is not a classic BPF instruction the "
			 "kernel accepts",
			 pc, prog[pc].code);
		return -EINVAL;
	}
	return 0;
}

bool pp_cbpf_tests_vlan(const struct sock_filter *prog, size_t len)
{
	for (size_t pc = 0; pc < len; pc++) {
		__u32 k = prog[pc].k;

		if (prog[pc].code == (BPF_JMP | BPF_JEQ | BPF_K) &&
		    (k == 0x8100 || k == 0x88a8 || k == 0x9100))
			return true;
	}
	return false;
}

/* What the translation cannot take: nothing, too much, an opcode the kernel refuses. */
static int check_program(const struct sock_filter *prog, size_t len, char *err, size_t errlen)
{
	if (len == 0) {
		snprintf(err, errlen, "empty classic program");
		return -EINVAL;
	}
	if (len > PP_XLATE_MAX_INSNS) {
		snprintf(err, errlen,
			 "classic program of %zu instructions: more than the verifier's limit of "
			 "%u instructions per program",
			 len, PP_XLATE_MAX_INSNS);
		return -E2BIG;
	}
	if (check_opcodes(prog, len, err, errlen))
		return -EINVAL;
	return 0;
}

/* The program to *OUT if it is within the verifier's limit; else the error. */
static int xl_finish(struct xl *x, size_t len, struct bpf_insn **out, size_t *out_cnt)
{
	if (!x->err && x->n > PP_XLATE_MAX_INSNS)
		xl_fail(x, -E2BIG,
			"%zu classic instructions translate to %zu eBPF instructions: more than "
			"the verifier's limit of %u per program",
			len, x->n, PP_XLATE_MAX_INSNS);
	if (x->err) {
		xl_free(x);
		return x->err;
	}
	*out = x->v;
	*out_cnt = x->n;
	x->v = NULL;
	xl_free(x);
	return 0;
}

int pp_xlate(const struct sock_filter *prog, size_t len, unsigned int flags, struct bpf_insn **out,
	     size_t *out_cnt, char *err, size_t errlen)
{
	struct xl x = {.errbuf = err,
		       .errlen = errlen,
		       .probe = flags & PP_XLATE_PROBE,
		       .vlan = (flags & PP_XLATE_VLAN_VIEW) && !(flags & PP_XLATE_PROBE),
		       .direct = !(flags & (PP_XLATE_NO_DIRECT | PP_XLATE_PROBE))};
	bool inner = (flags & PP_XLATE_INNER) && !(flags & PP_XLATE_PROBE);
	bool *live = NULL;
	int nomatch, ret = check_program(prog, len, err, errlen);

	if (ret)
		return ret;
	/* Labels 0..len-1 are the classic instructions (len..2len-1: the inner pass's). */
	for (size_t i = 0; i < (inner ? 2 : 1) * len; i++)
		new_label(&x);
	x.l_nomatch = new_label(&x);
	x.l_match = new_label(&x);
	nomatch = x.l_nomatch;
	if (inner)
		x.l_nomatch = new_label(&x); /* the inner view's entry */
	live = reachable(&x, prog, len);
	emit_prologue(&x, prog, len);
	emit_pass(&x, prog, len, live);
	if (inner)
		emit_inner_pass(&x, prog, len, live, nomatch);
	emit_epilogue(&x);
	resolve_jumps(&x);
	free(live);
	return xl_finish(&x, len, out, out_cnt);
}
