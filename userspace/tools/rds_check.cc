// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mrc_rds_check: a verified exchange over RDS (AF_RDS sockets), with the
// transport forced to RDS/IB (rds_rdma) so that it runs over an RDMA
// device and never falls back to RDS/TCP.
//
//   mrc_rds_check echo   --bind ADDR --port P --count N [--rdma R]
//   mrc_rds_check client --bind ADDR --port P --peer ADDR --peer-port Q
//                        --count N [--sizes S1,S2,...] [--rdma R]
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

#include <algorithm>
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
	long count = 0, rdma = 0;
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
	    "[--peer ADDR --peer-port Q] [--sizes S1,S2,...] [--rdma R]");
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
		} else if (k == "--rdma") {
			o.rdma = std::atol(v);
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

// One message into buf; its length, and its source in *from; the cookie
// of an MR the sender mapped for us with it (RDS_CMSG_RDMA_DEST) in
// *cookie, 0 if none.
size_t receive(int fd, std::vector<uint8_t> &buf, sockaddr_in *from, uint64_t *cookie = nullptr)
{
	pollfd p{fd, POLLIN, 0};
	int n = poll(&p, 1, 30000);
	alignas(cmsghdr) char ctl[256];

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
	m.msg_control = ctl;
	m.msg_controllen = sizeof(ctl);
	ssize_t r = recvmsg(fd, &m, 0);
	if (r < 0)
		die("recvmsg");
	if (m.msg_flags & MSG_TRUNC)
		bad("message truncated");
	if (cookie)
		*cookie = 0;
	for (cmsghdr *c = CMSG_FIRSTHDR(&m); c && cookie; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_RDS && c->cmsg_type == RDS_CMSG_RDMA_DEST)
			std::memcpy(cookie, CMSG_DATA(c), sizeof(*cookie));
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

constexpr size_t rdma_len = 1 << 20;

// What the client sends for a round: the cookie of its buffer's MR.
struct Ticket {
	uint64_t round, cookie, len;
};

// One message of @len bytes from @buf to @to carrying one SOL_RDS control
// message of @type with @arg; what sendmsg() returned.
template <typename T>
ssize_t send_cmsg(int fd, const sockaddr_in &to, void *buf, size_t len, int type, const T &arg)
{
	alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(arg))] = {};
	iovec iov{buf, len};
	msghdr m{};

	m.msg_name = const_cast<sockaddr_in *>(&to);
	m.msg_namelen = sizeof(to);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl;
	m.msg_controllen = sizeof(ctl);
	cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_RDS;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(sizeof(arg));
	std::memcpy(CMSG_DATA(c), &arg, sizeof(arg));
	return sendmsg(fd, &m, 0);
}

// One RDS message that carries an RDMA operation on the peer's MR: a WRITE
// of local into it (write), else a READ of it into local. RDS tells the
// outcome with token round later (RDS_RDMA_NOTIFY_ME).
void rdma_op(int fd, const sockaddr_in &to, const Ticket &t, uint8_t *local, bool write)
{
	rds_iovec lv{reinterpret_cast<uint64_t>(local), t.len};
	rds_rdma_args a{};
	uint8_t tag = write ? 'W' : 'R';

	a.cookie = t.cookie;
	a.remote_vec = {0, t.len};
	a.local_vec_addr = reinterpret_cast<uint64_t>(&lv);
	a.nr_local = 1;
	a.flags = RDS_RDMA_NOTIFY_ME | (write ? RDS_RDMA_READWRITE : 0);
	a.user_token = t.round;
	if (send_cmsg(fd, to, &tag, 1, RDS_CMSG_RDMA_ARGS, a) != 1)
		die(write ? "sendmsg RDMA WRITE" : "sendmsg RDMA READ");
}

// Wait for the status of the RDMA operation with token round. A message
// that comes first is kept in *held (the peer may answer sooner than RDS
// reports the operation done).
void rdma_status(int fd, uint64_t round, std::vector<uint8_t> *held)
{
	std::vector<uint8_t> buf(64);
	alignas(cmsghdr) char ctl[256];

	for (;;) {
		pollfd p{fd, POLLIN, 0};
		int n = poll(&p, 1, 30000);

		if (n <= 0)
			bad("no RDMA status for 30 s");
		iovec iov{buf.data(), buf.size()};
		msghdr m{};
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		m.msg_control = ctl;
		m.msg_controllen = sizeof(ctl);
		ssize_t r = recvmsg(fd, &m, 0);
		if (r < 0)
			die("recvmsg (status)");
		if (r > 0) {
			if (!held->empty())
				bad("two messages before an RDMA status");
			held->assign(buf.begin(), buf.begin() + r);
			continue;
		}
		for (cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			rds_rdma_notify st;

			if (c->cmsg_level != SOL_RDS || c->cmsg_type != RDS_CMSG_RDMA_STATUS)
				continue;
			std::memcpy(&st, CMSG_DATA(c), sizeof(st));
			if (st.user_token != round)
				continue;
			if (st.status != RDS_RDMA_SUCCESS)
				bad("RDMA operation of round " + std::to_string(round) +
				    ": status " + std::to_string(st.status));
			return;
		}
	}
}

