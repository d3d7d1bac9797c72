// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mrc_rds_check: a verified exchange over RDS (AF_RDS sockets), with the
// transport forced to RDS/IB (rds_rdma) so that it runs over an RDMA
// device and never falls back to RDS/TCP.
//
//   mrc_rds_check echo   --bind ADDR --port P --count N
//   mrc_rds_check client --bind ADDR --port P --peer ADDR --peer-port Q
//                        --count N [--sizes S1,S2,...]
//
// The client sends N messages, message i of size S[i % len(S)] (default
// 1, 64, 4096, 9000, 65536, 1048576: one byte to RDS's maximum) filled
// with the pattern of seed i, and waits for each to come back before
// sending the next. The echo side checks every message's length and bytes
// against what message i must be and returns it; the client checks the
// echo the same way. Either side prints its tally:
//   "echo: N messages, B bytes, all verified" / "client: ..."
// and exits 1 on the first wrong byte, length or source, or a timeout
// (30 s without a message).

#include <arpa/inet.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <poll.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "pattern.h"

namespace {

struct Options {
	std::string mode, bind, peer;
	int port = 0, peer_port = 0;
	long count = 0;
	std::vector<size_t> sizes{1, 64, 4096, 9000, 65536, 1 << 20};
};

[[noreturn]] void die(const char *what)
{
	std::fprintf(stderr, "mrc_rds_check: %s: %s\n", what, std::strerror(errno));
	std::exit(1);
}

[[noreturn]] void bad(const std::string &what)
{
	std::fprintf(stderr, "mrc_rds_check: %s\n", what.c_str());
	std::exit(1);
}

[[noreturn]] void usage()
{
	bad("usage: mrc_rds_check echo|client --bind ADDR --port P --count N "
	    "[--peer ADDR --peer-port Q] [--sizes S1,S2,...]");
}

Options parse(int argc, char **argv)
{
	Options o;

	if (argc < 2)
		usage();
	o.mode = argv[1];
	for (int i = 2; i < argc; i += 2) {
		std::string k = argv[i];

		if (i + 1 >= argc)
			usage();
		const char *v = argv[i + 1];
		if (k == "--bind") {
			o.bind = v;
		} else if (k == "--peer") {
			o.peer = v;
		} else if (k == "--port") {
			o.port = std::atoi(v);
		} else if (k == "--peer-port") {
			o.peer_port = std::atoi(v);
		} else if (k == "--count") {
			o.count = std::atol(v);
		} else if (k == "--sizes") {
			o.sizes.clear();
			for (const char *p = v; *p;) {
				char *end;

				o.sizes.push_back(std::strtoul(p, &end, 0));
				p = *end == ',' ? end + 1 : end;
				if (end == p && *p)
					usage();
			}
		} else {
			usage();
		}
	}
	if ((o.mode != "echo" && o.mode != "client") || o.bind.empty() || !o.port ||
	    o.count <= 0 || o.sizes.empty())
		usage();
	if (o.mode == "client" && (o.peer.empty() || !o.peer_port))
		usage();
	for (size_t s : o.sizes)
		if (!s || s > 1 << 20)
			bad("sizes must be 1 .. 1048576 (RDS's largest message)");
	return o;
}

sockaddr_in addr_of(const std::string &ip, int port)
{
	sockaddr_in a{};

	a.sin_family = AF_INET;
	a.sin_port = htons(static_cast<uint16_t>(port));
	if (inet_pton(AF_INET, ip.c_str(), &a.sin_addr) != 1)
		bad("not an IPv4 address: " + ip);
	return a;
}

int rds_socket(const Options &o)
{
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	int trans = RDS_TRANS_IB, buf = 16 << 20;

	if (fd < 0)
		die("socket(AF_RDS) (is rds loaded?)");
	// Before bind: the transport is chosen there. RDS/IB or nothing.
	if (setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &trans, sizeof(trans)))
		die("SO_RDS_TRANSPORT RDS_TRANS_IB (is rds_rdma loaded?)");
	// RDS refuses a message larger than half the send buffer; wmem_max
	// would cap a plain SO_SNDBUF below 1 MiB.
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
		die("SO_SNDBUFFORCE/SO_RCVBUFFORCE");
	sockaddr_in a = addr_of(o.bind, o.port);
	if (bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a)))
		die("bind (no RDS/IB device with that address?)");
	return fd;
}

// One message into buf; its length, and its source in *from.
size_t receive(int fd, std::vector<uint8_t> &buf, sockaddr_in *from)
{
	pollfd p{fd, POLLIN, 0};
	int n = poll(&p, 1, 30000);

	if (n < 0)
		die("poll");
	if (!n)
		bad("no message for 30 s");
	iovec iov{buf.data(), buf.size()};
	msghdr m{};
	m.msg_name = from;
	m.msg_namelen = sizeof(*from);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	ssize_t r = recvmsg(fd, &m, 0);
	if (r < 0)
		die("recvmsg");
	if (m.msg_flags & MSG_TRUNC)
		bad("message truncated");
	return static_cast<size_t>(r);
}

void send_to(int fd, const uint8_t *p, size_t len, const sockaddr_in &to)
{
	for (;;) {
		ssize_t r = sendto(fd, p, len, 0, reinterpret_cast<const sockaddr *>(&to),
				   sizeof(to));

		if (r == static_cast<ssize_t>(len))
			return;
		if (r >= 0)
			bad("short send");
		// the connection is still being set up, or the send queue full
		if (errno != ENOBUFS && errno != EAGAIN)
			die("sendto");
		pollfd p{fd, POLLOUT, 0};
		if (poll(&p, 1, 1000) < 0)
			die("poll");
	}
}

void verify(const char *who, long i, const uint8_t *p, size_t got, size_t want)
{
	if (got != want)
		bad(std::string(who) + ": message " + std::to_string(i) + " has " +
		    std::to_string(got) + " bytes, not " + std::to_string(want));
	long off = mrc_tool::check(p, got, static_cast<uint64_t>(i));
	if (off >= 0)
		bad(std::string(who) + ": message " + std::to_string(i) + " wrong at byte " +
		    std::to_string(off));
}

}  // namespace

int main(int argc, char **argv)
{
	Options o = parse(argc, argv);
	int fd = rds_socket(o);
	std::vector<uint8_t> buf(1 << 20), out(1 << 20);
	unsigned long long bytes = 0;
	sockaddr_in peer{}, from{};
	bool client = o.mode == "client";

	if (client) {
		peer = addr_of(o.peer, o.peer_port);
	} else {
		// what a test waits for before it starts the client: RDS drops
		// a message to a port nobody has bound
		std::printf("echo: bound %s:%d\n", o.bind.c_str(), o.port);
		std::fflush(stdout);
	}
	for (long i = 0; i < o.count; i++) {
		size_t want = o.sizes[static_cast<size_t>(i) % o.sizes.size()];

		if (client) {
			mrc_tool::fill(out.data(), want, static_cast<uint64_t>(i));
			send_to(fd, out.data(), want, peer);
		}
		size_t got = receive(fd, buf, &from);
		if (client && (from.sin_addr.s_addr != peer.sin_addr.s_addr ||
			       from.sin_port != peer.sin_port))
			bad("a message from someone else");
		verify(o.mode.c_str(), i, buf.data(), got, want);
		if (!client)
			send_to(fd, buf.data(), got, from);
		bytes += got;
	}
	std::printf("%s: %ld messages, %llu bytes, all verified\n", o.mode.c_str(), o.count,
		    bytes);
	close(fd);
	return 0;
}
