/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The fields of the metaroce:mrc_path_ack and mrc_path_state tracepoints
 * (one event class), written once.
 *
 * trace.h builds the events from this list, and the BPF telemetry program
 * (bpf/path_telemetry.bpf.c) builds its view of the raw record from it, so
 * the two layouts cannot drift apart. The includer defines
 * __field(type, name) and __array(type, name, len) before expanding it.
 * Every field is a plain integer: a classic tracepoint program reads them
 * without BTF of the module.
 */
#ifndef MRC_TRACE_FIELDS_H
#define MRC_TRACE_FIELDS_H

#define MRC_TP_DEV_LEN	16	/* ib device name, truncated */

/*
 * The list is one argument of MRC_TP_LIST() so that it stays a single
 * token sequence wherever it is expanded (TP_STRUCT__entry, a struct).
 */
#define MRC_TP_LIST(...)	__VA_ARGS__

#define MRC_TP_PATH_FIELDS MRC_TP_LIST(			\
	__array(char, dev, MRC_TP_DEV_LEN)			\
	__field(u64, tx_pkts)	/* PSNs sent, resends included */ \
	__field(u64, acked_pkts)				\
	__field(u64, lost_pkts)	/* declared lost: each resent */ \
	__field(u64, late_pkts)	/* ... and acked after all */	\
	__field(u64, rto_fired)				\
	__field(u64, tx_bytes)	/* payload of tx_pkts */	\
	__field(u64, acked_bytes)	/* payload of acked_pkts */ \
	__field(u32, qpn)					\
	__field(u32, srtt_us)	/* 0: no sample yet */		\
	__field(u32, min_rtt_us)				\
	__field(u32, rto_us)					\
	__field(u32, cwnd)	/* path window, bytes */		\
	__field(u32, inflight)	/* path bytes in flight */	\
	__field(u32, conn_cwnd)				\
	__field(u32, ce)	/* peer's CE count, mod 2^32 */	\
	__field(u32, rate_hint)	/* Mbit/s from this ACK, 0: none */ \
	__field(u32, moves)	/* new ports: failures, [PATH-10] */ \
	__field(u32, rtt_us)	/* the newest sample, 0: none */ \
	__field(u32, rtt_samples)	/* a new one when it moves */ \
	__field(u16, loss_pm)	/* lost, per mille, average */	\
	__field(u16, mark_pm)	/* CE-marked, per mille, average */ \
	__field(u16, sport)					\
	__field(u8, path)					\
	__field(u8, state)	/* enum mrc_path_state */	\
	__field(u8, was_state)	/* before the change; ACK: state */ \
	__field(u8, fail_why)	/* enum mrc_path_fail, the last */ \
	__field(u16, was_sport)	/* before the change; ACK: sport */ \
)

#endif /* MRC_TRACE_FIELDS_H */
