// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Per-path telemetry of metaroce: on every ACK the module accepts
 * (tracepoint metaroce:mrc_path_ack) keep the path's newest numbers in a
 * hash map that metaroce-top reads once a second.
 *
 * A classic tracepoint program: the module has no BTF here, so the record
 * layout comes from the shared field list instead of CO-RE relocations.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "path_telemetry.h"

/* struct trace_entry, the common header of every trace record */
struct mrc_tp_hdr {
	u16 type;
	u8 flags;
	u8 preempt_count;
	int pid;
};

struct mrc_path_ack_ctx {
	struct mrc_tp_hdr hdr;
	struct mrc_path_ack_rec rec;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MRC_TELEM_MAX_PATHS);
	__type(key, struct mrc_telem_key);
	__type(value, struct mrc_telem_val);
} mrc_paths SEC(".maps");

SEC("tracepoint/metaroce/mrc_path_ack")
int mrc_on_path_ack(struct mrc_path_ack_ctx *ctx)
{
	struct mrc_telem_key key = {};
	struct mrc_telem_val *v, nv = {};

	/* one copy to the stack: the verifier allows no ctx+offset access */
	if (bpf_probe_read_kernel(&nv.rec, sizeof(nv.rec), &ctx->rec))
		return 0;
	__builtin_memcpy(key.dev, nv.rec.dev, sizeof(key.dev));
	key.qpn = nv.rec.qpn;
	key.path = nv.rec.path;
	nv.ts_ns = bpf_ktime_get_ns();

	v = bpf_map_lookup_elem(&mrc_paths, &key);
	if (v) {
		/* racing ACKs of one path may interleave: numbers stay plausible */
		__builtin_memcpy(&v->rec, &nv.rec, sizeof(v->rec));
		v->ts_ns = nv.ts_ns;
		__sync_fetch_and_add(&v->acks, 1);
		return 0;
	}
	nv.acks = 1;
	bpf_map_update_elem(&mrc_paths, &key, &nv, BPF_NOEXIST);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
