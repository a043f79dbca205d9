/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuzzers of file readers hand each input to the reader as a file, by
 * path, as pktpath's users do: a memfd reached through /proc/self/fd.
 */
#ifndef FZ_MEMFILE_H
#define FZ_MEMFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A property of a fuzz target: on failure, say which and abort (a crash for libFuzzer). */
#define FZ_CHECK(cond)                                                                             \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "PROPERTY FAILED: %s (%s:%d)\n", #cond, __FILE__,          \
				__LINE__);                                                         \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* A memfd holding DATA, its /proc path in PATH; the fd, or -1. */
int fz_memfile(const uint8_t *data, size_t size, char *path, size_t len);

#endif
