// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The HELLO exchange and the planes it opens ([PKT-92]..[PKT-95],
 * [PATH-8]); see hello.h.
 */
#include "hello.h"

void mrc_hello_init(struct mrc_hello_state *h,
		    const struct mrc_hello_local *local)
{
	memset(h, 0, sizeof(*h));
	h->local = *local;
	if (!h->local.nplanes)
		h->local.nplanes = 1;
	if (h->local.nplanes > MRC_WIRE_HELLO_PLANES_MAX)
		h->local.nplanes = MRC_WIRE_HELLO_PLANES_MAX;
	h->next_ns = MRC_HELLO_NEVER;
	h->nused = 1;
	h->used[0] = 0;
}

void mrc_hello_start(struct mrc_hello_state *h, u64 now)
{
	if (h->started)
		return;
	h->started = true;
	h->next_ns = now;
}

bool mrc_hello_offer_due(struct mrc_hello_state *h, u64 now)
{
	if (!h->started || h->answered || h->next_ns > now)
		return false;
	h->tries++;
	h->stats.offers_sent++;
	/* 50, 100, 200, 400 ms after each: a peer slow to reach RTS too */
	h->next_ns = h->tries >= MRC_HELLO_TRIES ? MRC_HELLO_NEVER :
		     now + (MRC_HELLO_RTO_NS << (h->tries - 1));
	return true;
}

static bool mrc_hello_same_addr(const struct mrc_plane_addr *a,
				const struct mrc_plane_addr *b)
{
	return a->family && a->family == b->family &&
	       !memcmp(a->addr, b->addr, a->family == 4 ? 4 : 16);
}

/*
 * [PATH-8] the planes below both counts whose addresses on both ends are
 * of the connection's family (plane 0's), when both take several.
 */
static void mrc_hello_pick_planes(struct mrc_hello_state *h)
{
	u8 fam = h->local.plane[0].family;
	u32 k, n = h->local.nplanes;

	h->nused = 1;
	if (!mrc_hello_negotiated(h) ||
	    !(h->local.rec.caps & h->peer.caps & MRC_CAP_MULTIPLANE))
		return;
	if (h->peer_nplanes < n)
		n = h->peer_nplanes;
	for (k = 1; k < n; k++)
		if (fam && h->local.plane[k].family == fam &&
		    h->peer_plane[k].family == fam)
			h->used[h->nused++] = (u8)k;
}

/* The first valid HELLO fixes what the peer is ([PKT-94]). */
static void mrc_hello_learn(struct mrc_hello_state *h,
			    const struct mrc_pkt *pkt)
{
	u32 k;

	if (h->peer_known)
		return;
	h->peer = pkt->hello.rec;
	h->peer_nplanes = pkt->hello.nplanes;
	for (k = 0; k < h->peer_nplanes; k++)
		mrc_wire_plane_get(pkt->payload, k, &h->peer_plane[k]);
	h->peer_known = true;
}

/* Bytes of our ANSWER's table: never more than the OFFER brought. */
static u32 mrc_hello_table_len(const struct mrc_hello_state *h)
{
	return h->local.nplanes * MRC_WIRE_PLANE_LEN;
}

enum mrc_hello_verdict mrc_hello_on_rx(struct mrc_hello_state *h,
				       const struct mrc_pkt *pkt,
				       bool may_answer)
{
	enum mrc_hello_verdict v = MRC_HELLO_TAKEN;

	mrc_hello_learn(h, pkt);
	if (pkt->hello.kind == MRC_HELLO_ANSWER) {
		h->stats.rx_answers++;
		/* an ANSWER before we offered is someone else's: ignore */
		if (h->tries && !h->answered) {
			h->answered = true;
			h->next_ns = MRC_HELLO_NEVER;
		}
	} else {
		h->stats.rx_offers++;
		if (!may_answer) {
			/* [PKT-94] the OFFER is resent; answered then */
		} else if (h->answers >= MRC_HELLO_ANSWERS_MAX ||
			   pkt->payload_len < mrc_hello_table_len(h)) {
			h->stats.refused++;
			v = MRC_HELLO_REFUSED;
		} else {
			h->answers++;
			h->stats.answers_sent++;
			v = MRC_HELLO_SEND_ANSWER;
		}
	}
	mrc_hello_pick_planes(h);
	return v;
}

void mrc_hello_build(const struct mrc_hello_state *h, u8 kind,
		     struct mrc_pkt *pkt, u8 *table)
{
	u32 k, len = mrc_hello_table_len(h);

	pkt->type = MRC_PKT_HELLO;
	pkt->path_id = 0;
	pkt->hello.kind = kind;
	pkt->hello.nplanes = h->local.nplanes;
	pkt->hello.rec = h->local.rec;
	for (k = 0; k < h->local.nplanes; k++) {
		/* a family the wire has no code for is no address */
		if (!mrc_wire_plane_put(table, k, &h->local.plane[k])) {
			struct mrc_plane_addr none = { 0 };

			mrc_wire_plane_put(table, k, &none);
		}
	}
	/* [SEC-7] an OFFER is as long as any ANSWER to it may be */
	if (kind == MRC_HELLO_OFFER) {
		memset(table + len, 0, MRC_WIRE_HELLO_TABLE_MAX - len);
		len = MRC_WIRE_HELLO_TABLE_MAX;
	}
	pkt->payload = table;
	pkt->payload_len = len;
}

int mrc_hello_peer_plane(const struct mrc_hello_state *h,
			 const struct mrc_plane_addr *a)
{
	u32 k;

	if (!h->peer_known)
		return -1;
	for (k = 0; k < h->peer_nplanes; k++)
		if (mrc_hello_same_addr(&h->peer_plane[k], a))
			return (int)k;
	return -1;
}
