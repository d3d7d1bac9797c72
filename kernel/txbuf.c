// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Transmit buffers that are filled again instead of zeroed again.
 *
 * Debian's kernel, like most distributions', zeroes every page and slab
 * object it hands out (init_on_alloc=1). A linear skb for an 8 KiB packet
 * comes from the page allocator, so each one cleared 16 KiB that we then
 * overwrote with headers and payload: perf in the bed put that clearing at
 * a quarter of a sending guest's CPU (ib_write_bw 1 MiB), more than the
 * copy from the MR itself.
 *
 * So each CPU keeps a ring of buffers (a page, or four for jumbo frames)
 * and keeps one reference to each. An skb is built around a buffer
 * (build_skb: the head is a page fragment), and the stack frees it with
 * put_page() on the buffer's head page; a buffer whose count is back to our
 * one reference is no longer anyone else's, and is filled again as it is.
 * That is safe because every byte put in a packet is written first:
 * headers are encoded whole, reserved bytes included ([PKT-12]), the
 * payload is copied whole or the skb dropped, and bundles and ACK datagrams
 * are packets back to back behind a header written whole.
 */

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>

#include "stats.h"
#include "txbuf.h"

static bool tx_buf_reuse = true;
module_param(tx_buf_reuse, bool, 0644);
MODULE_PARM_DESC(tx_buf_reuse,
		 "Build large transmit skbs in recycled buffers rather than freshly zeroed ones (default on)");

#define MRC_TXBUF_SLOTS	64	/* buffers per CPU and size */
#define MRC_TXBUF_PROBE	4	/* busy slots passed over before a new buffer */
/* Below this the slab's zeroing costs less than a page would. */
#define MRC_TXBUF_MIN	1024

/* page orders of the two sizes: up to a 4 KiB frame, up to a 9000-byte one */
static const unsigned int mrc_txbuf_order[] = { 0, 2 };

struct mrc_txbuf_ring {
	struct page *slot[MRC_TXBUF_SLOTS];
	unsigned int next;
};

struct mrc_txbuf_cpu {
	struct mrc_txbuf_ring ring[ARRAY_SIZE(mrc_txbuf_order)];
};

static struct mrc_txbuf_cpu __percpu *mrc_txbufs;

/*
 * A buffer of 2^@order pages with one reference for the caller's skb, from
 * the next free slot of @r, else a new one that takes the next slot's place
 * (the stack frees the buffer it held once done with it).
 */
static struct page *mrc_txbuf_take(struct mrc_txbuf_ring *r,
				   unsigned int order, bool *reused)
{
	struct page *page;
	unsigned int i, k;

	for (i = 0; i < MRC_TXBUF_PROBE; i++) {
		k = (r->next + i) % MRC_TXBUF_SLOTS;
		page = r->slot[k];
		/* the control dependency orders our writes after this read */
		if (page && page_ref_count(page) == 1) {
			r->next = (k + 1) % MRC_TXBUF_SLOTS;
			*reused = true;
			page_ref_inc(page);
			return page;
		}
	}
	*reused = false;
	page = alloc_pages(GFP_ATOMIC | __GFP_COMP | __GFP_NOWARN, order);
	/* an emergency reserve's page is used once: the skb's alone */
	if (!page || page_is_pfmemalloc(page))
		return page;
	k = r->next;
	if (r->slot[k])
		put_page(r->slot[k]);
	r->slot[k] = page;
	r->next = (k + 1) % MRC_TXBUF_SLOTS;
	page_ref_inc(page);
	return page;
}

/*
 * An empty skb with room for @size bytes (headroom included) in a recycled
 * buffer, or NULL: then the caller allocates as usual (small or huge
 * sizes, reuse off, no memory).
 */
struct sk_buff *mrc_txbuf_skb(struct mrc_dev *dev, unsigned int size)
{
	unsigned int need = SKB_DATA_ALIGN(size) +
			    SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	unsigned int c, order;
	unsigned long flags;
	struct sk_buff *skb;
	struct page *page;
	bool reused;

	if (!mrc_txbufs || size < MRC_TXBUF_MIN || !READ_ONCE(tx_buf_reuse))
		return NULL;
	for (c = 0; c < ARRAY_SIZE(mrc_txbuf_order); c++)
		if (need <= PAGE_SIZE << mrc_txbuf_order[c])
			break;
	if (c == ARRAY_SIZE(mrc_txbuf_order))
		return NULL;
	order = mrc_txbuf_order[c];
	/* callers run in process context, softirq, or under IRQ-safe locks */
	local_irq_save(flags);
	page = mrc_txbuf_take(&this_cpu_ptr(mrc_txbufs)->ring[c], order,
			      &reused);
	local_irq_restore(flags);
	if (!page)
		return NULL;
	skb = build_skb(page_address(page), PAGE_SIZE << order);
	if (!skb) {
		put_page(page);
		return NULL;
	}
	mrc_stat_inc(dev, reused ? MRC_STAT_TX_BUF_REUSED :
				   MRC_STAT_TX_BUF_FRESH);
	return skb;
}

int mrc_txbuf_init(void)
{
	mrc_txbufs = alloc_percpu(struct mrc_txbuf_cpu);
	return mrc_txbufs ? 0 : -ENOMEM;
}

/* After the last device: skbs still in flight hold their own references. */
void mrc_txbuf_exit(void)
{
	unsigned int cpu, c, k;

	for_each_possible_cpu(cpu) {
		struct mrc_txbuf_cpu *b = per_cpu_ptr(mrc_txbufs, cpu);

		for (c = 0; c < ARRAY_SIZE(b->ring); c++)
			for (k = 0; k < MRC_TXBUF_SLOTS; k++)
				if (b->ring[c].slot[k])
					put_page(b->ring[c].slot[k]);
	}
	free_percpu(mrc_txbufs);
	mrc_txbufs = NULL;
}
