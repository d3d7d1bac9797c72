/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the BPF program (path_telemetry.bpf.c) and metaroce-top: the
 * map that keeps the latest numbers of every path, keyed by device, QP
 * and path id.
 *
 * The record is the metaroce:mrc_path_ack tracepoint's, built from the
 * same field list the kernel's trace.h uses (kernel/trace_fields.h), so
 * a field added there shows up here without a second definition.
 */
#ifndef MRC_PATH_TELEMETRY_H
#define MRC_PATH_TELEMETRY_H

#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#include "trace_fields.h"

#define MRC_TELEM_MAX_PATHS	4096

/* bpf_helpers.h has an __array of its own: keep it */
#pragma push_macro("__field")
#pragma push_macro("__array")
#undef __field
#undef __array
#define __field(type, name)		type name;
#define __array(type, name, len)	type name[len];
/* The tracepoint's fields, in the kernel's order after its 8-byte header. */
struct mrc_path_ack_rec {
	MRC_TP_PATH_ACK_FIELDS
};
#pragma pop_macro("__array")
#pragma pop_macro("__field")

struct mrc_telem_key {
	char dev[MRC_TP_DEV_LEN];
	u32 qpn;
	u32 path;
};

struct mrc_telem_val {
	struct mrc_path_ack_rec rec;	/* from the newest ACK */
	u64 ts_ns;			/* bpf_ktime_get_ns() of that ACK */
	u64 acks;			/* ACKs seen since the program loaded */
};

#endif /* MRC_PATH_TELEMETRY_H */
