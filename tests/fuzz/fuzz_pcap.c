// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_pcap: the capture reader of --test-pcap (loader/filter/pcap_io.c, over
 * libpcap) on any file, pcap or pcapng. Properties: it returns 0, -EINVAL
 * or -EIO, with a message on error; frames come numbered 1, 2, ... with at
 * most PP_SNAPLEN bytes each, every byte readable (ASan checks the reads);
 * a non-zero return from the callback stops the reading at once and is
 * returned. Inputs are small, so memory use stays bounded too
 * (-rss_limit_mb in scripts/fuzz.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz_memfile.h"
#include "filter/pcap_io.h"

struct ctx {
	unsigned long frames, stop_at;
	unsigned int sum;
};

static int on_frame(unsigned long num, const unsigned char *data, unsigned int caplen,
		    unsigned int wirelen, void *arg)
{
	struct ctx *c = arg;

	FZ_CHECK(num == c->frames + 1);
	FZ_CHECK(caplen <= PP_SNAPLEN);
	(void)wirelen; /* any value: a capture's claim, checked by nothing */
	c->frames = num;
	/* Touch every byte: a frame past the buffer is ASan's to find. */
	for (unsigned int i = 0; i < caplen; i++)
		c->sum += data[i];
	return num == c->stop_at ? 7 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx c = {0};
	char path[64], err[512] = "";
	int fd, ret;

	/* The first byte picks a frame to stop at (0: read to the end). */
	if (size < 1)
		return 0;
	c.stop_at = data[0] & 3;
	fd = fz_memfile(data + 1, size - 1, path, sizeof(path));
	if (fd < 0)
		return 0;
	ret = pp_pcap_foreach(path, on_frame, &c, err, sizeof(err));
	close(fd);
	if (c.stop_at && c.frames == c.stop_at)
		FZ_CHECK(ret == 7);
	else
		FZ_CHECK(ret == 0 || ret == -EINVAL || ret == -EIO);
	if (ret && ret != 7)
		FZ_CHECK(err[0] != '\0');
	return 0;
}
