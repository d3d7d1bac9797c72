// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "sender.h"

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace mrc_netfuzz {

bool addr4(const std::string &s, in_addr *a)
{
	return inet_pton(AF_INET, s.c_str(), a) == 1;
}

bool addr6(const std::string &s, in6_addr *a)
{
	return inet_pton(AF_INET6, s.c_str(), a) == 1;
}

bool bed_addr4(const std::string &s, in_addr *a, std::string *err)
{
	if (!addr4(s, a)) {
		*err = s + ": not an IPv4 address";
		return false;
	}
	if ((ntohl(a->s_addr) >> 16) != (10u << 8)) {
		*err = s + ": not on the bed's links (10.0.0.0/16)";
		return false;
	}
	return true;
}

bool bed_addr6(const std::string &s, in6_addr *a, std::string *err)
{
	if (!addr6(s, a)) {
		*err = s + ": not an IPv6 address";
		return false;
	}
	if (a->s6_addr[0] != 0xfd || a->s6_addr[1] != 0x00) {
		*err = s + ": not on the bed's links (fd00::/16)";
		return false;
	}
	return true;
}

Sender::~Sender()
{
	for (auto &s : socks_)
		close(s.second);
}

// Options and bind of a new socket; false with errno set.
bool Sender::setup(int fd, bool v6, uint32_t source, uint16_t sport)
{
	int one = 1, pmtu;

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (v6) {
		sockaddr_in6 a{};

		pmtu = IPV6_PMTUDISC_DONT;	// big datagrams go in fragments
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &pmtu, sizeof(pmtu));
		// a full queue is reported (ENOBUFS), not a silent drop
		setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &one, sizeof(one));
		a.sin6_family = AF_INET6;
		a.sin6_addr = e_.src6[source];
		a.sin6_port = htons(sport);
		return bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a)) == 0;
	}
	sockaddr_in a{};

	pmtu = IP_PMTUDISC_DONT;
	setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
	setsockopt(fd, IPPROTO_IP, IP_RECVERR, &one, sizeof(one));
	a.sin_family = AF_INET;
	a.sin_addr = e_.src4[source];
	a.sin_port = htons(sport);
	return bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a)) == 0;
}

int Sender::sock(bool v6, uint32_t source, uint16_t sport, std::string *err)
{
	uint64_t key = (static_cast<uint64_t>(v6) << 48) |
		       (static_cast<uint64_t>(source) << 16) | sport;
	auto it = socks_.find(key);
	int fd;

	if (it != socks_.end())
		return it->second;
	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*err = std::string("socket: ") + strerror(errno);
		return -1;
	}
	if (!setup(fd, v6, source, sport)) {
		*err = "bind to source " + std::to_string(source) + " port " +
		       std::to_string(sport) + (v6 ? " (IPv6)" : "") + ": " +
		       strerror(errno);
		close(fd);
		return -1;
	}
	socks_[key] = fd;
	return fd;
}

bool Sender::send(const Datagram &d, std::string *err)
{
	int fd = sock(d.v6, d.source, d.sport, err);
	sockaddr_in to4{};
	sockaddr_in6 to6{};
	const sockaddr *to;
	socklen_t tolen;

	if (fd < 0)
		return false;
	if (d.v6) {
		to6.sin6_family = AF_INET6;
		to6.sin6_addr = e_.dst6;
		to6.sin6_port = htons(e_.dport);
		to = reinterpret_cast<const sockaddr *>(&to6);
		tolen = sizeof(to6);
	} else {
		to4.sin_family = AF_INET;
		to4.sin_addr = e_.dst4;
		to4.sin_port = htons(e_.dport);
		to = reinterpret_cast<const sockaddr *>(&to4);
		tolen = sizeof(to4);
	}
	for (int tries = 0; tries < 10000; tries++) {
		const timespec nap = { 0, 1000000 };
		char junk[256];

		if (sendto(fd, d.bytes.data(), d.bytes.size(), 0, to, tolen) ==
		    static_cast<ssize_t>(d.bytes.size()))
			return true;
		switch (errno) {
		case ENOBUFS:
		case EAGAIN:
		case ENOMEM:
			nanosleep(&nap, nullptr);	// the queue drains
			break;
		case ECONNREFUSED:
		case EHOSTUNREACH:
			// an ICMP error about an earlier datagram: read it, retry
			while (recv(fd, junk, sizeof(junk), MSG_ERRQUEUE | MSG_DONTWAIT) >= 0)
				;
			break;
		case EINTR:
			break;
		default:
			*err = std::string("sendto: ") + strerror(errno);
			return false;
		}
	}
	*err = std::string("sendto: still ") + strerror(errno) + " after 10000 tries";
	return false;
}

}  // namespace mrc_netfuzz
