// SPDX-License-Identifier: GPL-2.0
/* A small eBPF interpreter for the translator's output; see ebpf_interp.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "filter/ebpf_interp.h"

/* Where the three regions live in the program's (virtual) address space. */
#define VM_CTX	      0x10000000ULL
#define VM_STACK      0x20000000ULL
#define VM_PKT	      0x30000000ULL
#define VM_STACK_SIZE 512
#define VM_TC_UNSPEC  0xffffffffU /* TC_ACT_UNSPEC, what "no match" returns */

/* What a register holds, as far as the verifier's pointer rules go. */
enum vm_tag {
	VM_SCALAR,
	VM_PTR_CTX,
	VM_PTR_STACK,
	VM_PTR_PKT,
	VM_PTR_PKT_END,
};

struct vm {
	enum pp_vm_mode mode;
	uint64_t r[MAX_BPF_REG];
	uint8_t tag[MAX_BPF_REG];
	uint16_t set;	 /* registers written: the verifier's "!read_ok" */
	uint64_t proven; /* packet bytes a data_end comparison on this path allows */
	uint8_t stack[VM_STACK_SIZE];
	bool stack_set[VM_STACK_SIZE];
	const uint8_t *pkt;
	const struct pp_vm_pkt *vlan; /* its vlan_* fields: the tag in metadata */
	uint32_t caplen;	      /* bytes at pkt: the linear part, up to data_end */
	uint32_t len;		      /* ctx->len */
	size_t pc;
	char *err;
	size_t errlen;
};

