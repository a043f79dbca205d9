/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuzzers of file readers hand each input to the reader as a file, by
 * path, as pktpath's users do: a memfd reached through /proc/self/fd.
 */
#ifndef FZ_MEMFILE_H
#define FZ_MEMFILE_H

#include <stddef.h>
#include <stdint.h>

/* A memfd holding DATA, its /proc path in PATH; the fd, or -1. */
int fz_memfile(const uint8_t *data, size_t size, char *path, size_t len);

#endif
