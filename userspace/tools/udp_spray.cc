// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mrc_udp_spray: UDP datagrams from many source ports, counted per source
// port at the receiver, for the bed's ECMP fabric (which link a source port
// takes, what an impairment on one link does to the flows on it) and as
// paced cross traffic on a link.
//
//   mrc_udp_spray send --to ADDR --port DPORT --sports LO[-HI] [--from ADDR]
//                      [--count K] [--size BYTES] [--tos T]
//                      [--pps R | --mbit R] [--time SECONDS]
//       K datagrams from each source port LO..HI (round robin over the
//       ports), or, with --time, as many as the rate allows in that time.
//       --tos sets the IPv4 TOS / IPv6 traffic class byte (2: ECT(0)).
//       Prints "sent N datagrams from P ports (E send errors, D dropped by
//       a local qdisc)": ENOBUFS, a datagram a qdisc of this host dropped, is
//       sent and lost, not retried.
//
//   mrc_udp_spray recv --port PORT [--bind ADDR] [--count N] [--time S]
//                      [--status FILE]
//       Counts valid datagrams per source port until N arrived, S seconds
//       passed or SIGTERM/SIGINT. FILE (rewritten whole, at most every
//       50 ms, and at the end) and stdout get the same table:
//         sport P rx N ce C bytes B     one line per source port heard
//         total rx N ce C bad M         M: datagrams that failed validation
//
// A datagram carries a magic word, its source port and a sequence number,
// then a byte pattern of the sequence number: the receiver counts only
// datagrams whose header names the port they came from and whose every
// byte is right, so a datagram bent on its way is "bad", never counted.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <poll.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "report.h"

const char *const mrc_tool::kName = "mrc_udp_spray";

