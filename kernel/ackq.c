// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ACKs at the end of a receive batch ([REL-23]). A NAPI poll hands the
 * UDP socket one datagram after another; answered each on its own, every
 * gap and every resend's ACK_REQ costs the receiver an ACK datagram, and
 * at 10% loss the receiving guest, already the bottleneck, sent four
 * times the packets it sends lossless. So the receive path only notes a
 * connection here; a tasklet, which runs once NET_RX has finished its
 * poll, sends what is due then: one ACK per path, bundled ([ENC-9]).
 * At most ack_batch datagrams wait so: a poll may take a whole window,
 * and ACKs held that long stall the sender (unbounded, ib_write_bw lost
 * 15% of its lossless goodput in the bed).
 *
 * The queue is per CPU and touched with BHs off. A connection is on at
 * most one queue (xp->ack_queued, under xp->lock), holding a reference
 * on its QP, so destroy_qp waits for the flush; the flush finds a
 * destroyed transport dead under its lock, as a receive would.
 */

#include <linux/interrupt.h>
#include <linux/percpu.h>

#include "ack.h"
#include "metaroce.h"
#include "xport.h"

#define MRC_ACKQ_MAX	16

struct mrc_ackq {
	struct tasklet_struct flush;
	u32 n;
	struct mrc_qp *qp[MRC_ACKQ_MAX];
};

static DEFINE_PER_CPU(struct mrc_ackq, mrc_ackq);

static uint ack_batch = 16;
module_param(ack_batch, uint, 0644);
MODULE_PARM_DESC(ack_batch,
		 "datagrams whose ACKs may wait for the end of their receive batch ([REL-23]); 0: none");

/*
 * With xp->lock held and BHs off: true if the ACKs due for @xp now go at
 * the end of the batch; false if the caller must send them itself.
 */
bool mrc_ackq_defer(struct mrc_xp *xp)
{
	u32 limit = READ_ONCE(ack_batch);
	struct mrc_ackq *q;

	if (xp->ack_queued) {
		if (++xp->ack_held < limit)
			return true;
		xp->ack_held = 0;
		return false;	/* still queued: the flush finds less */
	}
	if (limit < 2 || !xp->qp)
		return false;
	q = this_cpu_ptr(&mrc_ackq);
	if (q->n == MRC_ACKQ_MAX)
		return false;
	refcount_inc(&xp->qp->ref);
	q->qp[q->n++] = xp->qp;
	xp->ack_queued = true;
	xp->ack_held = 1;
	tasklet_schedule(&q->flush);
	return true;
}

static void mrc_ackq_flush(struct tasklet_struct *t)
{
	struct mrc_ackq *q = from_tasklet(q, t, flush);
	struct mrc_qp *todo[MRC_ACKQ_MAX];
	struct sk_buff_head out;
	u32 i, n = q->n;

	/* what sending triggers on this CPU joins the next batch */
	memcpy(todo, q->qp, n * sizeof(todo[0]));
	q->n = 0;
	__skb_queue_head_init(&out);
	for (i = 0; i < n; i++) {
		struct mrc_xp *xp = mrc_xp_of(todo[i]);

		spin_lock_bh(&xp->lock);
		xp->ack_queued = false;
		if (!xp->dead && xp->live) {
			mrc_ack_send(xp, ktime_get_ns(), &out);
			mrc_xp_arm_timer(xp);
		}
		mrc_xp_unlock_xmit(xp, &out);
		mrc_qp_put(todo[i]);
	}
}

void mrc_ackq_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		tasklet_setup(&per_cpu(mrc_ackq, cpu).flush, mrc_ackq_flush);
}

/* Module exit, after the last receive: each entry held a QP, now gone. */
void mrc_ackq_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		tasklet_kill(&per_cpu(mrc_ackq, cpu).flush);
}
