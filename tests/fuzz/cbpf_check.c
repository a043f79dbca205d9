// SPDX-License-Identifier: GPL-2.0
/*
 * Classifies a classic program for fuzz_xlate: whether libpcap can run it,
 * whether pktpath refuses it by design, and whether libpcap's verdict on it
 * depends on uninitialised scratch memory.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include "cbpf_check.h"
#include "cbpf_input.h"

#define FZ_MEMWORDS 16

static bool is_mem_load(uint16_t code)
{
	return (BPF_CLASS(code) == BPF_LD || BPF_CLASS(code) == BPF_LDX) &&
	       BPF_MODE(code) == BPF_MEM;
}

static bool is_mem_store(uint16_t code)
{
	return BPF_CLASS(code) == BPF_ST || BPF_CLASS(code) == BPF_STX;
}

static bool by_design(const struct sock_filter *f)
{
	if (BPF_CLASS(f->code) == BPF_JMP && BPF_OP(f->code) == BPF_JA)
		return (int32_t)f->k < 0;
	return BPF_CLASS(f->code) == BPF_ALU && BPF_SRC(f->code) == BPF_K &&
	       (BPF_OP(f->code) == BPF_LSH || BPF_OP(f->code) == BPF_RSH) && f->k >= 32;
}

/* Narrows what is surely stored at TO by what is surely stored on one way in. */
static void flow_to(uint16_t *set, bool *seen, size_t to, size_t len, uint16_t out)
{
	if (to >= len)
		return;
	set[to] = seen[to] ? set[to] & out : out;
	seen[to] = true;
}

/* Forward edges only: a backward JA is refused before anything runs. */
static void successors(const struct sock_filter *f, size_t pc, size_t len, uint16_t *set,
		       bool *seen, uint16_t out)
{
	if (BPF_CLASS(f->code) == BPF_RET)
		return;
	if (BPF_CLASS(f->code) != BPF_JMP) {
		flow_to(set, seen, pc + 1, len, out);
	} else if (BPF_OP(f->code) == BPF_JA) {
		if ((int32_t)f->k >= 0)
			flow_to(set, seen, pc + 1 + (size_t)f->k, len, out);
	} else {
		flow_to(set, seen, pc + 1 + f->jt, len, out);
		flow_to(set, seen, pc + 1 + f->jf, len, out);
	}
}

void fz_classify(const struct sock_filter *prog, size_t len, struct fz_class *c)
{
	uint16_t *set = calloc(len ? len : 1, sizeof(*set));
	bool *seen = calloc(len ? len : 1, sizeof(*seen));

	memset(c, 0, sizeof(*c));
	if (!set || !seen) {
		free(set);
		free(seen);
		abort();
	}
	c->valid = len > 0 && fz_pcap_validate(prog, len);
	for (size_t pc = 0; pc < len && c->valid; pc++)
		c->valid = fz_op_valid(prog[pc].code);
	c->ret_a_only = true;
	if (len)
		seen[0] = true;
	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &prog[pc];
		uint16_t out = set[pc];

		if (!seen[pc])
			continue;
		c->refused_by_design |= by_design(f);
		if (BPF_CLASS(f->code) == BPF_RET && f->code != (BPF_RET | BPF_A))
			c->ret_a_only = false;
		if (is_mem_load(f->code) && (f->k >= FZ_MEMWORDS || !(set[pc] >> f->k & 1)))
			c->reads_unset_mem = true;
		if (is_mem_store(f->code) && f->k < FZ_MEMWORDS)
			out |= (uint16_t)(1u << f->k);
		successors(f, pc, len, set, seen, out);
	}
	free(set);
	free(seen);
}