static int vm_fail(struct vm *m, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(m->err, m->errlen, "insn %zu: ", m->pc);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < m->errlen)
		vsnprintf(m->err + n, m->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static int size_of(uint8_t code)
{
	static const int sz[] = {
		[BPF_W >> 3] = 4, [BPF_H >> 3] = 2, [BPF_B >> 3] = 1, [BPF_DW >> 3] = 8};

	return sz[BPF_SIZE(code) >> 3];
}

static bool alu_known(const struct bpf_insn *i)
{
	bool is64 = BPF_CLASS(i->code) == BPF_ALU64, k = BPF_SRC(i->code) == BPF_K;
	uint8_t op = BPF_OP(i->code);

	if (i->off || i->dst_reg >= BPF_REG_10)
		return false;
	if (op == BPF_END) /* BPF_SRC() is the byte order here */
		return !is64 && !i->src_reg && (i->imm == 16 || i->imm == 32 || i->imm == 64);
	if (k ? i->src_reg != 0 : i->imm != 0 || i->src_reg > BPF_REG_10)
		return false;
	switch (op) {
	case BPF_NEG:
		return k && !i->imm;
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH:
		return !k || (i->imm >= 0 && i->imm < (is64 ? 64 : 32));
	case BPF_DIV:
	case BPF_MOD:
		return !k || i->imm != 0;
	}
	return op <= BPF_ARSH;
}

static int32_t mode_helper(enum pp_vm_mode mode)
{
	return mode == PP_VM_PROBE ? BPF_FUNC_probe_read_kernel : BPF_FUNC_skb_load_bytes;
}

static bool jmp_known(const struct bpf_insn *i, enum pp_vm_mode mode)
{
	bool is32 = BPF_CLASS(i->code) == BPF_JMP32;
	uint8_t op = BPF_OP(i->code);

	switch (op) {
	case BPF_JA:
		return !is32 && BPF_SRC(i->code) == BPF_K && !i->imm && !i->src_reg && !i->dst_reg;
	case BPF_CALL:
		return !is32 && !i->src_reg && !i->dst_reg && !i->off &&
		       i->imm == mode_helper(mode);
	case BPF_EXIT:
		return !is32 && !i->src_reg && !i->dst_reg && !i->off && !i->imm;
	}
	if (op > BPF_JSLE || i->dst_reg > BPF_REG_10)
		return false;
	return BPF_SRC(i->code) == BPF_K ? !i->src_reg : !i->imm && i->src_reg <= BPF_REG_10;
}

static bool insn_known(const struct bpf_insn *i, enum pp_vm_mode mode)
{
	switch (BPF_CLASS(i->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		return alu_known(i);
	case BPF_JMP:
	case BPF_JMP32:
		return jmp_known(i, mode);
	case BPF_LDX:
		return BPF_MODE(i->code) == BPF_MEM && i->dst_reg < BPF_REG_10 &&
		       i->src_reg <= BPF_REG_10 && !i->imm;
	case BPF_ST:
		return BPF_MODE(i->code) == BPF_MEM && i->dst_reg <= BPF_REG_10 && !i->src_reg;
	case BPF_STX:
		return BPF_MODE(i->code) == BPF_MEM && i->dst_reg <= BPF_REG_10 &&
		       i->src_reg <= BPF_REG_10 && !i->imm;
	}
	return false; /* BPF_LD: neither ld_imm64 nor the legacy packet loads */
}

static bool is_jump(const struct bpf_insn *i)
{
	uint8_t op = BPF_OP(i->code);

	return (BPF_CLASS(i->code) == BPF_JMP || BPF_CLASS(i->code) == BPF_JMP32) &&
	       op != BPF_CALL && op != BPF_EXIT;
}

static bool falls_through(const struct bpf_insn *i)
{
	if (is_jump(i))
		return BPF_OP(i->code) != BPF_JA;
	return BPF_CLASS(i->code) != BPF_JMP || BPF_OP(i->code) != BPF_EXIT;
}

int pp_ebpf_check(const struct bpf_insn *v, size_t cnt, enum pp_vm_mode mode, char *err,
		  size_t errlen)
{
	bool *seen = calloc(cnt + 1, sizeof(*seen));
	struct vm m = {.err = err, .errlen = errlen};
	int ret = 0;

	if (!seen)
		return vm_fail(&m, "out of memory");
	seen[0] = true;
	for (m.pc = 0; m.pc < cnt && !ret; m.pc++) {
		const struct bpf_insn *i = &v[m.pc];
		long to = (long)m.pc + 1 + i->off;

		if (!seen[m.pc])
			ret = vm_fail(&m, "unreachable (the verifier refuses dead code)");
		else if (!insn_known(i, mode))
			ret = vm_fail(&m,
				      "unexpected instruction code 0x%02x dst %u src %u off %d "
				      "imm %d",
				      i->code, i->dst_reg, i->src_reg, i->off, i->imm);
		else if (is_jump(i) && (i->off < 0 || to > (long)cnt))
			ret = vm_fail(&m, "jump to %ld, outside (%zu, %zu]", to, m.pc, cnt);
		if (ret)
			break;
		if (is_jump(i))
			seen[to] = true;
		if (falls_through(i))
			seen[m.pc + 1] = true;
	}
	if (!ret && mode == PP_VM_TC && !seen[cnt])
		ret = vm_fail(&m, "the classifier's code after the filter is unreachable");
	if (!ret && mode == PP_VM_PROBE && seen[cnt])
		ret = vm_fail(&m, "the subprogram does not end in an exit");
	free(seen);
	return ret;
}

static bool reg_get(struct vm *m, int r, uint64_t *val)
{
	if (!(m->set >> r & 1)) {
		vm_fail(m, "r%d read before it was written", r);
		return false;
	}
	*val = m->r[r];
	return true;
}

static void reg_put_tag(struct vm *m, int r, uint64_t val, enum vm_tag tag)
{
	m->r[r] = val;
	m->tag[r] = (uint8_t)tag;
	m->set |= (uint16_t)(1u << r);
}

static void reg_put(struct vm *m, int r, uint64_t val)
{
	reg_put_tag(m, r, val, VM_SCALAR);
}

static bool in(uint64_t addr, int size, uint64_t base, uint64_t len)
{
	return addr >= base && addr - base <= len && (uint64_t)size <= len - (addr - base);
}

/* The stack bytes at ADDR, or NULL (with the error) if any is out of it. */
static uint8_t *stack_at(struct vm *m, uint64_t addr, uint32_t size)
{
	if (!in(addr, (int)size, VM_STACK, VM_STACK_SIZE) || !size) {
		vm_fail(m, "stack access of %u bytes at fp%+lld", size,
			(long long)(addr - (VM_STACK + VM_STACK_SIZE)));
		return NULL;
	}
	return &m->stack[addr - VM_STACK];
}

static bool ctx_load(struct vm *m, uint64_t off, int size, uint64_t *val, enum vm_tag *tag)
{
	*tag = VM_SCALAR;
	if (size == 4 && off == offsetof(struct __sk_buff, len)) {
		*val = m->len;
	} else if (size == 4 && off == offsetof(struct __sk_buff, data)) {
		*val = VM_PKT;
		*tag = VM_PTR_PKT;
	} else if (size == 4 && off == offsetof(struct __sk_buff, data_end)) {
		*val = VM_PKT + m->caplen;
		*tag = VM_PTR_PKT_END;
	} else if (size == 4 && off == offsetof(struct __sk_buff, vlan_present)) {
		*val = m->vlan->vlan_present;
	} else if (size == 4 && off == offsetof(struct __sk_buff, vlan_proto)) {
		/* the skb's __be16, loaded as a 16-bit value on a little-endian host */
		*val = __builtin_bswap16(m->vlan->vlan_proto);
	} else if (size == 4 && off == offsetof(struct __sk_buff, vlan_tci)) {
		*val = m->vlan->vlan_tci;
	} else {
		vm_fail(m, "context load of %d bytes at %llu", size, (unsigned long long)off);
		return false;
	}
	return true;
}

static int stack_load(struct vm *m, uint64_t addr, int size, uint64_t *val)
{
	const uint8_t *p = stack_at(m, addr, (uint32_t)size);

	if (!p)
		return -1;
	for (int b = 0; b < size; b++)
		if (!m->stack_set[p - m->stack + b])
			return vm_fail(m, "stack byte fp%+lld read before it was written",
				       (long long)(p - m->stack + b - VM_STACK_SIZE));
	memcpy(val, p, size);
	return 0;
}

static int pkt_load(struct vm *m, uint64_t addr, int size, uint64_t *val)
{
	if (!in(addr, size, VM_PKT, m->caplen))
		return vm_fail(m, "packet load of %d bytes at %lld: the frame has %u", size,
			       (long long)(addr - VM_PKT), m->caplen);
	if (addr - VM_PKT + size > m->proven)
		return vm_fail(m,
			       "packet load of %d bytes at %llu: only %llu checked against "
			       "data_end",
			       size, (unsigned long long)(addr - VM_PKT),
			       (unsigned long long)m->proven);
	memcpy(val, m->pkt + (addr - VM_PKT), size); /* little-endian host */
	return 0;
}

static int do_ldx(struct vm *m, const struct bpf_insn *i)
{
	int size = size_of(i->code);
	enum vm_tag tag = VM_SCALAR;
	uint64_t base, addr, val = 0;
	int ret;

	if (!reg_get(m, i->src_reg, &base))
		return -1;
	addr = base + (uint64_t)(int64_t)i->off;
	switch (m->tag[i->src_reg]) {
	case VM_PTR_CTX:
		ret = ctx_load(m, addr - VM_CTX, size, &val, &tag) ? 0 : -1;
		break;
	case VM_PTR_STACK:
		ret = stack_load(m, addr, size, &val);
		break;
	case VM_PTR_PKT:
		ret = pkt_load(m, addr, size, &val);
		break;
	default:
		ret = vm_fail(m, "load through r%u, which holds no readable pointer", i->src_reg);
	}
	if (!ret)
		reg_put_tag(m, i->dst_reg, val, tag);
	return ret;
}

static int do_store(struct vm *m, const struct bpf_insn *i)
{
	int size = size_of(i->code);
	uint64_t base, val = (uint64_t)(int64_t)i->imm;
	uint8_t *p;

	if (!reg_get(m, i->dst_reg, &base))
		return -1;
	if (m->tag[i->dst_reg] != VM_PTR_STACK)
		return vm_fail(m, "store through r%u, not a stack pointer", i->dst_reg);
	if (BPF_CLASS(i->code) == BPF_STX && !reg_get(m, i->src_reg, &val))
		return -1;
	p = stack_at(m, base + (uint64_t)(int64_t)i->off, (uint32_t)size);
	if (!p)
		return -1;
	memcpy(p, &val, size);
	memset(&m->stack_set[p - m->stack], 1, size);
	return 0;
}

static uint64_t bswap(uint64_t v, int bits)
{
	if (bits == 16)
		return __builtin_bswap16((uint16_t)v);
	if (bits == 32)
		return __builtin_bswap32((uint32_t)v);
	return __builtin_bswap64(v);
}

static uint64_t alu_op(uint8_t op, uint64_t dst, uint64_t src, bool is64)
{
	unsigned int mask = is64 ? 63 : 31;

	switch (op) {
	case BPF_ADD:
		return dst + src;
	case BPF_SUB:
		return dst - src;
	case BPF_MUL:
		return dst * src;
	case BPF_DIV: /* the kernel's semantics: x / 0 = 0, x % 0 = x */
		return src ? dst / src : 0;
	case BPF_MOD:
		return src ? dst % src : dst;
	case BPF_OR:
		return dst | src;
	case BPF_AND:
		return dst & src;
	case BPF_XOR:
		return dst ^ src;
	case BPF_LSH:
		return dst << (src & mask);
	case BPF_RSH:
		return dst >> (src & mask);
	case BPF_ARSH:
		if (is64)
			return (uint64_t)((int64_t)dst >> (src & mask));
		return (uint32_t)((int32_t)(uint32_t)dst >> (src & mask));
	case BPF_NEG:
		return 0 - dst;
	}
	return src; /* BPF_MOV */
}

/*
 * The pointer rules the translation may meet: a 64-bit move copies a pointer,
 * a 64-bit ADD or SUB moves one by a scalar; anything else on a pointer is
 * refused (the translator has no business doing it).
 */
static int alu_tag(struct vm *m, const struct bpf_insn *i, enum vm_tag *tag)
{
	bool is64 = BPF_CLASS(i->code) == BPF_ALU64, x = BPF_SRC(i->code) == BPF_X;
	uint8_t op = BPF_OP(i->code);
	enum vm_tag d = m->tag[i->dst_reg], s = x ? m->tag[i->src_reg] : VM_SCALAR;

	if (op == BPF_MOV)
		d = VM_SCALAR;
	*tag = d != VM_SCALAR ? d : s;
	if (d == VM_SCALAR && s == VM_SCALAR)
		return 0;
	if (is64 && op == BPF_MOV)
		return 0;
	if (is64 && (op == BPF_ADD || op == BPF_SUB) && (d == VM_SCALAR || s == VM_SCALAR) &&
	    (op == BPF_ADD || s == VM_SCALAR))
		return 0;
	return vm_fail(m, "ALU op 0x%02x on a pointer", i->code);
}

static int do_alu(struct vm *m, const struct bpf_insn *i)
{
	bool is64 = BPF_CLASS(i->code) == BPF_ALU64;
	uint8_t op = BPF_OP(i->code);
	uint64_t dst = 0, src = (uint64_t)(int64_t)i->imm;
	enum vm_tag tag;

	if (op != BPF_MOV && !reg_get(m, i->dst_reg, &dst))
		return -1;
	if (BPF_SRC(i->code) == BPF_X && op != BPF_END && !reg_get(m, i->src_reg, &src))
		return -1;
	if (alu_tag(m, i, &tag))
		return -1;
	if (op == BPF_END) {
		dst = BPF_SRC(i->code) == BPF_TO_BE ? bswap(dst, i->imm) : dst;
		if (i->imm < 64)
			dst &= (1ULL << i->imm) - 1;
		reg_put(m, i->dst_reg, dst);
		return 0;
	}
	if (!is64) {
		dst = (uint32_t)dst;
		src = (uint32_t)src;
	}
	dst = alu_op(op, dst, src, is64);
	reg_put_tag(m, i->dst_reg, is64 ? dst : (uint32_t)dst, tag);
	return 0;
}

static bool cond(uint8_t op, uint64_t a, uint64_t b, bool is32)
{
	int64_t sa = is32 ? (int32_t)a : (int64_t)a, sb = is32 ? (int32_t)b : (int64_t)b;

	if (is32) {
		a = (uint32_t)a;
		b = (uint32_t)b;
	}
	switch (op) {
	case BPF_JEQ:
		return a == b;
	case BPF_JNE:
		return a != b;
	case BPF_JGT:
		return a > b;
	case BPF_JGE:
		return a >= b;
	case BPF_JLT:
		return a < b;
	case BPF_JLE:
		return a <= b;
	case BPF_JSET:
		return a & b;
	case BPF_JSGT:
		return sa > sb;
	case BPF_JSGE:
		return sa >= sb;
	case BPF_JSLT:
		return sa < sb;
	}
	return sa <= sb; /* BPF_JSLE */
}

/*
 * bpf_skb_load_bytes(ctx, offset, to, len), as net/core/filter.c has it: an
 * offset past INT_MAX, or bytes past the end (skb_header_pointer()), clear
 * the buffer and return -EFAULT. The end here is the captured bytes' (see
 * struct pp_vm_pkt).
 */
static int do_load_bytes(struct vm *m)
{
	uint64_t ctx, off, to, n;
	uint8_t *p;

	if (!reg_get(m, 1, &ctx) || !reg_get(m, 2, &off) || !reg_get(m, 3, &to) ||
	    !reg_get(m, 4, &n))
		return -1;
	if (m->tag[1] != VM_PTR_CTX || m->tag[3] != VM_PTR_STACK || m->tag[2] || m->tag[4])
		return vm_fail(m, "bpf_skb_load_bytes: r1 not the context, r3 not the stack, or "
				  "r2/r4 not scalars");
	if (n == 0 || n > VM_STACK_SIZE)
		return vm_fail(m, "bpf_skb_load_bytes: length %llu", (unsigned long long)n);
	p = stack_at(m, to, (uint32_t)n);
	if (!p)
		return -1;
	off = (uint32_t)off;
	if (off > INT32_MAX || off + n > m->caplen) {
		memset(p, 0, n);
		reg_put(m, 0, (uint64_t)-EFAULT);
	} else {
		memcpy(p, m->pkt + off, n);
		reg_put(m, 0, 0);
	}
	memset(&m->stack_set[p - m->stack], 1, n);
	m->set &= (uint16_t)~0x3eu; /* r1-r5 are caller-saved */
	return 0;
}

/*
 * Comparisons of pointers: only "pkt > pkt_end" (and "pkt <= pkt_end") teach
 * the verifier anything: on the way where it is false (true), the bytes up
 * to pkt may be read. Other comparisons of pointers are not expected.
 */
static int jmp_pointers(struct vm *m, const struct bpf_insn *i, bool taken)
{
	enum vm_tag d = m->tag[i->dst_reg], s = VM_SCALAR;
	uint8_t op = BPF_OP(i->code);

	if (BPF_SRC(i->code) == BPF_X)
		s = m->tag[i->src_reg];
	if (d == VM_SCALAR && s == VM_SCALAR)
		return 0;
	if (BPF_CLASS(i->code) != BPF_JMP || d != VM_PTR_PKT || s != VM_PTR_PKT_END)
		return vm_fail(m, "comparison 0x%02x of r%u and r%u: pointers of other kinds",
			       i->code, i->dst_reg, i->src_reg);
	if ((op == BPF_JGT && !taken) || (op == BPF_JLE && taken))
		if (m->r[i->dst_reg] - VM_PKT > m->proven)
			m->proven = m->r[i->dst_reg] - VM_PKT;
	return 0;
}

/*
 * bpf_probe_read_kernel(dst, size, unsafe_ptr) in probe mode, where data is
 * the frame's address: a read outside the frame would read whatever kernel
 * memory lies there, so it is a fault here.
 */
static int do_probe_read(struct vm *m)
{
	uint64_t to, n, from;
	uint8_t *p;

	if (!reg_get(m, 1, &to) || !reg_get(m, 2, &n) || !reg_get(m, 3, &from))
		return -1;
	if (m->tag[1] != VM_PTR_STACK || m->tag[2] || m->tag[3])
		return vm_fail(m, "bpf_probe_read_kernel: r1 not the stack, or r2/r3 not scalars");
	if (n == 0 || n > VM_STACK_SIZE)
		return vm_fail(m, "bpf_probe_read_kernel: length %llu", (unsigned long long)n);
	p = stack_at(m, to, (uint32_t)n);
	if (!p)
		return -1;
	if (!in(from, (int)n, VM_PKT, m->caplen))
		return vm_fail(m,
			       "bpf_probe_read_kernel of %llu bytes at data%+lld: outside the "
			       "%u bytes of the linear part",
			       (unsigned long long)n, (long long)(from - VM_PKT), m->caplen);
	memcpy(p, m->pkt + (from - VM_PKT), n);
	memset(&m->stack_set[p - m->stack], 1, n);
	reg_put(m, 0, 0);
	m->set &= (uint16_t)~0x3eu; /* r1-r5 are caller-saved */
	return 0;
}

/* The next pc, or -1 on an error; sets *done on exit. */
static long do_jmp(struct vm *m, const struct bpf_insn *i, bool *done)
{
	bool is32 = BPF_CLASS(i->code) == BPF_JMP32;
	uint64_t a, b = is32 ? (uint32_t)i->imm : (uint64_t)(int64_t)i->imm;
	long next = (long)m->pc + 1;
	bool taken;

	switch (BPF_OP(i->code)) {
	case BPF_JA:
		return next + i->off;
	case BPF_CALL:
		if (m->mode == PP_VM_PROBE)
			return do_probe_read(m) ? -1 : next;
		return do_load_bytes(m) ? -1 : next;
	case BPF_EXIT:
		*done = true;
		return next;
	}
	if (!reg_get(m, i->dst_reg, &a) ||
	    (BPF_SRC(i->code) == BPF_X && !reg_get(m, i->src_reg, &b)))
		return -1;
	taken = cond(BPF_OP(i->code), a, b, is32);
	if (jmp_pointers(m, i, taken))
		return -1;
	return taken ? next + i->off : next;
}

static int step(struct vm *m, const struct bpf_insn *i, bool *done)
{
	long next;

	switch (BPF_CLASS(i->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		return do_alu(m, i) ? -1 : (int)m->pc + 1;
	case BPF_LDX:
		return do_ldx(m, i) ? -1 : (int)m->pc + 1;
	case BPF_ST:
	case BPF_STX:
		return do_store(m, i) ? -1 : (int)m->pc + 1;
	}
	next = do_jmp(m, i, done);
	return (int)next;
}

/* How the program ends: exit with the mode's "no match" or verdict, or (TC) falling off. */
static int finish(struct vm *m, bool exited, int *match)
{
	uint64_t r;

	if (!exited && m->mode == PP_VM_PROBE)
		return vm_fail(m, "the subprogram runs off its end");
	if (!exited) {
		if (!reg_get(m, BPF_REG_1, &r))
			return -1;
		if (r != VM_CTX || m->tag[BPF_REG_1] != VM_PTR_CTX)
			return vm_fail(m, "the classifier's code is entered with r1 != ctx");
		*match = 1;
		return 0;
	}
	if (!reg_get(m, BPF_REG_0, &r))
		return -1;
	if (m->tag[BPF_REG_0] != VM_SCALAR)
		return vm_fail(m, "exit with a pointer in r0");
	if (m->mode == PP_VM_PROBE && r > 1)
		return vm_fail(m, "exit with r0 = %lld, not 0 or 1", (long long)r);
	if (m->mode == PP_VM_TC && (uint32_t)r != VM_TC_UNSPEC)
		return vm_fail(m, "exit with r0 = %lld, not TC_ACT_UNSPEC", (long long)r);
	*match = m->mode == PP_VM_PROBE ? (int)r : 0;
	return 0;
}

/* The registers at entry: the probe subprogram's arguments, or the ctx; r10 the frame. */
static void enter(struct vm *m)
{
	if (m->mode == PP_VM_PROBE) {
		reg_put(m, BPF_REG_1, VM_PKT); /* data: the frame's address */
		reg_put(m, BPF_REG_2, m->len);
		reg_put(m, BPF_REG_3, m->caplen); /* headlen: the linear part */
	} else {
		reg_put_tag(m, BPF_REG_1, VM_CTX, VM_PTR_CTX);
	}
	reg_put_tag(m, BPF_REG_10, VM_STACK + VM_STACK_SIZE, VM_PTR_STACK);
}

/* V run to its exit (*DONE) or off its end; -1 on an error, said in m->err. */
static int run_steps(struct vm *m, const struct bpf_insn *v, size_t cnt, bool *done)
{
	int next;

	/* Forward jumps only (pp_ebpf_check()): at most cnt steps. */
	while (m->pc < cnt && !*done) {
		next = step(m, &v[m->pc], done);
		if (next < 0)
			return -1;
		if (*done)
			break;
		if ((size_t)next <= m->pc || (size_t)next > cnt)
			return vm_fail(m, "jump to %d", next);
		m->pc = (size_t)next;
	}
	return 0;
}

int pp_ebpf_run(const struct bpf_insn *v, size_t cnt, enum pp_vm_mode mode,
		const struct pp_vm_pkt *pkt, int *match, uint64_t *regs, char *err, size_t errlen)
{
	struct vm *m = calloc(1, sizeof(*m));
	bool done = false;
	int ret = -1;

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*m = (struct vm){.mode = mode,
			 .pkt = pkt->data,
			 .vlan = pkt,
			 .caplen = pkt->caplen,
			 .len = pkt->len < pkt->caplen ? pkt->caplen : pkt->len,
			 .err = err,
			 .errlen = errlen};
	enter(m);
	if (!run_steps(m, v, cnt, &done) && !finish(m, done, match)) {
		if (regs)
			memcpy(regs, m->r, sizeof(m->r));
		ret = 0;
	}
	free(m);
	return ret;
}
