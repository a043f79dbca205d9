// SPDX-License-Identifier: GPL-2.0
/*
 * Seeds for fuzz_pcap, written at fuzz time (scripts/fuzz.sh) so that no
 * binary corpus lives in the tree:
 *
 *   fuzz_input_seeds PCAP_DIR
 *
 * A pcap file written by libpcap and a pcapng file written here (section
 * header, interface description, enhanced packet blocks), each with a few
 * Ethernet frames; each seed starts with fuzz_pcap's stop byte (0).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <pcap/pcap.h>

/* Ethernet + IPv4 + ICMP echo from 198.18.0.1 to 198.18.1.2. */
static const uint8_t frame[] = "\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" /* Ethernet */
			       "\x45\0\0\x1c\0\x01\x40\0\x40\x01\0\0"	  /* IPv4 */
			       "\xc6\x12\x00\x01\xc6\x12\x01\x02"
			       "\x08\0\xf7\xfe\0\x01\0\0"; /* ICMP echo */
#define FRAME_LEN (sizeof(frame) - 1)

static FILE *open_seed(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f)
		fputc(0, f);
	else
		perror(path);
	return f;
}

static int write_pcap(const char *dir)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, 65535);
	FILE *f = open_seed(dir, "three.pcap");
	pcap_dumper_t *d;

	if (!p || !f)
		return 1;
	d = pcap_dump_fopen(p, f);
	if (!d)
		return 1;
	for (int i = 0; i < 3; i++) {
		struct pcap_pkthdr h = {
			.ts = {.tv_sec = i}, .caplen = FRAME_LEN - i, .len = FRAME_LEN};

		pcap_dump((u_char *)d, &h, frame);
	}
	pcap_dump_close(d);
	pcap_close(p);
	return 0;
}

static void put32(FILE *f, uint32_t v)
{
	fwrite(&v, 4, 1, f);
}

static void put16(FILE *f, uint16_t v)
{
	fwrite(&v, 2, 1, f);
}

/* Host byte order, as a writer on this machine would; the magic says which. */
static int write_pcapng(const char *dir)
{
	FILE *f = open_seed(dir, "two.pcapng");
	uint32_t pad = (4 - FRAME_LEN % 4) % 4, eplen = 32 + FRAME_LEN + pad;

	if (!f)
		return 1;
	put32(f, 0x0a0d0d0a); /* section header block, no options */
	put32(f, 28);
	put32(f, 0x1a2b3c4d);
	put16(f, 1);
	put16(f, 0);
	put32(f, 0xffffffff); /* section length unknown */
	put32(f, 0xffffffff);
	put32(f, 28);
	put32(f, 1); /* interface description: Ethernet */
	put32(f, 20);
	put16(f, DLT_EN10MB);
	put16(f, 0);
	put32(f, 65535);
	put32(f, 20);
	for (int i = 0; i < 2; i++) {
		put32(f, 6); /* enhanced packet block */
		put32(f, eplen);
		put32(f, 0);
		put32(f, 0);
		put32(f, (uint32_t)i);
		put32(f, FRAME_LEN);
		put32(f, FRAME_LEN);
		fwrite(frame, FRAME_LEN, 1, f);
		fwrite("\0\0\0", pad, 1, f);
		put32(f, eplen);
	}
	return fclose(f) != 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PCAP_DIR\n", argv[0]);
		return 2;
	}
	return write_pcap(argv[1]) || write_pcapng(argv[1]);
}
