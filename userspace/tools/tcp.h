// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The TCP control channel of the two-host verbs tools: whole-buffer reads
// and writes that die() on a closed or broken connection, a client that
// retries while the server starts, and a server socket.
#pragma once

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "report.h"

namespace mrc_tool {

inline void xwrite(int fd, const void *p, size_t n)
{
	const char *c = static_cast<const char *>(p);

	while (n) {
		ssize_t r = write(fd, c, n);

		if (r <= 0)
			die("control write: %s", strerror(errno));
		c += r;
		n -= static_cast<size_t>(r);
	}
}

inline void xread(int fd, void *p, size_t n)
{
	char *c = static_cast<char *>(p);

	while (n) {
		ssize_t r = read(fd, c, n);

		if (r <= 0)
			die("control read: %s", r ? strerror(errno) : "peer closed");
		c += r;
		n -= static_cast<size_t>(r);
	}
}

// Connects to HOST:PORT, retrying for ~10 s while the server starts.
inline int tcp_connect(const char *host, int port)
{
	addrinfo hints{}, *res;
	int fd = -1;

	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, std::to_string(port).c_str(), &hints, &res))
		die("cannot resolve %s", host);
	for (int t = 0; t < 100 && fd < 0; t++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(fd, res->ai_addr, res->ai_addrlen)) {
			close(fd);
			fd = -1;
			usleep(100000);
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		die("cannot connect to %s:%d", host, port);
	return fd;
}

inline int tcp_listen(int port)
{
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM, 0);
	sockaddr_in a{};

	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_family = AF_INET;
	a.sin_port = htons(static_cast<uint16_t>(port));
	if (bind(lfd, reinterpret_cast<sockaddr *>(&a), sizeof(a)) || listen(lfd, 4))
		die("listen on %d: %s", port, strerror(errno));
	return lfd;
}

// One connection on PORT, then the listener is closed.
inline int tcp_accept(int port)
{
	int lfd = tcp_listen(port), fd = accept(lfd, nullptr, nullptr);

	close(lfd);
	if (fd < 0)
		die("accept: %s", strerror(errno));
	return fd;
}

}  // namespace mrc_tool
