// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: the per-path telemetry of a live connection between the ends of
 * pair.h. What one end's paths sent, the other's must have received, and
 * a WRITE's bytes are placed once; the mrc_path_rx tracepoint fires once
 * per ACK built and sees the counters as they stand. selftests/cases/
 * 80-telemetry.sh checks the same through metaroce-top on the bed.
 */
#include <kunit/resource.h>
#include <kunit/test.h>

/* The pair needs metaroce built in (pair.h). */
#if IS_BUILTIN(CONFIG_METAROCE)

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/spinlock.h>

#include "../metaroce.h"
#include "../trace.h"
#include "../verbs.h"
#include "../xport.h"
#include "pair.h"

/* One end's paths, summed: sending and receiving halves. */
struct mrc_t_paths {
	u64 sent_pkts, sent_bytes, acked_bytes, inflight_bytes;
	u64 rx_new, new_bytes, placed_bytes, rx_dup, dup_bytes;
	u64 rx_late, rx_skipped, rx_oow, acks;
};

static struct mrc_xp *mrc_t_xp(struct mrc_t_end *e)
{
	return mrc_xp_of(to_mrc_qp(e->qp));
}

/* Under xp->lock, where the core's counters move and ACKs are built. */
static void mrc_t_sum_locked(struct mrc_xp *xp, struct mrc_t_paths *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < MRC_MAX_PATHS; i++) {
		const struct mrc_path_tx *tx = &xp->conn.path[i].tx;
		const struct mrc_path_rx *rx = &xp->conn.path[i].rx;

		s->sent_pkts += tx->sent_pkts;
		s->sent_bytes += tx->sent_bytes;
		s->acked_bytes += tx->acked_bytes;
		s->inflight_bytes += tx->inflight_bytes;
		s->rx_new += rx->rx_new;
		s->new_bytes += rx->new_bytes;
		s->placed_bytes += rx->placed_bytes;
		s->rx_dup += rx->rx_dup;
		s->dup_bytes += rx->dup_bytes;
		s->rx_late += rx->rx_late;
		s->rx_skipped += rx->rx_skipped;
		s->rx_oow += rx->rx_oow;
		s->acks += rx->acks;
	}
}

static void mrc_t_sum_paths(struct mrc_t_end *e, struct mrc_t_paths *s)
{
	struct mrc_xp *xp = mrc_t_xp(e);

	spin_lock_bh(&xp->lock);
	mrc_t_sum_locked(xp, s);
	spin_unlock_bh(&xp->lock);
}

/*
 * A resend the completion made needless may still be on the wire, and
 * its ACK on the way back: wait until B took as many packets as A's
 * paths sent and A has nothing in flight.
 */
static void mrc_t_sum_settled(struct mrc_t_rc *t, struct mrc_t_paths *a,
			      struct mrc_t_paths *b)
{
	unsigned long until = jiffies + msecs_to_jiffies(MRC_T_WAIT_MS);

	for (;;) {
		mrc_t_sum_paths(&t->e[0], a);
		mrc_t_sum_paths(&t->e[1], b);
		if ((b->rx_new + b->rx_dup >= a->sent_pkts &&
		     !a->inflight_bytes) ||
		    !time_before(jiffies, until))
			return;
		msleep(20);
	}
}

/*
 * On a wire that loses nothing B takes each packet A's paths sent once,
 * as new, with the bytes A counted, and places the WRITE's bytes exactly
 * once; nothing comes back the other way but ACKs.
 */
static void mrc_telemetry_write_agrees_both_ends(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_paths a, b;
	u32 len = 100 * 1024 + 123;

	mrc_t_write(test, t, len);
	mrc_t_sum_settled(t, &a, &b);
	KUNIT_EXPECT_EQ(test, b.placed_bytes, (u64)len);
	KUNIT_EXPECT_GE(test, a.sent_bytes, (u64)len);
	KUNIT_EXPECT_EQ(test, b.rx_new, a.sent_pkts);
	KUNIT_EXPECT_EQ(test, b.new_bytes, a.sent_bytes);
	/* a spurious resend's original, acked late, is not acked_bytes */
	KUNIT_EXPECT_LE(test, a.acked_bytes, a.sent_bytes);
	KUNIT_EXPECT_GE(test, a.acked_bytes, (u64)len);
	KUNIT_EXPECT_EQ(test, a.inflight_bytes, 0ull);
	/* the wire makes no copies and drops nothing: every hole filled */
	KUNIT_EXPECT_EQ(test, b.rx_dup, 0ull);
	KUNIT_EXPECT_EQ(test, b.dup_bytes, 0ull);
	KUNIT_EXPECT_EQ(test, b.rx_skipped, b.rx_late);
	KUNIT_EXPECT_EQ(test, b.rx_oow, 0ull);
	KUNIT_EXPECT_GT(test, b.acks, 0ull);
	KUNIT_EXPECT_EQ(test, a.rx_new + a.placed_bytes + b.sent_pkts, 0ull);
}

