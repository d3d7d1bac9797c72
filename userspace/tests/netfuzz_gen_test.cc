// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The network fuzzer's generator (userspace/tools/netfuzz): a datagram
// is a function of (seed, index); valid packets parse, and every nearly
// valid one is refused by the core's parser for exactly the reason the
// generator meant; bundles split as a receiver splits them; protected
// connections never get their cookie from the right source; and over a
// run every type, target, mutation and bundle shape turns up.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "describe.h"
#include "gen.h"
#include "internal.h"
#include "verdict.h"

namespace {

using namespace mrc_netfuzz;

constexpr uint64_t kRun = 20000;

Target target(Role role, uint32_t qpn, uint32_t rq_psn = 0, uint32_t sq_psn = 0)
{
	Target t;

	t.role = role;
	t.qpn = qpn;
	t.cookies = role == Role::Rc || role == Role::Dead;
	t.rq_psn = rq_psn;
	t.sq_psn = sq_psn;
	return t;
}

// Targets as the bed case gives them: a connection, a protected one, a
// UD QP, a destroyed one and a range.
Config bed_config(uint64_t seed)
{
	Config c;

	c.seed = seed;
	c.sources = 2;
	c.v6 = true;
	c.targets.push_back(target(Role::Rc, 17, 0x123456, 0xabcdef));
	// cookies one bit apart
	c.targets.push_back(target(Role::Rc, 18, 0x000777, 0x000778));
	c.targets.back().protect = true;
	c.targets.push_back(target(Role::Ud, 19));
	c.targets.back().qkey = 0x11111111;
	c.targets.push_back(target(Role::Uc, 20));
	c.targets.push_back(target(Role::Dead, 16, 5, 6));
	c.targets.push_back(target(Role::Near, 16));
	c.targets.back().qpn_hi = 40;
	return c;
}

std::string show(const Generator &g, const Datagram &d)
{
	char *buf = nullptr;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	dump(f, g, d);
	fclose(f);
	std::string s(buf, len);
	free(buf);
	return s;
}

TEST(NetfuzzGen, SameSeedSameBytes)
{
	Generator a(bed_config(42)), b(bed_config(42)), c(bed_config(43));
	int differ = 0;

	// b made backwards: no datagram depends on the ones before it
	for (uint64_t i = 2000; i-- > 0;) {
		Datagram x = a.make(i), y = b.make(i);

		ASSERT_EQ(x.bytes, y.bytes) << "index " << i;
		ASSERT_EQ(x.what, y.what);
		ASSERT_EQ(x.sport, y.sport);
		ASSERT_EQ(x.source, y.source);
		ASSERT_EQ(x.v6, y.v6);
		differ += c.make(i).bytes != x.bytes;
	}
	EXPECT_GT(differ, 1990);
	EXPECT_EQ(a.ports(), b.ports());
	EXPECT_NE(a.ports(), c.ports());
}

TEST(NetfuzzGen, VerdictsAreTheMeantOnes)
{
	Generator g(bed_config(7));
	uint64_t checked = 0;

	for (uint64_t i = 0; i < kRun; i++) {
		Datagram d = g.make(i);
		std::vector<Part> parts = receive(d.bytes.data(), d.bytes.size());
		// one fate per packet; Malformed exactly for the refused ones
		ASSERT_EQ(parts.size(), d.fates.size()) << show(g, d);
		for (size_t k = 0; k < parts.size(); k++)
			EXPECT_EQ(parts[k].reason != MRC_WIRE_OK,
				  d.fates[k] == Fate::Malformed) << show(g, d);
		if (d.cls == Class::Random) {
			EXPECT_TRUE(d.meant.empty());
			continue;
		}
		ASSERT_EQ(parts.size(), d.meant.size()) << show(g, d);
		for (size_t k = 0; k < parts.size(); k++) {
			if (d.meant[k] == kAnyFailure)
				EXPECT_NE(parts[k].reason, MRC_WIRE_OK) << show(g, d);
			else
				EXPECT_EQ(parts[k].reason, d.meant[k]) << show(g, d);
			checked++;
		}
		if (d.cls == Class::Valid) {
			ASSERT_EQ(parts.size(), 1u);
			EXPECT_EQ(parts[0].pkt.dst_qpn, d.qpn);
		}
		if (HasFailure())
			return;
	}
	EXPECT_GT(checked, kRun);
}

// Packets to QP 18 from source 0 with one of its cookies; how many came
// from another source.
uint64_t right_cookies_to_18(const Generator &g, uint32_t rq, uint32_t sq,
			     uint64_t *guarded)
{
	uint64_t spoofed = 0;

	for (uint64_t i = 0; i < kRun; i++) {
		Datagram d = g.make(i);

		*guarded += d.what.find("(cookie guarded)") != std::string::npos;
		for (const Part &p : receive(d.bytes.data(), d.bytes.size())) {
			const uint8_t *b = d.bytes.data() + p.off;

			if (p.len < MRC_WIRE_BASE_LEN || b[MRC_WO_TYPE] == MRC_PKT_UD_SEND ||
			    mrc_get_be32(b + MRC_WO_DST_QPN) != 18)
				continue;
			uint32_t cookie = mrc_get_be32(b + MRC_WO_COOKIE);
			bool right = cookie == rq || cookie == sq;

			// the peer is at source 0 over IPv4
			if (right && d.source == 0 && !d.v6)
				ADD_FAILURE() << show(g, d);
			spoofed += right;
		}
	}
	return spoofed;
}

TEST(NetfuzzGen, ProtectedCookiesNeverFromTheRightSource)
{
	uint64_t guarded = 0;

	for (bool spoof : { false, true }) {
		Config c = bed_config(99);

		c.spoof_protected = spoof;
		Generator g(c);
		uint64_t spoofed = right_cookies_to_18(g, 0x777, 0x778, &guarded);

		// with spoofing on, wrong sources do bring the right cookie
		if (spoof)
			EXPECT_GT(spoofed, 20u);
		else
			EXPECT_EQ(spoofed, 0u);
	}
}

// QP 17 shares QP 18's cookies but is not protected: its packets get
// them, and the ones a wrong QPN ("qpn-off") sends to 18 are caught.
TEST(NetfuzzGen, GuardCatchesAStrayCookie)
{
	Config c = bed_config(3);
	uint64_t guarded = 0;

	c.targets[0].rq_psn = c.targets[1].rq_psn;
	c.targets[0].sq_psn = c.targets[1].sq_psn;
	Generator g(c);
	EXPECT_EQ(right_cookies_to_18(g, 0x777, 0x778, &guarded), 0u);
	EXPECT_GT(guarded, 0u);
}

TEST(NetfuzzGen, SizesPortsAndAddresses)
{
	Config c = bed_config(5);
	Generator g(c);
	std::set<uint16_t> ports(g.ports().begin(), g.ports().end());
	uint64_t big = 0;

	EXPECT_EQ(ports.size(), c.ports);
	EXPECT_EQ(ports.count(MRC_WIRE_UDP_PORT), 0u);
	for (uint64_t i = 0; i < kRun; i++) {
		Datagram d = g.make(i);

		if (d.big) {
			big++;
			EXPECT_LE(d.bytes.size(), d.v6 ? 65527u : MRC_WIRE_MAX_PKT_LEN);
		} else {
			ASSERT_LE(d.bytes.size(), c.max_len) << show(g, d);
		}
		EXPECT_TRUE(ports.count(d.sport));
		EXPECT_LT(d.source, c.sources);
	}
	EXPECT_GT(big, 0u);
	EXPECT_LT(big, kRun / 50);
}

// [SEC-10]'s table, for the valid packets of a run.
TEST(NetfuzzGen, FatesFollowTheTable)
{
	Generator g(bed_config(13));
	uint64_t may = 0;

	for (uint64_t i = 0; i < kRun; i++) {
		Datagram d = g.make(i);
		const Target &t = g.targets()[d.target];

		if (d.cls != Class::Valid)
			continue;
		auto p = receive(d.bytes.data(), d.bytes.size())[0];
		bool ud = p.pkt.type == MRC_PKT_UD_SEND;
		Fate f = d.fates[0];

		switch (t.role) {
		case Role::None:
		case Role::Random:
			EXPECT_EQ(f, Fate::NoQp) << show(g, d);
			break;
		case Role::Gsi:
			if (!ud)
				EXPECT_EQ(f, Fate::QpType) << show(g, d);
			else if (d.what.find("wrong-qkey") != std::string::npos)
				EXPECT_EQ(f, Fate::QKey) << show(g, d);
			else if (p.pkt.payload_len > 256)
				EXPECT_EQ(f, Fate::Oversize) << show(g, d);
			else if (p.pkt.payload_len < 24 || p.pkt.payload[0] != 1)
				EXPECT_EQ(f, Fate::NoMad) << show(g, d);
			else
				EXPECT_EQ(f, Fate::May) << show(g, d);
			break;
		case Role::Rc:
			// protected: never taken; the other only with its cookie
			// (data: either direction's) from its peer
			if (t.protect || ud || d.source || d.v6 ||
			    d.what.find("wrong-cookie") != std::string::npos ||
			    (d.what.find("other-cookie") != std::string::npos &&
			     detail::is_ctrl(p.pkt.type)))
				EXPECT_EQ(f, Fate::Dropped) << show(g, d);
			else
				EXPECT_EQ(f, Fate::May) << show(g, d);
			may += f == Fate::May;
			break;
		default:
			break;
		}
	}
	EXPECT_GT(may, 50u);
}

// Over a run every type is sent valid and nearly valid, to every kind of
// target, every mutation and bundle shape is used.
TEST(NetfuzzGen, Coverage)
{
	Generator g(bed_config(11));
	std::set<std::string> seen;
	std::set<int> valid_types, nearly_types, roles, classes;
	uint64_t wrong_source = 0, v6 = 0, right = 0, gsi_ack = 0;

	for (uint64_t i = 0; i < 5 * kRun; i++) {
		Datagram d = g.make(i);
		const Target &t = g.targets()[d.target];
		auto parts = receive(d.bytes.data(), d.bytes.size());

		classes.insert(static_cast<int>(d.cls));
		roles.insert(static_cast<int>(t.role));
		wrong_source += d.source != 0;
		v6 += d.v6;
		right += d.what.find(" right") != std::string::npos;
		for (size_t at = 0; (at = d.what.find_first_not_of(" :", at)) != std::string::npos;) {
			size_t end = d.what.find_first_of(" :", at);

			seen.insert(d.what.substr(at, end - at));
			at = end;
		}
		if (d.cls == Class::Valid)
			valid_types.insert(parts[0].pkt.type);
		if (d.cls == Class::Nearly)
			nearly_types.insert(d.bytes.size() > 1 ? d.meant[0] == MRC_WIRE_OK ?
					    parts[0].pkt.type : 0 : 0);
		// the crash of issue 30: a valid ACK for QP 1
		if (d.cls == Class::Valid && t.role == Role::Gsi &&
		    parts[0].pkt.type == MRC_PKT_ACK)
			gsi_ack++;
	}
	for (int type = 1; type <= MRC_PKT_TYPE_MAX; type++) {
		EXPECT_TRUE(valid_types.count(type)) << "no valid type " << type;
		EXPECT_TRUE(seen.count(detail::type_name(static_cast<uint8_t>(type))));
	}
	for (const auto &m : detail::mutation_names())
		EXPECT_TRUE(seen.count(m)) << "mutation never used: " << m;
	for (const char *shape : { "count-low", "count-high", "count-off", "reserved",
				   "padding", "length-short", "length-sum", "trailing",
				   "table-cut", "packets-cut", "other-qpn", "+tail",
				   "(9" })
		EXPECT_TRUE(seen.count(shape)) << "bundle shape never made: " << shape;
	EXPECT_EQ(classes.size(), 5u);
	EXPECT_EQ(roles.size(), 8u);
	EXPECT_GT(wrong_source, kRun / 2);
	EXPECT_GT(v6, kRun / 2);
	EXPECT_GT(right, kRun / 20);
	EXPECT_GT(gsi_ack, 10u);
}

}  // namespace
