/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_paths's input format: fuzzer bytes -> a list of calls into path.c.
 * The seed generator writes the same format. An input is a sequence of
 * operations, each an op byte and what that kind reads; a read past the end
 * of the input gives zeros, and the input ends at an op byte past the end.
 *
 * op & 7 is the kind (FZ_OP_*), op >> 3 the flags (FZ_F_*). HOP, COPY,
 * END and MARK read, in this order:
 *
 *   u8  id: below 0xf0, one of 16 ids (id % 16 + 1); below 0xf8 a new id
 *       (FZ_FRESH_ID on, as the kernel gives them); else a u64 follows
 *   u8  skb: below 0xf8, one of 8 skbs; else a u64 follows
 *   u8  ts step: a signed step of the records' clock (x 37 ns); with
 *       FZ_F_RAW_TS a u64 ts follows instead
 *   u8  probe: 0-7 a list index, 8 tc:ingress, 9 tc:egress, 10 the END a
 *       receive call's end sends (PP_PROBE_READ: a read), else x 977
 *   u8  now step: the caller's clock moves on by this x 1 us
 *   with FZ_F_DETAIL: u32 cpu, netns, ifindex, pid, len, flags (ORed in);
 *       16 bytes ifname, 16 bytes comm (else fixed values)
 *   END only: u8 fate (FZ_FATES[fate & 15])
 *   COPY only: u8 parent (location): below 0xf0 one of the 8 skbs, below
 *       0xf8 none (0), else a u64 follows
 *   with FZ_F_DROPINFO: u32 reason, u64 location (a COPY's parent too), u32 lost
 *   MARK only: u8 cap_len, then min(cap_len, 128) data bytes; the record
 *       is cut after its data with FZ_F_TRIM, else full size. On any other
 *       record FZ_F_TRIM sets PP_HOP_SHARED in flags (only an END's counts).
 *   with FZ_F_BADSIZE: u8 size, the record's size % (sizeof(pp_mark) + 9)
 *
 * CLOCK reads u8 s: s >= 0xc0 is pp_paths_flush(); s >= 0xa0 a burst of
 * (u8 + 1) x 2 records of new ids, alternately a HOP (the packet stays open)
 * and an END (it opens and closes), to grow the tables; s >= 0x80 a copy
 * first seen at its own free: a COPY then an END of the same skb and probe,
 * reading u8 id, skb, parent and probe as above and u8 fate, the END
 * PP_HOP_SHARED if s & 1, 37 ns after the COPY if s & 2 (else at its ts),
 * a reader's free (PP_HOP_READ) if s & 8, a tap's (PP_HOP_TAP) if s & 16,
 * and a HOP of the parent between them, at the COPY's ts, if s & 4; else
 * the caller's clock moves on by (s & 0x3f) x 100 us, and a u8 t gives
 * pp_paths_expire() a timeout of t x 20 us. RAW reads u8 type (types[t %
 * 6], the last one a u32 that follows), u8 size as with FZ_F_BADSIZE, then
 * the record's bytes.
 *
 * An input of an even size ends with pp_paths_flush(); an odd one frees the
 * table with its packets open, as pktpath does at exit.
 */
#ifndef PP_FUZZ_PATHS_INPUT_H
#define PP_FUZZ_PATHS_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "pktpath.h"

enum fz_op_kind {
	FZ_OP_HOP = 0, /* 0, 1 */
	FZ_OP_COPY = 2,
	FZ_OP_END = 3, /* 3, 4 */
	FZ_OP_MARK = 5,
	FZ_OP_CLOCK = 6,
	FZ_OP_RAW = 7,
};

enum fz_op_flags {
	FZ_F_RAW_TS = 1 << 0,
	FZ_F_DETAIL = 1 << 1,
	FZ_F_DROPINFO = 1 << 2,
	FZ_F_TRIM = 1 << 3,
	FZ_F_BADSIZE = 1 << 4,
};

#define FZ_OP(kind, flags) ((uint8_t)((kind) | (flags) << 3))
#define FZ_SKB_BASE	   0xffff888004000000ULL
#define FZ_NOW_START	   1000000000ULL
#define FZ_TS_START	   5000000000ULL
#define FZ_FRESH_ID	   1000
#define FZ_REC_MAX	   (sizeof(struct pp_mark) + 8)

enum fz_action_kind {
	FZ_ADD,
	FZ_EXPIRE,
	FZ_FLUSH,
};

struct fz_action {
	enum fz_action_kind kind;
	__u64 now, timeout;
	size_t size;		 /* FZ_ADD: the record's size */
	uint8_t rec[FZ_REC_MAX]; /* FZ_ADD: the record, zero past what was set */
};

struct fz_reader {
	const uint8_t *p;
	size_t n;
	__u64 now, ts;	/* the caller's clock, the records' clock */
	__u64 next_id;	/* the next new id */
	size_t burst;	/* records of a burst still to come */
	size_t burst_i; /* index of the next one */
	/* Records of a copy-at-end still to come, last first. */
	struct pp_hop pending[2];
	size_t npending;
};

void fz_reader_init(struct fz_reader *r, const uint8_t *data, size_t size);
/* The next action; 0 if there is none left. */
int fz_next_action(struct fz_reader *r, struct fz_action *a);

#endif