namespace {

using mrc_tool::die;

constexpr uint32_t kMagic = 0x4d524353;	// "MRCS"
constexpr size_t kHeader = 12;
constexpr size_t kMaxSize = 65000;

struct Addr {
	sockaddr_storage ss{};
	socklen_t len = 0;
	int family = AF_UNSPEC;
};

Addr parse_addr(const char *s, uint16_t port)
{
	Addr a;
	auto *a4 = reinterpret_cast<sockaddr_in *>(&a.ss);
	auto *a6 = reinterpret_cast<sockaddr_in6 *>(&a.ss);

	if (inet_pton(AF_INET, s, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		a.len = sizeof(*a4);
	} else if (inet_pton(AF_INET6, s, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		a.len = sizeof(*a6);
	} else {
		die("not an IPv4 or IPv6 address: %s", s);
	}
	a.family = a.ss.ss_family;
	return a;
}

Addr any_addr(int family, uint16_t port)
{
	return parse_addr(family == AF_INET6 ? "::" : "0.0.0.0", port);
}

uint16_t port_of(const sockaddr_storage &ss)
{
	if (ss.ss_family == AF_INET6)
		return ntohs(reinterpret_cast<const sockaddr_in6 *>(&ss)->sin6_port);
	return ntohs(reinterpret_cast<const sockaddr_in *>(&ss)->sin_port);
}

long number(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (*s == '\0' || *end != '\0' || v < lo || v > hi)
		die("%s wants a number in %ld..%ld, not '%s'", opt, lo, hi, s);
	return v;
}

double now()
{
	timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

void sleep_until(double t)
{
	timespec ts;

	ts.tv_sec = static_cast<time_t>(t);
	ts.tv_nsec = static_cast<long>((t - static_cast<double>(ts.tv_sec)) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
	}
}

uint8_t pattern_byte(uint32_t seq, size_t i)
{
	return static_cast<uint8_t>(seq * 31 + i);
}

void fill(std::vector<uint8_t> &b, uint16_t sport, uint32_t seq)
{
	uint32_t m = htonl(kMagic), s = htonl(seq);
	uint16_t p = htons(sport), z = 0;

	memcpy(&b[0], &m, 4);
	memcpy(&b[4], &p, 2);
	memcpy(&b[6], &z, 2);
	memcpy(&b[8], &s, 4);
	for (size_t i = kHeader; i < b.size(); i++)
		b[i] = pattern_byte(seq, i);
}

bool valid(const uint8_t *b, size_t n, uint16_t sport)
{
	uint32_t m, seq;
	uint16_t p;

	if (n < kHeader)
		return false;
	memcpy(&m, &b[0], 4);
	memcpy(&p, &b[4], 2);
	memcpy(&seq, &b[8], 4);
	if (ntohl(m) != kMagic || ntohs(p) != sport)
		return false;
	seq = ntohl(seq);
	for (size_t i = kHeader; i < n; i++)
		if (b[i] != pattern_byte(seq, i))
			return false;
	return true;
}

int udp_socket(const Addr &bind_to, int tos)
{
	int fd = socket(bind_to.family, SOCK_DGRAM, 0);

	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (tos >= 0) {
		int r = bind_to.family == AF_INET6 ?
			setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos)) :
			setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
		if (r)
			die("setting the TOS: %s", strerror(errno));
	}
	if (bind(fd, reinterpret_cast<const sockaddr *>(&bind_to.ss), bind_to.len))
		die("bind to port %u: %s", port_of(bind_to.ss), strerror(errno));
	return fd;
}

struct SendOpts {
	const char *to = nullptr, *from = nullptr;
	int port = 0, lo = 0, hi = 0, tos = -1;
	long count = -1, size = 64;
	double pps = 0, seconds = 0;
};

int cmd_send(const SendOpts &o)
{
	Addr dst = parse_addr(o.to, static_cast<uint16_t>(o.port));
	std::vector<int> fds;
	std::vector<uint8_t> buf(static_cast<size_t>(o.size));
	long sent = 0, errors = 0, local_drops = 0;
	uint32_t seq = 0;
	double t0 = now(), gap = o.pps > 0 ? 1.0 / o.pps : 0;

	for (int p = o.lo; p <= o.hi; p++) {
		Addr src = o.from ? parse_addr(o.from, static_cast<uint16_t>(p)) :
				    any_addr(dst.family, static_cast<uint16_t>(p));
		if (src.family != dst.family)
			die("--from and --to are not of one address family");
		fds.push_back(udp_socket(src, o.tos));
	}
	for (long k = 0; o.seconds > 0 || k < (o.count < 0 ? 1 : o.count); k++) {
		for (size_t i = 0; i < fds.size(); i++) {
			uint16_t sport = static_cast<uint16_t>(o.lo + static_cast<int>(i));

			if (o.seconds > 0 && now() - t0 >= o.seconds)
				goto done;
			if (gap > 0)
				sleep_until(t0 + static_cast<double>(sent) * gap);
			fill(buf, sport, seq++);
			// ENOBUFS: a qdisc of this host dropped it (cross traffic
			// sent from a router into its own impaired link), a loss
			// like any other on the way: unpaced, unretried
			if (sendto(fds[i], buf.data(), buf.size(), 0,
				   reinterpret_cast<const sockaddr *>(&dst.ss), dst.len) < 0) {
				if (errno == ENOBUFS)
					local_drops++;
				else
					errors++;
			}
			sent++;
		}
	}
done:
	printf("sent %ld datagrams from %zu ports (%ld send errors, %ld dropped by a local qdisc) in %.2f s\n",
	       sent - errors, fds.size(), errors, local_drops, now() - t0);
	return errors ? 1 : 0;
}

volatile sig_atomic_t stop_requested;

void on_signal(int)
{
	stop_requested = 1;
}

struct PortCount {
	long rx = 0, ce = 0, bytes = 0;
};

std::string table(const std::map<uint16_t, PortCount> &ports, long bad)
{
	std::string s;
	long rx = 0, ce = 0;
	char line[128];

	for (const auto &[p, c] : ports) {
		snprintf(line, sizeof(line), "sport %u rx %ld ce %ld bytes %ld\n", p, c.rx, c.ce, c.bytes);
		s += line;
		rx += c.rx;
		ce += c.ce;
	}
	snprintf(line, sizeof(line), "total rx %ld ce %ld bad %ld\n", rx, ce, bad);
	return s + line;
}

void write_status(const char *file, const std::string &s)
{
	std::string tmp = std::string(file) + ".tmp";
	FILE *f = fopen(tmp.c_str(), "w");

	if (!f || fputs(s.c_str(), f) < 0 || fclose(f) || rename(tmp.c_str(), file))
		die("cannot write %s: %s", file, strerror(errno));
}

// The ECN field of a received datagram (IP_TOS / IPV6_TCLASS ancillary data).
int ecn_of(msghdr &mh)
{
	for (cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if ((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) ||
		    (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_TCLASS)) {
			int v = 0;

			if (c->cmsg_level == IPPROTO_IP)
				v = *reinterpret_cast<uint8_t *>(CMSG_DATA(c));
			else
				memcpy(&v, CMSG_DATA(c), sizeof(v));
			return v & 3;
		}
	}
	return 0;
}

int cmd_recv(const char *bind_addr, int port, long count, double seconds, const char *status)
{
	Addr me = bind_addr ? parse_addr(bind_addr, static_cast<uint16_t>(port)) :
			      any_addr(AF_INET6, static_cast<uint16_t>(port));
	int one = 1, zero = 0, fd = udp_socket(me, -1);
	std::map<uint16_t, PortCount> ports;
	std::vector<uint8_t> buf(kMaxSize);
	long total = 0, bad = 0;
	double t0 = now(), written = 0;
	bool dirty = true;

	// a burst must not overflow the socket while this process is not
	// scheduled (root may exceed rmem_max; others get what it allows)
	int rcvbuf = 8 << 20;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	// unbound: one IPv6 socket hears IPv4 too
	if (me.family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
	if (me.family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, &one, sizeof(one));
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	while (!stop_requested && (count < 0 || total < count) &&
	       (seconds <= 0 || now() - t0 < seconds)) {
		pollfd pf = {fd, POLLIN, 0};
		sockaddr_storage from{};
		alignas(cmsghdr) char ctl[256];
		iovec iov = {buf.data(), buf.size()};
		msghdr mh{};

		if (status && dirty && now() - written >= 0.05) {
			write_status(status, table(ports, bad));
			written = now();
			dirty = false;
		}
		if (poll(&pf, 1, 50) <= 0)
			continue;
		mh.msg_name = &from;
		mh.msg_namelen = sizeof(from);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n < 0)
			continue;
		dirty = true;
		uint16_t sport = port_of(from);
		if (!valid(buf.data(), static_cast<size_t>(n), sport)) {
			bad++;
			continue;
		}
		PortCount &c = ports[sport];
		c.rx++;
		c.bytes += n;
		c.ce += ecn_of(mh) == 3;
		total++;
	}
	std::string s = table(ports, bad);
	if (status)
		write_status(status, s);
	fputs(s.c_str(), stdout);
	return 0;
}

[[noreturn]] void usage()
{
	fprintf(stderr,
		"usage: mrc_udp_spray send --to ADDR --port DPORT --sports LO[-HI] [--from ADDR]\n"
		"                          [--count K] [--size BYTES] [--tos T] [--pps R | --mbit R]\n"
		"                          [--time SECONDS]\n"
		"       mrc_udp_spray recv --port PORT [--bind ADDR] [--count N] [--time S]\n"
		"                          [--status FILE]\n");
	exit(2);
}

}  // namespace

int main(int argc, char **argv)
{
	SendOpts o;
	const char *bind_addr = nullptr, *status = nullptr;
	double mbit = 0;

	if (argc < 2)
		usage();
	std::string mode = argv[1];
	for (int i = 2; i < argc; i++) {
		std::string a = argv[i];
		if (i + 1 >= argc)
			usage();
		const char *v = argv[++i];
		if (a == "--to") {
			o.to = v;
		} else if (a == "--from") {
			o.from = v;
		} else if (a == "--bind") {
			bind_addr = v;
		} else if (a == "--status") {
			status = v;
		} else if (a == "--port") {
			o.port = static_cast<int>(number("--port", v, 1, 65535));
		} else if (a == "--sports") {
			std::string r = v;
			size_t dash = r.find('-');
			o.lo = static_cast<int>(number("--sports", r.substr(0, dash).c_str(), 1, 65535));
			o.hi = dash == std::string::npos ? o.lo :
				static_cast<int>(number("--sports", r.substr(dash + 1).c_str(), o.lo, 65535));
		} else if (a == "--count") {
			o.count = number("--count", v, 0, 1L << 40);
		} else if (a == "--size") {
			o.size = number("--size", v, static_cast<long>(kHeader), kMaxSize);
		} else if (a == "--tos") {
			o.tos = static_cast<int>(number("--tos", v, 0, 255));
		} else if (a == "--pps") {
			o.pps = static_cast<double>(number("--pps", v, 1, 10000000));
		} else if (a == "--mbit") {
			mbit = static_cast<double>(number("--mbit", v, 1, 100000));
		} else if (a == "--time") {
			o.seconds = static_cast<double>(number("--time", v, 1, 86400));
		} else {
			usage();
		}
	}
	if (mode == "send") {
		if (!o.to || !o.port || !o.lo)
			usage();
		if (mbit > 0)
			o.pps = mbit * 1e6 / 8 / static_cast<double>(o.size);
		return cmd_send(o);
	}
	if (mode == "recv") {
		if (!o.port)
			usage();
		return cmd_recv(bind_addr, o.port, o.count, o.seconds, status);
	}
	usage();
}
