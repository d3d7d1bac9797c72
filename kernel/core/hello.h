/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Negotiation in band ([PKT-92]..[PKT-95]) and the planes a connection's
 * paths take ([PATH-8]): one end's view of the HELLO exchange. The glue
 * says when the queue pair reached RTS, hands over every HELLO that passed
 * its checks (source, state, cookie) and asks when to send an OFFER, what
 * to put in it and which plane a path uses. No clocks or I/O: times are
 * the caller's, in nanoseconds.
 */
#ifndef MRC_CORE_HELLO_H
#define MRC_CORE_HELLO_H

#include "compat.h"
#include "wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* OFFERs sent at most, the first at RTS ([PKT-94]). */
#define MRC_HELLO_TRIES		5
/* Wait before the first resend of an OFFER, doubling. */
#define MRC_HELLO_RTO_NS	(50ULL * 1000 * 1000)
/* No OFFER due: the same "never" as mrc_conn_deadline()'s. */
#define MRC_HELLO_NEVER		(~(u64)0)
/* ANSWERs a connection sends in its life ([SEC-7]). */
#define MRC_HELLO_ANSWERS_MAX	8

/* What an end says about itself: its record and its planes. */
struct mrc_hello_local {
	struct mrc_hello rec;
	u8 nplanes;			/* 1..MRC_WIRE_HELLO_PLANES_MAX */
	struct mrc_plane_addr plane[MRC_WIRE_HELLO_PLANES_MAX];
};

struct mrc_hello_stats {
	u64 offers_sent;
	u64 answers_sent;
	u64 rx_offers;
	u64 rx_answers;
	u64 refused;			/* OFFERs not answered: limit, length */
};

struct mrc_hello_state {
	struct mrc_hello_local local;
	struct mrc_hello peer;		/* valid once peer_known */
	u8 peer_nplanes;
	struct mrc_plane_addr peer_plane[MRC_WIRE_HELLO_PLANES_MAX];
	bool started;			/* RTS reached: OFFERs go out */
	bool peer_known;		/* a valid HELLO from the peer arrived */
	bool answered;			/* ... and an ANSWER to our OFFER */
	u8 tries;			/* OFFERs sent */
	u8 answers;			/* ANSWERs sent */
	u64 next_ns;			/* next OFFER due, MRC_HELLO_NEVER: none */
	/* [PATH-8] planes in use, in order; [0] is always plane 0 */
	u8 nused;
	u8 used[MRC_WIRE_HELLO_PLANES_MAX];
	struct mrc_hello_stats stats;
};

/* What to do about a HELLO received (mrc_hello_on_rx()). */
enum mrc_hello_verdict {
	MRC_HELLO_TAKEN,		/* kept; nothing to send */
	MRC_HELLO_SEND_ANSWER,		/* answer it now: mrc_hello_build() */
	MRC_HELLO_REFUSED,		/* an OFFER not answered ([SEC-7]) */
};

/*
 * Start from @local (copied; nplanes clamped to 1..8, entry 0 being the
 * connection's own address). Nothing is sent before mrc_hello_start().
 */
void mrc_hello_init(struct mrc_hello_state *h,
		    const struct mrc_hello_local *local);

/* The queue pair reached RTS at @now: the first OFFER is due. */
void mrc_hello_start(struct mrc_hello_state *h, u64 now);

/* When the next OFFER is due, MRC_HELLO_NEVER if none will be. */
static inline u64 mrc_hello_deadline(const struct mrc_hello_state *h)
{
	return h->next_ns;
}

/*
 * Is an OFFER due at @now? If so it counts as sent and the next one is
 * scheduled: build it with mrc_hello_build(MRC_HELLO_OFFER).
 */
bool mrc_hello_offer_due(struct mrc_hello_state *h, u64 now);

/*
 * A HELLO @pkt (parsed, its table at pkt->payload) that passed source,
 * state and cookie checks. @may_answer: the queue pair is in RTS or
 * later (its cookie is final). Returns whether to answer it.
 */
enum mrc_hello_verdict mrc_hello_on_rx(struct mrc_hello_state *h,
				       const struct mrc_pkt *pkt,
				       bool may_answer);

/*
 * Fill @pkt (type, kind, record; the caller sets cookie, tsval, flags)
 * and write its plane table, and an OFFER's padding, at @table (room for
 * MRC_WIRE_HELLO_TABLE_MAX bytes); pkt->payload_len says how much.
 */
void mrc_hello_build(const struct mrc_hello_state *h, u8 kind,
		     struct mrc_pkt *pkt, u8 *table);

/* [PKT-95] both records known, both ends know the other's planes. */
static inline bool mrc_hello_negotiated(const struct mrc_hello_state *h)
{
	return h->peer_known && h->answered;
}

/* [PATH-8] planes the connection uses: 1 until negotiated. */
static inline u32 mrc_hello_nplanes(const struct mrc_hello_state *h)
{
	return h->nused;
}

/* [PATH-8] the plane path @path_id sends on. */
static inline u32 mrc_hello_plane_of(const struct mrc_hello_state *h,
				     u32 path_id)
{
	return h->nused ? h->used[path_id % h->nused] : 0;
}

/*
 * [SEC-3] the peer's announced plane whose address is @a (family 4 or
 * 6), -1 if none (always before the peer's HELLO). The caller checks the
 * connection's own peer address (plane 0) first.
 */
int mrc_hello_peer_plane(const struct mrc_hello_state *h,
			 const struct mrc_plane_addr *a);

#ifdef __cplusplus
}
#endif

#endif /* MRC_CORE_HELLO_H */
