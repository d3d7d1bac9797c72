// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// How wire_encode_fuzz reads its input, and how wire_corpus_gen writes
// seeds for it: the base fields in order, the extension union as raw
// bytes, then the payload.
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

extern "C" {
#include "core/wire.h"
}

namespace mrc_fuzz {

struct Reader {
	const u8 *p;
	size_t n;
	template <typename T> bool get(T *v)
	{
		if (n < sizeof(T))
			return false;
		memcpy(v, p, sizeof(T));
		p += sizeof(T);
		n -= sizeof(T);
		return true;
	}
};

inline bool pkt_from_bytes(const u8 *data, size_t size, mrc_pkt *p,
			   std::vector<u8> *payload)
{
	Reader r{data, size};
	memset(p, 0, sizeof(*p));
	if (!r.get(&p->type) || !r.get(&p->path_id) || !r.get(&p->flags) ||
	    !r.get(&p->stream_id) || !r.get(&p->dst_qpn) || !r.get(&p->psn) ||
	    !r.get(&p->msn) || !r.get(&p->ssn) || !r.get(&p->tsval) ||
	    !r.get(&p->cookie) || !r.get(&p->imm) || !r.get(&p->ack))
		return false;
	payload->assign(r.p, r.p + r.n);
	p->payload = payload->empty() ? nullptr : payload->data();
	p->payload_len = (u32)payload->size();
	return true;
}

template <typename T> void put(std::vector<u8> &b, const T &v)
{
	const u8 *p = reinterpret_cast<const u8 *>(&v);
	b.insert(b.end(), p, p + sizeof(T));
}

inline std::vector<u8> pkt_to_bytes(const mrc_pkt &p)
{
	std::vector<u8> b;
	put(b, p.type);
	put(b, p.path_id);
	put(b, p.flags);
	put(b, p.stream_id);
	put(b, p.dst_qpn);
	put(b, p.psn);
	put(b, p.msn);
	put(b, p.ssn);
	put(b, p.tsval);
	put(b, p.cookie);
	put(b, p.imm);
	put(b, p.ack);	// the largest member covers the whole union
	if (p.payload_len)
		b.insert(b.end(), p.payload, p.payload + p.payload_len);
	return b;
}

} // namespace mrc_fuzz
