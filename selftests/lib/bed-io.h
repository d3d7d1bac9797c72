/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Blocking I/O helpers and frame writing shared by bed-agent and bed-client
 * (each is one .c file built on its own, so these are static inline).
 */
#ifndef BED_IO_H
#define BED_IO_H

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "bed-proto.h"

/* Write all of @buf, retrying after signals; -1 when the peer is gone. */
static inline int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* Read exactly @len bytes; -1 at EOF or on error. */
static inline int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static inline int send_frame(int sock, int type, const void *data, uint32_t len)
{
	unsigned char hdr[5];
	uint32_t be = htonl(len);

	hdr[0] = type;
	memcpy(hdr + 1, &be, 4);
	if (write_all(sock, hdr, 5))
		return -1;
	return len ? write_all(sock, data, len) : 0;
}

#endif
