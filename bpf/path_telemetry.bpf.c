// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Per-path telemetry of metaroce: on every ACK the module accepts
 * (tracepoint metaroce:mrc_path_ack) and on every change of a path's state
 * or source port (metaroce:mrc_path_state) keep the path's newest numbers
 * in an LRU map that the tools read; each change also goes to a ring
 * buffer as an event. A failed path gets no ACKs: its change records keep
 * its row current. On every ACK the module builds (metaroce:mrc_path_rx)
 * keep the receiving end's numbers in the same map, as a row of its own.
 *
 * Classic tracepoint programs: the module has no BTF here, so the record
 * layout comes from the shared field list instead of CO-RE relocations.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>

#include "path_telemetry.h"

/* struct trace_entry, the common header of every trace record */
struct mrc_tp_hdr {
	u16 type;
	u8 flags;
	u8 preempt_count;
	int pid;
};

struct mrc_path_ctx {
	struct mrc_tp_hdr hdr;
	struct mrc_path_rec rec;
};

struct mrc_rx_ctx {
	struct mrc_tp_hdr hdr;
	struct mrc_path_rx_rec rec;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MRC_TELEM_MAX_PATHS);
	__type(key, struct mrc_telem_key);
	__type(value, struct mrc_telem_val);
} mrc_paths SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, MRC_TELEM_EVENT_BYTES);
} mrc_events SEC(".maps");

/* events the ring buffer had no room for */
u64 mrc_events_lost;

/* a new sample (the count moved) joins its window's max */
static __always_inline void fold_rtt(struct mrc_telem_val *v,
				     const struct mrc_path_rec *r, u64 now)
{
	u64 age = now - v->rtt_win_ns;

	if (age >= MRC_TELEM_RTT_WINDOW_NS) {
		v->rtt_prev_max_us = age < 2 * MRC_TELEM_RTT_WINDOW_NS ?
				     v->rtt_max_us : 0;
		v->rtt_max_us = 0;
		v->rtt_win_ns = now;
	}
	if (r->rtt_samples != v->rtt_samples && r->rtt_us > v->rtt_max_us)
		v->rtt_max_us = r->rtt_us;
	v->rtt_samples = r->rtt_samples;
}

static __always_inline void note(struct mrc_path_ctx *ctx, bool change)
{
	struct mrc_telem_key key = {};
	struct mrc_telem_val *v, nv = {};
	struct mrc_telem_event *e;

	/* one copy to the stack: the verifier allows no ctx+offset access */
	if (bpf_probe_read_kernel(&nv.rec, sizeof(nv.rec), &ctx->rec))
		return;
	__builtin_memcpy(key.dev, nv.rec.dev, sizeof(key.dev));
	key.qpn = nv.rec.qpn;
	key.path = nv.rec.path;
	key.side = MRC_TELEM_TX;
	nv.ts_ns = bpf_ktime_get_ns();

	if (change) {
		e = bpf_ringbuf_reserve(&mrc_events, sizeof(*e), 0);
		if (e) {
			e->ts_ns = nv.ts_ns;
			__builtin_memcpy(&e->rec, &nv.rec, sizeof(e->rec));
			bpf_ringbuf_submit(e, 0);
		} else {
			__sync_fetch_and_add(&mrc_events_lost, 1);
		}
	}

	v = bpf_map_lookup_elem(&mrc_paths, &key);
	if (v) {
		/* racing records of one path may interleave: numbers stay plausible */
		fold_rtt(v, &nv.rec, nv.ts_ns);
		__builtin_memcpy(&v->rec, &nv.rec, sizeof(v->rec));
		v->ts_ns = nv.ts_ns;
		if (change) {
			v->change_ns = nv.ts_ns;
			__sync_fetch_and_add(&v->changes, 1);
		} else {
			v->ack_ns = nv.ts_ns;
			__sync_fetch_and_add(&v->acks, 1);
		}
		return;
	}
	fold_rtt(&nv, &nv.rec, nv.ts_ns);
	if (change) {
		nv.change_ns = nv.ts_ns;
		nv.changes = 1;
	} else {
		nv.ack_ns = nv.ts_ns;
		nv.acks = 1;
	}
	bpf_map_update_elem(&mrc_paths, &key, &nv, BPF_NOEXIST);
}

SEC("tracepoint/metaroce/mrc_path_ack")
int mrc_on_path_ack(struct mrc_path_ctx *ctx)
{
	note(ctx, false);
	return 0;
}

SEC("tracepoint/metaroce/mrc_path_state")
int mrc_on_path_state(struct mrc_path_ctx *ctx)
{
	note(ctx, true);
	return 0;
}

SEC("tracepoint/metaroce/mrc_path_rx")
int mrc_on_path_rx(struct mrc_rx_ctx *ctx)
{
	struct mrc_telem_key key = {};
	struct mrc_telem_val *v, nv = {};

	if (bpf_probe_read_kernel(&nv.rx, sizeof(nv.rx), &ctx->rec))
		return 0;
	__builtin_memcpy(key.dev, nv.rx.dev, sizeof(key.dev));
	key.qpn = nv.rx.qpn;
	key.path = nv.rx.path;
	key.side = MRC_TELEM_RX;
	nv.ts_ns = bpf_ktime_get_ns();
	nv.ack_ns = nv.ts_ns;

	v = bpf_map_lookup_elem(&mrc_paths, &key);
	if (v) {
		/* the counters are cumulative: the newest record says it all */
		__builtin_memcpy(&v->rx, &nv.rx, sizeof(v->rx));
		v->ts_ns = nv.ts_ns;
		v->ack_ns = nv.ts_ns;
		__sync_fetch_and_add(&v->acks, 1);
		return 0;
	}
	nv.acks = 1;
	bpf_map_update_elem(&mrc_paths, &key, &nv, BPF_NOEXIST);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
