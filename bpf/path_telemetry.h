/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the BPF program (path_telemetry.bpf.c) and the tools
 * (metaroce-top, metaroce-exporter): the map that keeps the latest numbers
 * of every path, keyed by device, QP, path id and side, and the events of
 * the ring buffer.
 *
 * A path has two ends: the sending one (records of the metaroce:mrc_path_ack
 * and mrc_path_state tracepoints) and the receiving one (mrc_path_rx, the
 * peer's path of the same id). A host that both sends and receives on a QP
 * has a row of each side per path; the key's side keeps them apart. The
 * records are built from the same field lists the kernel's trace.h uses
 * (kernel/trace_fields.h), so a field added there shows up here without a
 * second definition.
 */
#ifndef MRC_PATH_TELEMETRY_H
#define MRC_PATH_TELEMETRY_H

#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#include "trace_fields.h"

/* An LRU map: the paths heard from least recently make room. */
#define MRC_TELEM_MAX_PATHS	4096
#define MRC_TELEM_EVENT_BYTES	(64 * 1024)
/* The recent max RTT spans the current window of this length and the last. */
#define MRC_TELEM_RTT_WINDOW_NS	1000000000ull

/* bpf_helpers.h has an __array of its own: keep it */
#pragma push_macro("__field")
#pragma push_macro("__array")
#undef __field
#undef __array
#define __field(type, name)		type name;
#define __array(type, name, len)	type name[len];
/* The tracepoints' fields, in the kernel's order after its 8-byte header. */
struct mrc_path_rec {
	MRC_TP_PATH_FIELDS
};

/* ... and those of mrc_path_rx */
struct mrc_path_rx_rec {
	MRC_TP_RX_FIELDS
};
#pragma pop_macro("__array")
#pragma pop_macro("__field")

enum mrc_telem_side {
	MRC_TELEM_TX = 0,	/* our path: mrc_path_ack, mrc_path_state */
	MRC_TELEM_RX = 1,	/* the peer's path as we receive it: mrc_path_rx */
};

struct mrc_telem_key {
	char dev[MRC_TP_DEV_LEN];
	u32 qpn;
	u32 path;
	u32 side;		/* enum mrc_telem_side */
};

/* bpf_ktime_get_ns() stamps; 0: not seen since the program loaded */
struct mrc_telem_val {
	union {
		struct mrc_path_rec rec;	/* TX: the newest ACK or change */
		struct mrc_path_rx_rec rx;	/* RX: the newest ACK built */
	};
	u64 ts_ns;			/* of that record */
	u64 ack_ns;			/* of the newest ACK, received or built */
	u64 change_ns;			/* TX: of the newest state/port change */
	u64 acks;			/* ACKs seen since the program loaded */
	u64 changes;			/* TX: changes seen since then */
	/*
	 * TX: the record has the newest RTT sample only: the largest of those
	 * this program saw, per window, is the path's recent max RTT
	 * (figures.cc recent_max_rtt_us()).
	 */
	u64 rtt_win_ns;			/* when the current window began */
	u32 rtt_max_us;			/* largest sample in it */
	u32 rtt_prev_max_us;		/* ... in the window before, if adjacent */
	u32 rtt_samples;		/* rec.rtt_samples of the last fold */
	u32 pad;
};

/* One per mrc_path_state record, in the ring buffer mrc_events. */
struct mrc_telem_event {
	u64 ts_ns;
	struct mrc_path_rec rec;
};

#endif /* MRC_PATH_TELEMETRY_H */
