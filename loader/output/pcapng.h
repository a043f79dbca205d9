/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcapng blocks, encoded into memory: a Section Header Block, an Interface
 * Description Block per interface, an Enhanced Packet Block per packet
 * (the format of draft-ietf-opsawg-pcapng; host byte order, which the
 * Section Header's byte-order magic tells readers). No I/O here: the
 * exporter (export_pcapng.c) writes what these return, and Check tests
 * compare them byte for byte.
 *
 * Each pp_pcapng_*() writes the block into buf if it fits in len and
 * returns its length: more than len means nothing was written (ask again
 * with that much room), as snprintf() tells. Blocks and option values are
 * padded to 32 bits with zero bytes; options end with opt_endofopt.
 */
#ifndef PP_PCAPNG_H
#define PP_PCAPNG_H

#include <stddef.h>
#include <linux/types.h>

#define PP_PCAPNG_SHB 0x0A0D0D0AU
#define PP_PCAPNG_IDB 0x00000001U
#define PP_PCAPNG_EPB 0x00000006U
#define PP_PCAPNG_BOM 0x1A2B3C4DU

/* Option codes used here. */
#define PP_PCAPNG_OPT_END      0
#define PP_PCAPNG_OPT_COMMENT  1 /* any block */
#define PP_PCAPNG_SHB_USERAPPL 4
#define PP_PCAPNG_IF_NAME      2
#define PP_PCAPNG_IF_DESCR     3
#define PP_PCAPNG_IF_TSRESOL   9
#define PP_PCAPNG_EPB_FLAGS    2
#define PP_PCAPNG_EPB_PACKETID 5
#define PP_PCAPNG_LINKTYPE_ETH 1
#define PP_PCAPNG_DIR_INBOUND  1U /* epb_flags bits 0-1 */
#define PP_PCAPNG_DIR_OUTBOUND 2U
#define PP_PCAPNG_OPT_MAX      0xfffcU /* an option's value length is 16 bits; kept aligned */

/* Section Header, section length unknown (-1); APPL: shb_userappl, or NULL. */
size_t pp_pcapng_shb(void *buf, size_t len, const char *appl);

/*
 * Interface Description, nanosecond timestamps (if_tsresol 9): NAME is
 * if_name and DESCR if_description (NULL or "": left out).
 */
size_t pp_pcapng_idb(void *buf, size_t len, __u16 linktype, __u32 snaplen, const char *name,
		     const char *descr);

struct pp_pcapng_pkt {
	__u32 ifid;	     /* the IDB's index in the section, from 0 */
	__u64 ts_ns;	     /* since the epoch, in the interface's ns units */
	const void *data;    /* the captured bytes */
	__u32 caplen;	     /* their number */
	__u32 origlen;	     /* the packet's length on the wire, caplen or more */
	const char *comment; /* opt_comment, NULL or "": none; cut to PP_PCAPNG_OPT_MAX */
	__u32 flags;	     /* epb_flags (PP_PCAPNG_DIR_*), 0: none */
	__u64 packetid;	     /* epb_packetid, 0: none */
};

/* Enhanced Packet. */
size_t pp_pcapng_epb(void *buf, size_t len, const struct pp_pcapng_pkt *pk);

#endif /* PP_PCAPNG_H */
