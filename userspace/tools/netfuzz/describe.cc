// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "describe.h"

#include <cinttypes>

#include "verdict.h"

namespace mrc_netfuzz {

namespace {

const char *meant_str(mrc_wire_reason r)
{
	return r == kAnyFailure ? "any failure" : mrc_wire_reason_str(r);
}

}  // namespace

std::string describe(const Generator &g, const Datagram &d)
{
	const Target &t = g.targets()[d.target];
	char head[160];

	snprintf(head, sizeof(head), "#%" PRIu64 " %s to %s:%u from %u:%u v%d, %zu bytes: ",
		 d.index, class_name(d.cls), role_name(t.role), d.qpn, d.source, d.sport, d.v6 ? 6 : 4, d.bytes.size());
	return head + d.what;
}

void dump(FILE *f, const Generator &g, const Datagram &d)
{
	std::vector<Part> parts = receive(d.bytes.data(), d.bytes.size());

	fprintf(f, "%s\n", describe(g, d).c_str());
	for (size_t i = 0; i < parts.size(); i++) {
		const Part &p = parts[i];

		fprintf(f, "  packet %zu at %u, %u bytes: %s", i, p.off, p.len,
			mrc_wire_reason_str(p.reason));
		if (i < d.meant.size())
			fprintf(f, " (meant: %s)", meant_str(d.meant[i]));
		if (i < d.fates.size())
			fprintf(f, ", %s", fate_name(d.fates[i]));
		if (p.reason == MRC_WIRE_OK)
			fprintf(f, "; type %u path %u flags 0x%x qpn %u psn %u msn %u cookie 0x%08x",
				p.pkt.type, p.pkt.path_id, p.pkt.flags, p.pkt.dst_qpn,
				p.pkt.psn, p.pkt.msn, p.pkt.cookie);
		fputc('\n', f);
	}
	for (size_t i = 0; i < d.bytes.size(); i += 16) {
		fprintf(f, "  %04zx:", i);
		for (size_t j = i; j < i + 16 && j < d.bytes.size(); j++)
			fprintf(f, " %02x", d.bytes[j]);
		fputc('\n', f);
	}
}

}  // namespace mrc_netfuzz