/* What the mrc_path_rx probe saw of one end's ACKs. */
struct mrc_t_rx_probe {
	struct mrc_xp *xp;		/* the end watched */
	spinlock_t lock;
	u64 events;
	u64 bad_path;			/* events naming a path out of range */
	/* per path, the counters at its latest ACK */
	u64 new_bytes[MRC_MAX_PATHS];
	u64 placed_bytes[MRC_MAX_PATHS];
};

/* Runs where the ACK is built, under xp->lock: the counters are stable. */
static void mrc_t_rx_probe(void *data, const struct mrc_xp *xp,
			   const struct mrc_ack_info *ack)
{
	struct mrc_t_rx_probe *p = data;
	const struct mrc_path_rx *rx;

	if (xp != p->xp)
		return;
	spin_lock(&p->lock);
	p->events++;
	if (ack->path_id >= MRC_MAX_PATHS) {
		p->bad_path++;
	} else {
		rx = &xp->conn.path[ack->path_id].rx;
		p->new_bytes[ack->path_id] = rx->new_bytes;
		p->placed_bytes[ack->path_id] = rx->placed_bytes;
	}
	spin_unlock(&p->lock);
}

static int mrc_t_probe_on(struct kunit_resource *res, void *context)
{
	res->data = context;
	return register_trace_mrc_path_rx(mrc_t_rx_probe, context);
}

/* Also when a case stops half-way: no probe outlives its data. */
static void mrc_t_probe_off(struct kunit_resource *res)
{
	unregister_trace_mrc_path_rx(mrc_t_rx_probe, res->data);
	tracepoint_synchronize_unregister();
}

static bool mrc_t_probe_match(struct kunit *test, struct kunit_resource *res,
			      void *data)
{
	return res->data == data;
}

/* The probe's view and B's counters at one instant. */
static void mrc_t_rx_probe_read(struct mrc_t_rx_probe *p, struct mrc_t_paths *b,
				u64 *events, u64 *new_bytes, u64 *placed)
{
	struct mrc_xp *xp = p->xp;
	int i;

	*new_bytes = 0;
	*placed = 0;
	spin_lock_bh(&xp->lock);
	mrc_t_sum_locked(xp, b);
	spin_lock(&p->lock);
	*events = p->events;
	for (i = 0; i < MRC_MAX_PATHS; i++) {
		*new_bytes += p->new_bytes[i];
		*placed += p->placed_bytes[i];
	}
	spin_unlock(&p->lock);
	spin_unlock_bh(&xp->lock);
}

/*
 * Each ACK B builds fires mrc_path_rx once, for the path it answers. Every
 * packet is answered, so once B acknowledged all A sent, the counters the
 * events saw, each path's at its latest ACK, add up to the WRITE.
 */
static void mrc_telemetry_rx_trace_per_ack(struct kunit *test)
{
	struct mrc_t_rc *t = test->priv;
	struct mrc_t_rx_probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	unsigned long until = jiffies + msecs_to_jiffies(MRC_T_WAIT_MS);
	u64 new_bytes, placed, events, acks_before;
	struct mrc_t_paths a, b;
	u32 len = 64 * 1024 + 7;

	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		kunit_skip(test, "no tracepoints in this kernel");
	KUNIT_ASSERT_NOT_NULL(test, p);
	p->xp = mrc_t_xp(&t->e[1]);
	spin_lock_init(&p->lock);
	mrc_t_sum_paths(&t->e[1], &b);
	acks_before = b.acks;
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, mrc_t_probe_on,
							 mrc_t_probe_off,
							 GFP_KERNEL, p));

	mrc_t_write(test, t, len);
	mrc_t_sum_settled(t, &a, &b);
	/* an ACK still due for the last packets is built on B's timer */
	for (;;) {
		mrc_t_rx_probe_read(p, &b, &events, &new_bytes, &placed);
		if (new_bytes >= a.sent_bytes || !time_before(jiffies, until))
			break;
		msleep(20);
	}
	KUNIT_ASSERT_EQ(test, kunit_destroy_resource(test, mrc_t_probe_match, p),
			0);

	KUNIT_EXPECT_EQ(test, p->bad_path, 0ull);
	KUNIT_EXPECT_GT(test, events, 0ull);
	KUNIT_EXPECT_EQ(test, events, b.acks - acks_before);
	KUNIT_EXPECT_EQ(test, placed, (u64)len);
	KUNIT_EXPECT_EQ(test, new_bytes, a.sent_bytes);
}

static struct kunit_case mrc_telemetry_cases[] = {
	KUNIT_CASE(mrc_telemetry_write_agrees_both_ends),
	KUNIT_CASE(mrc_telemetry_rx_trace_per_ack),
	{}
};

static struct kunit_suite mrc_telemetry_suite = {
	.name = "metaroce_telemetry",
	.init = mrc_t_pair_init,
	.exit = mrc_t_pair_exit,
	.test_cases = mrc_telemetry_cases,
};

kunit_test_suite(mrc_telemetry_suite);

#endif /* IS_BUILTIN(CONFIG_METAROCE) */