// Send ticket t to the peer with b mapped for it on the connection
// (RDS_CMSG_RDMA_MAP): 6.1's RDS/IB maps FRWR MRs only on a connection's
// QP, so RDS_GET_MR and RDS_GET_MR_FOR_DEST fail with EOPNOTSUPP on every
// FRWR device. The cookie travels in the message's header; the kernel
// also writes it into t->cookie.
void map_and_send(int fd, const sockaddr_in &to, Ticket *t, uint8_t *b)
{
	rds_get_mr_args g{};

	g.vec = {reinterpret_cast<uint64_t>(b), t->len};
	g.cookie_addr = reinterpret_cast<uint64_t>(&t->cookie);
	if (send_cmsg(fd, to, t, sizeof(*t), RDS_CMSG_RDMA_MAP, g) !=
	    static_cast<ssize_t>(sizeof(*t)))
		die("sendmsg with RDS_CMSG_RDMA_MAP");
}

void rdma_client(int fd, const Options &o, const sockaddr_in &peer)
{
	void *mem;
	std::vector<uint8_t> buf(64);
	sockaddr_in from{};

	if (posix_memalign(&mem, 4096, rdma_len))
		bad("out of memory");
	auto *b = static_cast<uint8_t *>(mem);
	for (long r = 0; r < o.rdma; r++) {
		Ticket t{static_cast<uint64_t>(1000 + r), 0, rdma_len};

		std::memset(b, 0, rdma_len);
		map_and_send(fd, peer, &t, b);
		// the echo side's message comes after its WRITE into b
		if (receive(fd, buf, &from) != 1 || buf[0] != 'W')
			bad("round " + std::to_string(r) + ": no message after the RDMA WRITE");
		long off = mrc_tool::check(b, rdma_len, t.round);
		if (off >= 0)
			bad("round " + std::to_string(r) + ": RDMA WRITE wrong at byte " +
			    std::to_string(off));
		send_to(fd, reinterpret_cast<uint8_t *>(&t), sizeof(t), peer);
		// the message of the echo side's READ of b, then its word that
		// the READ is done: only then may b's MR go
		if (receive(fd, buf, &from) != 1 || buf[0] != 'R')
			bad("round " + std::to_string(r) + ": no message after the RDMA READ");
		if (receive(fd, buf, &from) != 1 || buf[0] != 'D')
			bad("round " + std::to_string(r) + ": the RDMA READ did not end");
		rds_free_mr_args f{t.cookie, 0};
		if (setsockopt(fd, SOL_RDS, RDS_FREE_MR, &f, sizeof(f)))
			die("RDS_FREE_MR");
	}
	free(mem);
	std::printf("client: %ld RDMA rounds (1 MiB WRITE and READ), all verified\n", o.rdma);
}

void rdma_echo(int fd, const Options &o)
{
	std::vector<uint8_t> buf(64), local(rdma_len), held;
	sockaddr_in from{};
	Ticket t;
	const uint8_t done = 'D';

	for (long r = 0; r < o.rdma; r++) {
		uint64_t cookie;

		if (receive(fd, buf, &from, &cookie) != sizeof(t))
			bad("round " + std::to_string(r) + ": no ticket");
		std::memcpy(&t, buf.data(), sizeof(t));
		if (t.round != static_cast<uint64_t>(1000 + r) || t.len != rdma_len)
			bad("round " + std::to_string(r) + ": a wrong ticket");
		// the header's cookie, not the ticket's: the kernel wrote that
		// one after the ticket was copied
		if (!cookie)
			bad("round " + std::to_string(r) + ": no RDS_CMSG_RDMA_DEST cookie");
		t.cookie = cookie;
		mrc_tool::fill(local.data(), rdma_len, t.round);
		rdma_op(fd, from, t, local.data(), true);
		rdma_status(fd, t.round, &held);
		if (held.empty() && receive(fd, buf, &from) == sizeof(t))
			held.assign(buf.begin(), buf.begin() + sizeof(t));
		if (held.size() != sizeof(t))
			bad("round " + std::to_string(r) + ": the client did not check the WRITE");
		held.clear();
		std::fill(local.begin(), local.end(), 0);
		rdma_op(fd, from, t, local.data(), false);
		rdma_status(fd, t.round, &held);
		if (!held.empty())
			bad("round " + std::to_string(r) + ": a message during the RDMA READ");
		long off = mrc_tool::check(local.data(), rdma_len, t.round);
		if (off >= 0)
			bad("round " + std::to_string(r) + ": RDMA READ wrong at byte " +
			    std::to_string(off));
		send_to(fd, &done, 1, from);
	}
	std::printf("echo: %ld RDMA rounds (1 MiB WRITE and READ), all verified\n", o.rdma);
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
	std::fflush(stdout);
	if (client && o.rdma)
		rdma_client(fd, o, peer);
	else if (o.rdma)
		rdma_echo(fd, o);
	close(fd);
	return 0;
}
